package storesim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The order lists a reconciliation sweep reads (package reconcile), served as the
// platforms serve them: filtered by modification time, sorted by it, in pages.

// Dropped lists which webhooks of a batch a store accepted the order for but never
// delivered (a lost delivery: a platform that gave up, a deployment window): by
// index in the batch as given, before any reordering.
type Dropped []int

func (d Dropped) has(i int) bool { return slices.Contains(d, i) }

// serveWooList answers GET /wp-json/wc/v3/orders: modified_after (GMT with
// dates_are_gmt=true, else the site's time, UTC here), orderby=modified&order=asc,
// per_page (at most 100) and page, with X-WP-Total and X-WP-TotalPages.
func (w *WooCommerce) serveWooList(rw http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var after time.Time
	if v := q.Get("modified_after"); v != "" {
		t, err := time.Parse("2006-01-02T15:04:05", strings.TrimSuffix(v, "Z"))
		if err != nil {
			wooError(rw, http.StatusBadRequest, "rest_invalid_param", "Invalid parameter(s): modified_after")
			return
		}
		after = t
	}
	per, err := strconv.Atoi(q.Get("per_page"))
	if q.Get("per_page") == "" {
		per, err = 10, nil // the API's default page
	}
	if err != nil || per < 1 || per > 100 {
		wooError(rw, http.StatusBadRequest, "rest_invalid_param", "Invalid parameter(s): per_page")
		return
	}
	page := 1
	if v := q.Get("page"); v != "" {
		if page, err = strconv.Atoi(v); err != nil || page < 1 {
			wooError(rw, http.StatusBadRequest, "rest_invalid_param", "Invalid parameter(s): page")
			return
		}
	}
	w.mu.Lock()
	orders := make([]WooOrder, 0, len(w.orders))
	for _, o := range w.orders {
		orders = append(orders, o.withoutHidden())
	}
	w.mu.Unlock()
	// modified_after is strict; the stamps have whole seconds.
	out, total := sincePage(orders, func(o WooOrder) time.Time { t, _ := time.Parse("2006-01-02T15:04:05", o.DateModifiedGMT); return t },
		func(o WooOrder) string { return fmt.Sprintf("%020d", o.ID) }, after.Add(time.Second), (page-1)*per, per)
	rw.Header().Set("X-WP-Total", strconv.Itoa(total))
	rw.Header().Set("X-WP-TotalPages", strconv.Itoa((total+per-1)/per))
	rw.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(rw).Encode(out)
}

// serveBCList answers GET /stores/{hash}/v2/orders: min_date_modified (RFC 3339
// or RFC 1123), sort=date_modified:asc, limit (at most 250, default 50) and page;
// no order on the page is a 204, as the v2 API answers.
func (b *BigCommerce) serveBCList(w http.ResponseWriter, r *http.Request) {
	if b.Faults.serve(w, r, func(h http.Header, after time.Duration) { bcRateHeaders(h, 0, after) }) {
		return
	}
	if r.PathValue("hash") != b.StoreHash || r.Header.Get("X-Auth-Token") != b.Token {
		http.Error(w, `[{"status":401,"message":"You are not authorized."}]`, http.StatusUnauthorized)
		return
	}
	q := r.URL.Query()
	var since time.Time
	if v := q.Get("min_date_modified"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			t, err = time.Parse(time.RFC1123Z, v)
		}
		if err != nil {
			http.Error(w, `[{"status":400,"message":"The field 'min_date_modified' is invalid."}]`, http.StatusBadRequest)
			return
		}
		since = t
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	page, _ := strconv.Atoi(q.Get("page"))
	if limit <= 0 {
		limit = 50
	}
	limit, page = min(limit, 250), max(page, 1)
	b.mu.Lock()
	orders := make([]BCOrder, 0, len(b.orders))
	for _, o := range b.orders {
		orders = append(orders, o)
	}
	b.mu.Unlock()
	if b.SpentWindow > 0 {
		bcRateHeaders(w.Header(), 0, b.SpentWindow)
	} else {
		bcRateHeaders(w.Header(), 149, 30*time.Second)
	}
	got, _ := sincePage(orders, func(o BCOrder) time.Time { return o.Modified }, func(o BCOrder) string { return fmt.Sprintf("%020d", o.ID) },
		since.Truncate(time.Second), (page-1)*limit, limit)
	if len(got) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	out := make([]any, 0, len(got))
	for _, o := range got {
		out = append(out, bcOrderJSON(o))
	}
	body, _ := json.Marshal(out)
	writeJSON(w, http.StatusOK, body)
}

// stampCursor is what a simulated cursor holds (Shopify's page_info, Wix's
// cursor): the list's lower bound and where the next page starts.
type stampCursor struct {
	Since  string `json:"s"`
	Offset int    `json:"o"`
}

func (c stampCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor encode wrote into c; false when it is not one.
func decodeCursor(s string, c *stampCursor) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && json.Unmarshal(b, c) == nil && c.Offset >= 0
}

// sincePage sorts the items stamped at or after since by stamp, then key, and
// returns the limit of them from offset, with how many there are in all.
func sincePage[T any](items []T, stamp func(T) time.Time, key func(T) string, since time.Time, offset, limit int) ([]T, int) {
	var all []T
	for _, it := range items {
		if !stamp(it).Before(since) {
			all = append(all, it)
		}
	}
	slices.SortFunc(all, func(a, b T) int {
		if c := stamp(a).Compare(stamp(b)); c != 0 {
			return c
		}
		return strings.Compare(key(a), key(b))
	})
	lo := min(offset, len(all))
	hi := min(lo+limit, len(all))
	return append([]T{}, all[lo:hi]...), len(all)
}
