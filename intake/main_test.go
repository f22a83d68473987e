package intake_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The intake starts no goroutine of its own; every test's server, Redis client and
// enqueuer must be gone when it ends.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
