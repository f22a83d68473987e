package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/printworker/printworker/intake"
)

// Listed is one order a list page holds: its id, its modification stamp and the
// order as the API answered it (handed to intake as it is).
type Listed struct {
	ID       string
	Modified time.Time
	Raw      json.RawMessage
}

// Page is one page of a list; Next is the cursor of the next page ("" on the
// last).
type Page struct {
	Orders []Listed
	Next   string
}

// A Lister lists one store's orders modified at or after a time, oldest change
// first, a page at a time, through the platform's documented list endpoint.
type Lister interface {
	// Platform is the intake's platform name; Shop the platform's store (shop
	// domain, site, app instance, shop id, store hash).
	Platform() string
	Shop() string
	// List reads the page at cursor ("": the first) of the orders modified at or
	// after since.
	List(ctx context.Context, since time.Time, cursor string) (Page, error)
}

// pageSize is the largest page each API serves.
const (
	shopifyPageSize = 250
	wooPageSize     = 100
	bcPageSize      = 250
	etsyPageSize    = 100
	wixPageSize     = 100
)

func pageError(platform string, err error) error {
	return &permanent{fmt.Errorf("%s: %w: %w", platform, errPage, err)}
}

// permanent is an error a retry in this sweep cannot fix.
type permanent struct{ err error }

func (e *permanent) Error() string   { return e.err.Error() }
func (e *permanent) Unwrap() error   { return e.err }
func (e *permanent) Retryable() bool { return false }

// Shopify lists a shop's orders with the REST Admin API:
// GET /admin/api/{version}/orders.json?status=any&updated_at_min=...&order=updated_at+asc&limit=250,
// the next page from the Link header's rel="next" URL (page_info: the other
// filters must not be repeated), X-Shopify-Access-Token.
type Shopify struct {
	Client *Client
	// ShopDomain is the shop (my-shop.myshopify.com); BaseURL the API's origin
	// (default https://<ShopDomain>).
	ShopDomain, BaseURL string
	Token               string
	// APIVersion is the Admin API version (default 2025-01).
	APIVersion string
}

func (s *Shopify) Platform() string { return intake.PlatformShopify }
func (s *Shopify) Shop() string     { return s.ShopDomain }

func (s *Shopify) List(ctx context.Context, since time.Time, cursor string) (Page, error) {
	base := s.BaseURL
	if base == "" {
		base = "https://" + s.ShopDomain
	}
	ver := s.APIVersion
	if ver == "" {
		ver = "2025-01"
	}
	u := cursor
	if u == "" {
		q := url.Values{"status": {"any"}, "updated_at_min": {since.UTC().Format(time.RFC3339)},
			"order": {"updated_at asc"}, "limit": {strconv.Itoa(shopifyPageSize)}}
		u = strings.TrimRight(base, "/") + "/admin/api/" + url.PathEscape(ver) + "/orders.json?" + q.Encode()
	} else if err := sameOrigin(base, u); err != nil {
		return Page{}, pageError(s.Platform(), err)
	}
	a, err := s.Client.do(ctx, s.Platform(), get(u, http.Header{"X-Shopify-Access-Token": {s.Token}}))
	if err != nil {
		return Page{}, err
	}
	return parseShopifyPage(a.body, a.header.Get("Link"))
}

// sameOrigin refuses a next-page link pointing off the API's origin: the link is
// the API's text, and the token goes with the request.
func sameOrigin(base, link string) error {
	b, err1 := url.Parse(base)
	l, err2 := url.Parse(link)
	if err1 != nil || err2 != nil || b.Scheme != l.Scheme || b.Host != l.Host {
		return fmt.Errorf("next page %q is not on %s", link, base)
	}
	return nil
}

var linkNext = regexp.MustCompile(`<([^>]*)>\s*;\s*rel="?next"?`)

