package hubsim

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/printworker/printworker/hub"
)

// orderReq builds a signed order call for version v; id is the path's order id ("" for
// create, whose caller sets the signed parts from the body's orderId).
func orderReq(v hub.Version, method, id string, body map[string]any) req {
	q := req{v: v, method: method, path: hub.OrderPath(v, id), parts: []string{id}}
	if body != nil {
		q.body = body
	}
	return q
}

func TestOrderLifecycle(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			s, ts := start(t, nil)
			id := "order-" + string(v)
			create := orderReq(v, "POST", "", validOrder(id))
			create.parts = []string{id}
			wantStatus(t, do(t, ts, create), http.StatusCreated)
			if e := do(t, ts, create).apiErr(t); e.Field != "orderId" {
				t.Errorf("duplicate create: %+v", e)
			}

			// The same orderId on another domain of the store is another order.
			other := validOrder(id)
			other["domain"] = "second.example.com"
			c2 := create
			c2.body = other
			wantStatus(t, do(t, ts, c2), http.StatusCreated)

			changed := validOrder(id)
			changed["status"] = "shipped"
			wantStatus(t, do(t, ts, orderReq(v, "POST", id, changed)), http.StatusOK)
			got, ok := s.Order(store, id, domain)
			if !ok || got.Order.Status != "shipped" || got.Version != v {
				t.Fatalf("stored order %+v %v", got, ok)
			}
			if n := len(s.Orders(store)); n != 2 {
				t.Fatalf("%d orders stored, want 2", n)
			}
			wantStatus(t, do(t, ts, orderReq(v, "POST", "missing", validOrder("missing"))), http.StatusNotFound)

			// Delete: domain as query parameter, or in the domain header.
			del := orderReq(v, "DELETE", id, nil)
			del.path += "?domain=" + url.QueryEscape(domain)
			wantStatus(t, do(t, ts, del), http.StatusOK)
			wantStatus(t, do(t, ts, del), http.StatusNotFound)
			del2 := orderReq(v, "DELETE", id, nil)
			del2.headers = map[string]string{hub.HeadersFor(v, "").Domain: "second.example.com"}
			wantStatus(t, do(t, ts, del2), http.StatusOK)
			noDomain := orderReq(v, "DELETE", id, nil)
			if e := do(t, ts, noDomain).apiErr(t); e.Field != "domain" {
				t.Errorf("delete without domain: %+v", e)
			}
			if n := len(s.Orders(store)); n != 0 {
				t.Fatalf("%d orders left", n)
			}
		})
	}
}

func TestOrderStoresAreSeparate(t *testing.T) {
	s, ts := start(t, nil)
	q := orderReq(hub.V2022, "POST", "", validOrder("42"))
	q.parts = []string{"42"}
	wantStatus(t, do(t, ts, q), http.StatusCreated)
	o := validOrder("42")
	o["domain"] = "other.example.com"
	q2 := req{v: hub.V2022, method: "POST", path: hub.OrderPath(hub.V2022, ""), store: "other-store",
		key: "other-key", secret: "other-secret", parts: []string{"42"}, body: o}
	wantStatus(t, do(t, ts, q2), http.StatusCreated)
	if len(s.Orders(store)) != 1 || len(s.Orders("other-store")) != 1 {
		t.Fatal("orders are not kept per store")
	}
}

func TestV1OrderDomainHeader(t *testing.T) {
	s, ts := start(t, nil)
	o := validOrder("v1-order")
	delete(o, "domain")
	delete(o, "status") // v1 predates "every property required"
	q := orderReq(hub.V1, "POST", "", o)
	q.parts = []string{"v1-order"}
	q.headers = map[string]string{hub.HeadersFor(hub.V1, "").Domain: domain}
	wantStatus(t, do(t, ts, q), http.StatusCreated)
	got, ok := s.Order(store, "v1-order", domain)
	if !ok || got.Order.Domain != domain || got.Order.Status != "" {
		t.Fatalf("v1 order %+v %v", got.Order, ok)
	}
	q.headers = nil
	q.body = validOrder("v1-no-domain")
	delete(q.body.(map[string]any), "domain")
	q.parts = []string{"v1-no-domain"}
	if e := do(t, ts, q).apiErr(t); e.Field != "domain" {
		t.Fatalf("v1 without domain: %+v", e)
	}
}

