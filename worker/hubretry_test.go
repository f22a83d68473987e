package worker

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// scriptedHub answers GetDesign with the next error of its script (nil: success).
type scriptedHub struct {
	Hub
	script []error
	calls  int
}

func (s *scriptedHub) GetDesign(context.Context, model.DesignRef) (*model.DesignDetail, error) {
	s.calls++
	if len(s.script) == 0 {
		return &model.DesignDetail{}, nil
	}
	err := s.script[0]
	s.script = s.script[1:]
	if err != nil {
		return nil, err
	}
	return &model.DesignDetail{}, nil
}

func TestRetryingHub(t *testing.T) {
	e503 := &hub.Error{Op: hub.OpGetDesign, Status: http.StatusServiceUnavailable}
	reset := &hub.Error{Op: hub.OpGetDesign, Err: errors.New("connection reset")}
	e404 := &hub.Error{Op: hub.OpGetDesign, Status: http.StatusNotFound}
	e429 := func(after time.Duration) error {
		return &hub.Error{Op: hub.OpGetDesign, Status: http.StatusTooManyRequests, Retry: after}
	}
	fast := HubRetry{Tries: 3, Base: time.Millisecond, Max: 2 * time.Millisecond, MaxWait: 50 * time.Millisecond}
	cases := []struct {
		name      string
		cfg       HubRetry
		script    []error
		deadline  time.Duration // 0: none
		wantCalls int
		wantErr   error
	}{
		{"success at once", fast, nil, 0, 1, nil},
		{"5xx and network failures retried", fast, []error{e503, reset}, 0, 3, nil},
		{"tries bound the failures", fast, []error{e503, e503, e503, nil}, 0, 3, e503},
		{"permanent failure not retried", fast, []error{e404}, 0, 1, e404},
		{"429 within the wait budget is waited out, not counted as a try", fast,
			[]error{e503, e429(10 * time.Millisecond), e429(10 * time.Millisecond), e503}, 0, 5, nil},
		{"429 beyond the wait budget goes back to the queue", fast, []error{e429(time.Second)}, 0, 1, e429(time.Second)},
		// A backoff of an hour against a deadline of 10 s: giving up at once is told
		// from waiting by far more than a loaded machine's scheduling delay.
		{"no wait past the attempt's deadline", HubRetry{Tries: 5, Base: time.Hour, Max: time.Hour, MaxWait: time.Minute},
			[]error{e503}, 10 * time.Second, 1, e503},
		{"one try", HubRetry{Tries: 1, Base: time.Millisecond, Max: time.Millisecond}, []error{e503}, 0, 1, e503},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := newMetrics(nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			w := &Worker{m: m, log: slog.New(slog.DiscardHandler)}
			s := &scriptedHub{script: c.script}
			r := &retryingHub{Hub: s, cfg: c.cfg.withDefaults(), w: w, store: "s"}
			ctx := context.Background()
			if c.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.deadline)
				defer cancel()
			}
			start := time.Now()
			_, err = r.GetDesign(ctx, model.DesignRef{ID: 1, Token: "t"})
			if s.calls != c.wantCalls {
				t.Errorf("%d calls, want %d", s.calls, c.wantCalls)
			}
			var he, want *hub.Error
			switch {
			case c.wantErr == nil && err != nil:
				t.Errorf("error %v, want success", err)
			case c.wantErr != nil && !(errors.As(err, &he) && errors.As(c.wantErr, &want) && he.Status == want.Status):
				t.Errorf("error %v, want %v", err, c.wantErr)
			}
			if c.deadline > 0 && time.Since(start) >= c.deadline {
				t.Errorf("waited %s, past the attempt's deadline", time.Since(start))
			}
		})
	}
}

func TestHubRetryConfig(t *testing.T) {
	if err := (Config{HubRetry: HubRetry{Tries: -1}}).Validate(); err == nil {
		t.Error("negative tries accepted")
	}
	if err := (Config{RetryWindows: map[string]time.Duration{"design:export": time.Millisecond}}).Validate(); err == nil {
		t.Error("a retry window under a second accepted")
	}
	c := Config{}.withDefaults()
	if c.HubRetry != DefaultHubRetry() || c.RetryWindows["design:export"] != DefaultExportRetryWindow {
		t.Errorf("defaults: %+v %v", c.HubRetry, c.RetryWindows)
	}
}
