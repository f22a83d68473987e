//go:build trial

package trials

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// The fault trials of issue 10 ("not yet covered"): a worker process against a fault
// in a part it depends on. Each ends with verifyOrders: nothing lost, nothing
// half-written, nothing extra.

// TestWorkSurvivesStorageOutage: the bucket answers 503 to everything for a
// 10-minute outage, scaled down 60 times to keep the test short: the outage lasts 10 s
// and the worker's retry delays are the defaults divided by 60 (--retry-base 83ms
// instead of 5s, --retry-max 10s instead of 10m). The number of retries an outage
// costs is what scaling keeps (delays and outage shrink alike), and that number is
// what decides whether a task outlives the outage (exports retry 8 times). Two delays
// are not scaled: the S3 SDK's own attempts of one request (3, with its backoff) and
// asynq's 1 s poll of due retries; they make each failed attempt last seconds, so the
// scaled trial spends fewer task retries than the real outage would (docs/operations.md
// works the real schedule out).
func TestWorkSurvivesStorageOutage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fault trial: builds the binary, runs a worker through a scaled 10-minute storage outage (about 40 s)")
	}
	const (
		orders = 20
		scale  = 60
		outage = 10 * time.Minute / scale
	)
	bin := buildPrintworker(t)
	f := newProcessFixture(t, "outage", 0)
	hs := httptest.NewServer(f.sim)
	defer hs.Close()
	want := f.enqueueOrders(t, "S", orders)

	f.s3.SetFault(tests3.FaultUnavailable)
	w := startFleetWorker(t, bin, "worker", f.workArgs(hs.URL,
		"--mode", "download", "--concurrency", "4", "--hub-rate-per-minute", "0",
		"--retry-base", (5*time.Second/scale).String(), "--retry-max", (10*time.Minute/scale).String(),
		"--metrics-addr", "", "--log-format", "json"))
	start := time.Now()
	time.Sleep(outage)
	f.s3.SetFault(tests3.FaultNone)
	t.Logf("storage back after %s (a %s outage at scale 1/%d)", time.Since(start).Round(time.Millisecond), outage*scale, scale)
	back := time.Now()
	waitUntil(t, 3*time.Minute, "every manifest after the outage", func() { w.dumpLog(t) }, func() bool { return f.manifests(t) >= orders && pagesIdle(t, f.rdb) })
	t.Logf("all %d orders complete %s after the storage came back", orders, time.Since(back).Round(time.Millisecond))
	if err := w.stop(t, 30*time.Second, func() { w.dumpLog(t) }); err != nil {
		t.Errorf("worker exit: %v", err)
	}
	insp := asynq.NewInspectorFromRedisClient(f.rdb)
	maxRetried := 0
	for _, q := range withExportShards(jobs.QueueExports, jobs.QueueOrders, jobs.QueueComplete) {
		done, _ := insp.ListCompletedTasks(q, asynq.PageSize(1000))
		for _, d := range done {
			maxRetried = max(maxRetried, d.Retried)
		}
	}
	t.Logf("most retries of one task: %d (exports may retry 8 times); worker log: %v", maxRetried, tally(w.records(t)))
	verifyOrders(t, f, want)
}

