package intake

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// Orders read from a store's order API (a reconciliation sweep) go through the same
// mapping, store order and enqueue as a webhook: Fetcher.ApplyOrder.

// PlatformShopify names Shopify in ApplyOrder.
const PlatformShopify = "shopify"

// Applied is what ApplyOrder did with one order.
type Applied struct {
	// Store is the hub store the order maps to, Order its id.
	Store, Order string
	// Jobs lists what was enqueued ("push:update", "export", "cancel", "fetch"...).
	Jobs []string
	// Skip says why nothing was enqueued ("stale: ...", "no customizations",
	// "checkout draft", "test order", "order not approved").
	Skip string
	// Unseen: no delivery of this version (or a newer one) was applied before: the
	// sweep found what no webhook brought.
	Unseen bool
}

// Handled tells ApplyOrder whether the pipeline has this version of an order
// already (a reconciliation sweep reads the push state): del says the order maps to
// a delete. An order handled is enqueued no more, whatever became of its tasks.
type Handled func(ctx context.Context, store string, o *model.Order, del bool) (bool, error)

// SkipHandled is Applied.Skip of an order that handled said the pipeline has.
const SkipHandled = "handled already"

// ApplyOrder runs one order read from a store's API through the webhook path: the
// platform's mapping (platform PlatformShopify, PlatformWooCommerce, PlatformWix,
// PlatformEtsy or PlatformBigCommerce; shop the store as its webhooks name it: shop
// domain, site, instance id, Etsy shop id, BigCommerce store hash; body the order
// as the platform's REST API returns it: a Shopify order, a WooCommerce order, a
// Wix eCommerce order, an Etsy receipt with its transactions, a BigCommerce v2
// order), store order (an order already applied at this or a newer stamp enqueues
// its work again only as duplicates the task ids absorb; an older one nothing), and
// the enqueue. A BigCommerce order's lines are not in the list answer: its fetch is
// enqueued, which reads and applies it. Errors are permanent (an order that cannot
// be mapped, a store not configured) unless Retryable says otherwise. handled, when
// not nil, is asked before anything is enqueued.
func (f *Fetcher) ApplyOrder(ctx context.Context, platform, shop string, body []byte, handled Handled) (Applied, error) {
	store, o, p, skip, err := f.mapSwept(platform, shop, body)
	if err != nil {
		return Applied{}, err
	}
	res := Applied{Store: store}
	if o != nil {
		res.Order = o.OrderID
	}
	if p.fetch != nil {
		seen, err := f.seen(ctx, store, o)
		if err != nil {
			return res, err
		}
		res.Unseen = !seen
		if seen && handled != nil {
			// A version applied before was fetched then: its fetch ran or is queued.
			res.Skip = SkipHandled
			return res, nil
		}
		jobsDone, err := runPlan(ctx, f.enq, store, o, p)
		res.Jobs = jobsDone
		return res, err
	}
	if skip != "" {
		res.Skip = skip
		return res, nil
	}
	if p.push != OpDelete && !hub.HasCustomizations(o) {
		res.Skip = "no customizations"
		return res, nil
	}
	if n := len(o.LineItems); p.push != OpDelete && n > f.cfg.MaxLines {
		return res, &permanentError{fmt.Errorf("order %s: %d personalized lines, more than the limit of %d", o.OrderID, n, f.cfg.MaxLines)}
	}
	if handled != nil {
		h, err := handled(ctx, store, o, p.push == OpDelete)
		if err != nil {
			return res, err
		}
		if h {
			res.Skip = SkipHandled
			return res, nil
		}
	}
	stale, v, err := applyOrderStamp(ctx, f.enq, store, o, time.Time{}, p, f.now(), f.cfg.DeliveryTTL)
	if err != nil {
		return res, err
	}
	if stale {
		res.Skip = "stale: " + staleReason(v)
		return res, nil
	}
	res.Unseen = v.Previous.IsZero() || v.Previous.Before(stampOf(o))
	res.Jobs, err = runPlan(ctx, f.enq, store, o, p)
	return res, err
}

// seen reports whether a version of o at least as new as o's was applied.
func (f *Fetcher) seen(ctx context.Context, store string, o *model.Order) (bool, error) {
	st, ok := f.enq.(orderStamper)
	if !ok {
		return false, nil
	}
	at, _, err := st.Stamp(ctx, store, o)
	if err != nil {
		return false, err
	}
	return !at.IsZero() && !at.Before(stampOf(o)), nil
}

