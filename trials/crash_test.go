//go:build trial

package trials

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/internal/printcheck"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// TestWorkCrashRecovery is the exactly-once test: a worker process is killed with
// SIGKILL in the middle of a batch of 200 orders and a new one started. Every order
// must end with all its files and its manifest, every object valid and equal to what
// its manifest states, nothing missing, nothing half-written, nothing extra.
//
// The orphaned tasks of the killed worker come back through asynq's lease expiry:
// the new worker's recoverer finds them about a minute after the kill.
func TestWorkCrashRecovery(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("crash test: builds the binary and waits for lease recovery (about 90 s)")
	}
	if _, err := exec.LookPath("qpdf"); err != nil {
		t.Skip("qpdf not installed")
	}
	const orders = 200
	bin := buildPrintworker(t)
	// Slow the hub a little so the kill lands with work in flight.
	fx := newProcessFixture(t, "crash", 15*time.Millisecond)
	rdb, st, store := fx.rdb, fx.st, fx.store
	// The hub is reached through a gate that closes itself at the 700th call (past
	// half of the batch's calls) and holds every call from then on: the kill lands
	// mid-batch with tasks in flight however fast the worker is.
	gate := &hubGate{next: fx.sim}
	var calls atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 700 {
			gate.close()
		}
		gate.ServeHTTP(w, r)
	}))
	defer hs.Close()
	// Cleanups run last-in first-out: held requests go before the server closes.
	defer gate.open()
	wantFiles := fx.enqueueOrders(t, "K", orders)
	ctx := context.Background()

	args := fx.workArgs(hs.URL,
		"--mode", "download", "--concurrency", "8", "--hub-rate-per-minute", "0",
		"--retry-base", "200ms", "--retry-max", "2s", "--shutdown-timeout", "10s",
		"--metrics-addr", "", "--log-format", "text", "--log-level", "warn",
	)
	logs := filepath.Join(t.TempDir(), "worker.log")
	start := func(name string) *exec.Cmd {
		lf, err := os.OpenFile(logs, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(lf, "=== %s\n", name)
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		cmd.Stdout, cmd.Stderr = lf, lf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				_ = cmd.Process.Kill()
				_, _ = cmd.Process.Wait()
			}
			lf.Close()
		})
		return cmd
	}
	dumpLogs := func() {
		b, _ := os.ReadFile(logs)
		if len(b) > 8000 {
			b = b[len(b)-8000:]
		}
		t.Logf("worker logs (tail):\n%s", b)
	}
	manifests := func() map[string]bool {
		objs, err := st.List(ctx, store+"/")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, o := range objs {
			if strings.HasSuffix(o.Key, "/"+storage.ManifestName) {
				out[o.Key] = true
			}
		}
		return out
	}

	first := start("first worker")
	insp := asynq.NewInspectorFromRedisClient(rdb)
	// The bounds of the waits below only end a stuck test; they are generous because
	// the process trials run side by side on a shared machine.
	deadline := time.Now().Add(3 * time.Minute)
	// Wait until the gate holds tasks in flight, then kill.
	for {
		exports := activeExports(insp)
		pushes, _ := insp.ListActiveTasks(jobs.QueueOrders)
		if gate.held.Load() > 0 && len(exports)+len(pushes) > 0 {
			break
		}
		if time.Now().After(deadline) {
			dumpLogs()
			t.Fatalf("no task in flight at the gate (%d hub calls held)", gate.held.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = first.Process.Wait()
	gate.open()
	atKill := len(manifests())
	orphans := activeExports(insp)
	orphanPushes, _ := insp.ListActiveTasks(jobs.QueueOrders)
	t.Logf("killed the first worker with %d of %d manifests written and %d export, %d push tasks in flight",
		atKill, orders, len(orphans), len(orphanPushes))
	if len(orphans)+len(orphanPushes) == 0 {
		t.Fatal("no task was in flight at the kill: nothing was tested")
	}
	if atKill >= orders {
		t.Fatal("the batch finished before the kill: nothing was tested")
	}

	restarted := time.Now()
	second := start("second worker")
	deadline = time.Now().Add(5 * time.Minute)
	for len(manifests()) < orders || !pagesIdle(t, rdb) {
		if time.Now().After(deadline) {
			dumpLogs()
			t.Fatalf("%d of %d manifests after the restart (day pages built: %v)", len(manifests()), orders, pagesIdle(t, rdb))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("all %d orders complete %s after the restart", orders, time.Since(restarted).Round(time.Second))
	// A graceful stop: SIGTERM drains and exits 0.
	if err := second.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := second.Wait(); err != nil {
		dumpLogs()
		t.Errorf("second worker did not exit cleanly on SIGTERM: %v", err)
	}

	// Every stored object is listed by exactly one manifest, with its bytes and
	// checksum; every distinct content is a valid file of its type.
	objs, err := st.List(ctx, store+"/")
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, o := range objs {
		stored[o.Key] = true
	}
	listed := map[string]bool{}
	validated := map[string]bool{}
	for id := range wantFiles {
		mkey := store + "/2024-07-01/" + storage.OrderFolderValue(id, fx.domain) + "/" + storage.ManifestName
		var m worker.Manifest
		if err := json.Unmarshal(readObject(t, st, mkey), &m); err != nil {
			t.Fatalf("%s: %v", mkey, err)
		}
		listed[mkey] = true
		if len(m.Files) != wantFiles[id] {
			t.Errorf("order %s: %d files, want %d", id, len(m.Files), wantFiles[id])
		}
		for _, k := range shopFloorKeys(m) {
			listed[k] = true
			readObject(t, st, k) // listed by the manifest, so it must be stored
		}
		listed[dayPageKey(mkey)] = true
		listed[dayIndexKey(mkey)] = true
		checkDayPage(t, readObject(t, st, dayPageKey(mkey)), mkey)
		for _, f := range m.Files {
			listed[f.Key] = true
			b := readObject(t, st, f.Key)
			sum := sha256.Sum256(b)
			if h := hex.EncodeToString(sum[:]); h != f.SHA256 || int64(len(b)) != f.Bytes {
				t.Errorf("%s: stored %d bytes %s, manifest %d bytes %s", f.Key, len(b), h, f.Bytes, f.SHA256)
				continue
			}
			if !validated[f.SHA256] {
				validated[f.SHA256] = true
				printcheck.File(t, f.Key, f.Type, b)
			}
		}
	}
	for k := range stored {
		if !listed[k] {
			t.Errorf("stray object %s: in storage, in no manifest", k)
		}
	}
	archived := archivedExports(insp)
	for _, a := range archived {
		t.Errorf("archived export %s: %s", a.ID, a.LastErr)
	}
	t.Logf("%d orders, %d objects, %d distinct files validated", orders, len(stored), len(validated))
}

func readObject(t *testing.T, st *storage.S3, key string) []byte {
	t.Helper()
	rc, _, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return b
}
