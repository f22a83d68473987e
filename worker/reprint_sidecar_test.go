package worker_test

import (
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/worker"
)

// TestReprintWhitePlate: the mug's views are made with the built-in dtf-white
// profile (a PNG with a -white.png plate beside it) and routed to a machine folder
// with ready markers. The order's ticket names each file and its white plate, as the
// machine folder does. A reprint of one view in two copies writes each copy with its
// own white plate (a copy of the original's), before its ready marker, records the
// plates, and its ticket names them.
func TestReprintWhitePlate(t *testing.T) {
	t.Parallel()
	needShopTools(t, "pdftotext")
	f, err := profiles.Parse([]byte(`{"rules": [{"match": {"product": "mug-11oz"}, "profile": "dtf-white"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := profiles.Load(f, "", profiles.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, withMode(worker.ModeRender), func(c *worker.Config, _ *worker.Deps) {
		c.Profiles = set
		c.Routing = mustRules(t, `{"rules": [{"match": {"product": "mug-11oz"}, "prefix": "dtf", "ready": true}]}`)
	})
	e.start()
	ctx := context.Background()
	if _, err := e.enq.ExportOrder(ctx, store, e.order("W-1", 1002)); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("W-1", 1)
	e.waitQueuesIdle()
	var left worker.FileRecord
	for _, f := range m.Files {
		if f.ViewID == "left" {
			left = f
		}
	}
	if left.Machine == nil || len(left.Sidecars) != 1 || !strings.HasSuffix(left.Sidecars[0].Filename, "-white.png") {
		t.Fatalf("left view: %+v", left)
	}
	ticketText := func(key string) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), "ticket.pdf")
		if err := os.WriteFile(p, e.object(key), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("pdftotext", "-layout", p, "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if txt := ticketText(m.Ticket); !strings.Contains(txt, left.Filename) || !strings.Contains(txt, "+ "+left.Sidecars[0].Filename) {
		t.Errorf("the order's ticket does not name %s and its plate %s:\n%s", left.Filename, left.Sidecars[0].Filename, txt)
	}

	k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "W-1"}
	if _, _, err := e.enq.Reprint(ctx, jobs.Reprint{OrderKey: k, View: "left", Copies: 2}); err != nil {
		t.Fatal(err)
	}
	e.waitQueuesIdle()
	m2, err := e.readManifest(orderDir("W-1") + "/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.Reprints) != 1 || len(m2.Reprints[0].Files) != 2 {
		t.Fatalf("reprints %+v", m2.Reprints)
	}
	stem := strings.TrimSuffix(left.Machine.Key, ".png")
	for i, rf := range m2.Reprints[0].Files {
		copyStem := stem + "-REPRINT-1-" + []string{"1of2", "2of2"}[i]
		if rf.Key != copyStem+".png" || len(rf.Sidecars) != 1 || rf.Sidecars[0] != copyStem+"-white.png" || rf.Ready != copyStem+".png.ready" {
			t.Errorf("reprint file %+v, want %s.png with %s-white.png and its ready marker", rf, copyStem, copyStem)
			continue
		}
		if sha(e.object(rf.Key)) != left.SHA256 || sha(e.object(rf.Sidecars[0])) != left.Sidecars[0].SHA256 {
			t.Errorf("%s or its plate is not a copy of the original", rf.Key)
		}
	}
	txt := ticketText(m2.Reprints[0].Ticket)
	for _, want := range []string{"REPRINT", path.Base(stem) + "-REPRINT-1-1of2.png (2 copies)", "+ " + path.Base(stem) + "-REPRINT-1-1of2-white.png"} {
		if !strings.Contains(txt, want) {
			t.Errorf("reprint ticket lacks %q:\n%s", want, txt)
		}
	}
}