func TestOrderValidation(t *testing.T) {
	_, ts := start(t, nil)
	cases := []struct {
		name  string
		path  string
		value any
		field string // "" means the order is valid
	}{
		{"empty company allowed", "billingDetails.companyName", "", ""},
		{"empty status allowed", "status", "", ""},
		{"missing zip", "billingDetails.zip", deleteKey, "billingDetails.zip"},
		{"null zip", "shippingDetails.zip", nil, "shippingDetails.zip"},
		{"numeric zip", "billingDetails.zip", 10115, "billingDetails.zip"},
		{"missing address", "shippingDetails", deleteKey, "shippingDetails"},
		{"address not an object", "billingDetails", "Berlin", "billingDetails"},
		{"missing email", "email", deleteKey, "email"},
		{"empty email", "email", "", "email"},
		{"bad email", "email", "anna.example.com", "email"},
		{"email with display name", "email", "Anna <anna@example.com>", "email"},
		{"missing firstName", "firstName", deleteKey, "firstName"},
		{"null lastName", "lastName", nil, "lastName"},
		{"missing status", "status", deleteKey, "status"},
		{"unknown domain", "domain", "evil.example.com", "domain"},
		{"domain of another store", "domain", "other.example.com", "domain"},
		{"created without milliseconds", "created", "2024-03-05T10:20:30Z", "created"},
		{"created with offset", "created", "2024-03-05T10:20:30.000+00:00", "created"},
		{"updated not a date", "updated", "yesterday", "updated"},
		{"updated impossible date", "updated", "2024-02-30T10:20:30.000Z", "updated"},
		{"no line items", "lineItems", []any{}, "lineItems"},
		{"line items null", "lineItems", nil, "lineItems"},
		{"line item not an object", "lineItems", []any{"1001.abc"}, "lineItems[0]"},
		{"line item id missing", "lineItems[0].id", deleteKey, "lineItems[0].id"},
		{"line item id fraction", "lineItems[0].id", 1.5, "lineItems[0].id"},
		{"line item id string", "lineItems[0].id", "1001", "lineItems[0].id"},
		{"line item token empty", "lineItems[0].token", "", "lineItems[0].token"},
		{"line item quantity string", "lineItems[0].quantity", "2", "lineItems[0].quantity"},
		{"line item quantity zero", "lineItems[0].quantity", 0, "lineItems[0].quantity"},
		{"line item price missing", "lineItems[0].price", deleteKey, "lineItems[0].price"},
		{"line item price negative", "lineItems[0].price", -1, "lineItems[0].price"},
		{"orderId empty", "orderId", "", "orderId"},
		{"orderId missing", "orderId", deleteKey, "orderId"},
		{"orderId a number", "orderId", 17, ""},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := "val-" + string(rune('a'+i))
			o := validOrder(id)
			set(t, o, c.path, c.value)
			signID := id
			if c.path == "orderId" {
				signID, _ = c.value.(string)
			}
			q := orderReq(hub.V2022, "POST", "", o)
			q.parts = []string{signID}
			r := do(t, ts, q)
			if c.name == "orderId a number" {
				// The signature part cannot be read from a non-string orderId.
				wantStatus(t, r, http.StatusBadRequest)
				return
			}
			if c.field == "" {
				wantStatus(t, r, http.StatusCreated)
				return
			}
			wantStatus(t, r, http.StatusBadRequest)
			if e := r.apiErr(t); e.Field != c.field {
				t.Fatalf("field %q, want %q (%s)", e.Field, c.field, e.Error)
			}
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		q := orderReq(hub.V2023, "POST", "", nil)
		q.path, q.body = hub.OrderPath(hub.V2023, ""), []byte("{nope")
		wantStatus(t, do(t, ts, q), http.StatusBadRequest)
	})
	t.Run("update path and body disagree", func(t *testing.T) {
		create := orderReq(hub.V2023, "POST", "", validOrder("p1"))
		create.parts = []string{"p1"}
		wantStatus(t, do(t, ts, create), http.StatusCreated)
		if e := do(t, ts, orderReq(hub.V2023, "POST", "p1", validOrder("p2"))).apiErr(t); e.Field != "orderId" {
			t.Fatalf("%+v", e)
		}
	})
	t.Run("body too large", func(t *testing.T) {
		_, ts := start(t, func(c *Config) { c.MaxBody = 100 })
		q := orderReq(hub.V2023, "POST", "", validOrder("big"))
		q.parts = []string{"big"}
		wantStatus(t, do(t, ts, q), http.StatusRequestEntityTooLarge)
	})
}

func TestCheckLineItems(t *testing.T) {
	_, ts := start(t, func(c *Config) { c.CheckLineItems = true })
	for _, c := range []struct {
		name  string
		path  string
		value any
		field string
	}{
		{"known design", "lineItems[0].quantity", 1, ""},
		{"unknown design", "lineItems[0].id", 4242, "lineItems[0].id"},
		{"wrong token", "lineItems[0].token", "00000000-0000-0000-0000-000000000000", "lineItems[0].token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := validOrder("li-" + c.name)
			set(t, o, c.path, c.value)
			q := orderReq(hub.V2023, "POST", "", o)
			q.parts = []string{"li-" + c.name}
			r := do(t, ts, q)
			if c.field == "" {
				wantStatus(t, r, http.StatusCreated)
				return
			}
			if e := r.apiErr(t); r.status != http.StatusBadRequest || e.Field != c.field {
				t.Fatalf("%d %+v, want 400 naming %s", r.status, e, c.field)
			}
		})
	}
}
