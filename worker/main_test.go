package worker_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/printworker/printworker/internal/testparallel"
)

// TestMain checks that no goroutine outlives the tests: a stopped worker leaves
// nothing running (asynq's server, the renderer's pipes, the limiter's waits). The
// pipeline tests mostly wait on their own Redis, hub and S3 servers and on retries,
// so eight run at once (each has servers of its own).
func TestMain(m *testing.M) {
	testparallel.AtLeast(8)
	goleak.VerifyTestMain(m)
}
