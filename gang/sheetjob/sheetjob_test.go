package sheetjob

import (
	"errors"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/printworker/printworker/gang"
)

type groups map[string]*gang.Group

func (g groups) Gang(name string) (*gang.Group, bool) { x, ok := g[name]; return x, ok }
func (g groups) Gangs() []*gang.Group {
	var out []*gang.Group
	for _, x := range g {
		out = append(out, x)
	}
	return out
}

// TestGroupLookup: a group the rules do not define is a permanent error (a retry
// cannot define it); cut-offs are scheduled only when a group has one; a busy
// builder's error is retried after a quarter of the lease without being a failure.
// The jobs themselves run in worker/gang_test.go, with a real Redis and storage.
func TestGroupLookup(t *testing.T) {
	j := New(Config{Groups: groups{"dtf": {Name: "dtf"}}})
	if g, err := j.Group("dtf"); err != nil || g.Name != "dtf" {
		t.Fatalf("Group(dtf) = %v, %v", g, err)
	}
	_, err := j.Group("nope")
	var r interface{ Retryable() bool }
	if !errors.As(err, &r) || r.Retryable() {
		t.Fatalf("Group(nope) = %v: want a permanent error", err)
	}
	if j.HasCutoffs() || New(Config{}).HasCutoffs() {
		t.Error("cut-offs without a schedule")
	}
	if !New(Config{Groups: groups{"dtf": {Name: "dtf"}, "st": {Name: "st", Schedule: cron.Every(time.Hour)}}}).HasCutoffs() {
		t.Error("a group's cut-off not seen")
	}
	if j.cfg.Lease != DefaultLease || j.cfg.Tick != DefaultTick {
		t.Errorf("defaults: lease %s tick %s", j.cfg.Lease, j.cfg.Tick)
	}
	busy := &BusyError{after: time.Minute}
	if !busy.Retryable() || busy.RetryAfter() != time.Minute {
		t.Error("busy error")
	}
}