// verifyOrders checks the end state of a trial: every order's manifest lists the
// files it must, every listed file is stored with the bytes and SHA-256 the manifest
// gives, every stored object is listed by a manifest, and no task is archived.
func verifyOrders(t *testing.T, f *processFixture, want map[string]int) {
	t.Helper()
	ctx := context.Background()
	objs, err := f.st.List(ctx, f.store+"/")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	var total int64
	for id, n := range want {
		mkey := f.store + "/2024-07-01/" + storage.OrderFolderValue(id, f.domain) + "/" + storage.ManifestName
		var m worker.Manifest
		if err := json.Unmarshal(readObject(t, f.st, mkey), &m); err != nil {
			t.Errorf("%s: %v", mkey, err)
			continue
		}
		listed[mkey] = true
		if m.OrderID != id || len(m.Files) != n {
			t.Errorf("%s: order %q with %d files, want %q with %d", mkey, m.OrderID, len(m.Files), id, n)
		}
		for _, k := range shopFloorKeys(m) {
			listed[k] = true
			readObject(t, f.st, k) // listed by the manifest, so it must be stored
		}
		listed[dayPageKey(mkey)] = true
		listed[dayIndexKey(mkey)] = true
		checkDayPage(t, readObject(t, f.st, dayPageKey(mkey)), mkey)
		for _, fr := range m.Files {
			listed[fr.Key] = true
			total += fr.Bytes
			b := readObject(t, f.st, fr.Key)
			sum := sha256.Sum256(b)
			if h := hex.EncodeToString(sum[:]); h != fr.SHA256 || int64(len(b)) != fr.Bytes {
				t.Errorf("%s: stored %d bytes %s, manifest %d bytes %s", fr.Key, len(b), h, fr.Bytes, fr.SHA256)
			}
		}
	}
	for _, o := range objs {
		if !listed[o.Key] {
			t.Errorf("stray object %s: stored, in no manifest", o.Key)
		}
	}
	insp := asynq.NewInspectorFromRedisClient(f.rdb)
	for _, q := range withExportShards(jobs.QueueExports, jobs.QueueOrders, jobs.QueueComplete) {
		archived, _ := insp.ListArchivedTasks(q)
		for _, a := range archived {
			t.Errorf("archived %s task %s: %s", q, a.Type, a.LastErr)
		}
	}
	t.Logf("%d orders verified: %d objects, each listed by its manifest with its SHA-256 (%.1f MiB of print files)", len(want), len(objs), float64(total)/(1<<20))
}

// tally counts log records by message.
func tally(recs []logRecord) map[string]int {
	out := map[string]int{}
	for _, r := range recs {
		out[r.Msg]++
	}
	return out
}

// TestWorkRedisKilledWithAOF: Redis, run as production runs it (appendonly yes,
// appendfsync everysec), is killed with SIGKILL while a worker exports a batch, and a
// burst of orders is enqueued in the last instant before the kill; 3 s later Redis
// restarts from its AOF. everysec may lose the last second of writes when the machine
// fails; a killed redis-server has written every acknowledged command to the AOF file
// (the kernel keeps it), so the test counts the burst's orders whose state survived,
// requires every order whose state survived to complete (tasks in flight at the kill
// come back through lease expiry), and no order to be left with state but no tasks.
func TestWorkRedisKilledWithAOF(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fault trial: builds the binary, kills redis-server mid-batch, waits for lease recovery (about 140 s)")
	}
	bin := buildPrintworker(t)
	f := newProcessFixture(t, "aof", 100*time.Millisecond, testredis.AOF())
	hs := httptest.NewServer(f.sim)
	defer hs.Close()
	want := f.enqueueOrders(t, "R", 30)
	w := startFleetWorker(t, bin, "worker", f.workArgs(hs.URL,
		"--mode", "download", "--concurrency", "4", "--hub-rate-per-minute", "0",
		"--retry-base", "200ms", "--retry-max", "2s", "--metrics-addr", "", "--log-format", "json"))
	dump := func() { w.dumpLog(t) }
	waitUntil(t, 3*time.Minute, "the batch is under way", dump, func() bool { return f.manifests(t) >= 3 })
	burst := f.enqueueOrders(t, "L", 10)
	f.rs.Kill()
	atKill := f.manifests(t)
	if atKill >= len(want) {
		t.Fatal("the batch finished before the kill: nothing was tested")
	}
	time.Sleep(3 * time.Second)
	if err := f.rs.Restart(); err != nil {
		t.Fatal(err)
	}
	survived := map[string]int{}
	for id, n := range want {
		if !orderStateExists(t, f, id) {
			t.Errorf("order %s, enqueued before the batch started, lost its state", id)
			continue
		}
		survived[id] = n
	}
	lost := 0
	for id, n := range burst {
		if orderStateExists(t, f, id) {
			survived[id] = n
		} else {
			lost++
		}
	}
	t.Logf("SIGKILL with %d of %d manifests written; after the restart from the AOF: %d of the %d orders enqueued in the instant before the kill lost, %d orders to finish",
		atKill, len(want), lost, len(burst), len(survived))
	restarted := time.Now()
	waitUntil(t, 3*time.Minute, "every surviving order's manifest", dump, func() bool { return f.manifests(t) >= len(survived) && pagesIdle(t, f.rdb) })
	t.Logf("all %d surviving orders complete %s after Redis came back", len(survived), time.Since(restarted).Round(time.Second))
	if err := w.stop(t, 30*time.Second, dump); err != nil {
		t.Errorf("worker exit: %v", err)
	}
	verifyOrders(t, f, survived)
}

