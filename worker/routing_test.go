package worker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/routing"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// routeRules: rush orders to rush/, t-shirts (PDF) to dtf/, mugs to their own bucket
// under sublimation/. Card files are not routed.
const routeRules = `{"rules": [
  {"name": "rush", "match": {"rush": true}, "prefix": "rush/"},
  {"name": "dtf", "match": {"product": "tshirt-classic", "type": ["pdf", "pdf-simple"]}, "prefix": "dtf/"},
  {"name": "mugs", "match": {"product": "mug-11oz"}, "prefix": "sublimation/", "bucket": "sublimation-prints"}
]}`

type lister interface {
	List(ctx context.Context, prefix string) ([]storage.Info, error)
	Get(ctx context.Context, key string) (io.ReadCloser, storage.Info, error)
}

func mustRules(t *testing.T, doc string) *routing.Rules {
	t.Helper()
	r, err := routing.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRoutingS3: through the S3 protocol server with two buckets, every file stays in
// its order folder of the default bucket, and a routed file is also copied, alone and
// flat, into its rule's machine folder (prefix and bucket) under a name unique across
// orders; the manifest lists each copy.
func TestRoutingS3(t *testing.T) {
	var mugs *storage.S3
	e := newEnv(t, func(c *worker.Config, d *worker.Deps) {
		c.Routing = mustRules(t, routeRules)
		mugs = routedBucket(t, d.Storage.(*storage.S3), "sublimation-prints")
		d.Buckets = map[string]worker.Storage{"sublimation-prints": mugs}
	})
	e.start()
	ctx := context.Background()
	orders := map[string]*struct {
		designs []int64
		status  string
	}{"R-1": {[]int64{1001, 1002, 1003}, "paid"}, "R-2": {[]int64{1003}, "paid/Rush"}}
	for id, o := range orders {
		ord := e.order(id, o.designs...)
		ord.Status = o.status
		if _, err := e.enq.ExportOrder(ctx, store, ord); err != nil {
			t.Fatal(err)
		}
	}
	m1, m2 := e.manifest("R-1", 1), e.manifest("R-2", 1)
	// The completion writes the day page after the manifest: let it finish.
	e.waitQueuesIdle()

	// The machine copies the rules make: the order number, line and design id lead
	// each name (routing.DefaultMachinePattern).
	wantMachine := map[string]bool{
		":dtf/R-1-1-1001-Team-Shirt-Front.pdf": true, ":dtf/R-1-1-1001-Team-Shirt-Back.pdf": true,
		":dtf/R-1-1-1001-Team-Shirt-Sleeve.pdf":                          true,
		"sublimation-prints:sublimation/R-1-2-1002-Coffee-Mug-Left.png":  true,
		"sublimation-prints:sublimation/R-1-2-1002-Coffee-Mug-Right.png": true,
		":rush/R-2-1-1003-Greeting-Card.pdf":                             true,
	}
	want := map[string]string{} // key -> bucket ("" default)
	for _, f := range append(m1.Files, m2.Files...) {
		if f.Bucket != "" || !strings.HasPrefix(f.Key, store+"/") {
			t.Errorf("%s (bucket %q): every file belongs in its order folder", f.Key, f.Bucket)
		}
		checkStored(t, e.store, f)
		want[":"+f.Key] = ""
		if f.Thumbnail != "" {
			// docs/shop-floor.md: the preview sits next to its file, in the order folder.
			want[":"+f.Thumbnail] = ""
		}
		if f.Machine == nil {
			if f.DesignID != 1003 || strings.Contains(f.Key, storage.OrderFolderValue("R-2", domain)) {
				t.Errorf("design %d file %s has no machine copy", f.DesignID, f.Key)
			}
			continue
		}
		mk := f.Machine.Bucket + ":" + f.Machine.Key
		if !wantMachine[mk] {
			t.Errorf("design %d file %s copied to %s", f.DesignID, f.Key, mk)
		}
		delete(wantMachine, mk)
		var st lister = e.store
		if f.Machine.Bucket == "sublimation-prints" {
			st = mugs
		}
		copyRec := f
		copyRec.Key, copyRec.Bucket = f.Machine.Key, f.Machine.Bucket
		checkStored(t, st, copyRec)
		want[mk] = f.Machine.Bucket
	}
	for mk := range wantMachine {
		t.Errorf("machine copy %s missing", mk)
	}
	for _, m := range []worker.Manifest{m1, m2} {
		// The ticket and staff page sit next to the manifest, in the default bucket.
		want[":"+m.Ticket], want[":"+m.StaffPage] = "", ""
	}
	// The day page sits in the day folder of the default bucket (it lists manifests).
	want[":"+store+"/2024-06-01/index.html"] = ""
	want[":"+store+"/2024-06-01/index.json"] = ""
	if len(m1.Files) != 6 || len(m2.Files) != 1 {
		t.Fatalf("manifests list %d and %d files, want 6 and 1", len(m1.Files), len(m2.Files))
	}
	// Nothing else in either bucket: a machine folder holds its print files only.
	got := map[string]bool{}
	for bucket, st := range map[string]lister{"": e.store, "sublimation-prints": mugs} {
		infos, err := st.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range infos {
			got[bucket+":"+in.Key] = true
		}
	}
	for _, mk := range []string{":" + orderDir("R-1") + "/manifest.json", ":" + orderDir("R-2") + "/manifest.json"} {
		if !got[mk] {
			t.Errorf("manifest %s missing", mk)
		}
		delete(got, mk)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unlisted object %s", k)
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("listed object %s missing", k)
		}
	}
}

