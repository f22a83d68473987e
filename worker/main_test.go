package worker_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no goroutine outlives the tests: a stopped worker leaves
// nothing running (asynq's server, the renderer's pipes, the limiter's waits).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
