package testdeps

import (
	"fmt"
	"strings"
	"testing"
)

// recorder keeps the errors Forbid reports instead of failing the test.
type recorder struct {
	*testing.T
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// Forbid reports a forbidden import path and a forbidden prefix, and nothing for
// what the package does not use.
func TestForbid(t *testing.T) {
	r := &recorder{T: t}
	Forbid(r, ".", "strings", "os/", "net/http")
	want := map[string]bool{". depends on strings": true, ". depends on os/exec": true}
	for _, e := range r.errs {
		// os/exec is the one os/ package here today; another os/ package it may
		// come to import is a right report too.
		if !want[e] && !strings.HasPrefix(e, ". depends on os/") {
			t.Errorf("unexpected report %q", e)
		}
		delete(want, e)
	}
	for w := range want {
		t.Errorf("missing report %q", w)
	}
}
