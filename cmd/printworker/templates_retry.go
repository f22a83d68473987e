package main

import (
	"flag"
	"log/slog"
	"time"

	"github.com/printworker/printworker/worker"
)

// retryFlags are the templates commands' retry settings: each hub call is retried on
// transient errors (5xx, 429, network) with the worker's backoff, so one 503 does not
// end a pull or sync half-way.
type retryFlags struct {
	attempts int
	base     time.Duration
}

func addRetryFlags(fs *flag.FlagSet) *retryFlags {
	r := &retryFlags{}
	fs.IntVar(&r.attempts, "hub-attempts", 6, "calls per hub operation before giving up on transient errors (5xx, 429, network)")
	fs.DurationVar(&r.base, "hub-retry-base", time.Second, "first wait between attempts; doubles per attempt up to 30s, with jitter; a 429's Retry-After wins")
	return r
}

// wrap returns h retried per these settings.
func (r *retryFlags) wrap(h worker.TemplateHub, log *slog.Logger) worker.RetryingTemplates {
	base := max(r.base, time.Millisecond)
	return worker.RetryingTemplates{Hub: h, Attempts: max(r.attempts, 1), Log: log,
		Backoff: worker.Backoff{Base: base, Max: max(30*time.Second, base)}}
}