// parseShopifyPage reads {"orders": [...]} and the Link header's next page.
func parseShopifyPage(body []byte, link string) (Page, error) {
	var v struct {
		Orders []json.RawMessage `json:"orders"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return Page{}, pageError(intake.PlatformShopify, err)
	}
	var p Page
	for i, raw := range v.Orders {
		var o struct {
			ID        json.Number `json:"id"`
			UpdatedAt string      `json:"updated_at"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return Page{}, pageError(intake.PlatformShopify, fmt.Errorf("orders[%d]: %w", i, err))
		}
		t, err := time.Parse(time.RFC3339, o.UpdatedAt)
		if err != nil || o.ID == "" {
			return Page{}, pageError(intake.PlatformShopify, fmt.Errorf("orders[%d]: id %q, updated_at %q", i, o.ID, o.UpdatedAt))
		}
		p.Orders = append(p.Orders, Listed{ID: o.ID.String(), Modified: t, Raw: raw})
	}
	if m := linkNext.FindStringSubmatch(link); m != nil {
		p.Next = m[1]
	}
	return p, nil
}

// WooCommerce lists a site's orders with the REST API:
// GET /wp-json/wc/v3/orders?modified_after=...&dates_are_gmt=true&orderby=modified&order=asc&per_page=100&page=N
// with basic auth; X-WP-TotalPages says how many pages there are.
type WooCommerce struct {
	Client *Client
	// URL is the site (--woocommerce-url); its host and path name the site.
	URL                         string
	ConsumerKey, ConsumerSecret string
}

func (w *WooCommerce) Platform() string { return intake.PlatformWooCommerce }
func (w *WooCommerce) Shop() string     { return w.URL }

func (w *WooCommerce) List(ctx context.Context, since time.Time, cursor string) (Page, error) {
	page := 1
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 1 {
			return Page{}, pageError(w.Platform(), fmt.Errorf("page %q", cursor))
		}
		page = n
	}
	q := url.Values{"modified_after": {since.UTC().Format("2006-01-02T15:04:05")}, "dates_are_gmt": {"true"},
		"orderby": {"modified"}, "order": {"asc"}, "per_page": {strconv.Itoa(wooPageSize)}, "page": {strconv.Itoa(page)}}
	u := strings.TrimRight(w.URL, "/") + "/wp-json/wc/v3/orders?" + q.Encode()
	a, err := w.Client.do(ctx, w.Platform(), func(ctx context.Context) (*http.Request, error) {
		req, err := get(u, http.Header{})(ctx)
		if err == nil {
			req.SetBasicAuth(w.ConsumerKey, w.ConsumerSecret)
		}
		return req, err
	})
	if err != nil {
		return Page{}, err
	}
	return parseWooPage(a.body, a.header.Get("X-WP-TotalPages"), page)
}

