package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/gang"
	"github.com/printworker/printworker/gang/sheetjob"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// gangTestRules gang the mugs' PNG views (design 1002, two 150 dpi views) on fixed
// 22 x 12 in sheets: small enough that a few orders fill one, so a fill build runs
// on its own.
const gangTestRules = `{"gangs": {
  "mugs": {"width": "22in", "dpi": 150, "gap": "4mm", "margin": "5mm", "maxLength": "12in", "sheets": true,
           "labels": true, "cutMarks": true, "pdf": true, "previewWidth": 300, "cutoff": "every 2h", "prefix": "sheets"}
},
"rules": [{"name": "mugs", "match": {"product": "mug-11oz", "type": "png"}, "gang": "mugs"}]}`

func withGangs(t *testing.T, doc string) envOption {
	return func(c *worker.Config, _ *worker.Deps) {
		r := mustRules(t, doc)
		c.Routing, c.Gangs = r, r
		c.GangLease = 2 * time.Second
		c.GangTick = time.Hour // the test calls EnqueueCutoffs itself
	}
}

// sheetSet is what a group's sheets say, read back from storage.
type sheetSet struct {
	manifests map[string]gang.Manifest // key of the .json -> manifest
	objects   map[string]bool
}

func readSheets(t *testing.T, st lister, prefix string) sheetSet {
	t.Helper()
	infos, err := st.List(context.Background(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	s := sheetSet{manifests: map[string]gang.Manifest{}, objects: map[string]bool{}}
	for _, in := range infos {
		s.objects[in.Key] = true
		if !strings.HasSuffix(in.Key, ".json") {
			continue
		}
		var m gang.Manifest
		if err := json.Unmarshal(getAll(t, st, in.Key), &m); err != nil {
			t.Fatalf("%s: %v", in.Key, err)
		}
		s.manifests[in.Key] = m
	}
	return s
}

func getAll(t *testing.T, st lister, key string) []byte {
	t.Helper()
	rc, _, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	defer rc.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(rc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// waitGangIdle waits until the gang queue has nothing pending, active or retrying.
func (e *env) waitGangIdle() {
	e.t.Helper()
	deadline := time.Now().Add(waitBound)
	for {
		info, err := jobs.ReadQueueStats(context.Background(), e.rdb, jobs.QueueGang, time.Now())
		if err == nil && info.Busy() == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("gang queue not idle: %+v %v", info, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkExactlyOnce: every copy of every (order, line, view) of want is on exactly
// one sheet, copy n of N once for each n; nothing else is on a sheet.
func checkExactlyOnce(t *testing.T, s sheetSet, want map[string]int) {
	t.Helper()
	got := map[string]int{}
	for key, m := range s.manifests {
		if !s.objects[strings.TrimSuffix(key, ".json")+".png"] {
			t.Errorf("%s: no sheet PNG", key)
		}
		for _, c := range m.Copies {
			got[fmt.Sprintf("%s|L%d|%s|%d/%d", c.OrderID, c.Line, c.View, c.Copy, c.Of)]++
		}
		if len(m.Rejected) > 0 {
			t.Errorf("%s: rejected %+v", key, m.Rejected)
		}
	}
	for who, qty := range want {
		for n := 1; n <= qty; n++ {
			k := fmt.Sprintf("%s|%d/%d", who, n, qty)
			if got[k] != 1 {
				t.Errorf("copy %s on %d sheets, want 1", k, got[k])
			}
			delete(got, k)
		}
	}
	for k, n := range got {
		t.Errorf("unexpected copy %s on %d sheets", k, n)
	}
}

// TestGangSheetsS3: orders whose mugs a rule gangs end on sheets, through S3: the
// full sheet is built by itself (fill), the rest at the cut-off; every copy is on
// exactly one sheet, each order's gang.json names the sheets of its files, and an
// exported design's sheet pixels are its file's.
func TestGangSheetsS3(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withGangs(t, gangTestRules))
	e.start()
	ctx := context.Background()
	orders := map[string][]int64{"G-1": {1002}, "G-2": {1001, 1002}, "G-3": {1003, 1002}, "G-4": {1002, 1003}, "G-5": {1002}}
	want := map[string]int{}
	for id, ds := range orders {
		if _, err := e.enq.ExportOrder(ctx, store, e.order(id, ds...)); err != nil {
			t.Fatal(err)
		}
		for i, d := range ds {
			if d == 1002 {
				want[fmt.Sprintf("%s|L%d|left", id, i+1)] = i + 2
				want[fmt.Sprintf("%s|L%d|right", id, i+1)] = i + 2
			}
		}
	}
	for id := range orders {
		m := e.manifest(id, 1)
		for _, f := range m.Files {
			if (f.DesignID == 1002) != (f.Gang == "mugs") {
				t.Errorf("%s: file %s gang %q", id, f.Key, f.Gang)
			}
		}
	}
	e.waitGangIdle()
	gs := jobs.NewGangs(e.rdb, "")
	g := jobs.GangKey{Store: store, Group: "mugs"}
	st, err := gs.Status(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	if st.Batches == 0 {
		t.Errorf("no fill build ran: %d designs pending", len(st.Pending))
	}
	// Not due yet; then the cut-off: the rest, once however often asked.
	if n, err := e.w.EnqueueCutoffs(ctx, time.Now()); n != 0 || err != nil {
		t.Errorf("cut-off before due: %d, %v", n, err)
	}
	if len(st.Pending) > 0 {
		for range 3 {
			if n, err := e.w.EnqueueCutoffs(ctx, time.Now().Add(3*time.Hour)); n != 1 || err != nil {
				t.Errorf("cut-off: %d, %v", n, err)
			}
		}
	}
	e.waitGangIdle()
	st, _ = gs.Status(ctx, g)
	if len(st.Pending) != 0 || len(st.Open) != 0 {
		t.Fatalf("after the cut-off: %d pending, open batches %v", len(st.Pending), st.Open)
	}
	sheets := readSheets(t, e.store, "sheets/"+store+"/gang/mugs/")
	checkExactlyOnce(t, sheets, want)

	// Each order's gang.json: every ganged file with the sheets holding all its copies.
	sheetsOf := map[string][]string{}
	for id := range orders {
		var rec sheetjob.Record
		if err := json.Unmarshal(e.object(orderDir(id)+"/gang.json"), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.OrderID != id || len(rec.Files) != 2 {
			t.Errorf("%s gang.json: %+v", id, rec)
		}
		for _, f := range rec.Files {
			copies := 0
			for _, s := range f.Sheets {
				copies += s.Copies
				m, ok := sheets.manifests[s.Manifest]
				if !ok || !strings.HasSuffix(s.Image, ".png") || m.Image != s.Image[strings.LastIndex(s.Image, "/")+1:] {
					t.Errorf("%s: %s names sheet %+v, not stored", id, f.Key, s)
				}
				sheetsOf[f.Key] = append(sheetsOf[f.Key], s.Image)
			}
			if copies != f.Quantity || f.Group != "mugs" || f.Rejected != "" {
				t.Errorf("%s: %s on sheets with %d copies, quantity %d: %+v", id, f.Key, copies, f.Quantity, f)
			}
		}
	}
	if len(sheets.manifests) < 2 {
		t.Errorf("%d sheets; the fill and the cut-off should make at least 2", len(sheets.manifests))
	}
	// Pixels: an unturned copy on its sheet holds its file's trimmed pixels.
	checked := false
	for key, m := range sheets.manifests {
		img, err := png.Decode(bytes.NewReader(getAll(t, e.store, strings.TrimSuffix(key, ".json")+".png")))
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if b := img.Bounds(); b.Dx() != m.WidthPx || b.Dy() != m.LengthPx {
			t.Errorf("%s: %v, manifest %dx%d", key, b, m.WidthPx, m.LengthPx)
		}
		for _, c := range m.Copies {
			if c.Rotation != 0 || checked {
				continue
			}
			src, err := png.Decode(bytes.NewReader(e.object(c.File)))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []image.Point{{0, 0}, {c.WPx / 2, c.HPx / 2}, {c.WPx - 1, c.HPx - 1}} {
				a := img.At(c.XPx+p.X, c.YPx+p.Y)
				b := src.At(c.Src[0]+p.X, c.Src[1]+p.Y)
				ar, ag, ab, aa := a.RGBA()
				br, bg, bb, ba := b.RGBA()
				if aa != ba || (aa != 0 && (ar != br || ag != bg || ab != bb)) {
					t.Errorf("%s copy of %s at %v: %v, file %v", key, c.File, p, a, b)
				}
			}
			checked = true
		}
		for _, suffix := range []string{"-preview.png", ".pdf"} {
			if !sheets.objects[strings.TrimSuffix(key, ".json")+suffix] {
				t.Errorf("%s: no %s", key, suffix)
			}
		}
	}
	if !checked {
		t.Error("no unturned copy to compare")
	}
	keys := make([]string, 0, len(sheetsOf))
	for k := range sheetsOf {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("%d sheets; files on sheets: %d", len(sheets.manifests), len(keys))
}

// TestGangRacingBuilders: two workers on one Redis and storage, each asked to build
// the same group at once (fill, cut-off and manual tasks): one batch is built, every
// copy once, and the other builders find nothing left.
func TestGangRacingBuilders(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir, err := storage.NewDir(root)
	if err != nil {
		t.Fatal(err)
	}
	const rules = `{"gangs": {"mugs": {"width": "22in", "dpi": 150, "maxLength": "2m"}},
"rules": [{"match": {"product": "mug-11oz", "type": "png"}, "gang": "mugs"}]}`
	withDir := func(_ *worker.Config, d *worker.Deps) { d.Storage = dir }
	e := newEnv(t, withGangs(t, rules), withDir)
	e.start()
	ctx := context.Background()
	want := map[string]int{}
	for _, id := range []string{"R-1", "R-2", "R-3"} {
		if _, err := e.enq.ExportOrder(ctx, store, e.order(id, 1002)); err != nil {
			t.Fatal(err)
		}
		want[id+"|L1|left"], want[id+"|L1|right"] = 2, 2
	}
	for _, id := range []string{"R-1", "R-2", "R-3"} {
		e.manifest2(dir, id)
	}
	// A second worker on the same Redis and storage.
	e2 := newEnv(t, withGangs(t, rules), withDir, func(_ *worker.Config, d *worker.Deps) { d.Redis = e.rdb })
	e2.start()
	g := jobs.GangKey{Store: store, Group: "mugs"}
	for i, reason := range []string{jobs.GangManual, jobs.GangCutoff, jobs.GangFull, jobs.GangManual} {
		if _, err := e.enq.GangBuild(ctx, g, reason, int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	e.waitGangIdle()
	st, err := jobs.NewGangs(e.rdb, "").Status(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	if st.Batches != 1 || len(st.Pending) != 0 || len(st.Open) != 0 {
		t.Errorf("batches %d, pending %d, open %v; want one batch built", st.Batches, len(st.Pending), st.Open)
	}
	sheets := readSheets(t, dir, store+"/gang/mugs/")
	if len(sheets.manifests) != 1 {
		t.Errorf("%d sheets, want 1: %v", len(sheets.manifests), sheets.objects)
	}
	checkExactlyOnce(t, sheets, want)
}

// manifest2 waits for an order's manifest in a hot folder.
func (e *env) manifest2(dir *storage.Dir, id string) {
	e.t.Helper()
	key := orderDir(id) + "/manifest.json"
	deadline := time.Now().Add(waitBound)
	for {
		if _, err := dir.Stat(context.Background(), key); err == nil {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("manifest %s not written; %s", key, e.queueReport())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestGangNothingFits: designs wider than the roll either way are left off with the
// reason in each order's gang.json; no sheet is written, the batch ends and the build
// is not retried.
func TestGangNothingFits(t *testing.T) {
	t.Parallel()
	const rules = `{"gangs": {"narrow": {"width": "1in", "dpi": 150, "gap": "1mm", "margin": "1mm", "maxLength": "1in", "sheets": true}},
"rules": [{"match": {"product": "mug-11oz", "type": "png"}, "gang": "narrow"}]}`
	e := newEnv(t, withGangs(t, rules))
	e.start()
	ctx := context.Background()
	if _, err := e.enq.ExportOrder(ctx, store, e.order("N-1", 1002)); err != nil {
		t.Fatal(err)
	}
	e.manifest("N-1", 1)
	g := jobs.GangKey{Store: store, Group: "narrow"}
	if _, err := e.enq.GangBuild(ctx, g, jobs.GangManual, 1); err != nil {
		t.Fatal(err)
	}
	e.waitGangIdle()
	var rec sheetjob.Record
	if err := json.Unmarshal(e.object(orderDir("N-1")+"/gang.json"), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Files) != 2 {
		t.Fatalf("gang.json files %+v", rec.Files)
	}
	for _, f := range rec.Files {
		if !strings.Contains(f.Rejected, "fits neither way") || len(f.Sheets) != 0 {
			t.Errorf("%s: rejected %q, sheets %v", f.Key, f.Rejected, f.Sheets)
		}
	}
	if infos, err := e.store.List(ctx, store+"/gang/"); err != nil || len(infos) != 0 {
		t.Errorf("sheet objects %v, %v", infos, err)
	}
	st, _ := jobs.NewGangs(e.rdb, "").Status(ctx, g)
	info, err := jobs.ReadQueueStats(ctx, e.rdb, jobs.QueueGang, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if st.Batches != 1 || len(st.Open) != 0 || info.Archived != 0 || info.Retry != 0 {
		t.Errorf("batches %d open %v; queue %+v", st.Batches, st.Open, info)
	}
}
