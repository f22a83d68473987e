package pipeline

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// span is one timed interval.
type span struct{ start, end time.Time }

// recorder collects the intervals spent in hub calls (request sent to body closed)
// and storage writes.
type recorder struct {
	mu        sync.Mutex
	hub       []span
	files     []span
	manifests []span
}

func (r *recorder) add(list *[]span, s span) {
	r.mu.Lock()
	*list = append(*list, s)
	r.mu.Unlock()
}

// timedTransport times each hub call until its body is closed.
type timedTransport struct {
	rt  http.RoundTripper
	rec *recorder
}

func (t timedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	res, err := t.rt.RoundTrip(req)
	if err != nil {
		t.rec.add(&t.rec.hub, span{start, time.Now()})
		return nil, err
	}
	res.Body = &timedBody{ReadCloser: res.Body, done: func() { t.rec.add(&t.rec.hub, span{start, time.Now()}) }}
	return res, nil
}

type timedBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *timedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}

// timedStorage times each Put.
type timedStorage struct {
	st  worker.Storage
	rec *recorder
}

func (t timedStorage) Put(ctx context.Context, obj storage.Object, body io.Reader) (storage.PutResult, error) {
	start := time.Now()
	res, err := t.st.Put(ctx, obj, body)
	list := &t.rec.files
	if strings.HasSuffix(obj.Key, "/"+storage.ManifestName) {
		list = &t.rec.manifests
	}
	t.rec.add(list, span{start, time.Now()})
	return res, err
}

// BenchmarkExportOverhead measures the time per export spent outside the hub
// transfer and the storage write: fetching the task from Redis, the order state
// bookkeeping (MarkDone, the completion enqueue), acknowledging, and the whole
// completion task (state read, manifest built and written). The worker runs in this
// process with concurrency 1 over a private redis-server, the simulator over
// loopback HTTP serving 1 KiB exports, and a directory on tmpfs; b.N orders of one
// single-view design are queued before it starts.
//
// With one task at a time and the exports queue served strictly first, the export
// tasks run back to back and the completions after them. An export task's cycle runs from one file write's
// end to the next; its overhead is the cycle minus the time inside hub calls and
// storage writes. A completion's cycle (manifest write to manifest write) is overhead
// whole. Reported: the medians and 90th percentiles, and their sum per export.
func BenchmarkExportOverhead(b *testing.B) {
	n := b.N
	rec := runInProcess(b, n, 1, 1<<10)
	if n < 3 {
		return // too few cycles to measure
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.files) != n || len(rec.manifests) != n {
		b.Fatalf("%d files and %d manifests written, want %d each", len(rec.files), len(rec.manifests), n)
	}
	busy := append(slices.Clone(rec.hub), rec.files...)
	var exportCycle, exportOver, completeCycle []float64
	for _, c := range cycles(rec.files) {
		exportCycle = append(exportCycle, ms(c.end.Sub(c.start)))
		exportOver = append(exportOver, ms(c.end.Sub(c.start)-covered(busy, c)))
	}
	for _, c := range cycles(rec.manifests) {
		completeCycle = append(completeCycle, ms(c.end.Sub(c.start)))
	}
	b.ReportMetric(quantile(exportCycle, 0.5), "export-task-ms")
	b.ReportMetric(quantile(exportOver, 0.5), "export-overhead-ms")
	b.ReportMetric(quantile(exportOver, 0.9), "export-overhead-p90-ms")
	b.ReportMetric(quantile(completeCycle, 0.5), "complete-task-ms")
	b.ReportMetric(quantile(completeCycle, 0.9), "complete-task-p90-ms")
	b.ReportMetric(quantile(exportOver, 0.5)+quantile(completeCycle, 0.5), "overhead-ms/export")
}

// cycles returns the intervals between consecutive ends of the given spans.
func cycles(spans []span) []span {
	ends := make([]time.Time, len(spans))
	for i, s := range spans {
		ends[i] = s.end
	}
	slices.SortFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	out := make([]span, 0, len(ends))
	for i := 1; i < len(ends); i++ {
		out = append(out, span{ends[i-1], ends[i]})
	}
	return out
}

