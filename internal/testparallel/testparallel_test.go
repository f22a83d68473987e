package testparallel_test

import (
	"flag"
	"os"
	"strconv"
	"testing"

	"github.com/printworker/printworker/internal/testparallel"
)

var before string

func TestMain(m *testing.M) {
	flag.Parse()
	before = flag.Lookup("test.parallel").Value.String()
	testparallel.AtLeast(64)
	os.Exit(m.Run())
}

// TestAtLeast: the binary's parallelism is raised to 64 unless -test.parallel was
// given, and never lowered.
func TestAtLeast(t *testing.T) {
	got := flag.Lookup("test.parallel").Value.String()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	b, _ := strconv.Atoi(before)
	switch {
	case given && got != before:
		t.Errorf("-test.parallel %s given, now %s: the command line must stand", before, got)
	case !given && b < 64 && got != "64":
		t.Errorf("-test.parallel %s, want raised to 64", got)
	case !given && b >= 64 && got != before:
		t.Errorf("-test.parallel %s lowered to %s", before, got)
	}
}
