package intake_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
)

func slogDiscard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// wantOutcome checks the intake's count of webhooks of endpoint answered outcome.
func (h *harness) wantOutcome(endpoint, outcome string, n int) {
	h.t.Helper()
	resp, err := http.Get(h.url + "/metrics")
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	line := fmt.Sprintf("printworker_intake_webhooks_total{endpoint=%q,outcome=%q} %d\n", endpoint, outcome, n)
	if !strings.Contains(string(b), line) {
		h.t.Errorf("metrics lack %q", strings.TrimSpace(line))
	}
}