// orderStateExists reports whether the order's export state is in Redis.
func orderStateExists(t *testing.T, f *processFixture, id string) bool {
	t.Helper()
	snap, err := f.enq.State().Snapshot(context.Background(), jobs.OrderKey{Store: f.store, Domain: f.domain, OrderID: id})
	if err != nil {
		t.Fatal(err)
	}
	return snap.Exists
}

// TestWorkKilledDuringWrite: a worker is killed with SIGKILL while storage is reading
// one of its writes, then a second worker finishes the batch (the killed worker's
// tasks come back through lease expiry). Two writes are trialled: an order's manifest
// (one PutObject), and a print file over the part size sent as a multipart upload
// (--s3-part-size 5MiB, the kill during part 2). A proxy in front of the S3 server
// reads the first KiB of the chosen request, then holds it unanswered; the kill lands
// there. Right after the kill the key must hold nothing; at the end every order is
// complete and right (verifyOrders).
func TestWorkKilledDuringWrite(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fault trial: builds the binary, kills workers mid-upload, waits for lease recovery (about 3 min)")
	}
	bin := buildPrintworker(t)
	tests := []struct {
		name string
		// match picks the request to hold.
		match func(r *http.Request) bool
		// orders enqueues the batch and returns the files each order must end with.
		orders func(t *testing.T, f *processFixture) map[string]int
		extra  []string
	}{
		{
			name: "manifest write",
			match: func(r *http.Request) bool {
				return r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/"+storage.ManifestName)
			},
			orders: func(t *testing.T, f *processFixture) map[string]int {
				return f.enqueueOrders(t, "M", 5)
			},
			extra: []string{"--mode", "download"},
		},
		{
			name: "multipart upload, part 2",
			match: func(r *http.Request) bool {
				return r.Method == http.MethodPut && r.URL.Query().Get("partNumber") == "2"
			},
			orders: func(t *testing.T, f *processFixture) map[string]int {
				// A page of noise at 600 dpi: a pdf-simple file of tens of MB.
				ref := addPictureDesign(t, f, 7100, noisePNG(t, 3200, 2200), 3200, 2200, func(view, pic map[string]any) {
					view["export"].(map[string]any)["dpi"] = 600
					pic["autoResize"], pic["scale"], pic["positionX"], pic["positionY"] = "fill", 1, 210, 149
				})
				enqueueTestOrder(t, f, "P-1", ref)
				return map[string]int{"P-1": 1}
			},
			extra: []string{"--mode", "render", "--s3-part-size", "5MiB"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newProcessFixture(t, "kill", 0)
			hs := httptest.NewServer(f.sim)
			defer hs.Close()
			proxy := newHoldingProxy(t, f.s3.Endpoint, tc.match)
			want := tc.orders(t, f)
			args := f.workArgs(hs.URL, append([]string{"--concurrency", "2", "--hub-rate-per-minute", "0",
				"--retry-base", "200ms", "--retry-max", "2s", "--metrics-addr", "", "--log-format", "json"}, tc.extra...)...)
			for i, a := range args {
				if a == "--s3-endpoint" {
					args[i+1] = proxy.URL
				}
			}
			first := startFleetWorker(t, bin, "first worker", args)
			select {
			case key := <-proxy.held:
				if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				<-first.exited
				proxy.release()
				t.Logf("killed the worker while storage read %s", key)
				if _, err := f.st.Stat(context.Background(), key); !errors.Is(err, storage.ErrNotFound) {
					t.Errorf("after the kill %s is visible (%v), want nothing under the key", key, err)
				}
			case <-time.After(2 * time.Minute):
				first.dumpLog(t)
				t.Fatal("the chosen write never came")
			}
			killed := time.Now()
			second := startFleetWorker(t, bin, "second worker", args)
			waitUntil(t, 3*time.Minute, "every manifest after the kill", func() { second.dumpLog(t) },
				func() bool { return f.manifests(t) >= len(want) && pagesIdle(t, f.rdb) })
			t.Logf("all %d orders complete %s after the kill", len(want), time.Since(killed).Round(time.Second))
			if err := second.stop(t, 30*time.Second, func() { second.dumpLog(t) }); err != nil {
				t.Errorf("second worker exit: %v", err)
			}
			verifyOrders(t, f, want)
			t.Logf("incomplete multipart uploads left in the bucket: %d (an AbortIncompleteMultipartUpload lifecycle rule removes them)", pendingUploads(t, f))
		})
	}
}