// parseWooPage reads a JSON array of orders; the next page is page+1 while
// X-WP-TotalPages says there are more.
func parseWooPage(body []byte, totalPages string, page int) (Page, error) {
	var v []json.RawMessage
	if err := json.Unmarshal(body, &v); err != nil {
		return Page{}, pageError(intake.PlatformWooCommerce, err)
	}
	var p Page
	for i, raw := range v {
		var o struct {
			ID              json.Number `json:"id"`
			DateModifiedGMT string      `json:"date_modified_gmt"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return Page{}, pageError(intake.PlatformWooCommerce, fmt.Errorf("[%d]: %w", i, err))
		}
		t, err := time.Parse("2006-01-02T15:04:05", o.DateModifiedGMT)
		if err != nil || o.ID == "" {
			return Page{}, pageError(intake.PlatformWooCommerce, fmt.Errorf("[%d]: id %q, date_modified_gmt %q", i, o.ID, o.DateModifiedGMT))
		}
		p.Orders = append(p.Orders, Listed{ID: o.ID.String(), Modified: t.UTC(), Raw: raw})
	}
	if n, err := strconv.Atoi(strings.TrimSpace(totalPages)); err == nil && page < n && len(v) > 0 {
		p.Next = strconv.Itoa(page + 1)
	}
	return p, nil
}

// BigCommerce lists a store's orders with the v2 API:
// GET /stores/{hash}/v2/orders?min_date_modified=...&sort=date_modified:asc&limit=250&page=N
// (X-Auth-Token); an empty page is a 204, a short page the last.
type BigCommerce struct {
	Client                   *Client
	APIURL, StoreHash, Token string
}

func (b *BigCommerce) Platform() string { return intake.PlatformBigCommerce }
func (b *BigCommerce) Shop() string     { return b.StoreHash }

func (b *BigCommerce) List(ctx context.Context, since time.Time, cursor string) (Page, error) {
	page := 1
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 1 {
			return Page{}, pageError(b.Platform(), fmt.Errorf("page %q", cursor))
		}
		page = n
	}
	q := url.Values{"min_date_modified": {since.UTC().Format(time.RFC3339)}, "sort": {"date_modified:asc"},
		"limit": {strconv.Itoa(bcPageSize)}, "page": {strconv.Itoa(page)}}
	u := strings.TrimRight(b.APIURL, "/") + "/stores/" + url.PathEscape(b.StoreHash) + "/v2/orders?" + q.Encode()
	a, err := b.Client.do(ctx, b.Platform(), get(u, http.Header{"X-Auth-Token": {b.Token}}))
	if err != nil {
		return Page{}, err
	}
	if a.status == http.StatusNoContent {
		return Page{}, nil
	}
	return parseBigCommercePage(a.body, page)
}

// parseBigCommercePage reads a JSON array of order headers (date_modified in
// RFC 1123 with a numeric zone); a full page may have a next one.
func parseBigCommercePage(body []byte, page int) (Page, error) {
	var v []json.RawMessage
	if len(strings.TrimSpace(string(body))) == 0 {
		return Page{}, nil
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return Page{}, pageError(intake.PlatformBigCommerce, err)
	}
	var p Page
	for i, raw := range v {
		var o struct {
			ID           json.Number `json:"id"`
			DateModified string      `json:"date_modified"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return Page{}, pageError(intake.PlatformBigCommerce, fmt.Errorf("[%d]: %w", i, err))
		}
		t, err := time.Parse(time.RFC1123Z, o.DateModified)
		if err != nil {
			t, err = time.Parse(time.RFC1123, o.DateModified)
		}
		if err != nil || o.ID == "" {
			return Page{}, pageError(intake.PlatformBigCommerce, fmt.Errorf("[%d]: id %q, date_modified %q", i, o.ID, o.DateModified))
		}
		p.Orders = append(p.Orders, Listed{ID: o.ID.String(), Modified: t.UTC(), Raw: raw})
	}
	if len(v) >= bcPageSize {
		p.Next = strconv.Itoa(page + 1)
	}
	return p, nil
}

// Etsy lists a shop's receipts with the v3 open API:
// GET /v3/application/shops/{shop_id}/receipts?min_last_modified=...&sort_on=updated&sort_order=asc&limit=100&offset=N
// (x-api-key and an OAuth bearer token); count says how many there are.
type Etsy struct {
	Client                        *Client
	APIURL, ShopID, APIKey, Token string
}

func (e *Etsy) Platform() string { return intake.PlatformEtsy }
func (e *Etsy) Shop() string     { return e.ShopID }

func (e *Etsy) List(ctx context.Context, since time.Time, cursor string) (Page, error) {
	offset := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			return Page{}, pageError(e.Platform(), fmt.Errorf("offset %q", cursor))
		}
		offset = n
	}
	q := url.Values{"min_last_modified": {strconv.FormatInt(since.Unix(), 10)}, "sort_on": {"updated"}, "sort_order": {"asc"},
		"limit": {strconv.Itoa(etsyPageSize)}, "offset": {strconv.Itoa(offset)}}
	u := strings.TrimRight(e.APIURL, "/") + "/v3/application/shops/" + url.PathEscape(e.ShopID) + "/receipts?" + q.Encode()
	a, err := e.Client.do(ctx, e.Platform(), get(u, http.Header{"X-Api-Key": {e.APIKey}, "Authorization": {"Bearer " + e.Token}}))
	if err != nil {
		return Page{}, err
	}
	return parseEtsyPage(a.body, offset)
}

