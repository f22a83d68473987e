package imposejob

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gofpdf "codeberg.org/go-pdf/fpdf"

	"github.com/printworker/printworker/impose"
	"github.com/printworker/printworker/internal/testctx"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
)

// dirStorage is a hot folder (storage.Dir) as the jobs see it; crash, when set, ends
// every Put from its chosen check on: the builder dies at that write.
type dirStorage struct {
	d     *storage.Dir
	crash *testctx.Counting
}

func (s dirStorage) Put(ctx context.Context, _ string, obj storage.Object, body io.Reader) error {
	if s.crash != nil {
		if err := s.crash.Err(); err != nil {
			return err
		}
	}
	_, err := s.d.Put(ctx, obj, body)
	return err
}

func (s dirStorage) Get(ctx context.Context, _, key string) (io.ReadCloser, error) {
	rc, _, err := s.d.Get(ctx, key)
	return rc, err
}

// item is a one-page 50 x 30 mm label with 2 mm bleed, its name on it.
func item(t *testing.T, name string) []byte {
	t.Helper()
	pdf := gofpdf.NewCustom(&gofpdf.InitType{UnitStr: "mm", Size: gofpdf.SizeType{Wd: 54, Ht: 34}})
	pdf.AddPage()
	pdf.SetPageBox("trim", 2, 2, 50, 30)
	pdf.SetPageBox("bleed", 0, 0, 54, 34)
	pdf.SetFillColor(230, 200, 120)
	pdf.Rect(0, 0, 54, 34, "F")
	pdf.SetFont("Helvetica", "", 10)
	pdf.Text(6, 12, name)
	var b bytes.Buffer
	if err := pdf.Output(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestBuildSurvivesCrash: orders routed to an imposition group become sheets, every
// copy on exactly one sheet. For every write of a build, a builder that dies there
// (its storage refusing from that write on, via testctx) loses nothing: the next
// build finishes the same batch.
func TestBuildSurvivesCrash(t *testing.T) {
	t.Parallel()
	rdb := testredis.Start(t).Client(t)
	tpl, err := impose.ParseTemplate(strings.NewReader(`{"sheet": {"width_mm": 210, "height_mm": 297}, "margin_mm": 8, "gutter_mm": 6, "order": "cut-stack"}`))
	if err != nil {
		t.Fatal(err)
	}
	grp := &Group{Name: "labels-a4", Template: tpl, Prefix: "press", FullCopies: 12}
	now := func() time.Time { return time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC) }
	// Three orders of two lines each, quantities 1 to 3: 12 copies.
	type line struct {
		order string
		n, q  int
	}
	lines := []line{{"1001", 1, 2}, {"1001", 2, 1}, {"1002", 1, 3}, {"1002", 2, 2}, {"1003", 1, 1}, {"1003", 2, 3}}
	setup := func(t *testing.T, store string) (*Jobs, *storage.Dir, string) {
		root := t.TempDir()
		d, err := storage.NewDir(root)
		if err != nil {
			t.Fatal(err)
		}
		j := New(Config{Gangs: jobs.NewGangs(rdb, ""), Storage: dirStorage{d: d}, Now: now})
		for i, l := range lines {
			dir := store + "/2026-11-29/" + l.order
			key := fmt.Sprintf("%s/line%d.pdf", dir, l.n)
			data := item(t, key)
			if _, err := d.Put(context.Background(), storage.Object{Key: key, Size: int64(len(data))}, bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
			k := jobs.OrderKey{Store: store, Domain: "shop.example", OrderID: l.order}
			e := jobs.GangEntry{OrderKey: k, Key: key, Line: l.n, Quantity: l.q, OrderDir: dir}
			added, full, err := j.Add(context.Background(), store, grp, jobs.GangMember(k, "ref", 1, "front", l.n), e)
			if err != nil || !added {
				t.Fatalf("add %s: %v %v", key, added, err)
			}
			if full != (i == len(lines)-1) {
				t.Errorf("add %d: full %v, want it once the 12th copy is pending", i, full)
			}
		}
		return j, d, root
	}
	// check reads the orders' records and the batches' impose.json from the folder.
	check := func(t *testing.T, root, store string) {
		t.Helper()
		copies := map[string]int{} // item key -> copies recorded for its order
		var sheets []string
		err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			switch {
			case strings.HasPrefix(filepath.Base(p), "impose-labels-a4-"):
				var rec Record
				b, _ := os.ReadFile(p)
				if err := json.Unmarshal(b, &rec); err != nil {
					return err
				}
				for _, f := range rec.Files {
					if f.Rejected != "" {
						t.Errorf("%s rejected: %s", f.Key, f.Rejected)
					}
					seen := map[int]bool{}
					for _, pl := range f.Placements {
						if seen[pl.Copy] {
							t.Errorf("%s copy %d recorded twice", f.Key, pl.Copy)
						}
						seen[pl.Copy] = true
					}
					copies[f.Key] += len(f.Placements)
				}
			case filepath.Base(p) == "sheets.pdf":
				sheets = append(sheets, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			key := fmt.Sprintf("%s/2026-11-29/%s/line%d.pdf", store, l.order, l.n)
			if copies[key] != l.q {
				t.Errorf("%s: %d copies on sheets, want %d", key, copies[key], l.q)
			}
		}
		want := []string{"press/" + store + "/impose/labels-a4/2026-11-29/batch-000001/sheets.pdf"}
		if fmt.Sprint(sheets) != fmt.Sprint(want) {
			t.Errorf("sheets %v, want %v", sheets, want)
		}
		var res impose.Result
		b, err := os.ReadFile(filepath.Join(root, "press", store, "impose/labels-a4/2026-11-29/batch-000001/impose.json"))
		if err != nil || json.Unmarshal(b, &res) != nil || len(res.Placements) != 12 {
			t.Errorf("batch impose.json: %d placements (%v), want 12", len(res.Placements), err)
		}
		if _, err := os.Stat(filepath.Join(root, "press", store, "impose/labels-a4/2026-11-29/batch-000001/ticket.txt")); err != nil {
			t.Errorf("batch ticket: %v", err)
		}
	}

	// A build that does not crash: the writes it makes, counted.
	j, d, root := setup(t, "store-ok")
	counter := testctx.CancelAt(1 << 62)
	j.cfg.Storage = dirStorage{d: d, crash: counter}
	if n, err := j.Build(context.Background(), "store-ok", grp); err != nil || n != 1 {
		t.Fatalf("build: %d batches, %v", n, err)
	}
	check(t, root, "store-ok")
	writes := counter.Calls()
	if writes < 4 {
		t.Fatalf("%d writes: sheets, impose.json, ticket and one record per order expected", writes)
	}
	// Nothing left: a second build finds nothing.
	if n, err := j.Build(context.Background(), "store-ok", grp); err != nil || n != 0 {
		t.Errorf("rebuild: %d batches, %v", n, err)
	}

	for at := int64(1); at <= writes; at++ {
		t.Run(fmt.Sprint("crash at write ", at), func(t *testing.T) {
			store := fmt.Sprintf("store-crash-%d", at)
			j, d, root := setup(t, store)
			j.cfg.Storage = dirStorage{d: d, crash: testctx.CancelAt(at)}
			if _, err := j.Build(context.Background(), store, grp); !errors.Is(err, context.Canceled) {
				t.Fatalf("crashing build: %v", err)
			}
			j.cfg.Storage = dirStorage{d: d}
			if n, err := j.Build(context.Background(), store, grp); err != nil || n != 1 {
				t.Fatalf("build after the crash: %d batches, %v", n, err)
			}
			check(t, root, store)
		})
	}
}
