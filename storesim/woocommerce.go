package storesim

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// WooOrder is a WooCommerce REST order (wc/v3) as far as printworker reads it; the
// simulator sends it as the webhook body and serves it from the REST API.
type WooOrder struct {
	ID              int64         `json:"id"`
	Number          string        `json:"number"`
	Status          string        `json:"status"`
	Currency        string        `json:"currency"`
	DateCreatedGMT  string        `json:"date_created_gmt"`
	DateModifiedGMT string        `json:"date_modified_gmt"`
	DatePaidGMT     *string       `json:"date_paid_gmt"`
	Billing         WooAddress    `json:"billing"`
	Shipping        WooAddress    `json:"shipping"`
	LineItems       []WooLineItem `json:"line_items"`
}

// WooAddress is a billing or shipping address (shipping has no email).
type WooAddress struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Company   string `json:"company"`
	Address1  string `json:"address_1"`
	Address2  string `json:"address_2"`
	City      string `json:"city"`
	State     string `json:"state"`
	Postcode  string `json:"postcode"`
	Country   string `json:"country"`
	Email     string `json:"email,omitempty"`
	Phone     string `json:"phone"`
}

// WooLineItem is an order line; Price is a JSON number, Total a decimal string, as
// WooCommerce sends them.
type WooLineItem struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	ProductID int64     `json:"product_id"`
	Quantity  int       `json:"quantity"`
	Price     float64   `json:"price"`
	Total     string    `json:"total"`
	MetaData  []WooMeta `json:"meta_data"`
}

// WooMeta is a line item meta. A key starting with "_" is hidden: left out of
// webhook bodies and of REST answers that do not ask for all_item_meta.
type WooMeta struct {
	ID           int64  `json:"id"`
	Key          string `json:"key"`
	Value        any    `json:"value"`
	DisplayKey   string `json:"display_key"`
	DisplayValue any    `json:"display_value"`
}

// withoutHidden returns a copy of o without hidden meta.
func (o WooOrder) withoutHidden() WooOrder {
	c := o
	c.LineItems = make([]WooLineItem, len(o.LineItems))
	for i, li := range o.LineItems {
		li.MetaData = nil
		for _, m := range o.LineItems[i].MetaData {
			if !strings.HasPrefix(m.Key, "_") {
				li.MetaData = append(li.MetaData, m)
			}
		}
		c.LineItems[i] = li
	}
	return c
}

// WooFault is one answer the simulated REST API gives instead of the order: a status
// (with Retry-After when set), or, with Hang, no answer until the client gives up.
type WooFault struct {
	Status     int
	RetryAfter string
	Hang       bool
}

// WooCommerce simulates one WooCommerce site: it signs and sends order webhooks
// the way WooCommerce does, and serves GET /wp-json/wc/v3/orders/{id} (basic auth
// with the consumer key pair) with injectable faults. Its zero value is not
// usable; build it with NewWooCommerce. It is safe for concurrent use.
type WooCommerce struct {
	// Secret signs the webhooks (the webhook's secret in WooCommerce's settings).
	Secret string
	// Source is the site's address sent in X-WC-Webhook-Source.
	Source string
	// WebhookID is the webhook's id in X-WC-Webhook-ID.
	WebhookID int64
	// ConsumerKey and ConsumerSecret are the REST key pair the API accepts.
	ConsumerKey, ConsumerSecret string

	mu       sync.Mutex
	orders   map[int64]WooOrder
	faults   []WooFault
	delivery int64
	requests []string
	release  chan struct{}
}

// NewWooCommerce returns a site with the given webhook secret, source address and
// REST key pair, holding no orders.
func NewWooCommerce(secret, source, key, keySecret string) *WooCommerce {
	return &WooCommerce{Secret: secret, Source: source, WebhookID: 7, ConsumerKey: key, ConsumerSecret: keySecret,
		orders: map[int64]WooOrder{}, release: make(chan struct{})}
}

// Put stores (or replaces) an order the REST API serves.
func (w *WooCommerce) Put(o WooOrder) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.orders[o.ID] = o
}

// Fail queues faults: the next API requests get them, one each, in order.
func (w *WooCommerce) Fail(f ...WooFault) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.faults = append(w.faults, f...)
}

// Requests lists the API requests served so far ("GET /wp-json/...?query").
func (w *WooCommerce) Requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.requests...)
}

// Close ends the hanging answers (WooFault.Hang) still waiting.
func (w *WooCommerce) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.release:
	default:
		close(w.release)
	}
}

