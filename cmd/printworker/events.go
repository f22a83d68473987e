package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/printworker/printworker/events"
)

// eventFlags configure order events: one default endpoint by flags, per-store
// endpoints in --events-file.
type eventFlags struct {
	url, secret, file string
	timeout, retryFor time.Duration
}

func addEventFlags(fs *flag.FlagSet) *eventFlags {
	f := &eventFlags{}
	fs.StringVar(&f.url, "events-url", "", "endpoint receiving order events (files ready, cancelled, job failed) of stores not in --events-file")
	fs.StringVar(&f.secret, "events-secret", "", "signing secret of --events-url: whsec_ + base64 of 24 to 64 random bytes (Standard Webhooks)")
	fs.String("events-secret-file", "", "file holding --events-secret")
	fs.StringVar(&f.file, "events-file", "", `JSON file of per-store event endpoints: {"stores": {"s1": [{"url": "https://…", "secretFile": "/run/secrets/s1"}]}}`)
	fs.DurationVar(&f.timeout, "events-timeout", events.DefaultTimeout, "bound of one event delivery attempt")
	fs.DurationVar(&f.retryFor, "events-retry-for", events.DefaultRetryFor, "how long a failing event delivery is retried before it is archived")
	return f
}

// config builds the events configuration, reporting every bad setting at once. A
// secret never appears in an error.
func (f *eventFlags) config() (events.Config, error) {
	cfg := events.Config{Timeout: f.timeout, RetryFor: f.retryFor}
	var errs []error
	switch {
	case f.url != "":
		cfg.Default = []events.Endpoint{{URL: f.url, Secret: f.secret}}
	case f.secret != "":
		errs = append(errs, usageError("--events-secret is set without --events-url"))
	}
	if f.timeout <= 0 {
		errs = append(errs, usageError(fmt.Sprintf("--events-timeout %s: want more than 0", f.timeout)))
	}
	if f.retryFor <= 0 {
		errs = append(errs, usageError(fmt.Sprintf("--events-retry-for %s: want more than 0", f.retryFor)))
	}
	if f.file != "" {
		stores, err := events.LoadFile(f.file)
		if err != nil {
			errs = append(errs, usageError("--events-file: "+err.Error()))
		}
		for _, eps := range stores {
			if err := events.ResolveSecrets(eps); err != nil {
				errs = append(errs, usageError("--events-file: "+err.Error()))
			}
		}
		cfg.Stores = stores
	}
	if err := cfg.Validate(); err != nil {
		errs = append(errs, usageError(err.Error()))
	}
	return cfg, joinErrors(errs...)
}
