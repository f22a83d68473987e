package hubsim

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/printworker/printworker/hub"
)

// FuzzValidateOrder: any body either passes or fails with a field error; never a panic.
func FuzzValidateOrder(f *testing.F) {
	good, _ := json.Marshal(validOrder("f1"))
	f.Add(good)
	f.Add([]byte(`{"lineItems":[{"id":1}]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"billingDetails":[],"orderId":7}`))
	s, err := New(testConfig())
	if err != nil {
		f.Fatal(err)
	}
	c := call{v: hub.V2022, store: s.stores[store]}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, v := range versions {
			c.v = v
			o, err := s.validateOrder(body, c, domain)
			var fe *fieldError
			if err != nil && !errors.As(err, &fe) {
				t.Fatalf("%s: error without a field: %v", v, err)
			}
			if err == nil && (o.OrderID == "" || len(o.LineItems) == 0) {
				t.Fatalf("%s: accepted an order without id or line items: %s", v, body)
			}
		}
	})
}

// FuzzDecodeTemplate: any body either decodes into a template that obeys the rules
// or fails with a field error.
func FuzzDecodeTemplate(f *testing.F) {
	for _, n := range []string{"tshirt-classic", "mug-11oz", "card-a6"} {
		b, err := os.ReadFile("testdata/templates/" + n + ".json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"name":"x","productId":"p","shop":"demo-store","views":[{"id":"a","export":{"areaType":"area","area":null,"type":"png","dpi":1}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		tpl, err := decodeTemplate(body, store)
		var fe *fieldError
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("error without a field: %v", err)
		}
		if err == nil {
			if verr := ValidateViews(tpl.Views); verr != nil {
				t.Fatalf("accepted a template breaking the rules: %v", verr)
			}
		}
	})
}