// WooDelivery is one webhook delivery: what WooCommerce posts, byte for byte.
// Posting the same delivery twice is a duplicate (same delivery id).
type WooDelivery struct {
	Topic  string
	Body   []byte
	Header http.Header
}

// Webhook builds the signed delivery of an order event (order.created, .updated,
// .restored: the order without its hidden meta; order.deleted: {"id": N}), with a
// fresh delivery id.
func (w *WooCommerce) Webhook(topic string, o WooOrder) WooDelivery {
	var body []byte
	if topic == "order.deleted" {
		body = []byte(`{"id":` + strconv.FormatInt(o.ID, 10) + `}`)
	} else {
		body, _ = json.Marshal(o.withoutHidden())
	}
	return w.SignedDelivery(topic, body)
}

// SignedDelivery builds a delivery of any body, signed with Secret (hostile and
// malformed bodies in tests).
func (w *WooCommerce) SignedDelivery(topic string, body []byte) WooDelivery {
	w.mu.Lock()
	w.delivery++
	n := w.delivery
	w.mu.Unlock()
	resource, event, _ := strings.Cut(topic, ".")
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "WooCommerce/9.4.0 Hookshot (WordPress/6.7)")
	h.Set("X-WC-Webhook-Source", w.Source)
	h.Set("X-WC-Webhook-Topic", topic)
	h.Set("X-WC-Webhook-Resource", resource)
	h.Set("X-WC-Webhook-Event", event)
	h.Set("X-WC-Webhook-Signature", WooSign(w.Secret, body))
	h.Set("X-WC-Webhook-ID", strconv.FormatInt(w.WebhookID, 10))
	h.Set("X-WC-Webhook-Delivery-ID", "d"+strconv.FormatInt(n, 10)+"-"+strconv.FormatInt(w.WebhookID, 10))
	return WooDelivery{Topic: topic, Body: body, Header: h}
}

// WooSign is WooCommerce's X-WC-Webhook-Signature: base64 of the HMAC-SHA256 of
// the raw body.
func WooSign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Ping posts what WooCommerce sends, unsigned, when a webhook is saved: the form
// body webhook_id=N.
func (w *WooCommerce) Ping(ctx context.Context, c *http.Client, url string) (int, error) {
	h := http.Header{}
	h.Set("Content-Type", "application/x-www-form-urlencoded")
	st, _, err := post(ctx, c, url, []byte("webhook_id="+strconv.FormatInt(w.WebhookID, 10)), h)
	return st, err
}

// Post sends d to url and returns the answer's status and body.
func (d WooDelivery) Post(ctx context.Context, c *http.Client, url string) (int, []byte, error) {
	return post(ctx, c, url, d.Body, d.Header)
}

// DeliveryFaults shape how DeliverAll sends a batch of deliveries, as the platforms'
// queues do under load: each delivery twice (a retry after a lost answer), and
// in reverse order (WooCommerce's action scheduler runs them concurrently; Wix
// promises no order).
type DeliveryFaults struct {
	Duplicate bool
	Reverse   bool
	// Drop are deliveries never sent (by index in ds): the store took the order,
	// its webhook was lost.
	Drop Dropped
}

// Poster is a delivery of any platform.
type Poster interface {
	Post(ctx context.Context, c *http.Client, url string) (int, []byte, error)
}

// DeliverAll posts ds to url with faults and returns each answer's status in the order
// sent.
func DeliverAll[D Poster](ctx context.Context, c *http.Client, url string, ds []D, f DeliveryFaults) ([]int, error) {
	var order []D
	for i, d := range ds {
		if !f.Drop.has(i) {
			order = append(order, d)
		}
	}
	if f.Reverse {
		for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
			order[i], order[j] = order[j], order[i]
		}
	}
	var sts []int
	for _, d := range order {
		times := 1
		if f.Duplicate {
			times = 2
		}
		for range times {
			st, _, err := d.Post(ctx, c, url)
			if err != nil {
				return sts, err
			}
			sts = append(sts, st)
		}
	}
	return sts, nil
}

