package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/testredis"
)

// TestApplyStamp: the store order of one order's deliveries, step by step: newer and
// equal stamps apply, older ones are stale, a tombstone refuses live updates up to
// and including its stamp, a restore lifts it, and the key expires with the dedupe
// window.
func TestApplyStamp(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	rdb := rs.Client(t)
	s := NewState(rdb, "t", 0)
	ctx := context.Background()
	k := OrderKey{Store: "s", Domain: "d.example", OrderID: "o-1"}
	t0 := time.Date(2024, 3, 14, 13, 0, 0, 0, time.UTC)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	steps := []struct {
		name      string
		stamp     time.Time
		mode      StampMode
		applied   bool
		current   time.Time
		tombstone bool
	}{
		{"first update", at(10), StampLive, true, time.Time{}, false},
		{"same stamp again (a retry, a sibling topic)", at(10), StampLive, true, time.Time{}, false},
		{"older update", at(5), StampLive, false, at(10), false},
		{"newer update", at(20), StampLive, true, time.Time{}, false},
		{"older cancel", at(15), StampGone, false, at(20), false},
		{"cancel", at(30), StampGone, true, time.Time{}, false},
		{"late update", at(25), StampLive, false, at(30), true},
		{"update at the cancel's stamp", at(30), StampLive, false, at(30), true},
		{"the cancel again", at(30), StampGone, true, time.Time{}, false},
		{"restore", at(28), StampRestore, true, time.Time{}, false},
		{"update after the restore", at(40), StampLive, true, time.Time{}, false},
		{"restore older than a live update", at(35), StampRestore, false, at(40), false},
		{"a later cancel", at(50), StampGone, true, time.Time{}, false},
		{"a change after the cancel", at(60), StampLive, true, time.Time{}, false},
	}
	for _, st := range steps {
		v, err := s.ApplyStamp(ctx, k, st.stamp, st.mode, time.Hour)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if v.Applied != st.applied || !v.Current.Equal(st.current) || v.Tombstone != st.tombstone {
			t.Errorf("%s: %+v, want applied %v current %s tombstone %v", st.name, v, st.applied, st.current, st.tombstone)
		}
	}
	// Another order is independent.
	if v, err := s.ApplyStamp(ctx, OrderKey{Store: "s", Domain: "d.example", OrderID: "o-2"}, at(1), StampLive, time.Hour); err != nil || !v.Applied {
		t.Errorf("another order: %+v %v", v, err)
	}
	// One short string per order, living for the window given.
	key := s.stampKey(k)
	if v, err := rdb.Get(ctx, key).Result(); err != nil || v != "1710421260000" {
		t.Errorf("stored %q %v", v, err)
	}
	if ttl, err := rdb.PTTL(ctx, key).Result(); err != nil || ttl <= 0 || ttl > time.Hour {
		t.Errorf("ttl %s %v, want at most the window", ttl, err)
	}
	if _, err := s.ApplyStamp(ctx, k, at(1), "other", time.Hour); err == nil {
		t.Error("an unknown mode was taken")
	}
}
