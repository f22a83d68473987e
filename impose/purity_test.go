package impose

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestPure: impose takes bytes and writes bytes; network, Redis, queue and storage
// code stay out of its dependencies (docs/architecture.md).
func TestPure(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/phpdave11/gofpdi") {
		t.Fatalf("not a dependency graph:\n%s", out)
	}
	banned := []string{"net", "net/http", "github.com/printworker/printworker/storage", "github.com/printworker/printworker/hub", "github.com/printworker/printworker/jobs"}
	for _, d := range deps {
		if slices.Contains(banned, d) || strings.HasPrefix(d, "github.com/redis/") || strings.HasPrefix(d, "github.com/hibiken/") {
			t.Errorf("impose depends on %s", d)
		}
	}
}
