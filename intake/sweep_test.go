package intake_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/storesim"
)

// TestApplyOrder: orders read from a store's API (a reconciliation sweep) take the
// webhook path: an order no webhook brought is enqueued and reported unseen; the same
// version again is seen and enqueues nothing new; an older version is stale; each
// platform maps as its webhooks do.
func TestApplyOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, _ := newBigCommerce(t)
	f := p.fetcher

	// The harness maps no WooCommerce site: an order of one is a permanent error.
	wo := storesim.WooSampleOrder(701, "design", wooCreated)
	body, _ := json.Marshal(wo)
	if _, err := f.ApplyOrder(ctx, intake.PlatformWooCommerce, "woo.example.com", body, nil); err == nil {
		t.Error("a site mapped to no store was applied")
	} else if rc := (interface{ Retryable() bool })(nil); !errors.As(err, &rc) || rc.Retryable() {
		t.Errorf("a site mapped to no store: %v, want a permanent error", err)
	}

	// Shopify (the fixture's shop is mapped by the harness): unseen, then seen,
	// then an older version (stale).
	shop := readFile(t, "order_customized.json")
	got, err := f.ApplyOrder(ctx, intake.PlatformShopify, shopDomain, shop, nil)
	if err != nil || !got.Unseen || got.Store != hubStore || !slices.Equal(got.Jobs, []string{"push:update", "export"}) {
		t.Fatalf("shopify, first sweep: %+v %v", got, err)
	}
	before := len(p.tasks())
	got, err = f.ApplyOrder(ctx, intake.PlatformShopify, shopDomain, shop, nil)
	if err != nil || got.Unseen {
		t.Fatalf("shopify, second sweep: %+v %v", got, err)
	}
	if n := len(p.tasks()); n != before {
		t.Errorf("the second sweep of an unchanged order added %d tasks", n-before)
	}
	var so map[string]any
	json.Unmarshal(shop, &so)
	so["updated_at"] = "2020-01-01T00:00:00Z"
	older, _ := json.Marshal(so)
	if got, err := f.ApplyOrder(ctx, intake.PlatformShopify, shopDomain, older, nil); err != nil || got.Skip == "" || len(got.Jobs) != 0 {
		t.Errorf("shopify, an older version: %+v %v, want stale", got, err)
	}

	// BigCommerce: the list answer has no lines: the fetch is enqueued.
	bc := []byte(`{"id": 100, "status_id": 11, "date_created": "Thu, 14 Mar 2024 13:00:00 +0000", "date_modified": "Thu, 14 Mar 2024 13:05:00 +0000"}`)
	got, err = f.ApplyOrder(ctx, intake.PlatformBigCommerce, bcHash, bc, nil)
	if err != nil || !got.Unseen || !slices.Equal(got.Jobs, []string{"fetch"}) {
		t.Errorf("bigcommerce: %+v %v", got, err)
	}
	if _, err := f.ApplyOrder(ctx, intake.PlatformBigCommerce, "unknown", bc, nil); err == nil {
		t.Error("an unknown BigCommerce store was applied")
	}
	if _, err := f.ApplyOrder(ctx, "magento", "x", bc, nil); err == nil {
		t.Error("an unknown platform was applied")
	}
}

// TestApplyOrderEtsyAndTestOrders: an Etsy receipt from the list maps without a
// read; a Shopify test order is skipped like its webhook.
func TestApplyOrderEtsyAndTestOrders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, _ := newEtsy(t, 0)
	receipt := []byte(`{"receipt_id": 5001, "status": "paid", "is_paid": true, "create_timestamp": 1710417600, "update_timestamp": 1710419400,
		"transactions": [{"quantity": 2, "price": {"amount": 1999, "divisor": 100}, "variations": [{"formatted_name": "Personalization", "formatted_value": "` + ref1002 + `"}]}]}`)
	got, err := p.fetcher.ApplyOrder(ctx, intake.PlatformEtsy, etsyShop, receipt, nil)
	if err != nil || !got.Unseen || !slices.Equal(got.Jobs, []string{"push:update", "export"}) {
		t.Errorf("etsy: %+v %v", got, err)
	}
	test := readFile(t, "order_customized.json")
	var so map[string]any
	json.Unmarshal(test, &so)
	so["test"] = true
	test, _ = json.Marshal(so)
	before := len(p.tasks())
	got, err = p.fetcher.ApplyOrder(ctx, intake.PlatformShopify, shopDomain, test, nil)
	if err != nil || got.Skip != "test order" || len(p.tasks()) != before {
		t.Errorf("a Shopify test order: %+v %v", got, err)
	}
}

// TestApplyOrderWooCommerceAndWix: swept WooCommerce and Wix orders map as their
// webhooks: a paid order is pushed and exported, a cancelled one deleted with its
// exports stopped, an unapproved Wix order skipped.
func TestApplyOrderWooCommerceAndWix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newPlatform(t, http.NotFoundHandler(), func(c *intake.Config, _ string) {
		c.WooCommerce.Stores = map[string]string{"https://Woo.Example.com/": "hub-woo"}
		c.WooCommerce.Domains = map[string]string{"woo.example.com": "woo.example"}
		c.Wix.Stores = map[string]string{"inst-1": "hub-wix"}
		c.Wix.DesignField = "Design"
	})
	paid, _ := json.Marshal(storesim.WooSampleOrder(701, "design", wooCreated))
	got, err := p.fetcher.ApplyOrder(ctx, intake.PlatformWooCommerce, "https://woo.example.com", paid, nil)
	if err != nil || got.Store != "hub-woo" || !got.Unseen || !slices.Equal(got.Jobs, []string{"push:update", "export"}) {
		t.Errorf("woocommerce, paid: %+v %v", got, err)
	}
	cancelled := storesim.WooSampleOrder(701, "design", wooCreated)
	cancelled.Status, cancelled.DateModifiedGMT = "cancelled", storesim.WooGMT(wooCreated.Add(time.Hour))
	body, _ := json.Marshal(cancelled)
	got, err = p.fetcher.ApplyOrder(ctx, intake.PlatformWooCommerce, "woo.example.com", body, nil)
	if err != nil || !slices.Equal(got.Jobs, []string{"cancel", "push:delete"}) {
		t.Errorf("woocommerce, cancelled: %+v %v", got, err)
	}
	// The paid version again, older than the cancel: stale.
	if got, err := p.fetcher.ApplyOrder(ctx, intake.PlatformWooCommerce, "woo.example.com", paid, nil); err != nil || got.Skip == "" || len(got.Jobs) != 0 {
		t.Errorf("woocommerce, the older paid version after the cancel: %+v %v", got, err)
	}

	wo := storesim.WixSampleOrder("w-1", "Design", wooCreated)
	body, _ = json.Marshal(wo)
	got, err = p.fetcher.ApplyOrder(ctx, intake.PlatformWix, "inst-1", body, nil)
	if err != nil || got.Store != "hub-wix" || len(got.Jobs) == 0 || got.Jobs[0] != "push:update" {
		t.Errorf("wix: %+v %v", got, err)
	}
	wo.ID, wo.Status = "w-2", "INITIALIZED"
	body, _ = json.Marshal(wo)
	if got, err := p.fetcher.ApplyOrder(ctx, intake.PlatformWix, "inst-1", body, nil); err != nil || got.Skip == "" {
		t.Errorf("wix, not approved: %+v %v", got, err)
	}
}
