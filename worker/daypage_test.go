package worker_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// TestDayPageFleet: a fleet of three workers (18 task slots) completes orders of one
// day at once; the day page written after the last completion lists every order, its
// previews load in a real browser and its links resolve, from a hot folder (relative
// links) and from a private S3 bucket opened through a presigned link (presigned links).
func TestDayPageFleet(t *testing.T) {
	needShopTools(t, chromium)
	for _, backend := range []string{"dir", "s3"} {
		t.Run(backend, func(t *testing.T) {
			root := t.TempDir()
			var deps *worker.Deps
			e := newEnv(t, func(_ *worker.Config, d *worker.Deps) {
				if backend == "dir" {
					dir, err := storage.NewDir(root)
					if err != nil {
						t.Fatal(err)
					}
					d.Storage = dir
				}
				deps = d
			})
			if backend == "s3" {
				e.s3.SetPrivate(true)
			}
			e.start()
			for range 2 {
				d := *deps
				d.Registerer = prometheus.NewRegistry()
				w, err := worker.New(e.cfg, d)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { defer close(done); _ = w.Run(ctx) }()
				t.Cleanup(func() { cancel(); <-done })
			}

			ctx := context.Background()
			const n = 12
			var ids []string
			var orders []*model.Order
			for i := range n {
				id := fmt.Sprintf("D-%02d", i+1)
				ids = append(ids, id)
				o := e.order(id, 1002)
				if i%4 == 0 {
					o.Status = "paid/rush"
				}
				orders = append(orders, o)
				if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
					t.Fatal(err)
				}
			}
			for _, o := range orders {
				if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
					t.Fatal(err)
				}
			}
			e.waitQueuesIdle()

			read := func(key string) []byte {
				if backend == "dir" {
					b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(key)))
					if err != nil {
						t.Fatal(err)
					}
					return b
				}
				return e.object(key)
			}
			dayKey := store + "/2024-06-01/index.html"
			page := string(read(dayKey))
			thumbs := 0
			for _, id := range ids {
				if !strings.Contains(page, ">"+id+"</a>") {
					t.Errorf("day page lacks order %s", id)
				}
				var m worker.Manifest
				if backend == "dir" {
					m = waitHotManifest(t, filepath.Join(root, store, "2024-06-01", storage.OrderFolderValue(id, domain), "manifest.json"))
				} else {
					m = e.manifest(id, 1)
				}
				for _, f := range m.Files {
					if f.Thumbnail != "" {
						thumbs++
					}
				}
			}
			if got := strings.Count(page, `class="order"`); got != n {
				t.Errorf("day page has %d order rows, want %d", got, n)
			}
			if got := strings.Count(page, ">RUSH<"); got != 3 {
				t.Errorf("day page flags %d rush orders, want 3", got)
			}
			if strings.Contains(page, "ann@example.com") || strings.Contains(page, "1 Main St") {
				t.Error("day page shows contact data")
			}
			if thumbs == 0 {
				t.Fatal("no thumbnails to show")
			}

			links := hrefRE.FindAllStringSubmatch(page, -1)
			if len(links) != 3*n+n { // order id, order page, ticket, manifest
				t.Errorf("day page has %d links, want %d", len(links), 4*n)
			}
			var widths []int
			if backend == "dir" {
				folder := filepath.Join(root, store, "2024-06-01")
				checkRelativeLinks(t, folder, links)
				probe := filepath.Join(folder, "probe.html")
				if err := os.WriteFile(probe, probePage([]byte(page)), 0o644); err != nil {
					t.Fatal(err)
				}
				widths, _ = browserImages(t, "file://"+probe)
			} else {
				// A private bucket: every link is presigned and opens anonymously; an
				// unsigned one is refused, which is why the page cannot link relatively.
				for _, l := range links {
					u := strings.ReplaceAll(l[1], "&amp;", "&")
					if !strings.Contains(u, "X-Amz-Signature=") {
						t.Errorf("link %q is not presigned", u)
						continue
					}
					resp, err := http.Get(u)
					if err != nil {
						t.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						t.Errorf("link %q: %s", u, resp.Status)
					}
				}
				probeKey := store + "/2024-06-01/probe.html"
				body := probePage([]byte(page))
				if _, err := e.store.Put(ctx, storage.Object{Key: probeKey, ContentType: "text/html; charset=utf-8", Size: int64(len(body)), Inline: true}, strings.NewReader(string(body))); err != nil {
					t.Fatal(err)
				}
				pageURL, err := e.store.Link(ctx, probeKey)
				if err != nil {
					t.Fatal(err)
				}
				widths, _ = browserImages(t, pageURL)
			}
			if len(widths) != thumbs {
				t.Fatalf("day page shows %d images, want the %d thumbnails", len(widths), thumbs)
			}
			for i, w := range widths {
				if w <= 0 {
					t.Errorf("image %d did not load", i)
				}
			}
		})
	}
}
