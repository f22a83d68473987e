package intake_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const (
	shopSecret    = "shpss_test_secret_current"
	shopSecretOld = "shpss_test_secret_previous"
	shopDomain    = "printshop-demo.myshopify.com"
	hubDomain     = "printshop.example.com"
	hubStore      = "store-42"
	ordersSecret  = "generic-secret"
)

// harness is an intake served over real HTTP, enqueuing through the real jobs
// Enqueuer into a private Redis, which the test inspects.
type harness struct {
	t    testing.TB
	url  string
	rdb  *redis.Client
	srv  *testredis.Server
	insp *asynq.Inspector
	now  time.Time
}

func newHarness(t testing.TB, mutate func(*intake.Config)) *harness {
	t.Helper()
	rs := testredis.Start(t)
	rdb := rs.Client(t)
	enq, err := jobs.NewEnqueuer(rdb, jobs.EnqueuerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { enq.Close() })
	cfg := intake.DefaultConfig()
	cfg.Shopify.Secrets = []string{shopSecret, shopSecretOld}
	cfg.Shopify.Stores = map[string]string{"PrintShop-Demo.myshopify.com": hubStore} // matched case-insensitively
	cfg.Shopify.Domains = map[string]string{shopDomain: hubDomain}
	cfg.Orders.Secrets = []string{ordersSecret}
	cfg.Orders.StoreSecrets = map[string][]string{"store-own": {"own-secret"}}
	cfg.MaxBody = 64 << 10
	if mutate != nil {
		mutate(&cfg)
	}
	h := &harness{t: t, rdb: rdb, srv: rs, now: time.Date(2024, 3, 14, 14, 0, 0, 0, time.UTC)}
	deliveries := intake.NewRedisDeliveries(rdb, "")
	s, err := intake.New(cfg, intake.JobsEnqueuer(enq), deliveries, deliveries.Ping,
		intake.WithClock(func() time.Time { return h.now }),
		intake.WithLogger(slogDiscard()))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	h.url = hs.URL
	h.insp = asynq.NewInspectorFromRedisClient(rdb)
	return h
}

type response struct {
	Status int
	Body   struct {
		Status string   `json:"status"`
		Reason string   `json:"reason"`
		Jobs   []string `json:"jobs"`
	}
	Raw string
}

func (h *harness) post(path string, body []byte, header http.Header) response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url+path, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := response{Status: resp.StatusCode, Raw: string(raw)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			h.t.Fatalf("response %q: %v", raw, err)
		}
	}
	return r
}

func shopifySign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func shopifyHeaders(topic string, body []byte, webhookID string) http.Header {
	h := http.Header{}
	h.Set("X-Shopify-Topic", topic)
	h.Set("X-Shopify-Shop-Domain", shopDomain)
	h.Set("X-Shopify-Hmac-Sha256", shopifySign(shopSecret, body))
	h.Set("X-Shopify-Webhook-Id", webhookID)
	h.Set("X-Shopify-API-Version", "2024-01")
	return h
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// task is one task found in Redis.
type task struct {
	Type, ID, Queue string
	Payload         []byte
}

// tasks lists every task waiting in the intake's queues.
func (h *harness) tasks() []task {
	h.t.Helper()
	var out []task
	for _, q := range []string{jobs.QueueOrders, jobs.QueueComplete, jobs.QueueExports, jobs.QueueSync} {
		infos, err := h.insp.ListPendingTasks(q, asynq.PageSize(1000))
		if errors.Is(err, asynq.ErrQueueNotFound) {
			continue
		}
		if err != nil {
			h.t.Fatal(err)
		}
		for _, i := range infos {
			out = append(out, task{Type: i.Type, ID: i.ID, Queue: i.Queue, Payload: i.Payload})
		}
	}
	slices.SortFunc(out, func(a, b task) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// summary describes tasks as "type op/ref" strings, in id order.
func summary(t *testing.T, ts []task) []string {
	var out []string
	for _, tk := range ts {
		switch tk.Type {
		case jobs.TypeOrderPush:
			p, err := jobs.Decode[jobs.OrderPush](tk.Payload)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("push %s %s/%s/%s", p.Op, p.Store, p.Domain, p.OrderID))
		case jobs.TypeDesignExport:
			p, err := jobs.Decode[jobs.DesignExport](tk.Payload)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("export %s/%s/%s %s x%d", p.Store, p.Domain, p.OrderID, p.Ref, p.Quantity))
		default:
			out = append(out, tk.Type)
		}
	}
	return out
}

// pushedOrder returns the order of the only push task.
func pushedOrder(t *testing.T, ts []task) *model.Order {
	t.Helper()
	for _, tk := range ts {
		if tk.Type == jobs.TypeOrderPush {
			p, err := jobs.Decode[jobs.OrderPush](tk.Payload)
			if err != nil {
				t.Fatal(err)
			}
			return p.Order
		}
	}
	t.Fatal("no push task")
	return nil
}

// checkGolden compares the pushed order with testdata/name, in the hub's JSON.
func checkGolden(t *testing.T, name string, o *model.Order) {
	t.Helper()
	got, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./intake -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("pushed order differs from %s:\n got %s\nwant %s", path, got, want)
	}
	// Whatever the golden says, the order must pass the hub's own validation.
	if err := hub.ValidateOrder(o, []string{hubDomain}); err != nil {
		t.Errorf("pushed order is invalid for the hub: %v", err)
	}
}

