package storesim

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// WixSite is a Wix site's eCommerce Orders API as an app's API key reads it:
// POST /ecom/v1/orders/search with a filter on updatedDate ($gte), sort by it and
// cursor paging (at most 100 a page; the next page sends the cursor alone), with
// Authorization (the API key) and wix-site-id. Orders not approved yet
// (INITIALIZED) are never listed, as Wix documents. Build it with NewWixSite.
type WixSite struct {
	Faults
	SiteID, APIKey string

	mu     sync.Mutex
	orders map[string]WixOrder
}

// NewWixSite returns a site with no orders.
func NewWixSite(siteID, apiKey string) *WixSite {
	return &WixSite{SiteID: siteID, APIKey: apiKey, orders: map[string]WixOrder{}}
}

// Put adds or replaces an order.
func (s *WixSite) Put(o WixOrder) {
	s.mu.Lock()
	s.orders[o.ID] = o
	s.mu.Unlock()
}

// wixCursor is what a cursor holds: the filter's bound and where the next page
// starts.
type wixCursor struct {
	Since  string `json:"s"`
	Offset int    `json:"o"`
}

// Handler serves the search.
func (s *WixSite) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /ecom/v1/orders/search", func(w http.ResponseWriter, r *http.Request) {
		if s.Faults.serve(w, r, nil) {
			return
		}
		if r.Header.Get("Authorization") != s.APIKey || r.Header.Get("wix-site-id") != s.SiteID {
			http.Error(w, `{"message":"UNAUTHENTICATED","details":{}}`, http.StatusUnauthorized)
			return
		}
		var req struct {
			Search struct {
				Filter struct {
					UpdatedDate struct {
						Gte string `json:"$gte"`
					} `json:"updatedDate"`
				} `json:"filter"`
				CursorPaging struct {
					Limit  int    `json:"limit"`
					Cursor string `json:"cursor"`
				} `json:"cursorPaging"`
			} `json:"search"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
			http.Error(w, `{"message":"INVALID_ARGUMENT"}`, http.StatusBadRequest)
			return
		}
		limit := req.Search.CursorPaging.Limit
		if limit <= 0 {
			limit = 100
		}
		limit = min(limit, 100)
		cur := wixCursor{Since: req.Search.Filter.UpdatedDate.Gte}
		if c := req.Search.CursorPaging.Cursor; c != "" {
			b, err := base64.RawURLEncoding.DecodeString(c)
			if err != nil || json.Unmarshal(b, &cur) != nil || cur.Offset < 0 {
				http.Error(w, `{"message":"INVALID_ARGUMENT: cursor"}`, http.StatusBadRequest)
				return
			}
		}
		var since time.Time
		if cur.Since != "" {
			t, err := time.Parse(time.RFC3339Nano, cur.Since)
			if err != nil {
				http.Error(w, `{"message":"INVALID_ARGUMENT: updatedDate"}`, http.StatusBadRequest)
				return
			}
			since = t
		}
		s.mu.Lock()
		var all []WixOrder
		for _, o := range s.orders {
			u, err := time.Parse(time.RFC3339Nano, o.UpdatedDate)
			if err == nil && !u.Before(since) && !strings.EqualFold(o.Status, "INITIALIZED") {
				all = append(all, o)
			}
		}
		s.mu.Unlock()
		slices.SortFunc(all, func(a, b WixOrder) int {
			ta, _ := time.Parse(time.RFC3339Nano, a.UpdatedDate)
			tb, _ := time.Parse(time.RFC3339Nano, b.UpdatedDate)
			if c := ta.Compare(tb); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		lo := min(cur.Offset, len(all))
		hi := min(lo+limit, len(all))
		page := all[lo:hi]
		if page == nil {
			page = []WixOrder{}
		}
		meta := map[string]any{"count": len(page), "hasNext": hi < len(all), "cursors": map[string]any{}}
		if hi < len(all) {
			b, _ := json.Marshal(wixCursor{Since: cur.Since, Offset: hi})
			meta["cursors"] = map[string]any{"next": base64.RawURLEncoding.EncodeToString(b)}
		}
		out, _ := json.Marshal(map[string]any{"orders": page, "metadata": meta})
		writeJSON(w, http.StatusOK, out)
	})
	return mux
}

// wixStamp formats t as Wix's dates.
func wixStamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Touch sets the order's updatedDate (a change on the site) and returns it.
func (s *WixSite) Touch(id string, at time.Time) (WixOrder, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[id]
	if ok {
		o.UpdatedDate = wixStamp(at)
		s.orders[id] = o
	}
	return o, ok
}
