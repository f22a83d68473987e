package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/storage"
)

// TestDayPageLateManifest forces the interleaving a fleet meets only by chance: worker
// A holds the day's lock and has listed the day folder when order B's manifest is
// stored and B's completion asks for the page. B must not return on the strength of
// A's rebuild (whose listing missed it): it waits, rebuilds after A, and the page ends
// up listing both. A completion that left the page to "whoever holds the lock" would
// lose B here.
func TestDayPageLateManifest(t *testing.T) {
	rdb := testredis.Start(t).Client(t)
	root := t.TempDir()
	dir, err := storage.NewDir(root)
	if err != nil {
		t.Fatal(err)
	}
	newWorker := func() *Worker {
		w, err := New(Config{Mode: ModeDownload}, Deps{Redis: rdb, Storage: dir, Hubs: func(string) (Hub, error) { return nil, errors.New("no hub") }})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	a, b := newWorker(), newWorker()
	listed, release, waiting := make(chan struct{}), make(chan struct{}), make(chan struct{})
	a.hooks.dayListed = func() { close(listed); <-release }
	var waitOnce bool
	b.hooks.dayWaiting = func() {
		if !waitOnce {
			waitOnce = true
			close(waiting)
		}
	}

	ctx := context.Background()
	date := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	put := func(id string) (*Manifest, string) {
		m := &Manifest{Store: "s", OrderID: id, StaffPage: "s/2024-06-01/" + id + "/index.html"}
		key := "s/2024-06-01/" + id + "/manifest.json"
		body, _ := json.Marshal(m)
		if _, err := dir.Put(ctx, storage.Object{Key: key}, bytes.NewReader(body)); err != nil {
			t.Fatal(err)
		}
		return m, key
	}
	errA, errB := make(chan error, 1), make(chan error, 1)
	mA, keyA := put("A")
	go func() { errA <- a.updateDayPage(ctx, mA, keyA, date) }()
	<-listed // A holds the lock and has listed: only A's manifest
	mB, keyB := put("B")
	go func() { errB <- b.updateDayPage(ctx, mB, keyB, date) }()
	<-waiting // B found the lock taken
	close(release)
	for _, ch := range []chan error{errA, errB} {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	page, err := os.ReadFile(filepath.Join(root, "s", "2024-06-01", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"A", "B"} {
		if !strings.Contains(string(page), `href="`+id+`/index.html"`) {
			t.Errorf("day page lacks order %s", id)
		}
	}
}

// TestDaySummary: an order's day-page summary counts its files and items, caps the
// thumbnail strip, counts the files without a preview and marks a rush status.
func TestDaySummary(t *testing.T) {
	m := &Manifest{OrderID: "o", OrderStatus: "paid/rush", StaffPage: "s/d/o/index.html", Ticket: "s/d/o/ticket.pdf",
		LineItems: []ManifestLine{{Quantity: 2}, {Quantity: 3}}}
	for i := range 10 {
		m.Files = append(m.Files, FileRecord{Key: fmt.Sprintf("s/d/o/%d.png", i), Thumbnail: fmt.Sprintf("s/d/o/%d.thumb.jpg", i)})
	}
	m.Files = append(m.Files, FileRecord{Key: "s/d/o/x.pdf"})
	m.Warnings = []ManifestWarning{{Key: "s/d/o/0.png", Warning: render.Warning{Code: "low-dpi", Message: "m"}}}
	s := summarize(m, "s/d/o/manifest.json")
	if !s.Rush || s.Files != 11 || s.Quantity != 5 || len(s.Thumbs) != shopfloor.MaxDayThumbs || s.NoPreview != 1 ||
		s.Page != m.StaffPage || s.Ticket != m.Ticket || len(s.Warnings) != 1 || s.Warnings[0] != "0.png: low-dpi: m" {
		t.Fatalf("summary %+v", s)
	}
}