const (
	ref1001 = "1001.6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
	ref1002 = "1002.0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d"
	ref2001 = "2001.9b8a7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"
	key1    = hubStore + "/" + hubDomain + "/5812345678901"
)

func TestShopifyWebhook(t *testing.T) {
	oversized := append(readFile(t, "order_customized.json"), bytes.Repeat([]byte(" "), 70<<10)...)
	tests := []struct {
		name   string
		file   string
		body   []byte
		topic  string
		config func(*intake.Config)
		header func(http.Header, []byte)
		status int
		result string
		tasks  []string
		golden string
		reason string
	}{
		{
			name: "create pushes the order, no print yet", file: "order_customized.json", topic: "orders/create",
			status: 200, result: "enqueued", tasks: []string{"push create " + key1}, golden: "order_customized.hub.json",
		},
		{
			name: "paid pushes and exports each design", file: "order_customized.json", topic: "orders/paid",
			status: 200, result: "enqueued",
			tasks: []string{
				"export " + key1 + " " + ref1001 + " x2",
				"export " + key1 + " " + ref1002 + " x1",
				"push update " + key1,
			},
		},
		{
			name: "guest order with null customer and shipping, unicode, fallback property", file: "order_guest_unicode.json",
			topic: "orders/updated", status: 200, result: "enqueued",
			tasks: []string{"push update " + hubStore + "/" + hubDomain + "/5812345678903"}, golden: "order_guest_unicode.hub.json",
		},
		{
			name: "cancelled updates the status and stops exports", file: "order_customized.json", topic: "orders/cancelled",
			status: 200, result: "enqueued", tasks: []string{"push update " + key1}, golden: "order_cancelled.hub.json",
		},
		{
			name: "delete carries the id alone", file: "order_delete.json", topic: "orders/delete",
			status: 200, result: "enqueued", tasks: []string{"push delete " + key1},
		},
		{
			name: "order without customizations is skipped", file: "order_plain.json", topic: "orders/paid",
			status: 200, result: "skipped",
		},
		{
			name: "unhandled topic is taken and ignored", file: "order_customized.json", topic: "orders/fulfilled",
			status: 200, result: "ignored",
		},
		{
			name: "production trigger as a setting", file: "order_customized.json", topic: "orders/create",
			config: func(c *intake.Config) { c.ProductionTopic = intake.TopicCreate },
			status: 200, result: "enqueued",
			tasks: []string{
				"export " + key1 + " " + ref1001 + " x2",
				"export " + key1 + " " + ref1002 + " x1",
				"push create " + key1,
			},
		},
		{
			name: "previous secret still accepted during rotation", file: "order_customized.json", topic: "orders/create",
			header: func(h http.Header, b []byte) { h.Set("X-Shopify-Hmac-Sha256", shopifySign(shopSecretOld, b)) },
			status: 200, result: "enqueued", tasks: []string{"push create " + key1},
		},
		{
			name: "wrong secret is refused", file: "order_customized.json", topic: "orders/paid",
			header: func(h http.Header, b []byte) { h.Set("X-Shopify-Hmac-Sha256", shopifySign("someone-else", b)) },
			status: 401, result: "unauthorized",
		},
		{
			name: "body changed after signing is refused", file: "order_customized.json", topic: "orders/paid",
			header: func(h http.Header, b []byte) {
				h.Set("X-Shopify-Hmac-Sha256", shopifySign(shopSecret, bytes.Replace(b, []byte(`"quantity": 2`), []byte(`"quantity": 20`), 1)))
			},
			status: 401, result: "unauthorized",
		},
		{
			name: "missing signature is refused", file: "order_customized.json", topic: "orders/paid",
			header: func(h http.Header, b []byte) { h.Del("X-Shopify-Hmac-Sha256") },
			status: 401, result: "unauthorized",
		},
		{
			name: "malformed JSON", body: []byte(`{"id": 5812345678901, "line_items": [`), topic: "orders/paid",
			status: 400, result: "bad_request", reason: "malformed JSON",
		},
		{
			name: "wrong JSON type", body: []byte(`{"id": 1, "line_items": {"a": 1}}`), topic: "orders/paid",
			status: 400, result: "bad_request", reason: "line_items",
		},
		{
			name: "timestamp that is not RFC 3339", body: []byte(`{"id": 1, "created_at": "14/03/2024", "updated_at": "2024-03-14T09:27:10-04:00"}`),
			topic: "orders/paid", status: 400, result: "bad_request", reason: "created_at",
		},
		{
			name: "oversized body", body: oversized, topic: "orders/paid",
			status: 413, result: "too_large",
		},
		{
			name: "shop not mapped to a store", file: "order_customized.json", topic: "orders/paid",
			header: func(h http.Header, b []byte) { h.Set("X-Shopify-Shop-Domain", "other-shop.myshopify.com") },
			status: 422, result: "unprocessable", reason: "other-shop.myshopify.com",
		},
		{
			name: "default store takes unmapped shops, with their shop domain", file: "order_delete.json", topic: "orders/delete",
			config: func(c *intake.Config) { c.Shopify.DefaultStore = "store-default" },
			header: func(h http.Header, b []byte) { h.Set("X-Shopify-Shop-Domain", "Other-Shop.myshopify.com") },
			status: 200, result: "enqueued", tasks: []string{"push delete store-default/other-shop.myshopify.com/5812345678901"},
		},
		{
			name: "properties as an object, numbers where strings are expected", topic: "orders/create",
			body: []byte(`{"id": 8, "created_at": "2024-03-14T09:26:53Z", "updated_at": "2024-03-14T09:26:53Z", "email": null, "contact_email": "anna@example.ch",
				"billing_address": {"zip": 8001, "phone": 41441234567, "first_name": "Anna"},
				"line_items": [{"quantity": 4, "price": "2.50", "properties": {"_design": "` + ref1002 + `", "note": "x"}}]}`),
			status: 200, result: "enqueued", tasks: []string{"push create " + hubStore + "/" + hubDomain + "/8"}, golden: "order_object_properties.hub.json",
		},
		{
			name: "price that is not a number", topic: "orders/paid",
			body:   []byte(`{"id": 9, "created_at": "2024-03-14T09:26:53Z", "updated_at": "2024-03-14T09:26:53Z", "line_items": [{"quantity": 1, "price": "free", "properties": [{"name": "_design", "value": "` + ref1001 + `"}]}]}`),
			status: 400, result: "bad_request", reason: "price",
		},
		{
			name: "design property naming no valid reference", topic: "orders/paid",
			body:   []byte(`{"id": 7, "created_at": "2024-03-14T09:26:53Z", "updated_at": "2024-03-14T09:26:53Z", "line_items": [{"quantity": 1, "price": "1.00", "properties": [{"name": "_design", "value": "not-a-ref"}]}]}`),
			status: 400, result: "bad_request", reason: "_design",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.config)
			body := tt.body
			if tt.file != "" {
				body = readFile(t, tt.file)
			}
			hdr := shopifyHeaders(tt.topic, body, fmt.Sprintf("b54557e4-bdd9-4b37-8a5f-bf7d70bc%04d", i))
			if tt.header != nil {
				tt.header(hdr, body)
			}
			r := h.post("/webhooks/shopify", body, hdr)
			if r.Status != tt.status || r.Body.Status != tt.result {
				t.Fatalf("got %d %q, want %d %q; body %s", r.Status, r.Body.Status, tt.status, tt.result, r.Raw)
			}
			if !strings.Contains(r.Body.Reason, tt.reason) {
				t.Errorf("reason %q does not mention %q", r.Body.Reason, tt.reason)
			}
			got := h.tasks()
			if s := summary(t, got); !slices.Equal(s, tt.tasks) {
				t.Errorf("enqueued:\n got %q\nwant %q", s, tt.tasks)
			}
			if tt.golden != "" {
				checkGolden(t, tt.golden, pushedOrder(t, got))
			}
		})
	}
}

