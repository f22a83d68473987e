package worker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// cloneDesign adds to the simulator a copy of the one-view design 1003 (a greeting
// card, pdf) as design id, titled title, whose stored export is the file export of
// the fixtures (so its bytes differ from 1003's), and returns its reference.
func (e *env) cloneDesign(id int64, title, export string) model.DesignRef {
	e.t.Helper()
	d, ok := e.sim.Design(1003)
	if !ok {
		e.t.Fatal("no design 1003")
	}
	d.ConfigurationID, d.Name = id, title
	d.ID = "6561f1b2c3d4e5f6010" + strconv.FormatInt(id, 10)[:4] + "1"
	body, err := json.Marshal(d)
	if err != nil {
		e.t.Fatal(err)
	}
	fixtures := "../hubsim/testdata/designs"
	pdf, err := os.ReadFile(filepath.Join(fixtures, "exports", export))
	if err != nil {
		e.t.Fatal(err)
	}
	fsys := fstest.MapFS{
		strconv.FormatInt(id, 10) + ".json":                  {Data: body},
		"exports/" + strconv.FormatInt(id, 10) + "/card.pdf": {Data: pdf},
	}
	for _, m := range hubsim.DesignMedia(&d) {
		matches, _ := filepath.Glob(filepath.Join(fixtures, "media", m.ID+".*"))
		if len(matches) != 1 {
			e.t.Fatalf("media %s: %v", m.ID, matches)
		}
		b, err := os.ReadFile(matches[0])
		if err != nil {
			e.t.Fatal(err)
		}
		fsys["media/"+filepath.Base(matches[0])] = &fstest.MapFile{Data: b}
	}
	if _, err := e.sim.LoadDesignsFS(fsys); err != nil {
		e.t.Fatal(err)
	}
	ref := model.DesignRef{ID: id, Token: d.Token}
	e.refs[id] = ref
	return ref
}

func withFilenamePattern(p string) envOption {
	return func(c *worker.Config, _ *worker.Deps) { c.Filenames = filenames.Options{Pattern: p} }
}

// Issue 32 item 1: designs of one order whose names come out alike ("[title]", a
// title typed by a customer) get files of their own, and a title naming one of the
// order's own files ("ticket" on a pdf view) never takes the job ticket's name. Each
// manifest entry's SHA-256 is that of the file stored at its key; each line links its
// own design's file. A re-export keeps every name.
func TestDesignsOfOneOrderNeverShareAFile(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, e *env, st readWriter) {
		e.cloneDesign(2003, "Greeting Card", "1001/front.pdf")
		e.cloneDesign(2004, "ticket", "1001/back.pdf")
		e.cloneDesign(2005, "MANIFEST", "1001/sleeve.pdf")
		e.start()
		ctx := context.Background()
		o := e.order("N-32", 1003, 2003, 2004, 2005)
		if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
			t.Fatal(err)
		}
		want := map[int64]string{
			1003: "Greeting-Card.pdf",   // first come keeps the name as made
			2003: "Greeting-Card-?.pdf", // numbered (which of the two is first depends on the workers)
			2004: "ticket-2.pdf",        // ticket.pdf is the order's job ticket
			2005: "MANIFEST.pdf",        // no collision: unchanged
		}
		check := func(m worker.Manifest) map[int64]string {
			t.Helper()
			got := map[int64]string{}
			seen := map[string]bool{}
			for _, f := range m.Files {
				if seen[strings.ToLower(f.Key)] {
					t.Errorf("two files at %s", f.Key)
				}
				seen[strings.ToLower(f.Key)] = true
				if f.Key == m.Ticket || f.Key == m.StaffPage || path.Base(f.Key) == storage.ManifestName {
					t.Errorf("file %s has the name of the order's own file", f.Key)
				}
				b := readAll(t, st, f.Key)
				if sum := sha256hex(b); sum != f.SHA256 {
					t.Errorf("%s: stored sha256 %s, manifest says %s", f.Key, sum, f.SHA256)
				}
				got[f.DesignID] = path.Base(f.Key)
			}
			a, b := got[1003], got[2003]
			if a == b || !(a == want[1003] && b == "Greeting-Card-2.pdf" || b == want[1003] && a == "Greeting-Card-2.pdf") {
				t.Errorf("designs of one title: %q and %q, want Greeting-Card.pdf and Greeting-Card-2.pdf", a, b)
			}
			for _, id := range []int64{2004, 2005} {
				if got[id] != want[id] {
					t.Errorf("design %d: %q, want %q", id, got[id], want[id])
				}
			}
			for _, li := range m.LineItems {
				if len(li.Files) != 1 || path.Base(li.Files[0]) != got[li.DesignID] {
					t.Errorf("line of design %d links %q", li.DesignID, li.Files)
				}
			}
			// The ticket is the worker's: a PDF that is none of the designs' files.
			ticket := sha256hex(readAll(t, st, m.Ticket))
			for _, f := range m.Files {
				if f.SHA256 == ticket {
					t.Errorf("the ticket %s holds the bytes of %s", m.Ticket, f.Key)
				}
			}
			return got
		}
		m := waitManifest(t, e, st, orderDir("N-32")+"/"+storage.ManifestName)
		first := check(m)
		// A re-export (every design exported again, in any order) keeps every name.
		if _, err := e.enq.ReExport(ctx, jobs.OrderKey{Store: store, Domain: domain, OrderID: "N-32"}); err != nil {
			t.Fatal(err)
		}
		m2 := waitManifestRev(t, e, st, orderDir("N-32")+"/"+storage.ManifestName, 2)
		if again := check(m2); !maps.Equal(first, again) {
			t.Errorf("a re-export renamed files: %v, then %v", first, again)
		}
	}, withFilenamePattern("[title]"))
}

