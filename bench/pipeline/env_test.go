package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/storage"
)

const (
	benchStore  = "bench-store"
	benchDomain = "bench.example"
	benchKey    = "bench-key"
	benchSecret = "bench-secret"
	// firstDesign is the configurationId of the first generated design.
	firstDesign = 500000
)

// designTemplate is the mug fixture reduced to its first view (a png view): one
// export per design.
func designTemplate(tb testing.TB) model.DesignDetail {
	tb.Helper()
	b, err := os.ReadFile("../../hubsim/testdata/designs/1002.json")
	if err != nil {
		tb.Fatal(err)
	}
	var d model.DesignDetail
	if err := json.Unmarshal(b, &d); err != nil {
		tb.Fatal(err)
	}
	d.Views = d.Views[:1]
	if d.Views[0].Export.Type != model.ExportPNG {
		tb.Fatalf("fixture 1002's first view exports %s, want png", d.Views[0].Export.Type)
	}
	return d
}

// startHub runs the simulator over loopback HTTP with n one-view designs (ids from
// firstDesign) whose exports ex writes. No fault is configured: no latency, no rate
// limit.
func startHub(tb testing.TB, n int, ex hubsim.Exporter, stream bool) (*hubsim.Server, string, []model.DesignRef) {
	tb.Helper()
	return startHubWith(tb, hubsim.Config{
		Stores:        []hubsim.Store{{ID: benchStore, Domains: []string{benchDomain}, Keys: []hubsim.Key{{Key: benchKey, Secret: benchSecret}}}},
		DesignStore:   benchStore,
		Exporter:      ex,
		StreamExports: stream,
	}, n, nil)
}

// startHubWith runs the simulator of cfg over loopback HTTP with n one-view designs
// (ids from firstDesign), design i of store shopOf(i) when shopOf is set. The request
// log is not read, so it is kept to one entry.
func startHubWith(tb testing.TB, cfg hubsim.Config, n int, shopOf func(int) string) (*hubsim.Server, string, []model.DesignRef) {
	tb.Helper()
	cfg.MaxLogged = 1
	sim, err := hubsim.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tpl := designTemplate(tb)
	refs := make([]model.DesignRef, n)
	for i := range refs {
		d := tpl
		d.ConfigurationID = int64(firstDesign + i)
		d.ID = fmt.Sprintf("%024x", d.ConfigurationID)
		d.Token = fmt.Sprintf("bench-%08d", i)
		d.Name = fmt.Sprintf("Bench Mug %d", i)
		if shopOf != nil {
			d.Shop = shopOf(i)
		}
		if err := sim.AddDesign(d); err != nil {
			tb.Fatal(err)
		}
		refs[i] = model.DesignRef{ID: d.ConfigurationID, Token: d.Token}
	}
	hs := httptest.NewServer(sim)
	tb.Cleanup(hs.Close)
	return sim, hs.URL, refs
}

// fixedExporter writes the same bytes for every view.
type fixedExporter []byte

func (x fixedExporter) ExportView(_ context.Context, _ *model.DesignDetail, _ string, _ hubsim.MediaOpener, w io.Writer) (string, error) {
	_, err := w.Write(x)
	return "image/png", err
}

// payload returns n bytes that do not compress (the simulator's generated data).
func payload(tb testing.TB, n int) []byte {
	tb.Helper()
	var buf bytesWriter
	d := designTemplate(tb)
	if _, err := (hubsim.GeneratedExporter{Size: int64(n)}).ExportView(context.Background(), &d, d.Views[0].ID, nil, &buf); err != nil {
		tb.Fatal(err)
	}
	return buf
}

type bytesWriter []byte

func (b *bytesWriter) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }

// concurrencies returns the worker concurrencies PIPELINE_CONCURRENCY lists
// (comma-separated), else def.
func concurrencies(tb testing.TB, def ...int) []int {
	tb.Helper()
	s := os.Getenv("PIPELINE_CONCURRENCY")
	if s == "" {
		return def
	}
	var conc []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			tb.Fatalf("PIPELINE_CONCURRENCY: %v", err)
		}
		conc = append(conc, n)
	}
	return conc
}

