package storesim

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Etsy simulates one Etsy shop: the v3 receipt API under
// /v3/application/shops/{shop_id}/receipts (x-api-key and an OAuth bearer token),
// getShopReceipts with min_last_modified, sort and paging, and ORDER_PAID webhooks
// signed in the Standard Webhooks form with a whsec_ secret.
type Etsy struct {
	Faults
	ShopID        string
	APIKey, Token string
	// Secret is the webhook signing secret, "whsec_<base64>".
	Secret string

	mu       sync.Mutex
	receipts map[int]EtsyReceipt
}

// EtsyReceipt is a simulated receipt.
type EtsyReceipt struct {
	ID int
	// Status is Etsy's receipt status: "paid", "completed", "open", "canceled",
	// "fully refunded"...
	Status            string
	IsPaid            bool
	BuyerEmail, Name  string
	FirstLine, City   string
	State, Zip        string
	CountryISO        string
	Created, Modified time.Time
	Transactions      []EtsyTransaction
}

// EtsyTransaction is one receipt line.
type EtsyTransaction struct {
	Quantity int
	// Amount is the price in cents (divisor 100).
	Amount int64
	// Variations are formatted name and value pairs ("Personalization" holds the
	// buyer's text).
	Variations [][2]string
}

// NewEtsy returns a shop with no receipts.
func NewEtsy(shopID, apiKey, token, secret string) *Etsy {
	return &Etsy{ShopID: shopID, APIKey: apiKey, Token: token, Secret: secret, receipts: map[int]EtsyReceipt{}}
}

// Put adds or replaces a receipt.
func (e *Etsy) Put(r EtsyReceipt) {
	e.mu.Lock()
	e.receipts[r.ID] = r
	e.mu.Unlock()
}

// Webhook is the signed ORDER_PAID notification of receipt id, sent at ts, with a
// new webhook-id. Etsy retries a delivery with the same id: resend the returned
// Webhook for that.
func (e *Etsy) Webhook(id int, ts time.Time) (Webhook, error) {
	key, err := base64.StdEncoding.DecodeString(trimWhsec(e.Secret))
	if err != nil {
		return Webhook{}, fmt.Errorf("storesim: etsy secret: %w", err)
	}
	body, err := json.Marshal(map[string]any{
		"event_type":   "ORDER_PAID",
		"resource_url": fmt.Sprintf("https://openapi.etsy.com/v3/application/shops/%s/receipts/%d", e.ShopID, id),
		"shop_id":      json.Number(e.ShopID),
	})
	if err != nil {
		return Webhook{}, err
	}
	var rid [12]byte
	_, _ = rand.Read(rid[:])
	return signed(key, "msg_"+hex.EncodeToString(rid[:]), ts, body)
}

func trimWhsec(s string) string {
	if len(s) > 6 && s[:6] == "whsec_" {
		return s[6:]
	}
	return s
}

// Handler serves the shop's receipt API.
func (e *Etsy) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v3/application/shops/{shop}/receipts/{id}", e.guard(func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(r.PathValue("id"))
		e.mu.Lock()
		rc, ok := e.receipts[id]
		e.mu.Unlock()
		if !ok {
			http.Error(w, `{"error":"Receipt not found"}`, http.StatusNotFound)
			return
		}
		out, _ := json.Marshal(etsyReceiptJSON(e.ShopID, rc))
		writeJSON(w, http.StatusOK, out)
	}))
	mux.HandleFunc("GET /v3/application/shops/{shop}/receipts", e.guard(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		minMod, _ := strconv.ParseInt(q.Get("min_last_modified"), 10, 64)
		limit, _ := strconv.Atoi(q.Get("limit"))
		offset, _ := strconv.Atoi(q.Get("offset"))
		if limit <= 0 {
			limit = 25 // the API's default page
		}
		limit, offset = min(limit, 100), max(offset, 0)
		e.mu.Lock()
		var all []EtsyReceipt
		for _, rc := range e.receipts {
			if rc.Modified.Unix() >= minMod {
				all = append(all, rc)
			}
		}
		e.mu.Unlock()
		slices.SortFunc(all, func(a, b EtsyReceipt) int {
			if c := a.Modified.Compare(b.Modified); c != 0 {
				return c
			}
			return a.ID - b.ID
		})
		results := []any{}
		for i := offset; i < len(all) && i < offset+limit; i++ {
			results = append(results, etsyReceiptJSON(e.ShopID, all[i]))
		}
		out, _ := json.Marshal(map[string]any{"count": len(all), "results": results})
		writeJSON(w, http.StatusOK, out)
	}))
	return mux
}

// guard answers faults, then checks the shop and the credentials.
func (e *Etsy) guard(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if e.Faults.serve(w, r, nil) {
			return
		}
		if r.Header.Get("x-api-key") != e.APIKey || r.Header.Get("Authorization") != "Bearer "+e.Token {
			http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
			return
		}
		if r.PathValue("shop") != e.ShopID {
			http.Error(w, `{"error":"Shop not found"}`, http.StatusNotFound)
			return
		}
		h(w, r)
	}
}

func etsyReceiptJSON(shop string, r EtsyReceipt) map[string]any {
	txs := make([]any, 0, len(r.Transactions))
	for i, t := range r.Transactions {
		vars := make([]any, 0, len(t.Variations))
		for j, v := range t.Variations {
			vars = append(vars, map[string]any{"property_id": 513 + j, "value_id": nil, "formatted_name": v[0], "formatted_value": v[1]})
		}
		txs = append(txs, map[string]any{"transaction_id": r.ID*100 + i, "quantity": t.Quantity,
			"price":      map[string]any{"amount": t.Amount, "divisor": 100, "currency_code": "USD"},
			"variations": vars})
	}
	shopID, _ := strconv.Atoi(shop)
	return map[string]any{
		"receipt_id": r.ID, "receipt_type": 0, "seller_user_id": shopID, "status": r.Status, "is_paid": r.IsPaid,
		"buyer_email": r.BuyerEmail, "name": r.Name, "first_line": r.FirstLine, "second_line": nil, "city": r.City,
		"state": r.State, "zip": r.Zip, "country_iso": r.CountryISO,
		"create_timestamp": r.Created.Unix(), "created_timestamp": r.Created.Unix(),
		"update_timestamp": r.Modified.Unix(), "updated_timestamp": r.Modified.Unix(),
		"transactions": txs,
	}
}
