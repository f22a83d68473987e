package intake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// PlatformShopify names Shopify in reconciliation sweeps (package reconcile).
const PlatformShopify = "shopify"

// SweptOrder is what SweepOrder made of one order a sweep listed.
type SweptOrder struct {
	// Store is the hub store the order goes to.
	Store string
	// Order is the hub order as the platform's webhook would have mapped it (for a
	// cancelled order: the id and domain of the delete).
	Order *model.Order
	// Delete: the order is off the hub (cancelled, refunded, archived).
	Delete bool
	// Jobs lists what was enqueued ("push:update", "export", "cancel", ...).
	Jobs []string
	// Skip, when set, says why nothing was enqueued.
	Skip string
}

// SweepOrder takes one order a reconciliation sweep listed from its store's order
// API (listed: the order as the list answered it) through the mapping and the
// enqueue its platform's webhook goes through: Shopify and Wix list the same order
// object their webhooks carry, WooCommerce too (read again through the REST API
// when the design meta key is hidden), Etsy lists whole receipts, and BigCommerce
// lists order headers only, so its order, address and products are read as its
// fetch task reads them. shop is the platform's store (Shopify shop domain,
// WooCommerce site, Wix app instance, Etsy shop id, BigCommerce store hash). The
// order is mapped as an update (the state decides: paid exports, cancelled stops
// and deletes). decide, called with the mapped order before anything is enqueued,
// says whether to enqueue (false: the pipeline has it already). A listed order that
// cannot be mapped is a permanent error (Retryable false).
func (f *Fetcher) SweepOrder(ctx context.Context, platform, shop string, listed json.RawMessage, decide func(SweptOrder) (bool, error)) (SweptOrder, error) {
	got, store, err := f.sweptOrder(ctx, platform, shop, listed)
	if err != nil {
		return SweptOrder{}, err
	}
	s := SweptOrder{Store: store, Order: got.order, Delete: got.plan.push == OpDelete, Skip: got.skip}
	switch {
	case s.Skip != "":
		return s, nil
	case !s.Delete && !hub.HasCustomizations(got.order):
		s.Skip = "no customizations"
		return s, nil
	case !s.Delete && len(got.order.LineItems) > f.cfg.MaxLines:
		s.Skip = fmt.Sprintf("%d personalized lines, more than the limit of %d", len(got.order.LineItems), f.cfg.MaxLines)
		return s, nil
	}
	if decide != nil {
		ok, err := decide(s)
		if err != nil || !ok {
			s.Skip = "handled already"
			return s, err
		}
	}
	s.Jobs, err = runPlan(ctx, f.enq, store, got.order, got.plan)
	return s, err
}