// routedBucket creates a second bucket on the S3 server of def (its endpoint is the
// path-style link's origin) with tests3's credentials.
func routedBucket(t *testing.T, def *storage.S3, bucket string) *storage.S3 {
	t.Helper()
	u, err := url.Parse(def.URL("x"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := storage.NewS3(context.Background(), storage.S3Config{
		Bucket: bucket, Endpoint: u.Scheme + "://" + u.Host, Region: "us-east-1",
		AccessKey: "test-access", SecretKey: "test-secret", PathStyle: true, CreateBucket: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func checkStored(t *testing.T, st lister, f worker.FileRecord) {
	t.Helper()
	rc, _, err := st.Get(context.Background(), f.Key)
	if err != nil {
		t.Errorf("%s (bucket %q): %v", f.Key, f.Bucket, err)
		return
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil || n != f.Bytes || hex.EncodeToString(h.Sum(nil)) != f.SHA256 {
		t.Errorf("%s: stored %d bytes (%v), manifest says %d bytes %s", f.Key, n, err, f.Bytes, f.SHA256)
	}
}

// TestRoutingHotFolder: with a hot folder, a flat machine folder holds its print
// files (and, asked for, their ready markers) at its top level and nothing else: no
// thumbnail, no order folder, no temporary name left; a nested one keeps the order
// folders under its prefix. Every file also stays in its order folder.
func TestRoutingHotFolder(t *testing.T) {
	root := t.TempDir()
	dir, err := storage.NewDir(root)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *worker.Config, d *worker.Deps) {
		c.Routing = mustRules(t, `{"rules": [
  {"match": {"product": ["mug-11oz"], "minQuantity": 2}, "prefix": "sublimation", "ready": true},
  {"match": {"product": "tshirt-classic", "type": "pdf-simple"}, "prefix": "legacy/dtf", "layout": "nested"}
]}`)
		d.Storage = dir
	})
	e.start()
	ctx := context.Background()
	// 1003 has quantity 2 and is no mug: not routed; 1002 (quantity 3) is.
	if _, err := e.enq.ExportOrder(ctx, store, e.order("H-1", 1001, 1003, 1002)); err != nil {
		t.Fatal(err)
	}
	e.waitQueuesIdle()
	manifest := orderDir("H-1") + "/manifest.json"
	rc, _, err := dir.Get(ctx, manifest)
	if err != nil {
		t.Fatalf("manifest: %v; %s", err, e.queueReport())
	}
	var m worker.Manifest
	err = json.NewDecoder(rc).Decode(&m)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	// What a RIP watching sublimation/ sees, hidden names included.
	var names []string
	entries, err := os.ReadDir(filepath.Join(root, "sublimation"))
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		names = append(names, en.Name())
	}
	wantNames := []string{"H-1-3-1002-Coffee-Mug-Left.png", "H-1-3-1002-Coffee-Mug-Left.png.ready",
		"H-1-3-1002-Coffee-Mug-Right.png", "H-1-3-1002-Coffee-Mug-Right.png.ready"}
	if strings.Join(names, ",") != strings.Join(wantNames, ",") {
		t.Errorf("machine folder holds %q, want %q", names, wantNames)
	}
	machine := 0
	for _, f := range m.Files {
		checkStored(t, dir, f)
		if !strings.HasPrefix(f.URL, "file://") || f.Bucket != "" || !strings.HasPrefix(f.Key, orderDir("H-1")+"/") {
			t.Errorf("%s: url %q bucket %q: every file stays in its order folder", f.Key, f.URL, f.Bucket)
		}
		if f.Thumbnail != "" && path.Dir(f.Thumbnail) != path.Dir(f.Key) {
			t.Errorf("thumbnail %s is not next to %s", f.Thumbnail, f.Key)
		}
		if f.Machine == nil {
			continue
		}
		machine++
		copyRec := f
		copyRec.Key = f.Machine.Key
		checkStored(t, dir, copyRec)
		switch {
		case f.DesignID == 1002:
			if f.Machine.Ready != f.Machine.Key+worker.ReadySuffix {
				t.Errorf("%s: ready marker %q", f.Machine.Key, f.Machine.Ready)
			}
		case f.Type == "pdf-simple":
			// nested: the order folder's path and name under the prefix, no marker.
			if f.Machine.Key != "legacy/dtf/"+f.Key || f.Machine.Ready != "" {
				t.Errorf("nested copy of %s at %s (ready %q)", f.Key, f.Machine.Key, f.Machine.Ready)
			}
		default:
			t.Errorf("%s (design %d, %s) routed", f.Key, f.DesignID, f.Type)
		}
	}
	if machine != 3 || len(m.Files) != 6 {
		t.Errorf("%d machine copies, manifest lists %d files; want 3, 6", machine, len(m.Files))
	}
}
