//go:build trial

package trials

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/testnet"
	"github.com/printworker/printworker/internal/testredis"
)

// The real binary with Redis unreachable: an operator command prints its one error
// line and nothing of go-redis; serve logs one clear warning and keeps its log JSON
// (go-redis's own lines go through slog, at debug) (issues 10.8, 11.6).
func TestRedisUnreachableLogs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildPrintworker(t)
	dead := "redis://" + testnet.FreeAddr(t) + "/0"

	var stderr bytes.Buffer
	cmd := exec.Command(bin, "queues", "list", "--redis-url", dead)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("queues list with Redis down succeeded")
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "printworker: redis ") {
		t.Errorf("queues list stderr: want one printworker: line, got:\n%s", stderr.String())
	}

	addr := testnet.FreeAddr(t)
	stderr.Reset()
	serve := exec.Command(bin, "serve", "--addr", addr, "--orders-secret", "s", "--redis-url", dead,
		"--log-level", "debug", "--enqueue-timeout", "1s")
	serve.Stderr = &stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve.Wait() }()
	testnet.WaitHTTP(t, "http://"+addr+"/healthz", done)
	// A webhook makes go-redis dial (and fail) again.
	body := []byte(`{"orderId": "1", "domain": "d.example"}`)
	now := time.Now()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhooks/orders", bytes.NewReader(body))
	req.Header.Set(intake.HeaderStore, "store-1")
	req.Header.Set(intake.HeaderTopic, intake.TopicDelete)
	req.Header.Set(intake.HeaderTimestamp, fmt.Sprint(now.Unix()))
	req.Header.Set(intake.HeaderSignature, intake.Sign("s", now, body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("webhook with Redis down: %d, want 503", resp.StatusCode)
	}
	_ = serve.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = serve.Process.Kill()
		t.Fatal("serve did not stop")
	}
	warnings, redisLines := 0, 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Errorf("serve log line is not JSON: %q", sc.Text())
			continue
		}
		if rec["level"] == "WARN" && strings.Contains(fmt.Sprint(rec["msg"]), "redis unreachable") {
			warnings++
		}
		if rec["component"] == "go-redis" {
			redisLines++
		}
	}
	if warnings != 1 {
		t.Errorf("%d start warnings about Redis, want 1:\n%s", warnings, stderr.String())
	}
	if redisLines == 0 {
		t.Errorf("no go-redis line routed through slog at debug:\n%s", stderr.String())
	}
}

// A worker whose Redis goes away keeps its log JSON: go-redis's and asynq's own lines
// go through slog (issue 10.8: 116 raw go-redis lines in one outage).
func TestWorkRedisOutageLogsStayJSON(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	rs := testredis.Start(t)
	if rs.Kind == "miniredis" {
		t.Skip("needs a redis-server process to kill")
	}
	bin := buildPrintworker(t)
	metrics := testnet.FreeAddr(t)
	var stderr bytes.Buffer
	work := exec.Command(bin, "work", "--poll-idle", "100ms", "--poll-delayed", "100ms", "--redis-url", rs.URL(), "--metrics-addr", metrics, "--mode", "download",
		"--storage-dir", t.TempDir(), "--hub-url", "http://127.0.0.1:1", "--hub-store", "s", "--hub-api-key", "k",
		"--hub-secret", "x", "--log-level", "debug", "--shutdown-timeout", "2s")
	work.Stderr = &stderr
	if err := work.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- work.Wait() }()
	testnet.WaitHTTP(t, "http://"+metrics+"/healthz", done)
	rs.Kill()
	time.Sleep(4 * time.Second) // the worker polls, heartbeats and dials meanwhile
	_ = work.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = work.Process.Kill()
		<-done
		t.Fatal("work did not stop")
	}
	lines := 0
	sc := bufio.NewScanner(&stderr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "printworker: ") {
			continue // the final one-line error, if any
		}
		lines++
		if !json.Valid(sc.Bytes()) {
			t.Errorf("work log line is not JSON: %q", sc.Text())
		}
	}
	if lines == 0 {
		t.Error("work logged nothing")
	}
}
