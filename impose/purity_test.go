package impose

import (
	"testing"

	"github.com/printworker/printworker/internal/testdeps"
)

// TestPure: impose takes bytes and writes bytes; network, Redis, queue and storage
// code stay out of its dependencies (docs/architecture.md).
func TestPure(t *testing.T) {
	t.Parallel()
	testdeps.Forbid(t, ".", "net", "net/http", "github.com/printworker/printworker/storage",
		"github.com/printworker/printworker/hub", "github.com/printworker/printworker/jobs",
		"github.com/redis/", "github.com/hibiken/")
}
