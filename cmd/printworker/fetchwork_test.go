package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/jobs"
)

// The worker handles order fetches under both task types: a store:fetch task an
// older version queued reaches the order fetch handler, which reads it (here: ends
// it permanently, naming the flags, as no WooCommerce site is configured) instead
// of leaving it in the queue without a handler.
func TestFetchWorkHandlesLegacyStoreFetch(t *testing.T) {
	t.Parallel()
	stf := addStoreFlags(flag.NewFlagSet("work", flag.ContinueOnError))
	fw, err := stf.work(nil, &jobs.Enqueuer{}, "printworker", netguard.Must(), nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	hs := fw.handlers()
	legacy := `{"v":1,"store":"s","domain":"d","orderId":"7","platform":"woocommerce","topic":"order.created","designKey":"_d","delivery":"x"}`
	for _, typ := range []string{jobs.TypeOrderFetch, jobs.TypeStoreFetch} {
		h, ok := hs[typ]
		if !ok {
			t.Fatalf("no handler for %s", typ)
		}
		payload := legacy
		if typ == jobs.TypeOrderFetch {
			payload = `{"v":2,"platform":"woocommerce","store":"s","orderId":"7","event":"order","delivery":"x","woocommerce":{"domain":"d","topic":"order.created","designKey":"_d"}}`
		}
		err := h.ProcessTask(context.Background(), asynq.NewTask(typ, []byte(payload)))
		if err == nil || !errors.Is(err, asynq.SkipRetry) || !strings.Contains(err.Error(), "--woocommerce-url") {
			t.Errorf("%s: %v, want a permanent error naming --woocommerce-url", typ, err)
		}
	}
}
