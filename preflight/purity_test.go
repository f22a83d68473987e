package preflight

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPure: the checker reads hostile files; no network code, process running or
// Redis may enter its dependency graph (docs/preflight.md).
func TestPure(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not on PATH; cannot list dependencies")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, d := range strings.Fields(string(out)) {
		deps[d] = true
	}
	for _, f := range []string{"net", "net/http", "os/exec", "crypto/tls", "github.com/printworker/printworker/hub", "github.com/redis/go-redis/v9"} {
		if deps[f] {
			t.Errorf("preflight depends on %s", f)
		}
	}
}
