package storesim

import (
	"encoding/json"
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

// listWindow is one page of n items: the offset and length of page (1-based) of
// size per.
func listWindow(n, page, per int) (lo, hi int) {
	lo = min((page-1)*per, n)
	return lo, min(lo+per, n)
}

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
	var all []WooOrder
	for _, o := range w.orders {
		m, err := time.Parse("2006-01-02T15:04:05", o.DateModifiedGMT)
		if err == nil && m.After(after) {
			all = append(all, o.withoutHidden())
		}
	}
	w.mu.Unlock()
	slices.SortFunc(all, func(a, b WooOrder) int {
		if c := strings.Compare(a.DateModifiedGMT, b.DateModifiedGMT); c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	})
	lo, hi := listWindow(len(all), page, per)
	rw.Header().Set("X-WP-Total", strconv.Itoa(len(all)))
	rw.Header().Set("X-WP-TotalPages", strconv.Itoa((len(all)+per-1)/per))
	rw.Header().Set("Content-Type", "application/json; charset=UTF-8")
	out := all[lo:hi]
	if out == nil {
		out = []WooOrder{}
	}
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
	var all []BCOrder
	for _, o := range b.orders {
		if !o.Modified.Before(since.Truncate(time.Second)) {
			all = append(all, o)
		}
	}
	b.mu.Unlock()
	slices.SortFunc(all, func(x, y BCOrder) int {
		if c := x.Modified.Compare(y.Modified); c != 0 {
			return c
		}
		return x.ID - y.ID
	})
	if b.SpentWindow > 0 {
		bcRateHeaders(w.Header(), 0, b.SpentWindow)
	} else {
		bcRateHeaders(w.Header(), 149, 30*time.Second)
	}
	lo, hi := listWindow(len(all), page, limit)
	if lo == hi {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	out := make([]any, 0, hi-lo)
	for _, o := range all[lo:hi] {
		out = append(out, bcOrderJSON(o))
	}
	body, _ := json.Marshal(out)
	writeJSON(w, http.StatusOK, body)
}
