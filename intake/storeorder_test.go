package intake

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// TestStampParsing: each platform's modification stamp, in the form the platform
// writes it, becomes the order's stamp (to the second or millisecond it carries).
func TestStampParsing(t *testing.T) {
	t.Parallel()
	decode := func(t *testing.T, body string, v any) {
		t.Helper()
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		platform string
		mapped   func(t *testing.T) (*model.Order, error)
		want     time.Time
	}{
		{"shopify updated_at (shop offset)", func(t *testing.T) (*model.Order, error) {
			var so shopifyOrder
			decode(t, `{"id":1,"created_at":"2024-03-14T09:00:00-04:00","updated_at":"2024-03-14T09:26:53-04:00","line_items":[]}`, &so)
			return mapShopifyOrder(&so, shopifyMapping{domain: "d"})
		}, time.Date(2024, 3, 14, 13, 26, 53, 0, time.UTC)},
		{"woocommerce date_modified_gmt (no offset)", func(t *testing.T) (*model.Order, error) {
			var wo wooOrder
			decode(t, `{"id":7,"status":"completed","date_created_gmt":"2024-03-14T13:00:00","date_modified_gmt":"2024-03-14T13:00:01","line_items":[]}`, &wo)
			return mapWooOrder(&wo, wooMapping{domain: "d", designMeta: "design"})
		}, time.Date(2024, 3, 14, 13, 0, 1, 0, time.UTC)},
		{"bigcommerce date_modified (RFC 1123)", func(t *testing.T) (*model.Order, error) {
			var bo bcOrder
			decode(t, `{"id":100,"status_id":11,"date_created":"Thu, 14 Mar 2024 12:00:00 +0000","date_modified":"Thu, 14 Mar 2024 14:30:05 +0100"}`, &bo)
			o, _, err := mapBigCommerceOrder(&bo, nil, nil, "d", "design")
			return o, err
		}, time.Date(2024, 3, 14, 13, 30, 5, 0, time.UTC)},
		{"etsy update_timestamp (Unix seconds)", func(t *testing.T) (*model.Order, error) {
			var r etsyReceipt
			decode(t, `{"receipt_id":55,"create_timestamp":1710421200,"update_timestamp":1710421263}`, &r)
			o, _, err := mapEtsyReceipt(&r, "d", "Personalization")
			return o, err
		}, time.Unix(1710421263, 0).UTC()},
		{"wix updatedDate (milliseconds)", func(t *testing.T) (*model.Order, error) {
			var wo wixOrder
			decode(t, `{"id":"w-1","number":"1001","createdDate":"2024-03-14T13:00:00.000Z","updatedDate":"2024-03-14T13:00:00.250Z","lineItems":[]}`, &wo)
			return mapWixOrder(&wo, wixMapping{domain: "d", designField: "Design"})
		}, time.Date(2024, 3, 14, 13, 0, 0, 250e6, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.platform, func(t *testing.T) {
			o, err := tt.mapped(t)
			if err != nil {
				t.Fatal(err)
			}
			if got := stampOf(o); !got.Equal(tt.want) {
				t.Errorf("stamp %s, want %s", got, tt.want)
			}
		})
	}
	if !stampOf(&model.Order{}).IsZero() || !stampOf(&model.Order{Updated: "yesterday"}).IsZero() {
		t.Error("an order without a readable updated has a stamp")
	}
}

// TestStampModes: what each plan does to the order's stamp.
func TestStampModes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p    plan
		want jobs.StampMode
	}{
		{plan{push: OpCreate}, jobs.StampLive},
		{plan{push: OpUpdate, export: true}, jobs.StampLive},
		{plan{push: OpUpdate, stop: true}, jobs.StampGone},
		{plan{push: OpDelete, stop: true}, jobs.StampGone},
		{plan{push: OpCreate, restore: true, export: true}, jobs.StampRestore},
	} {
		if got := stampMode(tt.p); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.p, got, tt.want)
		}
	}
}

// TestConfigHeaderSecretAlone: a deployment whose only store is a BigCommerce store
// with header-authenticated hooks is a valid intake.
func TestConfigHeaderSecretAlone(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	c.BigCommerce = BigCommerce{HeaderSecrets: []string{"h"}, StoreHash: "s", Store: "hub", DesignOption: "design"}
	if err := c.Validate(); err != nil {
		t.Errorf("header secret alone: %v", err)
	}
	c.BigCommerce.Stores = []BigCommerceStore{{StoreHash: "s", Store: "other"}}
	if err := c.Validate(); err == nil {
		t.Error("a store hash listed twice was taken")
	}
	e := DefaultConfig()
	e.Etsy = Etsy{DesignVariation: "Personalization", Shops: []EtsyShop{{ShopID: "1", Store: "a", Secrets: []string{"whsec_AAAA"}}}}
	if err := e.Validate(); err != nil {
		t.Errorf("an etsy shop from the stores file alone: %v", err)
	}
}
