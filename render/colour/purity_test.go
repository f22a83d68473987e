package colour_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The colour engine is pure like the renderer that uses it: no network and no cgo
// anywhere in its dependency graph (the default build must need no C toolchain).
func TestColourIsPure(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not on PATH; cannot list dependencies")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}} {{if .CgoFiles}}cgo{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		switch {
		case f[0] == "net" || strings.HasPrefix(f[0], "net/") || f[0] == "crypto/tls":
			t.Errorf("render/colour depends on %s", f[0])
		case len(f) > 1 && f[0] != "runtime/cgo":
			t.Errorf("render/colour depends on cgo package %s", f[0])
		}
	}
}
