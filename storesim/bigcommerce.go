package storesim

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// BigCommerce simulates one BigCommerce store: the v2 order API under
// /stores/{hash}/v2/orders (X-Auth-Token, X-Rate-Limit-* headers) and its
// store/order/* webhooks, signed in the Standard Webhooks form with the app's client
// secret.
type BigCommerce struct {
	Faults
	StoreHash, Token string
	// Secret signs webhooks (the app's client secret, used as the HMAC key).
	Secret string
	// SpentWindow, when set, makes every answer say the rate limit window is spent
	// (X-Rate-Limit-Requests-Left: 0) and reopens after SpentWindow.
	SpentWindow time.Duration

	mu     sync.Mutex
	orders map[int]BCOrder
}

// BCOrder is a simulated order.
type BCOrder struct {
	ID       int
	StatusID int
	// Status is the status's name ("Awaiting Fulfillment").
	Status            string
	Created, Modified time.Time
	Billing           BCAddress
	// Shipping is the first shipping address; nil serves none.
	Shipping *BCAddress
	Products []BCProduct
}

// BCAddress is a billing or shipping address.
type BCAddress struct {
	FirstName, LastName, Company, Street1, Street2, City, State, Zip, Country, CountryISO2, Phone, Email string
}

// BCProduct is one order line with its options.
type BCProduct struct {
	Name     string
	Quantity int
	// Price is price_inc_tax, a decimal string ("25.0000").
	Price   string
	Options []BCOption
}

// BCOption is one product option as the order products API lists it.
type BCOption struct{ DisplayName, DisplayValue, Value string }

// NewBigCommerce returns a store with no orders.
func NewBigCommerce(storeHash, token, secret string) *BigCommerce {
	return &BigCommerce{StoreHash: storeHash, Token: token, Secret: secret, orders: map[int]BCOrder{}}
}

// Put adds or replaces an order.
func (b *BigCommerce) Put(o BCOrder) {
	b.mu.Lock()
	b.orders[o.ID] = o
	b.mu.Unlock()
}

func (b *BigCommerce) order(id int) (BCOrder, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.orders[id]
	return o, ok
}

// Webhook is the signed notification of scope (store/order/statusUpdated...) about
// order id, sent at ts. Each call has a new webhook-id; the body's hash is the
// event's (scope, order, status, modification time), so a repeated event has the
// hash of the first, as BigCommerce's duplicates do.
func (b *BigCommerce) Webhook(scope string, id int, ts time.Time) (Webhook, error) {
	o, _ := b.order(id)
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|%d|%d|%d", scope, id, o.StatusID, o.Modified.Unix()))
	body, err := json.Marshal(map[string]any{
		"scope":      scope,
		"store_id":   "1001",
		"producer":   "stores/" + b.StoreHash,
		"data":       map[string]any{"type": "order", "id": id},
		"hash":       hex.EncodeToString(sum[:20]),
		"created_at": ts.Unix(),
	})
	if err != nil {
		return Webhook{}, err
	}
	var rid [12]byte
	_, _ = rand.Read(rid[:])
	return signed([]byte(b.Secret), "msg_"+hex.EncodeToString(rid[:]), ts, body)
}

// bcRateHeaders are the rate limit headers BigCommerce sends on every answer.
func bcRateHeaders(h http.Header, left int, reset time.Duration) {
	h.Set("X-Rate-Limit-Time-Window-Ms", "30000")
	h.Set("X-Rate-Limit-Requests-Quota", "150")
	h.Set("X-Rate-Limit-Requests-Left", strconv.Itoa(left))
	h.Set("X-Rate-Limit-Time-Reset-Ms", strconv.FormatInt(reset.Milliseconds(), 10))
}

// Handler serves the store's order API: the order list (reconciliation sweeps)
// and each order with its shipping addresses and products.
func (b *BigCommerce) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stores/{hash}/v2/orders", b.serveBCList)
	mux.HandleFunc("GET /stores/{hash}/v2/orders/{id}", b.serve(func(o BCOrder, r *http.Request) any { return bcOrderJSON(o) }))
	mux.HandleFunc("GET /stores/{hash}/v2/orders/{id}/shipping_addresses", b.serve(func(o BCOrder, r *http.Request) any {
		if o.Shipping == nil {
			return nil
		}
		return []any{bcAddressJSON(*o.Shipping)}
	}))
	mux.HandleFunc("GET /stores/{hash}/v2/orders/{id}/products", b.serve(func(o BCOrder, r *http.Request) any {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if limit <= 0 {
			limit = 50 // the API's default page
		}
		limit, page = min(limit, 250), max(page, 1)
		var out []any
		for i, p := range o.Products {
			if i >= (page-1)*limit && i < page*limit {
				out = append(out, bcProductJSON(o.ID, i, p))
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}))
	return mux
}

// serve answers one order resource: faults first, then authentication, then the
// order (404 when unknown); a nil body is a 204, as the v2 API answers empty lists.
func (b *BigCommerce) serve(body func(BCOrder, *http.Request) any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if b.Faults.serve(w, r, func(h http.Header, after time.Duration) { bcRateHeaders(h, 0, after) }) {
			return
		}
		if r.PathValue("hash") != b.StoreHash || r.Header.Get("X-Auth-Token") != b.Token {
			http.Error(w, `[{"status":401,"message":"You are not authorized."}]`, http.StatusUnauthorized)
			return
		}
		if b.SpentWindow > 0 {
			bcRateHeaders(w.Header(), 0, b.SpentWindow)
		} else {
			bcRateHeaders(w.Header(), 149, 30*time.Second)
		}
		id, _ := strconv.Atoi(r.PathValue("id"))
		o, ok := b.order(id)
		if !ok {
			http.Error(w, `[{"status":404,"message":"The requested resource was not found."}]`, http.StatusNotFound)
			return
		}
		v := body(o, r)
		if v == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		out, err := json.Marshal(v)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, http.StatusOK, out)
	}
}

func bcOrderJSON(o BCOrder) map[string]any {
	return map[string]any{
		"id": o.ID, "customer_id": 0, "status_id": o.StatusID, "status": o.Status,
		"date_created":  o.Created.UTC().Format(time.RFC1123Z),
		"date_modified": o.Modified.UTC().Format(time.RFC1123Z),
		"currency_code": "USD", "payment_status": "captured",
		"billing_address": bcAddressJSON(o.Billing),
		"products":        map[string]any{"url": "https://api.bigcommerce.com/stores/x/v2/orders/" + strconv.Itoa(o.ID) + "/products", "resource": "/orders/" + strconv.Itoa(o.ID) + "/products"},
	}
}

func bcAddressJSON(a BCAddress) map[string]any {
	return map[string]any{
		"first_name": a.FirstName, "last_name": a.LastName, "company": a.Company, "street_1": a.Street1,
		"street_2": a.Street2, "city": a.City, "state": a.State, "zip": a.Zip, "country": a.Country,
		"country_iso2": a.CountryISO2, "phone": a.Phone, "email": a.Email,
	}
}

func bcProductJSON(orderID, i int, p BCProduct) map[string]any {
	opts := make([]any, 0, len(p.Options))
	for j, o := range p.Options {
		opts = append(opts, map[string]any{"id": j + 1, "option_id": j + 10, "display_name": o.DisplayName,
			"display_value": o.DisplayValue, "value": o.Value, "name": o.DisplayName, "type": "Text field"})
	}
	return map[string]any{"id": i + 1, "order_id": orderID, "name": p.Name, "quantity": p.Quantity,
		"price_inc_tax": p.Price, "product_options": opts}
}