func TestShopifyCancelStopsPendingExports(t *testing.T) {
	h := newHarness(t, nil)
	body := readFile(t, "order_customized.json")
	if r := h.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, "w-1")); r.Body.Status != "enqueued" {
		t.Fatalf("paid: %s", r.Raw)
	}
	cancelled := bytes.Replace(body, []byte(`"cancelled_at": null`), []byte(`"cancelled_at": "2024-03-14T10:00:00-04:00"`), 1)
	r := h.post("/webhooks/shopify", cancelled, shopifyHeaders("orders/cancelled", cancelled, "w-2"))
	if r.Body.Status != "enqueued" || !slices.Equal(r.Body.Jobs, []string{"cancel", "push:update"}) {
		t.Fatalf("cancelled: %s", r.Raw)
	}
	var exports []string
	for _, s := range summary(t, h.tasks()) {
		if strings.HasPrefix(s, "export") {
			exports = append(exports, s)
		}
	}
	if len(exports) != 0 {
		t.Errorf("exports still pending after cancel: %q", exports)
	}
	// A late orders/paid of the cancelled order prints nothing.
	late := bytes.Replace(body, []byte(`"financial_status": "paid"`), []byte(`"financial_status": "paid" `), 1)
	h.post("/webhooks/shopify", late, shopifyHeaders("orders/paid", late, "w-3"))
	for _, s := range summary(t, h.tasks()) {
		if strings.HasPrefix(s, "export") {
			t.Errorf("export enqueued for a cancelled order: %s", s)
		}
	}
}

