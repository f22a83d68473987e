package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
)

// TestGangPendingCommand: `gang --group` prints the layout of a group's pending
// designs with --dry-run, enqueues one manual build without it, and refuses an
// incomplete or mixed command line.
func TestGangPendingCommand(t *testing.T) {
	rs := testredis.Start(t)
	rdb := rs.Client(t)
	rules := filepath.Join(t.TempDir(), "rules.json")
	doc := `{"gangs": {"mugs": {"width": "22in", "dpi": 150}}, "rules": [{"match": {"type": "png"}, "gang": "mugs"}]}`
	if err := os.WriteFile(rules, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g := jobs.GangKey{Store: "store-1", Group: "mugs"}
	for i, o := range []string{"1001", "1002"} {
		e := jobs.GangEntry{OrderKey: jobs.OrderKey{Store: "store-1", Domain: "d", OrderID: o}, Key: "store-1/x/" + o + "/a.png",
			Line: 1, DesignID: 7, View: "front", Quantity: i + 2, DPI: 150, WidthPx: 600, HeightPx: 300}
		if _, err := jobs.NewGangs(rdb, "").Add(ctx, g, jobs.GangMember(e.OrderKey, "7.t", 0, "front", 1), e); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"gang", "--group", "mugs", "--store", "store-1", "--routing-rules", rules, "--redis-url", rs.URL()}
	out, stderr, err := runCLI(t, nil, append(base, "--dry-run")...)
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, stderr)
	}
	for _, want := range []string{"gang store-1/mugs: 2 design file(s) pending", "sheet-001: 3300 x ", "5 copies", "order 1001 line 1", "copy 3/3"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}
	out, stderr, err = runCLI(t, nil, base...)
	if err != nil || !strings.Contains(out, "enqueued gang:store-1/mugs:manual:") {
		t.Fatalf("build now: %v\n%s%s", err, out, stderr)
	}
	tasks, err := asynq.NewInspectorFromRedisClient(rdb).ListPendingTasks(jobs.QueueGang)
	if err != nil || len(tasks) != 1 || tasks[0].Type != jobs.TypeGangBuild {
		t.Errorf("gang queue: %v, %v", tasks, err)
	}
	for _, bad := range [][]string{
		{"gang", "--group", "mugs", "--routing-rules", rules},
		{"gang", "--group", "mugs", "--store", "s", "--dir", "x", "--routing-rules", rules},
		{"gang", "--group", "mugs", "--store", "s"},
		{"gang", "--group", "cups", "--store", "s", "--routing-rules", rules},
	} {
		if _, _, err := runCLI(t, nil, bad...); exitCode(err) != 2 {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
}
