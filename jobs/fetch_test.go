package jobs

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hibiken/asynq"
)

func TestDecodeOrderFetch(t *testing.T) {
	t.Parallel()
	bc := OrderFetch{V: FetchPayloadVersion, Platform: "bigcommerce", Store: "s", Shop: "abc123", OrderID: "101",
		Event: FetchOrder, Delivery: "hash-1"}
	woo := OrderFetch{V: FetchPayloadVersion, Platform: "woocommerce", Store: "s", Shop: "shop.example.com",
		OrderID: "801", Event: FetchOrder, Delivery: "d-1",
		WooCommerce: &WooFetch{Domain: "shop.example.com", Topic: "order.created", DesignKey: "_design_ref"}}
	cases := []struct {
		name, typ, payload string
		want               OrderFetch
		wantErr            string
	}{
		{"order fetch v1", TypeOrderFetch,
			`{"v":1,"platform":"bigcommerce","store":"s","shop":"abc123","orderId":"101","event":"order","delivery":"hash-1"}`, bc, ""},
		{"order fetch v2", TypeOrderFetch,
			`{"v":2,"platform":"woocommerce","store":"s","shop":"shop.example.com","orderId":"801","event":"order","delivery":"d-1",` +
				`"woocommerce":{"domain":"shop.example.com","topic":"order.created","designKey":"_design_ref"}}`, woo, ""},
		// The payload jobs.StoreFetch wrote before version 2.
		{"store fetch v1", TypeStoreFetch,
			`{"v":1,"store":"s","domain":"shop.example.com","orderId":"801","platform":"woocommerce","topic":"order.created",` +
				`"designKey":"_design_ref","delivery":"d-1","site":"shop.example.com"}`, woo, ""},
		{"store fetch v2", TypeStoreFetch, `{"v":2,"store":"s"}`, OrderFetch{}, "store:fetch version 2"},
		{"order fetch v3", TypeOrderFetch, `{"v":3,"store":"s"}`, OrderFetch{}, "order:fetch version 3"},
		{"no version", TypeOrderFetch, `{"store":"s"}`, OrderFetch{}, "no version"},
		{"not json", TypeStoreFetch, `{"v":1,`, OrderFetch{}, "bad task payload"},
		{"other type", TypeOrderPush, `{"v":1}`, OrderFetch{}, "not an order fetch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeOrderFetch(c.typ, []byte(c.payload))
			if c.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, c.want) {
					t.Errorf("decoded\n %+v\nwant\n %+v", got, c.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want %q", err, c.wantErr)
			}
			if !errors.Is(err, asynq.SkipRetry) || !errors.Is(err, ErrPayload) {
				t.Errorf("error %v does not wrap SkipRetry and ErrPayload", err)
			}
		})
	}
}

func TestOrderFetchTask(t *testing.T) {
	t.Parallel()
	woo := OrderFetch{Platform: "woocommerce", Store: "s", Shop: "shop.example.com", OrderID: "801", Event: FetchOrder,
		Delivery: "d-1", WooCommerce: &WooFetch{Domain: "shop.example.com", Topic: "order.created", DesignKey: "design"}}
	task, err := NewOrderFetchTask(woo, FetchOptions())
	if err != nil {
		t.Fatal(err)
	}
	if task.Type() != TypeOrderFetch {
		t.Errorf("type %q, want %q", task.Type(), TypeOrderFetch)
	}
	got, err := DecodeOrderFetch(task.Type(), task.Payload())
	woo.V = FetchPayloadVersion
	if err != nil || !reflect.DeepEqual(got, woo) {
		t.Errorf("round trip: %+v %v", got, err)
	}

	// Another topic of the same delivery, or the same order of another store, is
	// another fetch; the same notification is one.
	topic := woo
	topic.WooCommerce = &WooFetch{Domain: "shop.example.com", Topic: "order.updated", DesignKey: "design"}
	store := woo
	store.Store = "s2"
	bc := OrderFetch{Platform: "bigcommerce", Store: "s", Shop: "shop.example.com", OrderID: "801", Event: FetchOrder, Delivery: "d-1"}
	ids := map[string]string{"woo": FetchTaskID(woo), "topic": FetchTaskID(topic), "store": FetchTaskID(store), "bigcommerce": FetchTaskID(bc)}
	seen := map[string]string{}
	for name, id := range ids {
		if other, dup := seen[id]; dup {
			t.Errorf("%s and %s share the id %q", name, other, id)
		}
		seen[id] = name
	}
	if FetchTaskID(woo) != FetchTaskID(got) {
		t.Error("the same notification has two ids")
	}

	for name, bad := range map[string]OrderFetch{
		"no platform":   {Store: "s", OrderID: "1", Event: FetchOrder},
		"no order":      {Platform: "etsy", Store: "s", Event: FetchOrder},
		"unknown event": {Platform: "etsy", Store: "s", OrderID: "1", Event: "paid"},
		"woo, no topic": {Platform: "woocommerce", Store: "s", OrderID: "1", Event: FetchOrder, WooCommerce: &WooFetch{}},
	} {
		if _, err := NewOrderFetchTask(bad, FetchOptions()); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
