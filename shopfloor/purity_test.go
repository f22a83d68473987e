package shopfloor_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The shop-floor builders are pure: order data in, bytes out. Reading state and
// storing the results is the worker's part, so no network, signing, Redis, queue or
// storage code may enter their dependency graph.
func TestBuildersHaveNoNetworkDependencies(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not on PATH; cannot list dependencies")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	exact := []string{"net", "net/http", "crypto/hmac", "crypto/tls", "github.com/printworker/printworker/storage", "github.com/printworker/printworker/hub"}
	prefixes := []string{"github.com/redis/", "github.com/hibiken/asynq", "github.com/aws/", "github.com/pkg/sftp"}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps lists %d packages; not a dependency graph:\n%s", len(deps), out)
	}
	for _, d := range deps {
		for _, f := range exact {
			if d == f {
				t.Errorf("shopfloor depends on %s", d)
			}
		}
		for _, p := range prefixes {
			if strings.HasPrefix(d, p) {
				t.Errorf("shopfloor depends on %s", d)
			}
		}
	}
}