func TestShopifyDuplicates(t *testing.T) {
	h := newHarness(t, nil)
	body := readFile(t, "order_customized.json")
	first := h.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, "wh-1"))
	if first.Body.Status != "enqueued" {
		t.Fatalf("first delivery: %s", first.Raw)
	}
	want := h.tasks()
	if len(want) != 3 {
		t.Fatalf("first delivery enqueued %d tasks, want 3", len(want))
	}
	for _, tc := range []struct{ name, webhookID string }{
		{"same webhook id (a Shopify retry)", "wh-1"},
		{"same event under another webhook id", "wh-2"},
	} {
		r := h.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, tc.webhookID))
		if r.Status != 200 || r.Body.Status != "duplicate" {
			t.Errorf("%s: got %d %s", tc.name, r.Status, r.Raw)
		}
	}
	if got := h.tasks(); !slices.EqualFunc(got, want, func(a, b task) bool { return a.ID == b.ID }) {
		t.Errorf("duplicates enqueued more: %d tasks, want %d", len(got), len(want))
	}

	// With the intake's memory gone (e.g. expired), the job ids still dedupe.
	if err := h.rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	h2 := newHarness(t, nil)
	h2.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, "wh-1"))
	n := len(h2.tasks())
	if err := h2.rdb.Del(context.Background(), mustKeys(t, h2.rdb, "printworker:intake:*")...).Err(); err != nil {
		t.Fatal(err)
	}
	r := h2.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, "wh-1"))
	if r.Status != 200 {
		t.Fatalf("redelivery after the intake forgot: %s", r.Raw)
	}
	if got := len(h2.tasks()); got != n {
		t.Errorf("redelivery after the intake forgot enqueued %d tasks, want %d", got, n)
	}

	// A real change (a new updated_at) is not a duplicate.
	changed := bytes.Replace(body, []byte(`"updated_at": "2024-03-14T09:27:10-04:00"`), []byte(`"updated_at": "2024-03-14T09:30:00-04:00"`), 1)
	r = h.post("/webhooks/shopify", changed, shopifyHeaders("orders/updated", changed, "wh-3"))
	if r.Body.Status != "enqueued" {
		t.Errorf("changed order: %s", r.Raw)
	}
}

func mustKeys(t *testing.T, c *redis.Client, pattern string) []string {
	t.Helper()
	keys, err := c.Keys(context.Background(), pattern).Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("keys %s: %v %v", pattern, keys, err)
	}
	return keys
}