// parseEtsyPage reads {"count": N, "results": [...]}; the next page starts after
// this one while count says there are more.
func parseEtsyPage(body []byte, offset int) (Page, error) {
	var v struct {
		Count   int               `json:"count"`
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return Page{}, pageError(intake.PlatformEtsy, err)
	}
	var p Page
	for i, raw := range v.Results {
		var r struct {
			ReceiptID       json.Number `json:"receipt_id"`
			UpdateTimestamp json.Number `json:"update_timestamp"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return Page{}, pageError(intake.PlatformEtsy, fmt.Errorf("results[%d]: %w", i, err))
		}
		sec, err := strconv.ParseInt(string(r.UpdateTimestamp), 10, 64)
		if err != nil || sec <= 0 || sec > 1<<40 || r.ReceiptID == "" {
			return Page{}, pageError(intake.PlatformEtsy, fmt.Errorf("results[%d]: receipt_id %q, update_timestamp %q", i, r.ReceiptID, r.UpdateTimestamp))
		}
		p.Orders = append(p.Orders, Listed{ID: r.ReceiptID.String(), Modified: time.Unix(sec, 0).UTC(), Raw: raw})
	}
	if next := offset + len(v.Results); len(v.Results) > 0 && next < v.Count {
		p.Next = strconv.Itoa(next)
	}
	return p, nil
}

// Wix lists a site's orders with the eCommerce Orders API:
// POST /ecom/v1/orders/search with {"search": {"filter": {"updatedDate": {"$gte": ...}},
// "sort": [{"fieldName": "updatedDate", "order": "ASC"}], "cursorPaging": {"limit": 100}}};
// the next page sends metadata.cursors.next alone (a cursor carries the filter
// and sort). Authorization is the API key, wix-site-id the site.
type Wix struct {
	Client *Client
	// Instance is the app instance the intake maps to a hub store; SiteID the
	// site the API key reads.
	APIURL, Instance, SiteID, APIKey string
}

func (x *Wix) Platform() string { return intake.PlatformWix }
func (x *Wix) Shop() string     { return x.Instance }

func (x *Wix) List(ctx context.Context, since time.Time, cursor string) (Page, error) {
	search := map[string]any{"cursorPaging": map[string]any{"limit": wixPageSize}}
	if cursor == "" {
		search["filter"] = map[string]any{"updatedDate": map[string]string{"$gte": since.UTC().Format("2006-01-02T15:04:05.000Z")}}
		search["sort"] = []any{map[string]string{"fieldName": "updatedDate", "order": "ASC"}}
	} else {
		search["cursorPaging"] = map[string]any{"limit": wixPageSize, "cursor": cursor}
	}
	body, _ := json.Marshal(map[string]any{"search": search})
	u := strings.TrimRight(x.APIURL, "/") + "/ecom/v1/orders/search"
	a, err := x.Client.do(ctx, x.Platform(), post(u, http.Header{"Authorization": {x.APIKey}, "Wix-Site-Id": {x.SiteID}}, body))
	if err != nil {
		return Page{}, err
	}
	return parseWixPage(a.body)
}

// parseWixPage reads {"orders": [...], "metadata": {"cursors": {"next": ...}, "hasNext": ...}}.
func parseWixPage(body []byte) (Page, error) {
	var v struct {
		Orders   []json.RawMessage `json:"orders"`
		Metadata struct {
			Cursors struct {
				Next string `json:"next"`
			} `json:"cursors"`
			HasNext *bool `json:"hasNext"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return Page{}, pageError(intake.PlatformWix, err)
	}
	var p Page
	for i, raw := range v.Orders {
		var o struct {
			ID          string `json:"id"`
			UpdatedDate string `json:"updatedDate"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return Page{}, pageError(intake.PlatformWix, fmt.Errorf("orders[%d]: %w", i, err))
		}
		t, err := time.Parse(time.RFC3339Nano, o.UpdatedDate)
		if err != nil || o.ID == "" {
			return Page{}, pageError(intake.PlatformWix, fmt.Errorf("orders[%d]: id %q, updatedDate %q", i, o.ID, o.UpdatedDate))
		}
		p.Orders = append(p.Orders, Listed{ID: o.ID, Modified: t.UTC(), Raw: raw})
	}
	if v.Metadata.HasNext == nil || *v.Metadata.HasNext {
		p.Next = v.Metadata.Cursors.Next
	}
	return p, nil
}
