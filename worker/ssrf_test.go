package worker_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/printworker/printworker/events"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/worker"
)

// redirectMedia answers every media download with a redirect to target, as a hub
// (or anything that can answer for it) might; other calls pass through.
type redirectMedia struct {
	next   http.RoundTripper
	target string
}

func (r redirectMedia) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasPrefix(req.URL.Path, "/media/") {
		return r.next.RoundTrip(req)
	}
	return &http.Response{
		StatusCode: http.StatusFound, Status: "302 Found", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Location": {r.target}}, Body: io.NopCloser(strings.NewReader("")), Request: req,
	}, nil
}

// TestMediaRedirectToInternalServiceFailsPermanently: a media download redirected to
// an internal service is refused before any request reaches it; the export is
// archived at once (no retry window spent) and neither the archived reason nor the
// job.failed event carries anything of the internal service's answer.
func TestMediaRedirectToInternalServiceFailsPermanently(t *testing.T) {
	t.Parallel()
	const internalSecret = "INTERNAL-SECRET-b41c"
	var hits atomic.Int64
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, `{"error":"`+internalSecret+`"}`, http.StatusInternalServerError)
	}))
	t.Cleanup(internal.Close)
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("ssrf-receiver-key-0123456789"))
	recv := newReceiver(t, secret, func(int) int { return http.StatusNoContent })

	e := newEnvWrapped(t, func(next http.RoundTripper) http.RoundTripper {
		return redirectMedia{next: next, target: internal.URL + "/admin/keys"}
	}, withMode(worker.ModeRender), func(c *worker.Config, _ *worker.Deps) {
		c.Events = events.Config{Stores: map[string][]events.Endpoint{store: {{URL: recv.srv.URL + "/hooks", Secret: secret}}}, Timeout: 2 * time.Second}
	})
	e.start()
	if _, err := e.enq.ExportOrder(context.Background(), store, e.order("SSRF-1", 1001)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "job.failed", func() bool { return len(recv.ofType(jobs.EventJobFailed)) > 0 }, e.queueReport)

	var failed struct{ Error string }
	d := recv.ofType(jobs.EventJobFailed)[0]
	if err := json.Unmarshal(d.ev.Data, &failed); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(failed.Error, "refused") || !strings.Contains(failed.Error, "loopback") {
		t.Errorf("job.failed reason %q does not say the address was refused", failed.Error)
	}
	if strings.Contains(string(d.body), internalSecret) || strings.Contains(string(d.body), "/admin/keys") {
		t.Errorf("job.failed carries the internal answer or target: %s", d.body)
	}
	archived, err := e.insp.ListArchivedTasks(jobs.QueueExports)
	if err != nil || len(archived) != 1 {
		t.Fatalf("archived exports: %d, %v: %s", len(archived), err, e.queueReport())
	}
	if a := archived[0]; a.Retried != 0 || strings.Contains(a.LastErr, internalSecret) {
		t.Errorf("archived after %d retries with reason %q, want at once and without the internal answer", a.Retried, a.LastErr)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the internal service", n)
	}
	if n := e.counter("printworker_hub_calls_total", map[string]string{"op": "media.get", "class": "refused"}); n == 0 {
		t.Error("the refusal is not counted as class refused")
	}
}