// startS3 starts an S3 server of the kind named, "gofakes3" (in this process) or
// "versitygw" (its own process; skipped when not installed), and returns the worker
// flags that store into it and a client of it.
func startS3(tb testing.TB, kind string) ([]string, *storage.S3) {
	tb.Helper()
	var s3 *tests3.Server
	if kind == "gofakes3" {
		s3 = tests3.Start(tb)
	} else {
		if tests3.VersityBinary() == "" {
			tb.Skip("versitygw not installed (set PRINTWORKER_TEST_VERSITYGW)")
		}
		s3 = tests3.StartVersity(tb)
	}
	st, err := storage.NewS3(context.Background(), s3.Config)
	if err != nil {
		tb.Fatal(err)
	}
	return []string{"--storage", "s3", "--s3-bucket", s3.Bucket, "--s3-endpoint", s3.Endpoint, "--s3-region", s3.Region,
		"--s3-access-key", s3.AccessKey, "--s3-secret-key", s3.SecretKey, "--s3-path-style"}, st
}

// startRedis starts a private redis-server; the benchmarks need the real one (a
// worker process shares it, and miniredis would not measure Redis).
func startRedis(tb testing.TB) (*testredis.Server, *redis.Client) {
	tb.Helper()
	rs := testredis.Start(tb)
	if rs.Kind == "miniredis" {
		tb.Skip("needs redis-server")
	}
	return rs, rs.Client(tb)
}

// order is order i: one line of design refs[i].
func order(i int, ref model.DesignRef) *model.Order {
	return &model.Order{
		OrderID: fmt.Sprintf("B-%06d", i), Domain: benchDomain, Email: "bo@example.com", FirstName: "Bo", LastName: "Berg",
		Created: "2024-07-01T12:00:00.000Z", Updated: "2024-07-01T12:00:00.000Z", Status: "paid",
		ShippingDetails: model.Address{FirstName: "Bo", LastName: "Berg", Address1: "1 Main St", City: "Oslo", Zip: "0150", Country: "NO", CountryCode: "NO"},
		BillingDetails:  model.Address{FirstName: "Bo", LastName: "Berg", Address1: "1 Main St", City: "Oslo", Zip: "0150", Country: "NO", CountryCode: "NO"},
		LineItems:       []model.LineItem{{ID: ref.ID, Token: ref.Token, Quantity: 1, Price: 12}},
	}
}

