package worker_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/internal/testsftp"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// TestReprint: a reprint of one view writes that view's file again into its machine
// folder under a reprint name, with its ready marker, copied from the order folder
// (the hub is not asked again); the original stays as it was; the order folder gets a
// ticket that says REPRINT; the manifest records the reprint. A second reprint of an
// unrouted line's view with two copies writes two files beside the original.
func TestReprint(t *testing.T) {
	needShopTools(t, "pdftotext")
	e := newEnv(t, func(c *worker.Config, d *worker.Deps) {
		c.Routing = mustRules(t, `{"rules": [{"match": {"product": "mug-11oz"}, "prefix": "sublimation", "ready": true}]}`)
	})
	e.start()
	ctx := context.Background()
	if _, err := e.enq.ExportOrder(ctx, store, e.order("P-1", 1001, 1002)); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("P-1", 1)
	e.waitQueuesIdle()
	var left, front worker.FileRecord
	for _, f := range m.Files {
		switch {
		case f.DesignID == 1002 && f.ViewID == "left":
			left = f
		case f.DesignID == 1001 && f.ViewID == "front":
			front = f
		}
	}
	if left.Machine == nil || front.Key == "" {
		t.Fatalf("files of the order: %+v", m.Files)
	}
	designReads := e.hubRequests("GET", "/2023-10/designs/")
	before := map[string]bool{}
	infos, err := e.store.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		before[in.Key] = true
	}

	k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "P-1"}
	if _, n, err := e.enq.Reprint(ctx, jobs.Reprint{OrderKey: k, Line: 2, View: "Left", Copies: 1}); err != nil || n != 1 {
		t.Fatalf("reprint: number %d, %v", n, err)
	}
	e.waitQueuesIdle()
	if _, n, err := e.enq.Reprint(ctx, jobs.Reprint{OrderKey: k, Line: 1, View: "front", Copies: 2}); err != nil || n != 2 {
		t.Fatalf("second reprint: number %d, %v", n, err)
	}
	e.waitQueuesIdle()

	want := map[string]string{ // new key -> sha256 of its bytes
		"sublimation/P-1-2-1002-Coffee-Mug-Left-REPRINT-1.png":       left.SHA256,
		"sublimation/P-1-2-1002-Coffee-Mug-Left-REPRINT-1.png.ready": sha(nil),
		orderDir("P-1") + "/ticket-reprint-1.pdf":                    "",
		orderDir("P-1") + "/ticket-reprint-2.pdf":                    "",
	}
	stem := strings.TrimSuffix(front.Key, ".pdf")
	want[stem+"-REPRINT-2-1of2.pdf"], want[stem+"-REPRINT-2-2of2.pdf"] = front.SHA256, front.SHA256
	infos, err = e.store.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if before[in.Key] || in.Key == orderDir("P-1")+"/manifest.json" {
			continue
		}
		sum, ok := want[in.Key]
		if !ok {
			t.Errorf("reprint wrote %s", in.Key)
			continue
		}
		if sum != "" && sha(e.object(in.Key)) != sum {
			t.Errorf("%s is not a copy of its original", in.Key)
		}
		delete(want, in.Key)
	}
	for k := range want {
		t.Errorf("reprint did not write %s", k)
	}
	// The originals are untouched.
	for _, key := range []string{left.Key, left.Machine.Key, front.Key} {
		sum := front.SHA256
		if key != front.Key {
			sum = left.SHA256
		}
		if sha(e.object(key)) != sum {
			t.Errorf("original %s changed", key)
		}
	}
	if got := e.hubRequests("GET", "/2023-10/designs/"); got != designReads {
		t.Errorf("the reprint read designs from the hub (%d reads, %d before): it should copy the stored files", got, designReads)
	}

	m2, err := e.readManifest(orderDir("P-1") + "/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.Reprints) != 2 || len(m2.Files) != len(m.Files) {
		t.Fatalf("manifest reprints %+v, files %d (want 2 reprints, %d files)", m2.Reprints, len(m2.Files), len(m.Files))
	}
	r1 := m2.Reprints[0]
	if r1.Seq != 1 || r1.Line != 2 || r1.View != "Left" || len(r1.Files) != 1 || r1.Files[0].Of != left.Key ||
		r1.Files[0].Key != "sublimation/P-1-2-1002-Coffee-Mug-Left-REPRINT-1.png" || r1.Files[0].Ready == "" ||
		r1.Ticket != orderDir("P-1")+"/ticket-reprint-1.pdf" {
		t.Errorf("reprint record %+v", r1)
	}
	if r2 := m2.Reprints[1]; r2.Seq != 2 || r2.Copies != 2 || len(r2.Files) != 2 {
		t.Errorf("second reprint record %+v", r2)
	}

	// The reprint ticket says so, and lists the reprinted file only.
	pdfPath := filepath.Join(t.TempDir(), "ticket.pdf")
	if err := os.WriteFile(pdfPath, e.object(r1.Ticket), 0o600); err != nil {
		t.Fatal(err)
	}
	text, err := exec.Command("pdftotext", pdfPath, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(text, []byte("REPRINT")) || !bytes.Contains(text, []byte("Files (1)")) {
		t.Errorf("reprint ticket text:\n%s", text)
	}
	if orig := e.object(m.Ticket); bytes.Contains(orig, []byte("REPRINT")) {
		t.Error("the order's own ticket says REPRINT")
	}

	// A re-export writes the manifest again and keeps the reprints' records.
	res, err := e.enq.ReExport(ctx, k)
	if err != nil || res.Rev <= m2.Revision {
		t.Fatalf("re-export: revision %d after %d, %v", res.Rev, m2.Revision, err)
	}
	if m3 := e.manifest("P-1", res.Rev); len(m3.Reprints) != 2 {
		t.Errorf("after a re-export the manifest records %d reprints, want 2", len(m3.Reprints))
	}
}

