package storesim

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// ShopifyOrder is a Shopify order (REST Admin API, also the orders/* webhook body)
// as far as printworker reads it.
type ShopifyOrder struct {
	ID                int64             `json:"id"`
	Name              string            `json:"name"`
	Email             string            `json:"email"`
	CreatedAt         string            `json:"created_at"`
	UpdatedAt         string            `json:"updated_at"`
	CancelledAt       *string           `json:"cancelled_at"`
	FinancialStatus   string            `json:"financial_status"`
	FulfillmentStatus *string           `json:"fulfillment_status"`
	Test              bool              `json:"test"`
	Customer          *ShopifyCustomer  `json:"customer"`
	BillingAddress    *ShopifyAddress   `json:"billing_address"`
	ShippingAddress   *ShopifyAddress   `json:"shipping_address"`
	LineItems         []ShopifyLineItem `json:"line_items"`
}

// ShopifyCustomer is the order's customer.
type ShopifyCustomer struct {
	Email     string `json:"email"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// ShopifyAddress is a billing or shipping address.
type ShopifyAddress struct {
	Address1    string `json:"address1"`
	Address2    string `json:"address2"`
	City        string `json:"city"`
	Company     string `json:"company"`
	Country     string `json:"country"`
	CountryCode string `json:"country_code"`
	FirstName   string `json:"first_name"`
	LastName    string `json:"last_name"`
	Phone       string `json:"phone"`
	Province    string `json:"province"`
	Zip         string `json:"zip"`
}

// ShopifyLineItem is an order line; Price is a decimal string, Properties the
// buyer's line item properties.
type ShopifyLineItem struct {
	ID         int64             `json:"id"`
	Quantity   int               `json:"quantity"`
	Price      string            `json:"price"`
	Properties []ShopifyProperty `json:"properties"`
}

// ShopifyProperty is one line item property.
type ShopifyProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Shopify simulates one shop: its orders/* webhooks (X-Shopify-Hmac-Sha256 and the
// other X-Shopify-* headers) and the REST Admin API's order list,
// GET /admin/api/{version}/orders.json (X-Shopify-Access-Token) with
// updated_at_min, status=any, order=updated_at asc, limit (at most 250) and
// cursor pages through the Link header (page_info, which must come alone with
// limit), X-Shopify-Shop-Api-Call-Limit on every answer and 429 with Retry-After
// as injected. Build it with NewShopify; it is safe for concurrent use.
type Shopify struct {
	Faults
	// Domain is the shop (my-shop.myshopify.com); Secret signs webhooks; Token
	// is the Admin API access token the API accepts.
	Domain, Secret, Token string

	mu     sync.Mutex
	orders map[int64]ShopifyOrder
}

// NewShopify returns a shop with no orders.
func NewShopify(domain, secret, token string) *Shopify {
	return &Shopify{Domain: domain, Secret: secret, Token: token, orders: map[int64]ShopifyOrder{}}
}

// Put adds or replaces an order.
func (s *Shopify) Put(o ShopifyOrder) {
	s.mu.Lock()
	s.orders[o.ID] = o
	s.mu.Unlock()
}

// ShopifyStamp formats t as Shopify's timestamps (shop time zone, here UTC).
func ShopifyStamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05-07:00") }

// Webhook is the signed delivery of topic (orders/paid, ...) about order id, with
// a fresh X-Shopify-Webhook-Id.
func (s *Shopify) Webhook(topic string, id int64) (Webhook, error) {
	s.mu.Lock()
	o := s.orders[id]
	s.mu.Unlock()
	body, err := json.Marshal(o)
	if err != nil {
		return Webhook{}, err
	}
	m := hmac.New(sha256.New, []byte(s.Secret))
	m.Write(body)
	var wid [16]byte
	_, _ = rand.Read(wid[:])
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Shopify-Topic", topic)
	h.Set("X-Shopify-Shop-Domain", s.Domain)
	h.Set("X-Shopify-Hmac-Sha256", base64.StdEncoding.EncodeToString(m.Sum(nil)))
	h.Set("X-Shopify-Webhook-Id", hex.EncodeToString(wid[:]))
	h.Set("X-Shopify-API-Version", "2025-01")
	return Webhook{Header: h, Body: body}, nil
}

// Handler serves the order list.
func (s *Shopify) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /admin/api/{version}/orders.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Shopify-Shop-Api-Call-Limit", "1/40")
		if s.Faults.serve(w, r, nil) {
			return
		}
		if r.Header.Get("X-Shopify-Access-Token") != s.Token {
			http.Error(w, `{"errors":"[API] Invalid API key or access token (unrecognized login or wrong password)"}`, http.StatusUnauthorized)
			return
		}
		q := r.URL.Query()
		limit := 50
		if v := q.Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 250 {
				http.Error(w, `{"errors":{"limit":"must be between 1 and 250"}}`, http.StatusBadRequest)
				return
			}
			limit = n
		}
		cur := stampCursor{Since: q.Get("updated_at_min")}
		if pi := q.Get("page_info"); pi != "" {
			for k := range q {
				if k != "page_info" && k != "limit" && k != "fields" {
					// Shopify: page_info cannot be combined with other filters.
					http.Error(w, `{"errors":{"page_info":"cannot be passed with `+k+`"}}`, http.StatusBadRequest)
					return
				}
			}
			if !decodeCursor(pi, &cur) {
				http.Error(w, `{"errors":{"page_info":"Invalid value."}}`, http.StatusBadRequest)
				return
			}
		}
		var since time.Time
		if cur.Since != "" {
			t, err := time.Parse(time.RFC3339, cur.Since)
			if err != nil {
				http.Error(w, `{"errors":{"updated_at_min":"Invalid value."}}`, http.StatusBadRequest)
				return
			}
			since = t
		}
		s.mu.Lock()
		orders := make([]ShopifyOrder, 0, len(s.orders))
		for _, o := range s.orders {
			orders = append(orders, o)
		}
		s.mu.Unlock()
		page, total := sincePage(orders, func(o ShopifyOrder) time.Time { t, _ := time.Parse(time.RFC3339, o.UpdatedAt); return t },
			func(o ShopifyOrder) string { return fmt.Sprintf("%020d", o.ID) }, since, cur.Offset, limit)
		next := cur.Offset + len(page)
		if next >= total {
			next = 0
		}
		if next > 0 {
			q := url.Values{"limit": {strconv.Itoa(limit)}, "page_info": {stampCursor{Since: cur.Since, Offset: next}.encode()}}
			scheme := "http"
			if r.TLS != nil {
				scheme = "https"
			}
			w.Header().Set("Link", "<"+scheme+"://"+r.Host+r.URL.Path+"?"+q.Encode()+`>; rel="next"`)
		}
		out, _ := json.Marshal(map[string]any{"orders": page})
		writeJSON(w, http.StatusOK, out)
	})
	return mux
}

// ShopifySampleOrder is a paid order of two personalized lines (the design
// reference in the _design property) and one plain line.
func ShopifySampleOrder(id int64, created time.Time) ShopifyOrder {
	addr := &ShopifyAddress{Address1: "Hauptstraße 5", City: "Köln", Country: "Germany", CountryCode: "DE",
		FirstName: "Zoë", LastName: "Brandt", Zip: "50667"}
	return ShopifyOrder{ID: id, Name: "#" + strconv.FormatInt(id, 10), Email: "zoe@example.com",
		CreatedAt: ShopifyStamp(created), UpdatedAt: ShopifyStamp(created.Add(2 * time.Minute)), FinancialStatus: "paid",
		Customer:       &ShopifyCustomer{Email: "zoe@example.com", FirstName: "Zoë", LastName: "Brandt"},
		BillingAddress: addr, ShippingAddress: addr,
		LineItems: []ShopifyLineItem{
			{ID: 1, Quantity: 2, Price: "12.50", Properties: []ShopifyProperty{{Name: "_design", Value: "1001.3f2504e0-4f89-11d3-9a0c-0305e82c3301"}}},
			{ID: 2, Quantity: 1, Price: "20.00", Properties: []ShopifyProperty{{Name: "_design", Value: "1002.9a1c7e52-3b0d-4c8e-8f5a-2d6b7c8e9f01"}}},
			{ID: 3, Quantity: 1, Price: "10.00"},
		}}
}
