package worker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/url"
	"path"
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

// TestRoutingS3: through the S3 protocol server with two buckets, a routed product's
// files land only under its prefix (and bucket), the rest keep the layout key, and the
// manifest stays in the order's folder of the default bucket listing every key and
// bucket.
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

	want := map[string]string{} // key -> bucket ("" default)
	for _, f := range append(m1.Files, m2.Files...) {
		var st lister = e.store
		if f.Bucket == "sublimation-prints" {
			st = mugs
		} else if f.Bucket != "" {
			t.Errorf("%s: bucket %q", f.Key, f.Bucket)
			continue
		}
		switch {
		case f.DesignID == 1001 && !strings.HasPrefix(f.Key, "dtf/"+orderDir("R-1")+"/"),
			f.DesignID == 1002 && (f.Bucket != "sublimation-prints" || !strings.HasPrefix(f.Key, "sublimation/"+orderDir("R-1")+"/")),
			f.DesignID == 1003 && strings.Contains(f.Key, "/"+storage.OrderFolderValue("R-1", domain)+"/") && !strings.HasPrefix(f.Key, orderDir("R-1")+"/"),
			f.DesignID == 1003 && strings.Contains(f.Key, "/"+storage.OrderFolderValue("R-2", domain)+"/") && !strings.HasPrefix(f.Key, "rush/"+orderDir("R-2")+"/"):
			t.Errorf("design %d file routed to %s bucket %q", f.DesignID, f.Key, f.Bucket)
		}
		checkStored(t, st, f)
		want[f.Bucket+":"+f.Key] = f.Bucket
		if f.Thumbnail != "" {
			// docs/shop-floor.md: the preview sits next to its file, in its bucket.
			want[f.Bucket+":"+f.Thumbnail] = f.Bucket
		}
	}
	for _, m := range []worker.Manifest{m1, m2} {
		// The ticket and staff page sit next to the manifest, in the default bucket.
		want[":"+m.Ticket], want[":"+m.StaffPage] = "", ""
	}
	// The day page sits in the day folder of the default bucket (it lists manifests).
	want[":"+store+"/2024-06-01/index.html"] = ""
	if len(m1.Files) != 6 || len(m2.Files) != 1 {
		t.Fatalf("manifests list %d and %d files, want 6 and 1", len(m1.Files), len(m2.Files))
	}
	// Nothing else in either bucket: a routed file is only under its prefix.
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

// TestRoutingHotFolder: with a hot folder, a routed product's files land only under
// its prefix folder, so the machine watching that folder sees only its work.
func TestRoutingHotFolder(t *testing.T) {
	root := t.TempDir()
	dir, err := storage.NewDir(root)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *worker.Config, d *worker.Deps) {
		c.Routing = mustRules(t, `{"rules": [{"match": {"product": ["mug-11oz"], "minQuantity": 2}, "prefix": "sublimation"}]}`)
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
	infos, err := dir.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var routed, plain, thumbs int
	for _, in := range infos {
		if in.Key == manifest || in.Key == m.Ticket || in.Key == m.StaffPage || in.Key == store+"/2024-06-01/index.html" {
			continue
		}
		if strings.HasSuffix(in.Key, ".thumb.jpg") {
			thumbs++ // docs/shop-floor.md: checked below to sit next to its file
			continue
		}
		isMug := strings.Contains(in.Key, "Coffee-Mug")
		if strings.HasPrefix(in.Key, "sublimation/") != isMug {
			t.Errorf("%s: mug files (only) belong under sublimation/", in.Key)
		}
		if isMug {
			routed++
		} else {
			plain++
		}
	}
	listedThumbs := 0
	for _, f := range m.Files {
		if f.Thumbnail != "" {
			listedThumbs++
			if path.Dir(f.Thumbnail) != path.Dir(f.Key) {
				t.Errorf("thumbnail %s is not next to %s", f.Thumbnail, f.Key)
			}
		}
	}
	if thumbs != listedThumbs {
		t.Errorf("%d thumbnails stored, manifest lists %d", thumbs, listedThumbs)
	}
	if routed != 2 || plain != 4 || len(m.Files) != 6 {
		t.Errorf("%d routed and %d plain files, manifest lists %d; want 2, 4, 6", routed, plain, len(m.Files))
	}
	for _, f := range m.Files {
		checkStored(t, dir, f)
		if !strings.HasPrefix(f.URL, "file://") || f.Bucket != "" {
			t.Errorf("%s: url %q bucket %q", f.Key, f.URL, f.Bucket)
		}
	}
}
