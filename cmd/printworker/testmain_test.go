package main

import (
	"os"
	"testing"

	"github.com/printworker/printworker/internal/testparallel"
)

// TestMain runs eight tests at once: most of them wait on servers and Redis more
// than they compute.
func TestMain(m *testing.M) {
	testparallel.AtLeast(8)
	os.Exit(m.Run())
}
