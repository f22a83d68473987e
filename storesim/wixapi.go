package storesim

import (
	"encoding/json"
	"net/http"
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
		cur := stampCursor{Since: req.Search.Filter.UpdatedDate.Gte}
		if c := req.Search.CursorPaging.Cursor; c != "" && !decodeCursor(c, &cur) {
			http.Error(w, `{"message":"INVALID_ARGUMENT: cursor"}`, http.StatusBadRequest)
			return
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
		var listed []WixOrder
		for _, o := range s.orders {
			if !strings.EqualFold(o.Status, "INITIALIZED") {
				listed = append(listed, o)
			}
		}
		s.mu.Unlock()
		page, total := sincePage(listed, func(o WixOrder) time.Time { t, _ := time.Parse(time.RFC3339Nano, o.UpdatedDate); return t },
			func(o WixOrder) string { return o.ID }, since, cur.Offset, limit)
		next := cur.Offset + len(page)
		if next >= total {
			next = 0
		}
		meta := map[string]any{"count": len(page), "hasNext": next > 0, "cursors": map[string]any{}}
		if next > 0 {
			meta["cursors"] = map[string]any{"next": stampCursor{Since: cur.Since, Offset: next}.encode()}
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