func TestRedisDown(t *testing.T) {
	h := newHarness(t, nil)
	get := func(path string) int {
		resp, err := http.Get(h.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get("/readyz"); got != 200 {
		t.Fatalf("readyz with redis up = %d", got)
	}
	h.srv.Kill()
	if got := get("/healthz"); got != 200 {
		t.Errorf("healthz with redis down = %d, want 200 (the process is up)", got)
	}
	if got := get("/readyz"); got != 503 {
		t.Errorf("readyz with redis down = %d, want 503", got)
	}
	body := readFile(t, "order_customized.json")
	r := h.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, "x"))
	if r.Status != 503 || r.Body.Status != "unavailable" {
		t.Errorf("webhook with redis down: %d %s, want 503 so Shopify retries", r.Status, r.Raw)
	}
}

func genericHeaders(store, secret, topic string, ts time.Time, body []byte) http.Header {
	h := http.Header{}
	h.Set(intake.HeaderStore, store)
	h.Set(intake.HeaderTopic, topic)
	h.Set(intake.HeaderTimestamp, fmt.Sprint(ts.Unix()))
	h.Set(intake.HeaderSignature, intake.Sign(secret, ts, body))
	return h
}

func TestGenericWebhook(t *testing.T) {
	valid := []byte(`{
  "orderId": "A-1001", "domain": "shop.example.org", "status": "paid",
  "created": "2024-03-14T13:26:53.000Z", "updated": "2024-03-14T13:27:10.000Z",
  "email": "kenji@example.org", "firstName": "健二", "lastName": "佐藤",
  "billingDetails": {"address1": "1-2-3 Shibuya", "address2": "", "city": "東京", "companyName": "", "country": "Japan", "countryCode": "JP", "firstName": "健二", "lastName": "佐藤", "phone": "", "province": "", "zip": "150-0002"},
  "shippingDetails": {"address1": "1-2-3 Shibuya", "address2": "", "city": "東京", "companyName": "", "country": "Japan", "countryCode": "JP", "firstName": "健二", "lastName": "佐藤", "phone": "", "province": "", "zip": "150-0002"},
  "lineItems": [{"id": 1001, "token": "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", "quantity": 2, "price": 19.9}]
}`)
	now := time.Date(2024, 3, 14, 14, 0, 0, 0, time.UTC)
	key := "store-9/shop.example.org/A-1001"
	tests := []struct {
		name   string
		body   []byte
		header http.Header
		status int
		result string
		tasks  []string
		reason string
	}{
		{name: "signed order, production topic", body: valid, header: genericHeaders("store-9", ordersSecret, "orders/paid", now, valid),
			status: 200, result: "enqueued", tasks: []string{"export " + key + " " + ref1001 + " x2", "push update " + key}},
		{name: "timestamp within tolerance", body: valid, header: genericHeaders("store-9", ordersSecret, "orders/create", now.Add(-4*time.Minute), valid),
			status: 200, result: "enqueued", tasks: []string{"push create " + key}},
		{name: "per-store secret", body: valid, header: genericHeaders("store-own", "own-secret", "orders/create", now, valid),
			status: 200, result: "enqueued", tasks: []string{"push create store-own/shop.example.org/A-1001"}},
		{name: "per-store secret replaces the shared one", body: valid, header: genericHeaders("store-own", ordersSecret, "orders/create", now, valid),
			status: 401, result: "unauthorized"},
		{name: "wrong secret", body: valid, header: genericHeaders("store-9", "nope", "orders/paid", now, valid),
			status: 401, result: "unauthorized"},
		{name: "replayed old request", body: valid, header: genericHeaders("store-9", ordersSecret, "orders/paid", now.Add(-10*time.Minute), valid),
			status: 401, result: "unauthorized"},
		{name: "timestamp swapped after signing", body: valid, header: func() http.Header {
			h := genericHeaders("store-9", ordersSecret, "orders/paid", now.Add(-time.Minute), valid)
			h.Set(intake.HeaderTimestamp, fmt.Sprint(now.Unix()))
			return h
		}(), status: 401, result: "unauthorized"},
		{name: "no store header", body: valid, header: func() http.Header {
			h := genericHeaders("store-9", ordersSecret, "orders/paid", now, valid)
			h.Del(intake.HeaderStore)
			return h
		}(), status: 401, result: "unauthorized"},
		{name: "malformed JSON", body: []byte(`{"orderId": `), header: genericHeaders("store-9", ordersSecret, "orders/paid", now, []byte(`{"orderId": `)),
			status: 400, result: "bad_request", reason: "malformed JSON"},
		{name: "invalid order says which fields", body: bytes.Replace(valid, []byte(`"kenji@example.org"`), []byte(`"not an address"`), 1),
			header: genericHeaders("store-9", ordersSecret, "orders/paid", now, bytes.Replace(valid, []byte(`"kenji@example.org"`), []byte(`"not an address"`), 1)),
			status: 422, result: "unprocessable", reason: "email"},
		{name: "delete with the identity alone", body: []byte(`{"orderId": "A-1001", "domain": "shop.example.org"}`),
			header: genericHeaders("store-9", ordersSecret, "orders/delete", now, []byte(`{"orderId": "A-1001", "domain": "shop.example.org"}`)),
			status: 200, result: "enqueued", tasks: []string{"push delete " + key}},
		{name: "delete without a domain", body: []byte(`{"orderId": "A-1001"}`),
			header: genericHeaders("store-9", ordersSecret, "orders/delete", now, []byte(`{"orderId": "A-1001"}`)),
			status: 422, result: "unprocessable", reason: "domain"},
		{name: "missing topic", body: valid, header: func() http.Header {
			h := genericHeaders("store-9", ordersSecret, "orders/paid", now, valid)
			h.Del(intake.HeaderTopic)
			return h
		}(), status: 400, result: "bad_request", reason: intake.HeaderTopic},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.now = now
			r := h.post("/webhooks/orders", tt.body, tt.header)
			if r.Status != tt.status || r.Body.Status != tt.result {
				t.Fatalf("got %d %q, want %d %q; body %s", r.Status, r.Body.Status, tt.status, tt.result, r.Raw)
			}
			if !strings.Contains(r.Body.Reason, tt.reason) {
				t.Errorf("reason %q does not mention %q", r.Body.Reason, tt.reason)
			}
			if s := summary(t, h.tasks()); !slices.Equal(s, tt.tasks) {
				t.Errorf("enqueued:\n got %q\nwant %q", s, tt.tasks)
			}
		})
	}
}

