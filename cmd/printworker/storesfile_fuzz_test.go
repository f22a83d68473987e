package main

import (
	"testing"

	"github.com/printworker/printworker/intake"
)

// FuzzStoresFile feeds arbitrary documents to the --stores-file parser: no panic;
// what it accepts names every mapped store, and an intake configuration with it
// applied either validates or says why.
//
//	go test ./cmd/printworker -run XXX -fuzz FuzzStoresFile -fuzztime 30s
func FuzzStoresFile(f *testing.F) {
	f.Add([]byte(`{"bigcommerce": [{"storeHash": "s2", "store": "h2", "token": "t", "headerSecrets": ["x"]}], "etsy": [{"shopId": "22", "store": "e2", "token": "t", "secrets": ["whsec_AAAA"]}]}`))
	f.Add([]byte(`{"shopify": [{"shop": "a.myshopify.com", "store": "h", "secrets": ["s"]}], "woocommerce": [{"site": "https://w.example/", "store": "w"}], "wix": [{"instance": "i", "store": "x"}]}`))
	f.Add([]byte(`{"shopify": [{"store": "h"}]}`))
	f.Add([]byte(`{"etsy": [{"shopId": "x", "secret": "typo"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sf, err := parsePlatformStores(b)
		if err != nil {
			return
		}
		for _, l := range [][]mappedStore{sf.Shopify, sf.WooCommerce, sf.Wix} {
			for _, m := range l {
				if m.name() == "" || m.Store == "" {
					t.Fatalf("accepted %+v", m)
				}
			}
		}
		c := intake.DefaultConfig()
		c.Shopify.Secrets = []string{"s"}
		sf.apply(&c)
		_ = c.Validate()
	})
}
