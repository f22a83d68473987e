//go:build trial

package trials

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/internal/testnet"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// TestFleetTwoWorkersShareWorkAndDrainOnSIGTERM runs printworker as a fleet: two
// `printworker work` processes behind one Redis, one hub and one bucket. It shows
// that both take work, that SIGTERM to one of them lets the task it has in flight
// finish (by that worker, once, not handed to the other) before the process exits 0,
// and that the other worker then finishes the batch.
//
// "In flight" is made certain rather than hoped for: each worker reaches the hub
// simulator through its own gate, and the first worker's gate holds its hub calls
// while the test looks up its running tasks in asynq and sends SIGTERM. The gate
// opens only once the worker has logged that it is stopping, so whatever it then
// finishes was in flight when the signal came.
func TestFleetTwoWorkersShareWorkAndDrainOnSIGTERM(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fleet test: builds the binary and runs two worker processes (about 30 s)")
	}
	const (
		orders          = 30
		concurrency     = 2
		shutdownTimeout = 30 * time.Second
	)
	bin := buildPrintworker(t)
	// Every hub call takes this long, which bounds how fast one worker can get
	// through the batch: work is certainly left for the second worker when the first
	// one is stopped.
	f := newProcessFixture(t, "fleet", 250*time.Millisecond)
	rdb, sim, st, store := f.rdb, f.sim, f.st, f.store
	gateA, gateB := &hubGate{next: sim}, &hubGate{next: sim}
	hsA, hsB := httptest.NewServer(gateA), httptest.NewServer(gateB)
	t.Cleanup(hsA.Close)
	t.Cleanup(hsB.Close)
	// Cleanups run last-in first-out: a held request is let go before its server
	// closes, or Close would wait for it forever.
	t.Cleanup(gateA.open)

	// The batch: every order pushed and exported, as intake would enqueue it.
	wantFiles := f.enqueueOrders(t, "F", orders)
	manifests := func() int { return f.manifests(t) }

	args := func(hubURL, metricsAddr string) []string {
		return f.workArgs(hubURL,
			"--mode", "download", "--concurrency", fmt.Sprint(concurrency), "--hub-rate-per-minute", "0",
			"--retry-base", "200ms", "--retry-max", "2s", "--shutdown-timeout", shutdownTimeout.String(),
			"--metrics-addr", metricsAddr, "--log-format", "json", "--log-level", "info",
		)
	}
	// Two workers on one host, as in the compose file: each with its own metrics port.
	metricsA, metricsB := testnet.FreeAddr(t), testnet.FreeAddr(t)
	a := startFleetWorker(t, bin, "worker A", args(hsA.URL, metricsA))
	b := startFleetWorker(t, bin, "worker B", args(hsB.URL, metricsB))
	dump := func() {
		a.dumpLog(t)
		b.dumpLog(t)
	}
	insp := asynq.NewInspectorFromRedisClient(rdb)
	t.Cleanup(func() { insp.Close() })

	// Both workers join the one fleet (asynq lists each server by host and pid) and
	// take work from the one queue.
	waitUntil(t, 3*time.Minute, "both workers are asynq servers and finish a task", dump, func() bool {
		pids := map[int]bool{}
		for _, s := range servers(t, insp) {
			pids[s.PID] = s.Concurrency == concurrency
		}
		return pids[a.cmd.Process.Pid] && pids[b.cmd.Process.Pid] && len(a.done(t)) > 0 && len(b.done(t)) > 0
	})
	// Each worker's own /metrics says so too (the counter is bumped before the log line).
	for _, w := range []struct{ name, addr string }{{"worker A", metricsA}, {"worker B", metricsB}} {
		if n := succeededTasks(t, w.addr); n < 1 {
			t.Errorf("%s /metrics: %v tasks succeeded, want at least 1", w.name, n)
		}
	}

	// Hold A's hub calls, then find A's running tasks as asynq reports them (its
	// servers' heartbeat, every 5 s) and still active in the queue.
	gateA.close()
	var inflight []*asynq.WorkerInfo
	waitUntil(t, 30*time.Second, "worker A has a task in flight, held at the hub", dump, func() bool {
		if gateA.held.Load() == 0 {
			return false
		}
		inflight = activeTasksOf(t, insp, a.cmd.Process.Pid)
		return len(inflight) > 0
	})
	t.Logf("worker A: %d hub calls held, tasks in flight %v", gateA.held.Load(), taskIDs(inflight))

	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 30*time.Second, "worker A logs that it is stopping", dump, func() bool {
		return a.stoppingAt(t) >= 0
	})
	gateA.open()
	if err := a.wait(t, shutdownTimeout+30*time.Second, dump); err != nil {
		dump()
		t.Fatalf("worker A did not exit cleanly on SIGTERM: %v", err)
	}
	leftAtExit := orders - manifests()

	// What A finished after it began stopping is the drain; the tasks it had in
	// flight are among it, each completed once, by A, with no retry.
	recsA := a.records(t)
	stop := a.stoppingAt(t)
	drained := map[string]bool{}
	for _, r := range recsA[stop:] {
		if r.Msg == "task done" {
			drained[r.TaskID] = true
		}
	}
	if len(drained) == 0 {
		dump()
		t.Fatal("worker A finished no task after SIGTERM: nothing was in flight, nothing drained")
	}
	doneA, doneB := a.done(t), b.done(t)
	drainedInflight := 0
	for _, w := range inflight {
		id := w.TaskID
		info, err := insp.GetTaskInfo(w.Queue, id)
		if err != nil {
			t.Errorf("in-flight task %s: %v", id, err)
			continue
		}
		if info.State != asynq.TaskStateCompleted || info.Retried != 0 {
			t.Errorf("in-flight task %s: state %s, retried %d; want completed with no retry", id, info.State, info.Retried)
		}
		if doneA[id] != 1 {
			t.Errorf("in-flight task %s: done %d times by worker A, want once", id, doneA[id])
		}
		if n := b.mentions(t, id); n > 0 {
			t.Errorf("in-flight task %s of worker A also ran on worker B (%d log lines)", id, n)
		}
		if drained[id] {
			drainedInflight++
		}
	}
	if drainedInflight == 0 {
		t.Errorf("none of worker A's in-flight tasks %v finished after SIGTERM (drained: %v)", taskIDs(inflight), drained)
	}
	// A graceful exit takes the server out of the fleet at once (no lease to expire).
	if slices.ContainsFunc(servers(t, insp), func(s *asynq.ServerInfo) bool { return s.PID == a.cmd.Process.Pid }) {
		t.Error("worker A is still listed among asynq's servers after a clean exit")
	}
	t.Logf("worker A exited 0 after SIGTERM: %d tasks done, %d of them after SIGTERM (%d of %d held in flight); %d of %d orders left",
		countDone(doneA), len(drained), drainedInflight, len(inflight), leftAtExit, orders)
	if leftAtExit == 0 {
		t.Fatal("the batch was done when worker A exited: the test has nothing left for worker B")
	}

	// B finishes the batch alone.
	doneBAtExit := countDone(doneB)
	waitUntil(t, 3*time.Minute, "worker B finishes the batch", dump, func() bool { return manifests() >= orders })
	if err := b.stop(t, shutdownTimeout+30*time.Second, dump); err != nil {
		dump()
		t.Errorf("worker B did not exit cleanly on SIGTERM: %v", err)
	}
	doneA, doneB = a.done(t), b.done(t)
	if countDone(doneB) <= doneBAtExit {
		t.Errorf("worker B finished no task after worker A left, yet %d orders were open", leftAtExit)
	}

	// Every task ran to success once in the whole fleet, and every order is complete.
	all := maps.Clone(doneA)
	maps.Copy(all, doneB)
	for id := range all {
		if doneA[id]+doneB[id] != 1 {
			t.Errorf("task %s done %d times by worker A and %d by worker B, want once in all", id, doneA[id], doneB[id])
		}
	}
	for id := range wantFiles {
		var m worker.Manifest
		if err := json.Unmarshal(readObject(t, st, store+"/2024-07-01/"+storage.OrderFolderValue(id, f.domain)+"/"+storage.ManifestName), &m); err != nil {
			t.Fatalf("order %s manifest: %v", id, err)
		}
		if len(m.Files) != wantFiles[id] {
			t.Errorf("order %s: %d files, want %d", id, len(m.Files), wantFiles[id])
		}
	}
	for _, q := range withExportShards(jobs.QueueOrders, jobs.QueueComplete, jobs.QueueExports) {
		archived, _ := insp.ListArchivedTasks(q)
		for _, x := range archived {
			t.Errorf("archived %s: %s", x.ID, x.LastErr)
		}
	}
	t.Logf("fleet: worker A did %d tasks, worker B %d; hub calls A %d, B %d; %d orders complete",
		countDone(doneA), countDone(doneB), gateA.served.Load(), gateB.served.Load(), orders)
}

