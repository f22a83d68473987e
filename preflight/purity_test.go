package preflight

import (
	"testing"

	"github.com/printworker/printworker/internal/testdeps"
)

// TestPure: the checker reads hostile files; no network code, process running or
// Redis may enter its dependency graph (docs/preflight.md).
func TestPure(t *testing.T) {
	t.Parallel()
	testdeps.Forbid(t, ".", "net", "net/http", "os/exec", "crypto/tls",
		"github.com/printworker/printworker/hub", "github.com/redis/")
}