// mapSwept maps one swept order as its platform's webhook path would.
func (f *Fetcher) mapSwept(platform, shop string, body []byte) (store string, o *model.Order, p plan, skip string, err error) {
	perm := func(err error) error { return &permanentError{fmt.Errorf("%s %s: %w", platform, shop, err)} }
	switch platform {
	case PlatformShopify:
		c := f.cfg.Shopify
		key := strings.ToLower(strings.TrimSpace(shop))
		store, domain := lookupStore(lowerKeys(c.Stores), c.DefaultStore, key), key
		if d, ok := lowerKeys(c.Domains)[key]; ok {
			domain = d
		}
		if store == "" {
			return "", nil, p, "", perm(errors.New("shop is not mapped to a hub store"))
		}
		var so shopifyOrder
		if err := decodeJSON(body, &so); err != nil {
			return "", nil, p, "", perm(err)
		}
		m := shopifyMapping{domain: domain, designProperty: c.DesignProperty}
		if o, err = mapShopifyOrder(&so, m); err != nil {
			return "", nil, p, "", perm(err)
		}
		o.Status = shopifyStatus(&so)
		switch {
		case so.CancelledAt.str() != "":
			p = plan{push: OpUpdate, stop: true}
		default:
			// As the webhooks print: when paid, or at once with a production
			// topic of orders/create or orders/updated.
			p = plan{push: OpUpdate, export: shopifyPaid(&so) || f.cfg.ProductionTopic != TopicPaid}
		}
		if isTrue(so.Test) && !f.cfg.PrintTestOrders {
			skip = "test order"
		}
		return store, o, p, skip, nil
	case PlatformWooCommerce:
		c := f.cfg.WooCommerce
		site := wooSiteKey(shop)
		store = lookupStore(wooSiteKeys(c.Stores), c.DefaultStore, site)
		if store == "" {
			return "", nil, p, "", perm(errors.New("site is not mapped to a hub store"))
		}
		domain, ok := wooSiteKeys(c.Domains)[site]
		if !ok {
			domain, _, _ = strings.Cut(site, "/")
		}
		var wo wooOrder
		if err := decodeJSON(body, &wo); err != nil {
			return "", nil, p, "", perm(err)
		}
		if o, p, skip, err = mapWooEvent(WooTopicUpdated, &wo, wooMapping{domain: domain, designMeta: c.DesignMeta}); err != nil {
			return "", nil, p, "", perm(err)
		}
		return store, o, p, skip, nil
	case PlatformWix:
		c := f.cfg.Wix
		store = lookupStore(c.Stores, c.DefaultStore, shop)
		if store == "" {
			return "", nil, p, "", perm(errors.New("instance is not mapped to a hub store"))
		}
		domain, ok := c.Domains[shop]
		if !ok {
			domain = shop
		}
		var wo wixOrder
		if err := decodeJSON(body, &wo); err != nil {
			return "", nil, p, "", perm(err)
		}
		if o, p, skip, err = mapWixEvent("", &wo, wixMapping{domain: domain, designField: c.DesignField}); err != nil {
			return "", nil, p, "", perm(err)
		}
		return store, o, p, skip, nil
	case PlatformEtsy:
		s, ok := f.cfg.Etsy.shop(shop)
		if !ok {
			return "", nil, p, "", perm(errors.New("not a configured shop"))
		}
		var r etsyReceipt
		if err := decodeJSON(body, &r); err != nil {
			return "", nil, p, "", perm(err)
		}
		om, st, err := mapEtsyReceipt(&r, s.domain(), f.cfg.Etsy.DesignVariation)
		if err != nil {
			return "", nil, p, "", perm(err)
		}
		got := statePlan(om, st)
		return s.Store, got.order, got.plan, "", nil
	case PlatformBigCommerce:
		s, ok := f.cfg.BigCommerce.store(shop)
		if !ok {
			return "", nil, p, "", perm(errors.New("not a configured store"))
		}
		var bo bcOrder
		if err := decodeJSON(body, &bo); err != nil {
			return "", nil, p, "", perm(err)
		}
		id, err := wooID(bo.ID)
		if err != nil {
			return "", nil, p, "", perm(err)
		}
		updated, err := bcTime("date_modified", bo.DateModified)
		if err != nil {
			return "", nil, p, "", perm(err)
		}
		o = &model.Order{OrderID: id, Domain: s.domain(), Updated: updated, LineItems: []model.LineItem{}}
		// The fetch task's id is the order at this modification: a version swept
		// twice is one fetch.
		p = plan{fetch: &jobs.OrderFetch{Platform: PlatformBigCommerce, Store: s.Store, Shop: s.StoreHash, OrderID: id,
			Event: jobs.FetchOrder, Delivery: "sweep:" + updated}}
		return s.Store, o, p, "", nil
	}
	return "", nil, p, "", perm(fmt.Errorf("unknown platform %q", platform))
}

func lookupStore(m map[string]string, def, key string) string {
	if s, ok := m[key]; ok {
		return s
	}
	return def
}

// shopifyPaid: the order's money is in (what orders/paid reports).
func shopifyPaid(so *shopifyOrder) bool {
	switch so.FinancialStatus.str() {
	case "paid", "partially_refunded":
		return true
	}
	return false
}