// hubGate stands in front of the hub simulator for one worker. It counts the
// worker's hub calls and, while closed, holds them: a task waiting here is in flight
// and cannot finish until the gate opens.
type hubGate struct {
	next   http.Handler
	served atomic.Int64
	held   atomic.Int64

	mu   sync.Mutex
	wait chan struct{} // non-nil while closed
}

func (g *hubGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	wait := g.wait
	g.mu.Unlock()
	if wait != nil {
		g.held.Add(1)
		select {
		case <-wait:
		case <-r.Context().Done():
		}
		g.held.Add(-1)
	}
	g.served.Add(1)
	g.next.ServeHTTP(w, r)
}

func (g *hubGate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.wait == nil {
		g.wait = make(chan struct{})
	}
}

func (g *hubGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.wait != nil {
		close(g.wait)
		g.wait = nil
	}
}

// fleetWorker is one `printworker work` process with its JSON log in a file.
type fleetWorker struct {
	name   string
	cmd    *exec.Cmd
	log    string
	exited chan struct{} // closed when the process has ended; err is then set
	err    error
}

// startFleetWorker starts the process with PATH and env ("NAME=value") as its
// environment.
func startFleetWorker(t *testing.T, bin, name string, args []string, env ...string) *fleetWorker {
	t.Helper()
	w := &fleetWorker{name: name, log: filepath.Join(t.TempDir(), "worker.log"), exited: make(chan struct{})}
	lf, err := os.Create(w.log)
	if err != nil {
		t.Fatal(err)
	}
	w.cmd = exec.Command(bin, args...)
	w.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	w.cmd.Stdout, w.cmd.Stderr = lf, lf
	if err := w.cmd.Start(); err != nil {
		lf.Close()
		t.Fatal(err)
	}
	go func() {
		w.err = w.cmd.Wait()
		lf.Close()
		close(w.exited)
	}()
	t.Cleanup(func() {
		// A test that failed half-way leaves no process behind.
		_ = w.cmd.Process.Kill()
		<-w.exited
	})
	return w
}