// covered is how much of window w the union of spans covers.
func covered(spans []span, w span) time.Duration {
	var clipped []span
	for _, s := range spans {
		if s.end.After(w.start) && s.start.Before(w.end) {
			if s.start.Before(w.start) {
				s.start = w.start
			}
			if s.end.After(w.end) {
				s.end = w.end
			}
			clipped = append(clipped, s)
		}
	}
	sort.Slice(clipped, func(i, j int) bool { return clipped[i].start.Before(clipped[j].start) })
	var total time.Duration
	var cur span
	for i, s := range clipped {
		switch {
		case i == 0:
			cur = s
		case s.start.After(cur.end):
			total += cur.end.Sub(cur.start)
			cur = s
		case s.end.After(cur.end):
			cur.end = s.end
		}
	}
	if len(clipped) > 0 {
		total += cur.end.Sub(cur.start)
	}
	return total
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// quantile returns the q-quantile of xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	i := int(q*float64(len(s)-1) + 0.5)
	return s[i]
}

// BenchmarkInProcessThroughput is BenchmarkThroughput's tmpfs case with the worker in
// this process (concurrency 32, 100 KiB exports), for profiling the worker together
// with the simulator: -cpuprofile, -memprofile. PIPELINE_DIR=disk stores on disk
// (the test's temporary folder) instead of tmpfs.
func BenchmarkInProcessThroughput(b *testing.B) {
	var r0, r1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	start := time.Now()
	runInProcess(b, b.N, 32, exportSize)
	took := time.Since(start)
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	b.ReportMetric(float64(b.N)/took.Seconds(), "exports/s")
	// Worker and simulator together (this process); the setup before the run is
	// included, so compare runs of the same b.N.
	b.ReportMetric(float64((rusageCPU(r1)-rusageCPU(r0)).Microseconds())/1000/float64(b.N), "cpu-ms/export")
}

// runInProcess queues n orders (one single-view design each, exports of size bytes),
// runs an in-process worker with the given concurrency over a private redis-server,
// the simulator over loopback HTTP and a directory on tmpfs until every order is
// complete, and returns the timed hub calls and storage writes. Only the worker's
// run is timed.
func runInProcess(b *testing.B, n, conc, size int) *recorder {
	_, rdb := startRedis(b)
	_, hubURL, refs := startHub(b, n, fixedExporter(payload(b, size)), false)
	dir, _ := tmpfsDir(b)
	if os.Getenv("PIPELINE_DIR") == "disk" {
		dir = b.TempDir()
	}
	dst, err := storage.NewDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	rec := &recorder{}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = max(conc, 2) // as `printworker work` does
	b.Cleanup(tr.CloseIdleConnections)
	client, err := hub.NewClient(hub.Config{Store: benchStore, APIKey: benchKey, Secret: benchSecret, BaseURL: hubURL,
		HTTPClient: &http.Client{Transport: timedTransport{tr, rec}}})
	if err != nil {
		b.Fatal(err)
	}
	w, err := worker.New(worker.Config{
		Concurrency: conc, Mode: worker.ModeDownload,
		// Every export before any completion (which has a heavier queue of its own in
		// production): the cycle analysis of BenchmarkExportOverhead reads that layout.
		Queues: map[string]int{jobs.QueueExports: 2, jobs.QueueComplete: 1}, StrictPriority: true,
		// PerMinute 0 with a burst disables the limit (the zero value means the default).
		RateLimit:       worker.RateLimit{PerMinute: 0, Burst: 1},
		ShutdownTimeout: 5 * time.Second, Logger: slog.New(slog.DiscardHandler),
	}, worker.Deps{
		Redis:   rdb,
		Hubs:    func(string) (worker.Hub, error) { return client, nil },
		Storage: timedStorage{dst, rec},
	})
	if err != nil {
		b.Fatal(err)
	}
	enqueueOrders(b, rdb, refs)

	b.ResetTimer()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- w.Run(ctx) }()
	waitDone(b, rdb, n, 10*time.Minute, func() string { return "" })
	b.StopTimer()
	cancel()
	if err := <-stopped; err != nil {
		b.Fatal(err)
	}
	return rec
}