func post(ctx context.Context, c *http.Client, url string, body []byte, h http.Header) (int, []byte, error) {
	if c == nil {
		c = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header = h.Clone()
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

// ServeHTTP is the site's REST API: GET /wp-json/wc/v3/orders/{id}, with
// all_item_meta=true for hidden meta, and the order list GET /wp-json/wc/v3/orders
// (reconciliation sweeps; hidden meta left out, as WooCommerce lists). Wrong credentials get 401, an unknown order
// 404 (WooCommerce's woocommerce_rest_shop_order_invalid_id).
func (w *WooCommerce) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	w.requests = append(w.requests, r.Method+" "+r.URL.RequestURI())
	var fault *WooFault
	if len(w.faults) > 0 {
		f := w.faults[0]
		w.faults = w.faults[1:]
		fault = &f
	}
	release := w.release
	w.mu.Unlock()
	if fault != nil {
		if fault.Hang {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		if fault.RetryAfter != "" {
			rw.Header().Set("Retry-After", fault.RetryAfter)
		}
		wooError(rw, fault.Status, "simulated_fault", "simulated fault")
		return
	}
	key, secret, ok := r.BasicAuth()
	if !ok || !hmac.Equal([]byte(key), []byte(w.ConsumerKey)) || !hmac.Equal([]byte(secret), []byte(w.ConsumerSecret)) {
		wooError(rw, http.StatusUnauthorized, "woocommerce_rest_cannot_view", "Sorry, you cannot view this resource.")
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == "/wp-json/wc/v3/orders" {
		w.serveWooList(rw, r)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/wp-json/wc/v3/orders/")
	if r.Method != http.MethodGet || !ok {
		wooError(rw, http.StatusNotFound, "rest_no_route", "No route was found matching the URL and request method.")
		return
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	w.mu.Lock()
	o, found := w.orders[id]
	w.mu.Unlock()
	if err != nil || !found {
		wooError(rw, http.StatusNotFound, "woocommerce_rest_shop_order_invalid_id", "Invalid ID.")
		return
	}
	if r.URL.Query().Get("all_item_meta") != "true" {
		o = o.withoutHidden()
	}
	rw.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(rw).Encode(o)
}

func wooError(rw http.ResponseWriter, status int, code, msg string) {
	rw.Header().Set("Content-Type", "application/json; charset=UTF-8")
	rw.WriteHeader(status)
	_ = json.NewEncoder(rw).Encode(map[string]any{"code": code, "message": msg, "data": map[string]int{"status": status}})
}

// WooGMT formats t as WooCommerce's GMT dates ("2024-03-14T13:00:00").
func WooGMT(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05") }

// WooSampleOrder is a paid order of two personalized lines (design meta under
// metaKey) and one plain line, with every address field filled.
func WooSampleOrder(id int64, metaKey string, created time.Time) WooOrder {
	paid := WooGMT(created.Add(time.Minute))
	addr := WooAddress{FirstName: "Zoë", LastName: "Brandt", Company: "Brandt Druck", Address1: "Hauptstraße 5",
		Address2: "2. OG", City: "Köln", State: "NW", Postcode: "50667", Country: "DE", Phone: "+49 221 1234567"}
	bill := addr
	bill.Email = "zoe@example.com"
	return WooOrder{
		ID: id, Number: strconv.FormatInt(id, 10), Status: "processing", Currency: "EUR",
		DateCreatedGMT: WooGMT(created), DateModifiedGMT: WooGMT(created.Add(2 * time.Minute)), DatePaidGMT: &paid,
		Billing: bill, Shipping: addr,
		LineItems: []WooLineItem{
			{ID: 11, Name: "Mug", ProductID: 501, Quantity: 2, Price: 12.5, Total: "25.00",
				MetaData: []WooMeta{{ID: 1, Key: metaKey, Value: "1001.3f2504e0-4f89-11d3-9a0c-0305e82c3301", DisplayKey: metaKey, DisplayValue: "1001.3f2504e0-4f89-11d3-9a0c-0305e82c3301"}}},
			{ID: 12, Name: "Shirt", ProductID: 502, Quantity: 1, Price: 20, Total: "20.00",
				MetaData: []WooMeta{{ID: 2, Key: "pa_size", Value: "L", DisplayKey: "Size", DisplayValue: "L"},
					{ID: 3, Key: metaKey, Value: "1002.9a1c7e52-3b0d-4c8e-8f5a-2d6b7c8e9f01", DisplayKey: metaKey, DisplayValue: "1002.9a1c7e52-3b0d-4c8e-8f5a-2d6b7c8e9f01"}}},
			{ID: 13, Name: "Gift card", ProductID: 503, Quantity: 1, Price: 10, Total: "10.00"},
		},
	}
}

// String describes the simulator for logs.
func (w *WooCommerce) String() string { return fmt.Sprintf("woocommerce simulator %s", w.Source) }
