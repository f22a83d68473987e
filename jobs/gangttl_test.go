package jobs_test

import (
	"context"
	"testing"

	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
)

// TestGangKeysExpireWhenIdle: a group's meta (batch counter, "since") has no expiry
// while designs are pending or a batch is open, and expires once the last batch is
// finished; the list of groups always expires.
func TestGangKeysExpireWhenIdle(t *testing.T) {
	t.Parallel()
	rdb := testredis.Start(t).Client(t)
	ctx := context.Background()
	gs := jobs.NewGangs(rdb, "")
	g := jobs.GangKey{Store: "s", Group: "dtf"}
	meta := "printworker:gang:{s/dtf}:meta"
	ttl := func(what, key string) int64 {
		t.Helper()
		d, err := rdb.PTTL(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: PTTL %s = %v", what, key, d)
		return int64(d) // go-redis: -1 for no expiry, -2 for no key
	}
	if _, err := gs.Add(ctx, g, "m1", gangEntry("1", 1)); err != nil {
		t.Fatal(err)
	}
	if got := ttl("pending", meta); got != -1 {
		t.Errorf("with a design pending the meta expires (PTTL %d)", got)
	}
	if got := ttl("after add", "printworker:gang:recent"); got <= 0 {
		t.Errorf("the group list has no expiry (%d)", got)
	}
	b, ok, err := gs.Claim(ctx, g, "2026-11-27", 10)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if got := ttl("batch open", meta); got != -1 {
		t.Errorf("with a batch open the meta expires (PTTL %d)", got)
	}
	if err := gs.Finish(ctx, g, b.N); err != nil {
		t.Fatal(err)
	}
	if got := ttl("idle", meta); got <= 0 {
		t.Errorf("an idle group's meta has no expiry (%d)", got)
	}
	if n, _ := rdb.HGet(ctx, meta, "n").Int(); n != 1 {
		t.Errorf("batch counter %d, want 1", n)
	}
	if _, err := gs.Add(ctx, g, "m2", gangEntry("2", 1)); err != nil {
		t.Fatal(err)
	}
	if got := ttl("pending again", meta); got != -1 {
		t.Errorf("a new pending design left the meta expiring (PTTL %d)", got)
	}
	if b, _, _ := gs.Claim(ctx, g, "2026-11-27", 10); b.N != 2 {
		t.Errorf("next batch %d, want 2", b.N)
	}
}

// TestGangGroupsMigrate: the plain set of groups older versions kept without expiry
// is moved into the expiring list on the first read, and deleted.
func TestGangGroupsMigrate(t *testing.T) {
	t.Parallel()
	rdb := testredis.Start(t).Client(t)
	ctx := context.Background()
	if err := rdb.SAdd(ctx, "printworker:gang:groups", "a/dtf", "b/mugs").Err(); err != nil {
		t.Fatal(err)
	}
	gs := jobs.NewGangs(rdb, "")
	groups, err := gs.Groups(ctx)
	if err != nil || len(groups) != 2 || groups[0] != (jobs.GangKey{Store: "a", Group: "dtf"}) || groups[1] != (jobs.GangKey{Store: "b", Group: "mugs"}) {
		t.Fatalf("groups %v, %v", groups, err)
	}
	if n, _ := rdb.Exists(ctx, "printworker:gang:groups").Result(); n != 0 {
		t.Error("the legacy set is still there")
	}
	if d, _ := rdb.PTTL(ctx, "printworker:gang:recent").Result(); d <= 0 {
		t.Errorf("the migrated list has no expiry (%v)", d)
	}
}