// holdingProxy forwards requests to an S3 server, except the first one match picks:
// of that one it reads the first KiB, reports its key on held, and keeps it
// unanswered until release, then drops the connection.
type holdingProxy struct {
	URL     string
	held    chan string
	release func()
}

func newHoldingProxy(t *testing.T, target string, match func(*http.Request) bool) *holdingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	p := &holdingProxy{held: make(chan string, 1)}
	gate := make(chan struct{})
	var once, taken sync.Once
	p.release = func() { once.Do(func() { close(gate) }) }
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hold := false
		if match(r) {
			taken.Do(func() { hold = true })
		}
		if !hold {
			rp.ServeHTTP(w, r)
			return
		}
		_, _ = io.CopyN(io.Discard, r.Body, 1024)
		// Path style: /bucket/key.
		_, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		p.held <- key
		<-gate
		panic(http.ErrAbortHandler)
	}))
	p.URL = hs.URL
	// Cleanups run last-in first-out: the held request goes before the server closes.
	t.Cleanup(hs.Close)
	t.Cleanup(p.release)
	return p
}

// noisePNG is a w x h opaque PNG of random pixels: it does not compress.
func noisePNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pendingUploads counts the bucket's incomplete multipart uploads.
func pendingUploads(t *testing.T, f *processFixture) int {
	t.Helper()
	out, err := f.s3.Client().ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(f.s3.Bucket)})
	if err != nil {
		if strings.Contains(err.Error(), "NoSuchUpload") { // gofakes3's empty listing
			return 0
		}
		t.Fatal(err)
	}
	return len(out.Uploads)
}

// shopFloorKeys are the objects a manifest names besides its print files: each file's
// thumbnail, the job ticket and the staff page (written before the manifest).
// dayPageKey is the key of the day page above the order folder of manifest mkey
// (docs/shop-floor.md: {store}/{date}/index.html in the default layout).
func dayPageKey(mkey string) string {
	return path.Dir(path.Dir(mkey)) + "/index.html"
}

// dayIndexKey is the key of the day's summaries beside its page (docs/shop-floor.md).
func dayIndexKey(mkey string) string {
	return path.Dir(path.Dir(mkey)) + "/index.json"
}

// checkDayPage reads the day page above manifest mkey and checks it links the order
// folder; the caller waited for the day page builds (pagesIdle).
func checkDayPage(t *testing.T, page []byte, mkey string) {
	t.Helper()
	// A relative link (hot folder, public bucket) or a presigned one (private bucket,
	// whose signature's encoding also escapes the '@' of an order's folder).
	want := url.PathEscape(path.Base(path.Dir(mkey))) + `/index.html`
	signed := strings.ReplaceAll(want, "@", "%40")
	if !strings.Contains(string(page), `href="`+want+`"`) && !strings.Contains(string(page), "/"+want+"?") && !strings.Contains(string(page), "/"+signed+"?") {
		t.Errorf("day page %s lacks the order of %s (%s)", dayPageKey(mkey), mkey, want)
	}
}

func shopFloorKeys(m worker.Manifest) []string {
	var keys []string
	for _, f := range m.Files {
		if f.Thumbnail != "" {
			keys = append(keys, f.Thumbnail)
		}
	}
	for _, k := range []string{m.Ticket, m.StaffPage} {
		if k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}
