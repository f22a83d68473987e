//go:build trial

package trials

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/printworker/printworker/gang"
	"github.com/printworker/printworker/gang/sheetjob"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
)

// gangKillRules gang the mugs' PNG views (design 1002) on a 22 in roll at their
// 150 dpi, with labels, cut marks and a PDF.
const gangKillRules = `{"gangs": {"mugs": {"width": "22in", "dpi": 150, "maxLength": "2m", "labels": true, "cutMarks": true, "pdf": true}},
"rules": [{"name": "mugs", "match": {"product": "mug-11oz", "type": "png"}, "gang": "mugs"}]}`

// gangTrial runs orders through real worker processes and a gang build of their mugs;
// kill, when set, SIGKILLs the builder while storage holds the sheet PNG's upload
// unanswered, then starts another worker. It returns the group's objects by key
// without the date folder (a batch's date is its claim day) and the copies wanted.
func gangTrial(t *testing.T, bin string, kill bool) (map[string][]byte, map[string]int) {
	f := newProcessFixture(t, "gang", 0)
	hs := httptest.NewServer(f.sim)
	defer hs.Close()
	rules := filepath.Join(t.TempDir(), "rules.json")
	if err := os.WriteFile(rules, []byte(gangKillRules), 0o644); err != nil {
		t.Fatal(err)
	}
	const orders = 10
	f.enqueueOrders(t, "K", orders)
	// enqueueOrders' mixes: order i has mixes[i%5] as lines, each of quantity 1+i%3.
	mixes := [][]int64{{1001}, {1002, 1003}, {1003}, {1002}, {1001, 1002}}
	want := map[string]int{}
	for i := range orders {
		for li, d := range mixes[i%len(mixes)] {
			if d == 1002 {
				for _, v := range []string{"left", "right"} {
					want[fmt.Sprintf("K-%03d|L%d|%s", i, li+1, v)] = 1 + i%3
				}
			}
		}
	}
	sheetPut := func(r *http.Request) bool {
		return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/gang/mugs/") &&
			strings.HasSuffix(r.URL.Path, ".png") && !strings.HasSuffix(r.URL.Path, "-preview.png")
	}
	proxy := newHoldingProxy(t, f.s3.Endpoint, sheetPut)
	args := f.workArgs(hs.URL, "--concurrency", "2", "--hub-rate-per-minute", "0", "--mode", "download", "--routing-rules", rules,
		"--gang-lease", "3s", "--retry-base", "200ms", "--retry-max", "2s", "--metrics-addr", "", "--log-format", "json")
	if kill {
		for i, a := range args {
			if a == "--s3-endpoint" {
				args[i+1] = proxy.URL
			}
		}
	}
	w := startFleetWorker(t, bin, "first worker", args)
	waitUntil(t, 3*time.Minute, "every manifest", func() { w.dumpLog(t) }, func() bool { return f.manifests(t) >= orders })
	ctx := context.Background()
	g := jobs.GangKey{Store: f.store, Group: "mugs"}
	if _, err := f.enq.GangBuild(ctx, g, jobs.GangManual, 1); err != nil {
		t.Fatal(err)
	}
	gs := jobs.NewGangs(f.rdb, "")
	if kill {
		select {
		case key := <-proxy.held:
			if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-w.exited
			proxy.release()
			t.Logf("killed the builder while storage read %s", key)
			if _, err := f.st.Stat(ctx, key); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("after the kill %s is visible (%v), want nothing under the key", key, err)
			}
			if st, err := gs.Status(ctx, g); err != nil || len(st.Open) != 1 || len(st.Pending) != 0 {
				t.Errorf("after the kill: open batches %v, pending %d (%v); want the claimed batch open", st.Open, len(st.Pending), err)
			}
		case <-time.After(2 * time.Minute):
			w.dumpLog(t)
			t.Fatal("the sheet upload never came")
		}
		w = startFleetWorker(t, bin, "second worker", args)
	}
	waitUntil(t, 4*time.Minute, "the batch built", func() { w.dumpLog(t) }, func() bool {
		st, err := gs.Status(ctx, g)
		return err == nil && st.Batches == 1 && len(st.Open) == 0 && len(st.Pending) == 0
	})
	if err := w.stop(t, 30*time.Second, func() { w.dumpLog(t) }); err != nil {
		t.Errorf("worker exit: %v", err)
	}
	objs, err := f.st.List(ctx, f.store+"/gang/mugs/")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, o := range objs {
		parts := strings.Split(o.Key, "/")
		out[parts[len(parts)-1]] = readObject(t, f.st, o.Key)
	}
	// Each order with mugs names the sheet in its gang.json.
	for i := range orders {
		id := fmt.Sprintf("K-%03d", i)
		if want[id+"|L1|left"]+want[id+"|L2|left"] == 0 {
			continue
		}
		var rec sheetjob.Record
		if err := json.Unmarshal(readObject(t, f.st, f.store+"/2024-07-01/"+storage.OrderFolderValue(id, f.domain)+"/gang.json"), &rec); err != nil {
			t.Fatal(err)
		}
		for _, fr := range rec.Files {
			if len(fr.Sheets) != 1 || fr.Sheets[0].Copies != fr.Quantity || !strings.HasSuffix(fr.Sheets[0].Image, "sheet-000001-01.png") {
				t.Errorf("%s gang.json: %s on %+v", id, fr.Key, fr.Sheets)
			}
		}
	}
	return out, want
}

// TestGangBuilderKilled: the builder is killed while its sheet is being uploaded. The
// sheet key holds nothing after the kill; the next worker rebuilds the claimed batch,
// every copy lands on exactly one sheet, and the sheet, its manifest, preview and PDF
// are byte-identical to an uninterrupted build of the same orders.
func TestGangBuilderKilled(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fault trial: builds the binary, kills a builder, waits for lease recovery (about 2 min)")
	}
	bin := buildPrintworker(t)
	ref, want := gangTrial(t, bin, false)
	got, _ := gangTrial(t, bin, true)
	var m gang.Manifest
	if err := json.Unmarshal(got["sheet-000001-01.json"], &m); err != nil {
		t.Fatalf("sheet manifest: %v (objects %d)", err, len(got))
	}
	seen := map[string]int{}
	for _, c := range m.Copies {
		seen[fmt.Sprintf("%s|L%d|%s|%d/%d", c.OrderID, c.Line, c.View, c.Copy, c.Of)]++
	}
	for who, q := range want {
		for n := 1; n <= q; n++ {
			if k := fmt.Sprintf("%s|%d/%d", who, n, q); seen[k] != 1 {
				t.Errorf("copy %s on the sheet %d times, want 1", k, seen[k])
			}
		}
	}
	if len(m.Copies) != sumValues(want) {
		t.Errorf("%d copies on the sheet, want %d", len(m.Copies), sumValues(want))
	}
	for _, name := range []string{"sheet-000001-01.png", "sheet-000001-01.json", "sheet-000001-01-preview.png", "sheet-000001-01.pdf"} {
		if len(ref[name]) == 0 || string(ref[name]) != string(got[name]) {
			t.Errorf("%s: rebuilt %d bytes, uninterrupted %d bytes: not identical", name, len(got[name]), len(ref[name]))
		}
	}
	if len(got) != len(ref) {
		t.Errorf("objects after the kill %d, uninterrupted %d", len(got), len(ref))
	}
}

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
