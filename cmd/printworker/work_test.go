package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/hub/hubsim"
	"github.com/printworker/printworker/internal/printcheck"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/internal/tests3"
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
	if testing.Short() {
		t.Skip("crash test: builds the binary and waits for lease recovery (about 90 s)")
	}
	if _, err := exec.LookPath("qpdf"); err != nil {
		t.Skip("qpdf not installed")
	}
	const (
		store, domain, key, secret = "crash-store", "crash.example", "crash-key", "crash-secret"
		orders                     = 200
	)
	bin := filepath.Join(t.TempDir(), "printworker")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	rs := testredis.Start(t)
	if rs.Kind == "miniredis" {
		t.Skip("crash test needs a real redis-server (a second process shares it)")
	}
	rdb := rs.Client(t)
	sim, err := hubsim.New(hubsim.Config{
		Stores:      []hubsim.Store{{ID: store, Domains: []string{domain}, Keys: []hubsim.Key{{Key: key, Secret: secret}}}},
		DesignsDir:  "../../hub/hubsim/testdata/designs",
		DesignStore: store,
		// Slow the hub a little so the kill lands with work in flight.
		Faults: hubsim.Faults{Latency: 15 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sim)
	defer hs.Close()
	s3 := tests3.Start(t)
	st, err := storage.NewS3(context.Background(), s3.Config)
	if err != nil {
		t.Fatal(err)
	}

	refs := sim.Designs()
	byID := map[int64]hub.DesignRef{}
	for _, r := range refs {
		byID[r.ID] = r
	}
	mixes := [][]int64{{1001}, {1002, 1003}, {1003}, {1002}, {1001, 1002}}
	filesOf := map[int64]int{1001: 3, 1002: 2, 1003: 1}
	enq, err := jobs.NewEnqueuer(rdb, jobs.EnqueuerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wantFiles := map[string]int{}
	for i := range orders {
		id := fmt.Sprintf("K-%03d", i)
		o := &hub.Order{OrderID: id, Domain: domain, Email: "kim@example.com", FirstName: "Kim", LastName: "Park",
			Created: "2024-07-01T12:00:00.000Z", Updated: "2024-07-01T12:00:00.000Z", Status: "paid",
			ShippingDetails: hub.Address{City: "Busan", CountryCode: "KR"}, BillingDetails: hub.Address{City: "Busan", CountryCode: "KR"}}
		for _, d := range mixes[i%len(mixes)] {
			o.LineItems = append(o.LineItems, hub.LineItem{ID: d, Token: byID[d].Token, Quantity: 1 + i%3, Price: 12})
			wantFiles[id] += filesOf[d]
		}
		if _, err := enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
			t.Fatal(err)
		}
		if _, err := enq.ExportOrder(ctx, store, o); err != nil {
			t.Fatal(err)
		}
	}

	args := []string{"work",
		"--redis-url", rs.URL(), "--hub-url", hs.URL, "--hub-store", store, "--hub-api-key", key, "--hub-secret", secret,
		"--storage", "s3", "--s3-bucket", s3.Bucket, "--s3-endpoint", s3.Endpoint, "--s3-region", s3.Region,
		"--s3-access-key", s3.AccessKey, "--s3-secret-key", s3.SecretKey, "--s3-path-style",
		"--mode", "download", "--concurrency", "8", "--hub-rate-per-minute", "0",
		"--retry-base", "200ms", "--retry-max", "2s", "--shutdown-timeout", "10s",
		"--metrics-addr", "", "--log-format", "text", "--log-level", "warn",
	}
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
	deadline := time.Now().Add(60 * time.Second)
	for {
		active, _ := insp.ListActiveTasks(jobs.QueueExports)
		if n := len(manifests()); n >= 20 && len(active) > 0 {
			break
		}
		if time.Now().After(deadline) {
			dumpLogs()
			t.Fatal("the first worker made no progress")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = first.Process.Wait()
	atKill := len(manifests())
	orphans, _ := insp.ListActiveTasks(jobs.QueueExports)
	t.Logf("killed the first worker with %d of %d manifests written and %d export tasks in flight", atKill, orders, len(orphans))
	if atKill >= orders {
		t.Fatal("the batch finished before the kill: nothing was tested")
	}

	restarted := time.Now()
	second := start("second worker")
	deadline = time.Now().Add(150 * time.Second)
	for len(manifests()) < orders {
		if time.Now().After(deadline) {
			dumpLogs()
			t.Fatalf("%d of %d manifests after the restart", len(manifests()), orders)
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
	for i := range orders {
		id := fmt.Sprintf("K-%03d", i)
		mkey := store + "/2024-07-01/" + id + "/" + storage.ManifestName
		var m worker.Manifest
		if err := json.Unmarshal(readObject(t, st, mkey), &m); err != nil {
			t.Fatalf("%s: %v", mkey, err)
		}
		listed[mkey] = true
		if len(m.Files) != wantFiles[id] {
			t.Errorf("order %s: %d files, want %d", id, len(m.Files), wantFiles[id])
		}
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
	archived, _ := insp.ListArchivedTasks(jobs.QueueExports)
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

func TestWorkRejectsBadSettings(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no store", []string{"--mode", "download"}, "no hub store"},
		{"bad mode", []string{"--hub-store", "s", "--mode", "fax"}, "fax"},
		{"bad store mode", []string{"--hub-store", "s", "--store-mode", "s=print"}, "print"},
		{"bad layout", []string{"--hub-store", "s", "--mode", "download", "--storage-layout", "{nope}/{filename}"}, "unknown variable {nope}"},
		{"bad storage", []string{"--hub-store", "s", "--mode", "download", "--storage", "ftp"}, "ftp"},
		{"bad redis url", []string{"--hub-store", "s", "--mode", "download", "--redis-url", "http://x"}, "--redis-url"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"work", "--storage-dir", dir, "--metrics-addr", "",
				"--hub-url", "http://127.0.0.1:1", "--hub-api-key", "k", "--hub-secret", "x"}, c.args...)
			var out, errb bytes.Buffer
			err := run(context.Background(), args, func(string) string { return "" }, &out, &errb)
			if err == nil || !strings.Contains(err.Error(), c.want) || exitCode(err) != 2 {
				t.Errorf("error %v (exit %d), want a usage error naming %q", err, exitCode(err), c.want)
			}
		})
	}
	// The environment fills what the command line leaves out.
	env := map[string]string{"PRINTWORKER_MODE": "fax", "PRINTWORKER_HUB_STORE": "s"}
	err := run(context.Background(), []string{"work"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "fax") {
		t.Errorf("PRINTWORKER_MODE not read: %v", err)
	}
}