// sweptOrder maps a listed order of platform and names its hub store.
func (f *Fetcher) sweptOrder(ctx context.Context, platform, shop string, listed json.RawMessage) (fetched, string, error) {
	bad := func(err error) error { return &permanentError{fmt.Errorf("%s sweep: %w", platform, err)} }
	pick := func(stores map[string]string, def, key string) (string, error) {
		if s, ok := stores[key]; ok {
			return s, nil
		}
		if def == "" {
			return "", fmt.Errorf("%s %q is not mapped to a hub store", platform, key)
		}
		return def, nil
	}
	switch platform {
	case PlatformShopify:
		cfg := f.cfg.Shopify
		shop = strings.ToLower(strings.TrimSpace(shop))
		store, err := pick(lowerKeys(cfg.Stores), cfg.DefaultStore, shop)
		if err != nil {
			return fetched{}, "", bad(err)
		}
		domain := shop
		if d, ok := lowerKeys(cfg.Domains)[shop]; ok {
			domain = d
		}
		var so shopifyOrder
		if err := decodeJSON(listed, &so); err != nil {
			return fetched{}, "", bad(err)
		}
		m := shopifyMapping{domain: domain, designProperty: cfg.DesignProperty}
		cancelled := so.CancelledAt.str() != ""
		if cancelled {
			m.status = "cancelled"
		}
		o, err := mapShopifyOrder(&so, m)
		if err != nil {
			return fetched{}, "", bad(err)
		}
		// As the webhooks would: orders/cancelled updates and stops; an order paid
		// (or any order, with orders/create or orders/updated as the production
		// topic) exports.
		p := plan{push: OpUpdate, stop: cancelled}
		switch fin := so.FinancialStatus.str(); {
		case cancelled:
		case f.cfg.ProductionTopic == TopicPaid:
			p.export = fin == "paid" || fin == "partially_refunded"
		default:
			p.export = true
		}
		return fetched{order: o, plan: p}, store, nil
	case PlatformWix:
		cfg := f.cfg.Wix
		store, err := pick(cfg.Stores, cfg.DefaultStore, shop)
		if err != nil {
			return fetched{}, "", bad(err)
		}
		domain, ok := cfg.Domains[shop]
		if !ok {
			domain = shop
		}
		var wo wixOrder
		if err := decodeJSON(listed, &wo); err != nil {
			return fetched{}, "", bad(err)
		}
		o, p, skip, err := mapWixEvent(WixEventUpdated, &wo, wixMapping{domain: domain, designField: cfg.DesignField})
		if err != nil {
			return fetched{}, "", bad(err)
		}
		return fetched{order: o, plan: p, skip: skip}, store, nil
	case PlatformWooCommerce:
		cfg := f.cfg.WooCommerce
		site := wooSiteKey(shop)
		store, err := pick(wooSiteKeys(cfg.Stores), cfg.DefaultStore, site)
		if err != nil {
			return fetched{}, "", bad(err)
		}
		domain, ok := wooSiteKeys(cfg.Domains)[site]
		if !ok {
			domain, _, _ = strings.Cut(site, "/")
		}
		var wo wooOrder
		if err := decodeJSON(listed, &wo); err != nil {
			return fetched{}, "", bad(err)
		}
		if cfg.Hidden() && !wooGone(wo.Status.str()) {
			id, err := wooID(wo.ID)
			if err != nil {
				return fetched{}, "", bad(err)
			}
			got, err := f.readers[PlatformWooCommerce].readOrder(ctx, jobs.OrderFetch{Platform: PlatformWooCommerce,
				Store: store, Shop: site, OrderID: id, Event: jobs.FetchOrder,
				WooCommerce: &jobs.WooFetch{Domain: domain, Topic: WooTopicUpdated, DesignKey: cfg.DesignMeta}})
			return got, store, err
		}
		o, p, skip, err := mapWooEvent(WooTopicUpdated, &wo, wooMapping{domain: domain, designMeta: cfg.DesignMeta})
		if err != nil {
			return fetched{}, "", bad(err)
		}
		return fetched{order: o, plan: p, skip: skip}, store, nil
	case PlatformEtsy:
		cfg := f.cfg.Etsy
		if shop != cfg.ShopID {
			return fetched{}, "", bad(fmt.Errorf("shop %q is not the configured shop %q", shop, cfg.ShopID))
		}
		var r etsyReceipt
		if err := decodeJSON(listed, &r); err != nil {
			return fetched{}, "", bad(err)
		}
		o, st, err := mapEtsyReceipt(&r, cfg.domain(), cfg.DesignVariation)
		if err != nil {
			return fetched{}, "", bad(err)
		}
		return statePlan(o, st), cfg.Store, nil
	case PlatformBigCommerce:
		cfg := f.cfg.BigCommerce
		var head struct {
			ID json.Number `json:"id"`
		}
		if err := decodeJSON(listed, &head); err != nil {
			return fetched{}, "", bad(err)
		}
		got, err := f.readers[PlatformBigCommerce].readOrder(ctx, jobs.OrderFetch{Platform: PlatformBigCommerce,
			Store: cfg.Store, Shop: shop, OrderID: head.ID.String(), Event: jobs.FetchOrder})
		return got, cfg.Store, err
	}
	return fetched{}, "", bad(errors.New("platform not known"))
}
