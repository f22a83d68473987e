package worker_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/events"
	"github.com/printworker/printworker/internal/testlog"
	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/worker"
)

// verifyStandardWebhook checks a delivery as a receiver following the Standard
// Webhooks specification would, written from the specification alone: the
// signature over "id.timestamp.body" with the base64 key after "whsec_", and a
// timestamp within 5 minutes. (The events package's test checks this verifier
// against the specification's published test vector.)
func verifyStandardWebhook(secret string, h http.Header, body []byte) string {
	id, tsText, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || tsText == "" || sigs == "" {
		return "missing headers"
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return "bad timestamp"
	}
	if d := time.Since(time.Unix(ts, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return "timestamp outside 5 minutes"
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return "bad secret"
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + tsText + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, s := range strings.Split(sigs, " ") {
		if hmac.Equal([]byte(s), []byte(want)) {
			return ""
		}
	}
	return "no matching signature"
}

func TestVerifierMatchesSpecVector(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek")
	h.Set("webhook-timestamp", "1614265330")
	h.Set("webhook-signature", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	// The vector is from 2021: only the signature part is compared here.
	got := verifyStandardWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", h, []byte(`{"test": 2432232314}`))
	if got != "timestamp outside 5 minutes" {
		t.Fatalf("verifier on the spec vector: %q", got)
	}
	h.Set("webhook-timestamp", strconv.FormatInt(time.Now().Unix(), 10))
	if got := verifyStandardWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", h, []byte(`{"test": 2432232314}`)); got != "no matching signature" {
		t.Fatalf("a changed timestamp must break the signature: %q", got)
	}
}

// delivery is one request a receiver got.
type delivery struct {
	id   string
	body []byte
	ev   struct {
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}
	bad string // verification failure
}

// receiver is an HTTP endpoint answering by a script of its own.
type receiver struct {
	secret string
	answer func(n int) int // status of the n-th request (0-based); 0 hangs until the sender gives up
	srv    *httptest.Server

	mu  sync.Mutex
	got []delivery
}

func newReceiver(t *testing.T, secret string, answer func(int) int) *receiver {
	r := &receiver{secret: secret, answer: answer}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		d := delivery{id: req.Header.Get("webhook-id"), body: body, bad: verifyStandardWebhook(r.secret, req.Header, body)}
		if err := json.Unmarshal(body, &d.ev); err != nil {
			d.bad += " body: " + err.Error()
		}
		r.mu.Lock()
		n := len(r.got)
		r.got = append(r.got, d)
		r.mu.Unlock()
		status := r.answer(n)
		if status == 0 {
			select {
			case <-req.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		w.WriteHeader(status)
		io.WriteString(w, http.StatusText(status)+" from the test receiver")
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// ofType returns the deliveries of events of typ.
func (r *receiver) ofType(typ string) []delivery {
	var out []delivery
	for _, d := range r.deliveries() {
		if d.ev.Type == typ {
			out = append(out, d)
		}
	}
	return out
}

func waitFor(t *testing.T, what string, cond func() bool, report func() string) {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %s", what, report())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func archivedEvents(t *testing.T, e *env) []*asynq.TaskInfo {
	tasks, err := e.insp.ListArchivedTasks(jobs.QueueEvents)
	if err != nil && !strings.Contains(err.Error(), "not found") {
		t.Fatal(err)
	}
	return tasks
}

// TestEventsEndToEnd is not parallel: its receivers answer within a 500 ms delivery
// timeout, and the other tests' load (under -race) can turn the down receiver's 503
// into a timeout, the reason the test checks.
func TestEventsEndToEnd(t *testing.T) {
	secrets := []string{
		"whsec_" + base64.StdEncoding.EncodeToString([]byte("flaky-receiver-key-0123456789")),
		"whsec_" + base64.StdEncoding.EncodeToString([]byte("down-receiver-key-01234567890")),
		"whsec_" + base64.StdEncoding.EncodeToString([]byte("gone-receiver-key-01234567890")),
	}
	// flaky: the first attempt hangs past the timeout, the second gets a 500, every
	// later one succeeds. down: always 503. gone: 410.
	flaky := newReceiver(t, secrets[0], func(n int) int {
		switch n {
		case 0:
			return 0
		case 1:
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	down := newReceiver(t, secrets[1], func(int) int { return http.StatusServiceUnavailable })
	gone := newReceiver(t, secrets[2], func(int) int { return http.StatusGone })
	flakyURL := flaky.srv.URL + "/hooks?token=hush-query-token"

	logs := &testlog.Buffer{}
	e := newEnv(t, func(c *worker.Config, _ *worker.Deps) {
		c.Events = events.Config{
			Stores: map[string][]events.Endpoint{store: {
				{URL: flakyURL, Secret: secrets[0]},
				{URL: down.srv.URL + "/down", Secret: secrets[1]},
				{URL: gone.srv.URL + "/gone", Secret: secrets[2]},
			}},
			Timeout:  500 * time.Millisecond,
			RetryFor: 8 * time.Second,
		}
		c.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	e.s3.SetPrivate(true)
	e.start()
	ctx := context.Background()
	k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "EV-1"}
	if _, err := e.enq.ExportOrder(ctx, store, e.order("EV-1", 1001, 1002)); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("EV-1", 0)

	// The bucket is private: the manifest's links are presigned and open anonymously.
	for _, f := range m.Files {
		if !strings.Contains(f.URL, "X-Amz-Signature=") {
			t.Errorf("%s: link %s is not presigned", f.Key, f.URL)
			continue
		}
		if code, b := tests3.GetAnon(t, f.URL); code != http.StatusOK || !bytes.Equal(b, e.object(f.Key)) {
			t.Errorf("%s: anonymous GET of the manifest link: %d, %d bytes", f.Key, code, len(b))
		}
	}

	// The flaky receiver gets files_ready three times (timeout, 500, success), always
	// with the same webhook-id and a valid signature of its own time.
	report := func() string { return e.queueReport() + " events archived: " + archivedSummary(archivedEvents(t, e)) }
	waitFor(t, "files_ready delivered to the flaky receiver", func() bool { return len(flaky.ofType(jobs.EventFilesReady)) >= 3 }, report)
	ready := flaky.ofType(jobs.EventFilesReady)
	if len(ready) != 3 {
		t.Errorf("flaky receiver got files_ready %d times, want 3 (hang, 500, 204)", len(ready))
	}
	wantID := jobs.EventID(jobs.EventFilesReady, k, "r"+strconv.FormatInt(m.Revision, 10))
	for i, d := range ready {
		if d.bad != "" {
			t.Errorf("attempt %d: %s", i+1, d.bad)
		}
		if d.id != wantID || !bytes.Equal(d.body, ready[0].body) {
			t.Errorf("attempt %d: webhook-id %s, want %s on every attempt with the same body", i+1, d.id, wantID)
		}
	}
	var data struct {
		Store, Domain, OrderID string
		Revision               int64
		Manifest               struct{ Key, URL string }
		Files                  []worker.FileRecord
		Warnings               *[]worker.ManifestWarning
	}
	if err := json.Unmarshal(ready[0].ev.Data, &data); err != nil {
		t.Fatal(err)
	}
	if data.Store != store || data.Domain != domain || data.OrderID != "EV-1" || len(data.Files) != len(m.Files) || data.Warnings == nil {
		t.Errorf("files_ready data: %s", ready[0].ev.Data)
	}
	for _, f := range data.Files {
		if code, b := tests3.GetAnon(t, f.URL); code != http.StatusOK || !bytes.Equal(b, e.object(f.Key)) {
			t.Errorf("event link of %s: %d, %d bytes", f.Key, code, len(b))
		}
	}
	if code, b := tests3.GetAnon(t, data.Manifest.URL); code != http.StatusOK || !bytes.Equal(b, e.object(data.Manifest.Key)) {
		t.Errorf("event link of the manifest %s: %d", data.Manifest.Key, code)
	}

	// The receiver that never succeeds: retried for RetryFor, then archived with
	// the receiver's answer as the reason.
	downTaskID := "event:" + wantID + ":" + events.Endpoint{URL: down.srv.URL + "/down"}.ID()
	goneTaskID := "event:" + wantID + ":" + events.Endpoint{URL: gone.srv.URL + "/gone"}.ID()
	var downTask, goneTask *asynq.TaskInfo
	waitFor(t, "the down and gone deliveries archived", func() bool {
		downTask, goneTask = nil, nil
		for _, a := range archivedEvents(t, e) {
			switch a.ID {
			case downTaskID:
				downTask = a
			case goneTaskID:
				goneTask = a
			}
		}
		return downTask != nil && goneTask != nil
	}, report)
	for _, want := range []string{"503 Service Unavailable", "retry window 8s: archived", down.srv.URL + "/down"} {
		if !strings.Contains(downTask.LastErr, want) {
			t.Errorf("archived reason %q does not say %q", downTask.LastErr, want)
		}
	}
	if n := len(down.ofType(jobs.EventFilesReady)); n < 2 {
		t.Errorf("down receiver got %d attempts, want retries", n)
	}
	for _, d := range down.deliveries() {
		if d.bad != "" || d.id != wantID && d.ev.Type == jobs.EventFilesReady {
			t.Errorf("down receiver: id %s, %s", d.id, d.bad)
		}
	}
	// 410: one attempt, archived with the reason, and the endpoint is done.
	if !strings.Contains(goneTask.LastErr, "410 Gone") || !strings.Contains(goneTask.LastErr, "stopped") {
		t.Errorf("gone reason %q", goneTask.LastErr)
	}

	// Cancel the order and make a job fail for good: the flaky receiver (now
	// healthy) gets both; the gone receiver gets nothing more.
	if _, err := e.enq.CancelOrder(ctx, k); err != nil {
		t.Fatal(err)
	}
	if _, err := e.enq.ExportOrder(ctx, store, e.order("EV-bad", 9999)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "cancelled and failed events", func() bool {
		return len(flaky.ofType(jobs.EventOrderCancelled)) > 0 && len(flaky.ofType(jobs.EventJobFailed)) > 0
	}, report)
	c := flaky.ofType(jobs.EventOrderCancelled)[0]
	if c.bad != "" || !strings.Contains(string(c.ev.Data), `"orderId":"EV-1"`) || c.id == wantID {
		t.Errorf("cancelled event %s: %s %s", c.id, c.ev.Data, c.bad)
	}
	f := flaky.ofType(jobs.EventJobFailed)[0]
	var failed struct {
		OrderID  string
		DesignID string
		Error    string
		Task     struct{ ID, Type, Queue string }
	}
	if err := json.Unmarshal(f.ev.Data, &failed); err != nil || f.bad != "" {
		t.Fatalf("job.failed: %v %s", err, f.bad)
	}
	if failed.OrderID != "EV-bad" || failed.DesignID != "9999" || failed.Task.Type != jobs.TypeDesignExport || !strings.Contains(failed.Error, "404") {
		t.Errorf("job.failed data: %s", f.ev.Data)
	}
	if strings.Contains(string(f.body), "00000000-0000-4000") || strings.Contains(failed.Error, "skip retry") {
		t.Errorf("job.failed body shows the design token or queue mechanics: %s", f.body)
	}
	e.waitEventsIdle()
	goneKey := jobs.DefaultKeyPrefix + ":events:gone:" + store + ":" + events.Endpoint{URL: gone.srv.URL + "/gone"}.ID()
	if n, err := e.rdb.Exists(ctx, goneKey).Result(); err != nil || n != 1 {
		t.Errorf("gone mark %s: %d %v, want it set (docs/events.md names it)", goneKey, n, err)
	}
	if n := len(gone.deliveries()); n != 1 {
		t.Errorf("gone receiver got %d requests, want 1: a 410 stops the endpoint", n)
	}

	// Secrets and the endpoint's query token never reach the logs or task errors.
	all := logs.String() + archivedSummary(archivedEvents(t, e))
	if !strings.Contains(all, "event delivered") {
		t.Fatal("no delivery logged: the log capture is not working")
	}
	for _, s := range secrets {
		key := strings.TrimPrefix(s, "whsec_")
		if strings.Contains(all, key) || strings.Contains(all, key[:16]) {
			t.Errorf("a secret appears in the logs or task errors")
		}
	}
	if strings.Contains(all, "hush-query-token") {
		t.Errorf("the endpoint URL's query appears in the logs or task errors")
	}
}

func archivedSummary(tasks []*asynq.TaskInfo) string {
	var b strings.Builder
	for _, a := range tasks {
		b.WriteString(a.ID + ": " + a.LastErr + "; ")
	}
	return b.String()
}

// waitEventsIdle waits until the events queue has nothing pending or retrying.
func (e *env) waitEventsIdle() {
	e.t.Helper()
	waitFor(e.t, "events queue idle", func() bool {
		info, err := jobs.ReadQueueStats(context.Background(), e.rdb, jobs.QueueEvents, time.Now())
		return err == nil && info.Busy() == 0
	}, e.queueReport)
}
