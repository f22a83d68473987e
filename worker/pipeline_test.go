package worker_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"image/png"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/printworker/printworker/internal/printcheck"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/worker"
)

// checkFile verifies one listed file against the stored object: bytes, sha256, and
// that it is a valid file of its type (PNG decodes, PDF passes qpdf --check).
func (e *env) checkFile(f worker.FileRecord) {
	e.t.Helper()
	b := e.object(f.Key)
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != f.SHA256 || int64(len(b)) != f.Bytes {
		e.t.Errorf("%s: stored %d bytes sha256 %s, manifest says %d bytes %s", f.Key, len(b), got, f.Bytes, f.SHA256)
	}
	printcheck.File(e.t, f.Key, f.Type, b)
	// The manifest's link opens the same bytes without credentials (the test bucket
	// allows anonymous reads, as a bucket behind --s3-public-url would).
	if f.URL == "" {
		e.t.Errorf("%s: manifest has no link", f.Key)
	} else if resp, err := http.Get(f.URL); err != nil {
		e.t.Errorf("%s: GET %s: %v", f.Key, f.URL, err)
	} else {
		linked, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Equal(linked, b) {
			e.t.Errorf("%s: GET %s: %s, %d bytes, want the stored %d bytes", f.Key, f.URL, resp.Status, len(linked), len(b))
		}
	}
	if f.Type == model.ExportPNG && f.WidthPx > 0 {
		if c, err := png.DecodeConfig(bytes.NewReader(b)); err == nil && (c.Width != f.WidthPx || c.Height != f.HeightPx) {
			e.t.Errorf("%s: %dx%d pixels, manifest says %dx%d", f.Key, c.Width, c.Height, f.WidthPx, f.HeightPx)
		}
	}
}

func TestPipelineEndToEnd(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{worker.ModeDownload, worker.ModeAuto} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			if mode == worker.ModeAuto && testing.Short() {
				t.Skip("renders every view at print resolution")
			}
			e := newEnv(t, withMode(mode))
			e.start()
			ctx := context.Background()
			orders := map[string][]int64{"A-1": {1001}, "A-2": {1002, 1003}, "A-3": {1003, 1002, 1003}}
			for id, designs := range orders {
				o := e.order(id, designs...)
				if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
					t.Fatal(err)
				}
				res, err := e.enq.ExportOrder(ctx, store, o)
				if err != nil {
					t.Fatal(err)
				}
				if !res.Changed || res.Rev != 1 || len(res.Tasks) != len(uniq(designs)) {
					t.Fatalf("order %s: export result %+v", id, res)
				}
			}
			wantNames := map[int64][]string{
				// Each view names its file with its own pattern, in weight order; [date]
				// is the order's.
				1001: {"1001-Team-Shirt-Front.pdf", "tshirt-classic-2024-06-01-1001-Back.pdf", "1001-Team-Shirt-sleeve-Sleeve.pdf"},
				1002: {"1002-Coffee-Mug-Left.png", "1002-Coffee-Mug-Right.png"},
				1003: {"1003-Greeting-Card-2024-06-01.pdf"},
			}
			for id, designs := range orders {
				m := e.manifest(id, 1)
				var want []string
				for _, d := range uniq(designs) {
					for _, n := range wantNames[d] {
						want = append(want, orderDir(id)+"/"+n)
					}
				}
				var got []string
				for _, f := range m.Files {
					got = append(got, f.Key)
					e.checkFile(f)
					if f.Mode == "" || f.DPI <= 0 {
						t.Errorf("%s: mode %q dpi %v", f.Key, f.Mode, f.DPI)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("order %s files:\n got %q\nwant %q", id, got, want)
				}
				if len(m.LineItems) != len(designs) {
					t.Fatalf("order %s: %d line items, want %d", id, len(m.LineItems), len(designs))
				}
				for i, li := range m.LineItems {
					if li.DesignID != designs[i] || li.Quantity != i+2 || len(li.Files) != len(wantNames[designs[i]]) {
						t.Errorf("order %s line %d: %+v", id, i, li)
					}
				}
				if m.Store != store || m.Domain != domain || m.OrderID != id || m.Shipping.City != "Springfield" || m.Customer.LastName != "Lee" {
					t.Errorf("order %s manifest header: %+v", id, m)
				}
			}
			e.waitQueuesIdle()
			// Every signed call carried a valid signature; media fetches are unsigned.
			signed := 0
			for _, r := range e.sim.Requests() {
				if r.Version == "" {
					continue
				}
				signed++
				if !r.SignatureOK || r.Status >= 300 {
					t.Errorf("hub request %s %s: signature ok %v status %d", r.Method, r.Path, r.SignatureOK, r.Status)
				}
			}
			if pushes := e.hubRequests("POST", "/2022-08/orders"); pushes != len(orders) {
				t.Errorf("%d order pushes, want %d", pushes, len(orders))
			}
			if signed == 0 {
				t.Error("no signed hub request logged")
			}
			if mode == worker.ModeDownload {
				// One design fetch per design of each order, one export per view.
				if n, want := e.hubRequests("GET", "/2023-10/designs/"), 5; n != want {
					t.Errorf("%d design fetches, want %d", n, want)
				}
			}
		})
	}
}

func uniq(ids []int64) []int64 {
	var out []int64
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
