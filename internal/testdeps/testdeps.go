// Package testdeps lets a test hold a package's dependency graph to what it promises:
// the pure packages (render, filenames, shopfloor, preflight, impose) keep network,
// Redis and queue code out, and a test names what may never enter.
package testdeps

import (
	"os/exec"
	"strings"
	"testing"
)

// Forbid fails t for every dependency of pkg (a path go list takes: ".", "./svg",
// "../filenames") that forbidden names: an import path, or a prefix ending in "/"
// ("github.com/redis/"). It skips when the go command is not on PATH.
func Forbid(t testing.TB, pkg string, forbidden ...string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not on PATH; cannot list dependencies")
	}
	out, err := exec.Command(goBin, "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatalf("go list -deps %s listed nothing", pkg)
	}
	for _, d := range deps {
		for _, f := range forbidden {
			if d == f || (strings.HasSuffix(f, "/") && strings.HasPrefix(d, f)) {
				t.Errorf("%s depends on %s", pkg, d)
			}
		}
	}
}
