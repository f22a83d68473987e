package intake_test

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"
)

// BenchmarkShopifyWebhook measures one paid-order webhook end to end over HTTP: verify,
// map, dedupe and enqueue a push and two exports into a real Redis. Each iteration is
// a distinct order so nothing is deduplicated. It reports the 50th and 99th
// percentile latency as a store would see it.
func BenchmarkShopifyWebhook(b *testing.B) {
	h := newHarness(b, nil)
	body := readFile(b, "order_customized.json")
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bi := replaceID(body, 7000000000000+int64(i))
		start := time.Now()
		r := h.post("/webhooks/shopify", bi, shopifyHeaders("orders/paid", bi, fmt.Sprint("bench-", i)))
		lat = append(lat, time.Since(start))
		if r.Status != http.StatusOK || r.Body.Status != "enqueued" {
			b.Fatalf("webhook %d: %d %s", i, r.Status, r.Raw)
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// replaceID gives the sample order another id.
func replaceID(body []byte, id int64) []byte {
	return bytes.Replace(body, []byte(`"id": 5812345678901,`), []byte(fmt.Sprintf(`"id": %d,`, id)), 1)
}
