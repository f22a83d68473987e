package hub_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// orderWith decodes testdata/order.json after edit changed its generic form, so a
// case can drop keys or set nulls the way a decoded payload would carry them.
func orderWith(t *testing.T, edit func(m map[string]any)) *model.Order {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(fixture("order.json"), &m); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(m)
	}
	b, _ := json.Marshal(m)
	var o model.Order
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	return &o
}

func TestValidateOrder(t *testing.T) {
	domains := []string{"shop.example.com", "Other.Example"}
	billing := func(m map[string]any) map[string]any { return m["billingDetails"].(map[string]any) }
	item := func(m map[string]any, i int) map[string]any { return m["lineItems"].([]any)[i].(map[string]any) }
	cases := []struct {
		name    string
		edit    func(m map[string]any)
		domains []string
		fields  []string // invalid fields reported, in order; nil: valid
	}{
		{name: "valid", domains: domains},
		{name: "valid without domain list", edit: func(m map[string]any) { m["domain"] = "anything.example" }},
		{name: "empty strings are values", domains: domains, edit: func(m map[string]any) {
			m["firstName"], m["lastName"], m["status"] = "", "", ""
			billing(m)["companyName"], billing(m)["phone"] = "", ""
		}},
		{name: "domain case-insensitive", domains: domains, edit: func(m map[string]any) { m["domain"] = "other.example" }},
		{name: "missing and null properties", domains: domains, edit: func(m map[string]any) {
			delete(m, "status")
			m["lastName"] = nil
			delete(billing(m), "zip")
			billing(m)["city"] = nil
		}, fields: []string{"lastName", "status", "billingDetails.city", "billingDetails.zip"}},
		{name: "missing address object", edit: func(m map[string]any) { delete(m, "shippingDetails") },
			fields: []string{"shippingDetails"}},
		{name: "empty address object", edit: func(m map[string]any) { m["shippingDetails"] = map[string]any{} },
			fields: []string{"shippingDetails.address1", "shippingDetails.address2", "shippingDetails.city",
				"shippingDetails.companyName", "shippingDetails.country", "shippingDetails.countryCode",
				"shippingDetails.firstName", "shippingDetails.lastName", "shippingDetails.phone",
				"shippingDetails.province", "shippingDetails.zip"}},
		{name: "empty e-mail", edit: func(m map[string]any) { m["email"] = "" }, fields: []string{"email"}},
		{name: "bad e-mail", edit: func(m map[string]any) { m["email"] = "anna@" }, fields: []string{"email"}},
		{name: "e-mail with display name", edit: func(m map[string]any) { m["email"] = "Anna <anna@example.com>" }, fields: []string{"email"}},
		{name: "e-mail with spaces", edit: func(m map[string]any) { m["email"] = " anna@example.com" }, fields: []string{"email"}},
		{name: "domain not configured", domains: domains, edit: func(m map[string]any) { m["domain"] = "evil.example" }, fields: []string{"domain"}},
		{name: "domain with a newline", edit: func(m map[string]any) { m["domain"] = "a\nb" }, fields: []string{"domain"}},
		{name: "empty domain with list", domains: domains, edit: func(m map[string]any) { m["domain"] = "" }, fields: []string{"domain"}},
		{name: "empty order id", edit: func(m map[string]any) { m["orderId"] = " " }, fields: []string{"orderId"}},
		{name: "timestamps", edit: func(m map[string]any) {
			m["created"] = "2024-03-05T09:21:00Z"
			m["updated"] = "2024-03-05T10:21:00.000+01:00"
		}, fields: []string{"created", "updated"}},
		{name: "timestamp micro and bad month", edit: func(m map[string]any) {
			m["created"] = "2024-03-05T09:21:00.000000Z"
			m["updated"] = "2024-13-05T09:21:00.000Z"
		}, fields: []string{"created", "updated"}},
		{name: "line items", edit: func(m map[string]any) {
			item(m, 0)["id"] = 0
			item(m, 0)["token"] = "bad token"
			item(m, 1)["quantity"] = -1
			item(m, 1)["price"] = -0.5
		}, fields: []string{"lineItems[0].id", "lineItems[0].token", "lineItems[1].quantity", "lineItems[1].price"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := hub.ValidateOrder(orderWith(t, tc.edit), tc.domains)
			if tc.fields == nil {
				if err != nil {
					t.Fatalf("valid order rejected: %v", err)
				}
				return
			}
			var ve *hub.ValidationError
			if !errors.As(err, &ve) || ve.Retryable() {
				t.Fatalf("err = %v, want a permanent *ValidationError", err)
			}
			var got []string
			for _, f := range ve.Fields {
				got = append(got, f.Field)
				if f.Reason == "" {
					t.Errorf("%s: no reason", f.Field)
				}
			}
			if !slices.Equal(got, tc.fields) {
				t.Errorf("fields %q, want %q", got, tc.fields)
			}
			if !strings.Contains(err.Error(), `order "1001"`) && tc.name != "empty order id" {
				t.Errorf("message %q does not name the order", err)
			}
		})
	}
	if err := hub.ValidateOrder(nil, nil); err == nil {
		t.Error("nil order accepted")
	}
	// An order built in Go has every property; its values are still checked.
	built := &model.Order{OrderID: "7", Email: "a@b.example", Domain: "shop.example.com", Created: hub.FormatTimestamp(time.Unix(0, 0)),
		Updated: hub.FormatTimestamp(time.Unix(1, 5e6))}
	if err := hub.ValidateOrder(built, domains); err != nil {
		t.Errorf("built order: %v", err)
	}
}

