package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/printworker/printworker/internal/testlog"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
)

// Bad event and link settings are reported at start, all at once, and the secret
// given never appears in the message or the logs.
func TestWorkRejectsBadEventSettings(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	dir := t.TempDir()
	file := filepath.Join(dir, "events.json")
	if err := os.WriteFile(file, []byte(`{"stores": {"s1": [{"url": "https://erp.example/hooks", "secret": "`+secret+`", "retries": 3}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"invalid url", []string{"--events-url", "erp.example/hooks", "--events-secret-file", secretFile}, []string{"default endpoint 1", "want an absolute http(s) URL"}},
		{"secret not whsec", []string{"--events-url", "https://erp.example/h", "--events-secret", "plain-password"}, []string{`start with "whsec_"`}},
		{"secret without url", []string{"--events-secret-file", secretFile}, []string{"--events-secret is set without --events-url"}},
		{"unknown setting", []string{"--events-file", file}, []string{"--events-file", `unknown field "retries"`}},
		{"link expiry zero", []string{"--s3-link-expiry", "0s"}, []string{"--s3-link-expiry 0s: want a duration above 0"}},
		{"link expiry in the past", []string{"--s3-link-expiry", "-1h"}, []string{"--s3-link-expiry -1h0m0s"}},
		{"link expiry too long", []string{"--s3-link-expiry", "200h"}, []string{"at most 168h"}},
		{"timeouts", []string{"--events-timeout", "0s", "--events-retry-for", "-1m"}, []string{"--events-timeout 0s", "--events-retry-for -1m0s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"work", "--poll-idle", "100ms", "--poll-delayed", "100ms", "--storage-dir", t.TempDir(), "--metrics-addr", "", "--mode", "download",
				"--hub-url", "http://127.0.0.1:1", "--hub-store", "s", "--hub-api-key", "k", "--hub-secret", "x"}, tt.args...)
			var out, errb bytes.Buffer
			err := run(context.Background(), args, func(string) string { return "" }, &out, &errb)
			if err == nil || exitCode(err) != 2 {
				t.Fatalf("error %v (exit %d), want a usage error", err, exitCode(err))
			}
			msg := oneLine(err)
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not say %q", msg, w)
				}
			}
			all := msg + out.String() + errb.String()
			if strings.Contains(all, "MfKQ9r8G") || strings.Contains(all, "plain-password") {
				t.Errorf("a secret appears in the output: %s", all)
			}
		})
	}
}

// The operator's path: a worker configured by flags, a cancel from the command line,
// a receiver that fails until the delivery is archived, the archived delivery listed
// by "queues list" with the receiver's answer, and "queues retry" delivering it with
// the same webhook-id once the receiver is fixed.
func TestEventsThroughTheCommands(t *testing.T) {
	t.Parallel()
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	rs := testredis.Start(t)
	var healthy atomic.Bool
	var mu sync.Mutex
	var ids []string
	wh, _ := standardwebhooks.NewWebhook(secret)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := new(bytes.Buffer)
		body.ReadFrom(r.Body)
		if err := wh.Verify(body.Bytes(), r.Header); err != nil {
			t.Errorf("receiver: %v", err)
		}
		mu.Lock()
		ids = append(ids, r.Header.Get("webhook-id"))
		mu.Unlock()
		if healthy.Load() {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		http.Error(w, "erp database down", http.StatusInternalServerError)
	}))
	defer recv.Close()
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PRINTWORKER_REDIS_URL": rs.URL()}
	ctx, cancel := context.WithCancel(context.Background())
	logs := &testlog.Buffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"work", "--poll-idle", "100ms", "--poll-delayed", "100ms", "--storage-dir", t.TempDir(), "--metrics-addr", "", "--mode", "download",
			"--hub-url", "http://127.0.0.1:1", "--hub-store", "s1", "--hub-api-key", "k", "--hub-secret", "x",
			"--events-url", recv.URL + "/hooks", "--events-secret-file", secretFile, "--events-retry-for", "1s",
			"--retry-base", "50ms", "--retry-max", "200ms", "--log-level", "debug"},
			func(k string) string { return env[k] }, logs, logs)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("work: %v", err)
		}
	}()
	if _, _, err := runCLI(t, env, "enqueue", "cancel", "--store", "s1", "--domain", "shop.example", "--order", "C-1"); err != nil {
		t.Fatal(err)
	}
	rdb := rs.Client(t)
	waitFor(t, func() bool {
		info, err := jobs.ReadQueueStats(ctx, rdb, "events", time.Now())
		return err == nil && info.Archived == 1
	})
	out, _, err := runCLI(t, env, "queues", "list", "--queue", "events", "--state", "archived")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("queues list --queue events --state archived:\n%s", out)
	for _, want := range []string{"event:msg_", "500 Internal Server Error", "erp database down", "retry window 1s", recv.URL + "/hooks"} {
		if !strings.Contains(out, want) {
			t.Errorf("queues list does not show %q:\n%s", want, out)
		}
	}
	healthy.Store(true)
	if _, _, err := runCLI(t, env, "queues", "retry", "--queue", "events"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		info, err := jobs.ReadQueueStats(ctx, rdb, "events", time.Now())
		return err == nil && info.Archived == 0 && info.Busy() == 0
	})
	mu.Lock()
	defer mu.Unlock()
	if len(ids) < 2 {
		t.Fatalf("receiver got %d requests", len(ids))
	}
	for _, id := range ids {
		if id != ids[0] {
			t.Errorf("webhook-ids %v: want one id for every attempt", ids)
			break
		}
	}
	if strings.Contains(logs.String(), "MfKQ9r8G") {
		t.Error("the secret appears in the worker's logs")
	}
	if !strings.Contains(logs.String(), "event delivered") {
		t.Errorf("no delivery logged:\n%s", logs.String())
	}
}