// TestReprintRefusals: a reprint of a line or view the order lacks fails for good,
// writing nothing; a payload out of bounds is refused at enqueue.
func TestReprintRefusals(t *testing.T) {
	e := newEnv(t)
	e.start()
	ctx := context.Background()
	if _, err := e.enq.ExportOrder(ctx, store, e.order("P-2", 1003)); err != nil {
		t.Fatal(err)
	}
	e.manifest("P-2", 1)
	e.waitQueuesIdle()
	k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "P-2"}
	for _, bad := range []jobs.Reprint{{OrderKey: k, Copies: 0}, {OrderKey: k, Copies: jobs.MaxCopies + 1}, {OrderKey: k, Line: -1, Copies: 1},
		{OrderKey: k, Date: "yesterday", Copies: 1}, {Copies: 1}} {
		if _, _, err := e.enq.Reprint(ctx, bad); err == nil {
			t.Errorf("reprint %+v enqueued", bad)
		}
	}
	for _, p := range []jobs.Reprint{{OrderKey: k, Line: 5, Copies: 1}, {OrderKey: k, View: "nope", Copies: 1}} {
		if _, _, err := e.enq.Reprint(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	e.waitQueuesIdle()
	archived, err := e.insp.ListArchivedTasks(jobs.QueueExports)
	if err != nil || len(archived) != 2 {
		t.Fatalf("archived reprints %d (%v), want 2: %s", len(archived), err, e.queueReport())
	}
	for _, a := range archived {
		if !strings.Contains(a.LastErr, "no line 5") && !strings.Contains(a.LastErr, `view "nope"`) {
			t.Errorf("reprint failed with %q", a.LastErr)
		}
	}
	infos, err := e.store.List(ctx, orderDir("P-2"))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if strings.Contains(in.Key, "REPRINT") || strings.Contains(in.Key, "reprint") {
			t.Errorf("a refused reprint wrote %s", in.Key)
		}
	}
}

// TestReprintFolders: on a hot folder and on an SFTP server (a real sshd), a routed
// file reaches its flat machine folder and a reprint of it lands beside it, both
// copies of the order folder's file; nothing partial or temporary is left.
func TestReprintFolders(t *testing.T) {
	backends := map[string]func(t *testing.T) (lister, string){
		"dir": func(t *testing.T) (lister, string) {
			root := t.TempDir()
			d, err := storage.NewDir(root)
			if err != nil {
				t.Fatal(err)
			}
			return d, root
		},
		"sftp": func(t *testing.T) (lister, string) {
			srv := testsftp.Start(t)
			st, err := storage.NewSFTP(srv.Config())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st, srv.Root
		},
	}
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			st, root := open(t)
			e := newEnv(t, func(c *worker.Config, d *worker.Deps) {
				c.Routing = mustRules(t, `{"rules": [{"match": {"product": "card-a6"}, "prefix": "cards"}]}`)
				d.Storage = st.(worker.Storage)
			})
			e.start()
			ctx := context.Background()
			if _, err := e.enq.ExportOrder(ctx, store, e.order("F-1", 1003)); err != nil {
				t.Fatal(err)
			}
			e.waitQueuesIdle()
			k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "F-1"}
			if _, _, err := e.enq.Reprint(ctx, jobs.Reprint{OrderKey: k, Copies: 1}); err != nil {
				t.Fatal(err)
			}
			e.waitQueuesIdle()
			rc, _, err := st.Get(ctx, orderDir("F-1")+"/manifest.json")
			if err != nil {
				t.Fatalf("manifest: %v; %s", err, e.queueReport())
			}
			var m worker.Manifest
			err = json.NewDecoder(rc).Decode(&m)
			rc.Close()
			if err != nil || len(m.Files) != 1 || m.Files[0].Machine == nil || len(m.Reprints) != 1 {
				t.Fatalf("manifest %+v: %v", m, err)
			}
			f := m.Files[0]
			entries, err := os.ReadDir(filepath.Join(root, "cards"))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, en := range entries {
				names = append(names, en.Name())
			}
			want := []string{"F-1-1-1003-Greeting-Card-REPRINT-1.pdf", "F-1-1-1003-Greeting-Card.pdf"}
			if strings.Join(names, ",") != strings.Join(want, ",") {
				t.Errorf("machine folder holds %q, want %q", names, want)
			}
			for _, key := range []string{f.Key, f.Machine.Key, m.Reprints[0].Files[0].Key} {
				c := f
				c.Key = key
				checkStored(t, st, c)
			}
		})
	}
}