func TestHasCustomizations(t *testing.T) {
	cases := []struct {
		items []model.LineItem
		want  bool
	}{
		{nil, false},
		{[]model.LineItem{}, false},
		{[]model.LineItem{{ID: 0, Token: "t"}}, false},
		{[]model.LineItem{{ID: 5, Token: ""}}, false},
		{[]model.LineItem{{ID: 5, Token: "t"}}, true},
		{[]model.LineItem{{ID: 0}, {ID: 9, Token: "ab-1"}}, true},
	}
	for i, tc := range cases {
		if got := hub.HasCustomizations(&model.Order{LineItems: tc.items}); got != tc.want {
			t.Errorf("case %d: %v, want %v", i, got, tc.want)
		}
	}
	if hub.HasCustomizations(nil) {
		t.Error("nil order has customizations")
	}
}

func TestTimestamps(t *testing.T) {
	loc := time.FixedZone("CET", 3600)
	cases := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), "2024-01-02T03:04:05.000Z"},
		{time.Date(2024, 1, 2, 4, 4, 5, 123456789, loc), "2024-01-02T03:04:05.123Z"},
		{time.Date(1999, 12, 31, 23, 59, 59, 999999999, time.UTC), "1999-12-31T23:59:59.999Z"},
	}
	for _, tc := range cases {
		got := hub.FormatTimestamp(tc.in)
		if got != tc.want {
			t.Errorf("FormatTimestamp(%v) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := hub.ParseTimestamp(got)
		if err != nil || !back.Equal(tc.in.Truncate(time.Millisecond)) {
			t.Errorf("ParseTimestamp(%q) = %v, %v", got, back, err)
		}
	}
	for _, bad := range []string{"", "2024-01-02T03:04:05Z", "2024-01-02T03:04:05.00Z", "2024-01-02 03:04:05.000Z", "2024-01-02T03:04:05.000z"} {
		if _, err := hub.ParseTimestamp(bad); err == nil {
			t.Errorf("ParseTimestamp(%q) accepted", bad)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	good := hub.Config{Store: "s", APIKey: "k", Secret: "very-secret-value", BaseURL: "https://hub.example"}
	if err := good.Validate(); err != nil {
		t.Fatalf("good config: %v", err)
	}
	c, err := hub.NewClient(good)
	if err != nil {
		t.Fatal(err)
	}
	eff := c.Config()
	if eff.Orders.Version != hub.V2022 || eff.Templates.Version != hub.V2022 || eff.Designs.Version != hub.V2023 ||
		eff.Encoding != hub.EncodingHex || eff.DeleteDomain != hub.DomainInQuery || eff.Timeout != hub.DefaultTimeout ||
		eff.MediaURL != hub.DefaultMediaURL || eff.Designs.Word != "Service" || eff.Designs.BaseURL != "https://hub.example" {
		t.Errorf("defaults: %+v", eff)
	}

	bad := hub.Config{
		APIKey:       "key\r\nX-Evil: 1",
		Secret:       "very-secret-value",
		Encoding:     "base32",
		Orders:       hub.Endpoint{BaseURL: "ftp://hub.example", Version: "2024-01"},
		Templates:    hub.Endpoint{BaseURL: "https://hub.example?x=1", Word: "Ac me"},
		Designs:      hub.Endpoint{BaseURL: "https://hub.example"},
		DeleteDomain: "body",
		Domains:      []string{"ok.example", ""},
		Timeout:      -time.Second,
		MaxJSONBytes: -1,
		MediaURL:     "/media/{token}",
	}
	err = bad.Validate()
	if err == nil {
		t.Fatal("bad config accepted")
	}
	msg := err.Error()
	for _, want := range []string{"store id is empty", "API key holds control characters", "base32", "orders base URL", "2024-01", "templates base URL",
		"header word", "delete domain", `domain ""`, "timeout", "max JSON bytes", "lacks {_id}"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not mention %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "very-secret-value") {
		t.Error("validation error leaks the secret")
	}
	if _, err := hub.NewClient(bad); err == nil {
		t.Error("NewClient accepted a bad config")
	}
	noURL := hub.Config{Store: "s", APIKey: "k", Secret: "x"}
	if err := noURL.Validate(); err == nil || !strings.Contains(err.Error(), "designs base URL: empty") {
		t.Errorf("config without base URL: %v", err)
	}
}