// enqueueOrders enqueues one export order per ref through the Enqueuer from several
// goroutines, as intake does, and returns how long it took.
func enqueueOrders(tb testing.TB, rdb redis.UniversalClient, refs []model.DesignRef) time.Duration {
	tb.Helper()
	enq, err := jobs.NewEnqueuer(rdb, jobs.EnqueuerConfig{})
	if err != nil {
		tb.Fatal(err)
	}
	defer enq.Close()
	const senders = 8
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for s := range senders {
		wg.Go(func() {
			for i := s; i < len(refs); i += senders {
				if _, err := enq.ExportOrder(context.Background(), benchStore, order(i, refs[i])); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		tb.Fatal(err)
	}
	return time.Since(start)
}

// waitDone polls the export queues (every shard there is) and the completion queue
// until every export and completion task of n orders has completed (2n tasks), and
// returns when it saw that. Anything archived fails the benchmark: a failed export
// is no export.
func waitDone(tb testing.TB, rdb redis.UniversalClient, n int, within time.Duration, logs func() string) time.Time {
	tb.Helper()
	deadline := time.Now().Add(within)
	for {
		qi, err := jobs.SumQueueStats(context.Background(), rdb, time.Now(), append(jobs.ExportQueues(jobs.MaxExportShards), jobs.QueueComplete)...)
		if err != nil {
			tb.Fatal(err)
		}
		if qi.Archived > 0 || qi.Retry > 0 {
			tb.Fatalf("%d archived and %d retrying tasks in the export and completion queues\n%s", qi.Archived, qi.Retry, logs())
		}
		if qi.Completed >= 2*n && qi.Pending+qi.Active+qi.Scheduled == 0 {
			return time.Now()
		}
		if time.Now().After(deadline) {
			tb.Fatalf("not done within %s (queues %+v)\n%s", within, qi, logs())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var (
	buildOnce sync.Once
	binPath   string
	errBuild  error
)

// workerBinary builds cmd/printworker once per test binary run, or returns
// $PIPELINE_WORKER_BIN (to compare builds).
func workerBinary(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() {
		if bin := os.Getenv("PIPELINE_WORKER_BIN"); bin != "" {
			binPath = bin
			return
		}
		dir, err := os.MkdirTemp("", "printworker-bench-")
		if err != nil {
			errBuild = err
			return
		}
		binPath = filepath.Join(dir, "printworker")
		if out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/printworker").CombinedOutput(); err != nil {
			errBuild = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if errBuild != nil {
		tb.Fatal(errBuild)
	}
	return binPath
}

// process is a running `printworker work`.
type process struct {
	cmd  *exec.Cmd
	logs string
}

// startWorker runs `printworker work --mode download` with the common flags and extra
// ones; it is stopped (SIGTERM, then SIGKILL) when the benchmark ends.
func startWorker(tb testing.TB, redisURL, hubURL string, extra ...string) *process {
	tb.Helper()
	return startWorkerLog(tb, "download", "warn", redisURL, hubURL, extra...)
}

// startWorkerLog is startWorker in another mode and log level (JSON lines at info:
// the render-mode benchmark reads the time each manifest was written from them).
func startWorkerLog(tb testing.TB, mode, level, redisURL, hubURL string, extra ...string) *process {
	tb.Helper()
	format := "text"
	if level == "info" {
		format = "json"
	}
	args := append([]string{"work",
		"--redis-url", redisURL, "--hub-url", hubURL, "--hub-store", benchStore,
		"--hub-api-key", benchKey, "--hub-secret", benchSecret,
		"--mode", mode, "--hub-rate-per-minute", "0",
		"--metrics-addr", "", "--log-format", format, "--log-level", level,
	}, extra...)
	return startProcess(tb, args)
}

// startProcess runs the printworker binary with args, its output in a log file; it is
// stopped (SIGTERM, then SIGKILL) when the benchmark ends.
func startProcess(tb testing.TB, args []string) *process {
	tb.Helper()
	p := &process{logs: filepath.Join(tb.TempDir(), "worker.log")}
	lf, err := os.Create(p.logs)
	if err != nil {
		tb.Fatal(err)
	}
	p.cmd = exec.Command(workerBinary(tb), args...)
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	// The Go runtime's settings pass through, so a run measures a deployment's
	// (deploy/k8s sets GOMEMLIMIT).
	for _, k := range []string{"GOMAXPROCS", "GOGC", "GOMEMLIMIT"} {
		if v, ok := os.LookupEnv(k); ok {
			p.cmd.Env = append(p.cmd.Env, k+"="+v)
		}
	}
	p.cmd.Stdout, p.cmd.Stderr = lf, lf
	if err := p.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		p.stop()
		lf.Close()
	})
	return p
}

func (p *process) pid() int { return p.cmd.Process.Pid }

func (p *process) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _, _ = p.cmd.Process.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// tail returns the end of the worker's log.
func (p *process) tail() string {
	b, _ := os.ReadFile(p.logs)
	if len(b) > 6000 {
		b = b[len(b)-6000:]
	}
	return string(b)
}

// tmpfsDir returns a fresh folder on tmpfs (/dev/shm) when there is one, else in
// the test's temporary folder, and what it is.
func tmpfsDir(tb testing.TB) (string, string) {
	tb.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "printworker-bench-"); err == nil {
			tb.Cleanup(func() { os.RemoveAll(dir) })
			return dir, "tmpfs"
		}
	}
	return tb.TempDir(), "disk"
}