// Issue 32 item 2: one order id from two domains on one day gets two folders; neither
// order's files are touched by the other's.
func TestOrdersOfTwoDomainsGetTwoFolders(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, e *env, st readWriter) {
		e.start()
		ctx := context.Background()
		a := e.order("DOM-1001", 1003)
		b := e.order("DOM-1001", 1002)
		b.Domain = "other.example"
		for _, o := range []*model.Order{a, b} {
			if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
				t.Fatal(err)
			}
		}
		e.waitQueuesIdle()
		// Every manifest of the day, by the domain of its order.
		manifests := map[string]worker.Manifest{}
		for _, k := range listKeys(t, st, store+"/2024-06-01/") {
			if path.Base(k) != storage.ManifestName {
				continue
			}
			var m worker.Manifest
			if err := json.Unmarshal(readAll(t, st, k), &m); err != nil {
				t.Fatal(err)
			}
			manifests[m.Domain] = m
		}
		folders := map[string]string{}
		for _, o := range []*model.Order{a, b} {
			m, ok := manifests[o.Domain]
			if !ok {
				t.Errorf("order %s of %s: no manifest; %s", o.OrderID, o.Domain, e.queueReport())
				continue
			}
			if len(m.Files) == 0 || m.OrderID != o.OrderID {
				t.Errorf("manifest of %s/%s with %d files", m.Domain, m.OrderID, len(m.Files))
				continue
			}
			dir := path.Dir(m.Files[0].Key)
			listed := map[string]bool{dir + "/" + storage.ManifestName: true, m.Ticket: true, m.StaffPage: true}
			for _, f := range m.Files {
				listed[f.Key], listed[f.Thumbnail] = true, f.Thumbnail != ""
				if path.Dir(f.Key) != dir {
					t.Errorf("%s: file %s outside the order's folder", dir, f.Key)
				}
				if sum := sha256hex(readAll(t, st, f.Key)); sum != f.SHA256 {
					t.Errorf("%s: stored sha256 %s, manifest says %s", f.Key, sum, f.SHA256)
				}
			}
			for _, k := range listKeys(t, st, dir+"/") {
				if !listed[k] {
					t.Errorf("%s holds %s, which its manifest does not list", dir, k)
				}
			}
			folders[o.Domain] = dir
		}
		if folders[a.Domain] == folders[b.Domain] {
			t.Fatalf("both orders in %s", folders[a.Domain])
		}
		if want := store + "/2024-06-01/DOM-1001@" + domain; folders[a.Domain] != want {
			t.Errorf("folder %s, want the readable %s", folders[a.Domain], want)
		}
	})
}

// A folder another order claimed (a layout that gives two orders one folder) is
// refused before any file is written, permanently, naming the owner.
func TestFolderOfAnotherOrderIsRefusedBeforeUpload(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, e *env, st readWriter) {
		ctx := context.Background()
		dir := orderDir("C-1")
		other := jobs.OrderKey{Store: "another-store", Domain: domain, OrderID: "C-1"}
		if _, err := jobs.NewState(e.rdb, "", 0).ClaimFolder(ctx, dir+"/"+storage.ManifestName, other); err != nil {
			t.Fatal(err)
		}
		e.start()
		if _, err := e.enq.ExportOrder(ctx, store, e.order("C-1", 1003)); err != nil {
			t.Fatal(err)
		}
		e.waitQueuesIdle()
		task := archived(t, e, jobs.QueueExports)
		if !strings.Contains(task.LastErr, "another-store") || task.Retried != 0 {
			t.Errorf("archived after %d retries for %q, want at once, naming the folder's owner", task.Retried, task.LastErr)
		}
		if keys := listKeys(t, st, dir+"/"); len(keys) != 0 {
			t.Errorf("files written into another order's folder: %q", keys)
		}
	})
}

// Issue 32 item 7: an order id over 255 bytes is a permanent error with a readable
// reason, not retried (it was retried for the whole retry window).
func TestOverlongOrderIDIsPermanent(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, e *env, st readWriter) {
		e.start()
		ctx := context.Background()
		id := strings.Repeat("9", 300)
		if _, err := e.enq.ExportOrder(ctx, store, e.order(id, 1003)); err != nil {
			t.Fatal(err)
		}
		e.waitQueuesIdle()
		task := archived(t, e, jobs.QueueExports)
		if !strings.Contains(task.LastErr, "longer than the 255") || task.Retried != 0 {
			t.Errorf("archived after %d retries for %q, want at once, saying the name is too long", task.Retried, task.LastErr)
		}
		if keys := listKeys(t, st, store+"/"); len(keys) != 0 {
			t.Errorf("stored %q", keys)
		}
	})
}

// archived is the one task archived in queue, once the queues are idle.
func archived(t *testing.T, e *env, queue string) *asynq.TaskInfo {
	t.Helper()
	tasks, err := e.insp.ListArchivedTasks(queue)
	if err != nil || len(tasks) != 1 {
		t.Fatalf("archived in %s: %d tasks, %v; want one; %s", queue, len(tasks), err, e.queueReport())
	}
	return tasks[0]
}

func waitManifestRev(t *testing.T, e *env, st readWriter, key string, rev int64) worker.Manifest {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for {
		if m := waitManifest(t, e, st, key); m.Revision >= rev {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("manifest %s of revision %d not written; %s", key, rev, e.queueReport())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func sha256hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