func TestGenericDeliveryID(t *testing.T) {
	h := newHarness(t, nil)
	body := []byte(`{"orderId": "A-7", "domain": "shop.example.org"}`)
	long := strings.Repeat("ü/", 300) // any text a sender chooses, kept out of Redis keys
	for i, want := range []string{"enqueued", "duplicate"} {
		hdr := genericHeaders("store-9", ordersSecret, "orders/delete", h.now, body)
		hdr.Set(intake.HeaderDelivery, long)
		if r := h.post("/webhooks/orders", body, hdr); r.Body.Status != want {
			t.Errorf("delivery %d: got %s, want %s", i+1, r.Raw, want)
		}
	}
	for _, k := range mustKeys(t, h.rdb, "printworker:intake:delivery:*") {
		if len(k) > 100 || strings.Contains(k, "ü") {
			t.Errorf("delivery id stored raw in key %q", k)
		}
	}
}

func TestDisabledEndpoints(t *testing.T) {
	h := newHarness(t, func(c *intake.Config) { c.Orders.Secrets, c.Orders.StoreSecrets = nil, nil })
	body := []byte(`{}`)
	if r := h.post("/webhooks/orders", body, genericHeaders("s", "x", "orders/paid", h.now, body)); r.Status != 404 {
		t.Errorf("orders endpoint without secrets: %d, want 404", r.Status)
	}
}

func TestMetrics(t *testing.T) {
	h := newHarness(t, nil)
	body := readFile(t, "order_customized.json")
	h.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, "m-1"))
	h.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, "m-1"))
	bad := shopifyHeaders("orders/paid", body, "m-2")
	bad.Set("X-Shopify-Hmac-Sha256", "AAAA")
	h.post("/webhooks/shopify", body, bad)
	resp, err := http.Get(h.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`printworker_intake_webhooks_total{endpoint="shopify",outcome="enqueued"} 1`,
		`printworker_intake_webhooks_total{endpoint="shopify",outcome="duplicate"} 1`,
		`printworker_intake_webhooks_total{endpoint="shopify",outcome="unauthorized"} 1`,
		`printworker_intake_jobs_enqueued_total{job="export"} 1`,
		`printworker_intake_jobs_enqueued_total{job="push:update"} 1`,
		`printworker_intake_webhook_duration_seconds_count{endpoint="shopify"} 3`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	c := intake.DefaultConfig()
	c.MaxBody = 0
	c.ProductionTopic = "orders/fulfilled"
	c.Shopify.DesignProperty = " "
	err := c.Validate()
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, want := range []string{"max body", "production topic", "design property", "no webhook secret"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("validation error does not report %q: %v", want, err)
		}
	}
}
