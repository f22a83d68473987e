package hubsim

import (
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/printworker/printworker/hub"
)

// TestFaultFailFirst: the first N requests of every path fail, each path counted on
// its own, then the path works; SetFaults starts the count again.
func TestFaultFailFirst(t *testing.T) {
	s, ts := start(t, func(c *Config) { c.Faults = Faults{FailFirst: 3} })
	list := listReq()
	one := req{v: hub.V2023, method: "GET", path: hub.TemplatePath(hub.V2023, "no-such-template"), parts: []string{"no-such-template"}}
	var gotList, gotOne []int
	for range 5 {
		gotList = append(gotList, do(t, ts, list).status)
		gotOne = append(gotOne, do(t, ts, one).status)
	}
	want := []int{503, 503, 503, http.StatusOK, http.StatusOK}
	if !slices.Equal(gotList, want) {
		t.Errorf("list statuses %v, want %v", gotList, want)
	}
	if wantOne := []int{503, 503, 503, http.StatusNotFound, http.StatusNotFound}; !slices.Equal(gotOne, wantOne) {
		t.Errorf("second path's statuses %v, want %v (counted apart from the first)", gotOne, wantOne)
	}
	faults := 0
	for _, r := range s.Requests() {
		if r.Fault == string(faultFailFirst) {
			faults++
		}
	}
	if faults != 6 {
		t.Errorf("%d requests logged with the fail-first fault, want 6", faults)
	}
	if err := s.SetFaults(Faults{FailFirst: 1}); err != nil {
		t.Fatal(err)
	}
	if got := statuses(t, ts, 2); !slices.Equal(got, []int{503, http.StatusOK}) {
		t.Errorf("after SetFaults: %v, want the count to start again", got)
	}
	if err := s.SetFaults(Faults{FailFirst: -1}); err == nil {
		t.Error("a negative FailFirst was accepted")
	}
}

// TestFaultFailFirstBounded: made-up paths cannot grow the table without bound.
func TestFaultFailFirstBounded(t *testing.T) {
	in := newInjector(Faults{FailFirst: 1})
	for i := range maxFailFirstPaths + 10 {
		in.failFirst("/p/" + strconv.Itoa(i))
	}
	if n := len(in.perPath); n > maxFailFirstPaths {
		t.Fatalf("%d paths counted, cap %d", n, maxFailFirstPaths)
	}
	if in.failFirst("/one-more-path") {
		t.Error("a path beyond the cap was failed")
	}
}