// stop sends SIGTERM and waits up to limit for the process to end; it returns the
// process's exit error (nil: status 0).
func (w *fleetWorker) stop(t *testing.T, limit time.Duration, dump func()) error {
	t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	return w.wait(t, limit, dump)
}

// wait waits up to limit for the process to end.
func (w *fleetWorker) wait(t *testing.T, limit time.Duration, dump func()) error {
	t.Helper()
	select {
	case <-w.exited:
		return w.err
	case <-time.After(limit):
		dump()
		t.Fatalf("%s still running %s after SIGTERM", w.name, limit)
		return nil
	}
}

// logRecord is what the test reads of a worker's JSON log line.
type logRecord struct {
	Msg    string `json:"msg"`
	TaskID string `json:"task_id"`
}

// records reads the worker's log so far; lines that are not JSON (the command's
// last error line) are skipped.
func (w *fleetWorker) records(t *testing.T) []logRecord {
	t.Helper()
	f, err := os.Open(w.log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []logRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var r logRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Msg != "" {
			out = append(out, r)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s log: %v", w.name, err)
	}
	return out
}

// done counts "task done" lines by task id.
func (w *fleetWorker) done(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, r := range w.records(t) {
		if r.Msg == "task done" {
			out[r.TaskID]++
		}
	}
	return out
}

// mentions counts the log lines about a task.
func (w *fleetWorker) mentions(t *testing.T, id string) int {
	t.Helper()
	n := 0
	for _, r := range w.records(t) {
		if r.TaskID == id {
			n++
		}
	}
	return n
}

// stoppingAt is the index of the worker's "worker stopping" record, or -1.
func (w *fleetWorker) stoppingAt(t *testing.T) int {
	t.Helper()
	return slices.IndexFunc(w.records(t), func(r logRecord) bool { return r.Msg == "worker stopping" })
}

func (w *fleetWorker) dumpLog(t *testing.T) {
	t.Helper()
	b, _ := os.ReadFile(w.log)
	if len(b) > 6000 {
		b = b[len(b)-6000:]
	}
	t.Logf("%s log (tail):\n%s", w.name, b)
}

func countDone(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

func servers(t *testing.T, insp *asynq.Inspector) []*asynq.ServerInfo {
	t.Helper()
	s, err := insp.Servers()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// activeTasksOf lists the tasks the asynq server of process pid reports running that
// are active in their queue now (the report is a heartbeat, up to 5 s old).
func activeTasksOf(t *testing.T, insp *asynq.Inspector, pid int) []*asynq.WorkerInfo {
	t.Helper()
	var out []*asynq.WorkerInfo
	for _, s := range servers(t, insp) {
		if s.PID != pid {
			continue
		}
		for _, w := range s.ActiveWorkers {
			info, err := insp.GetTaskInfo(w.Queue, w.TaskID)
			if err == nil && info.State == asynq.TaskStateActive {
				out = append(out, w)
			}
		}
	}
	return out
}

func taskIDs(ws []*asynq.WorkerInfo) []string {
	ids := make([]string, len(ws))
	for i, w := range ws {
		ids[i] = w.TaskID
	}
	return ids
}

// succeededTasks sums printworker_tasks_total{outcome="success"} over task types
// on the worker's /metrics.
func succeededTasks(t *testing.T, addr string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s /metrics: %s", addr, resp.Status)
	}
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "printworker_tasks_total{") || !strings.Contains(line, `outcome="success"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("%s /metrics: %q: %v", addr, line, err)
		}
		sum += v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sum
}

// waitUntil polls cond until it holds or the deadline passes; the deadline is a
// bound on a hang, not a timing assertion.
func waitUntil(t *testing.T, limit time.Duration, what string, dump func(), cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			dump()
			t.Fatalf("gave up after %s waiting until %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
