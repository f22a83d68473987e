package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/printworker/printworker/intake"
)

// storesFile is the document of --stores-file: the stores of every platform one
// deployment serves beyond the ones its flags name, each mapped to its hub store with
// its own secrets and API credentials (docs/intake.md, "Many stores"). serve reads it
// for the webhooks, work for the order fetches; both re-read it at start, so a
// secret is rotated as with the flags: list the new one beside the old, restart,
// switch the store, remove the old one.
type storesFile struct {
	Shopify     []mappedStore             `json:"shopify"`
	WooCommerce []mappedStore             `json:"woocommerce"`
	Wix         []mappedStore             `json:"wix"`
	BigCommerce []intake.BigCommerceStore `json:"bigcommerce"`
	Etsy        []intake.EtsyShop         `json:"etsy"`
}

// mappedStore is a store of a platform whose webhooks carry the whole order
// (Shopify shop domain, WooCommerce site, Wix app instance).
type mappedStore struct {
	// Shop, Site or Instance: the platform's name of the store, as the
	// --shopify-store, --woocommerce-store and --wix-store mappings take it.
	Shop     string `json:"shop,omitempty"`
	Site     string `json:"site,omitempty"`
	Instance string `json:"instance,omitempty"`
	Store    string `json:"store"`
	Domain   string `json:"domain,omitempty"`
	// Secrets are the store's own webhook secrets (Shopify, WooCommerce): its
	// deliveries must match one of them; without, the platform's flags' secrets.
	Secrets []string `json:"secrets,omitempty"`
	// URL, ConsumerKey and ConsumerSecret: a WooCommerce site's REST API, read by
	// the worker's order fetches (a hidden design meta key).
	URL            string `json:"url,omitempty"`
	ConsumerKey    string `json:"consumerKey,omitempty"`
	ConsumerSecret string `json:"consumerSecret,omitempty"`
}

func (m mappedStore) name() string { return m.Shop + m.Site + m.Instance }

// readPlatformStores reads and checks a stores file.
func readPlatformStores(path string) (*storesFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError("--stores-file: " + err.Error())
	}
	f, err := parsePlatformStores(b)
	if err != nil {
		return nil, usageError(fmt.Sprintf("--stores-file %s: %v", path, err))
	}
	return f, nil
}

// parsePlatformStores decodes a stores file; unknown fields are refused (a
// mistyped "secrets" would otherwise leave a store refused or its secret unused).
func parsePlatformStores(b []byte) (*storesFile, error) {
	var f storesFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the document")
	}
	for _, p := range []struct {
		name string
		list []mappedStore
	}{{"shopify", f.Shopify}, {"woocommerce", f.WooCommerce}, {"wix", f.Wix}} {
		for i, m := range p.list {
			if m.name() == "" || m.Store == "" {
				return nil, fmt.Errorf("%s entry %d: the store's name (shop, site or instance) and a hub store needed", p.name, i+1)
			}
		}
	}
	return &f, nil
}

// wooSites are the WooCommerce sites of the file with a REST API, each read over
// client.
func (f *storesFile) wooSites(client func() *http.Client) ([]*intake.WooCommerceAPI, error) {
	var out []*intake.WooCommerceAPI
	for _, m := range f.WooCommerce {
		if m.URL == "" {
			continue
		}
		api := &intake.WooCommerceAPI{URL: m.URL, ConsumerKey: m.ConsumerKey, ConsumerSecret: m.ConsumerSecret, HTTP: client()}
		if err := api.Validate(); err != nil {
			return nil, usageError(fmt.Sprintf("--stores-file: woocommerce site %s: %v", m.Site, err))
		}
		out = append(out, api)
	}
	return out, nil
}

// apply adds the file's stores to an intake configuration (after the flags'
// settings, which it extends).
func (f *storesFile) apply(c *intake.Config) {
	addMapped := func(stores, domains *map[string]string, list []mappedStore, secrets *map[string][]string) {
		for _, m := range list {
			if *stores == nil {
				*stores = map[string]string{}
			}
			(*stores)[m.name()] = m.Store
			if m.Domain != "" {
				if *domains == nil {
					*domains = map[string]string{}
				}
				(*domains)[m.name()] = m.Domain
			}
			if secrets != nil && len(m.Secrets) > 0 {
				if *secrets == nil {
					*secrets = map[string][]string{}
				}
				(*secrets)[m.name()] = m.Secrets
			}
		}
	}
	addMapped(&c.Shopify.Stores, &c.Shopify.Domains, f.Shopify, &c.Shopify.ShopSecrets)
	addMapped(&c.WooCommerce.Stores, &c.WooCommerce.Domains, f.WooCommerce, &c.WooCommerce.SiteSecrets)
	addMapped(&c.Wix.Stores, &c.Wix.Domains, f.Wix, nil)
	c.BigCommerce.Stores = append(c.BigCommerce.Stores, f.BigCommerce...)
	c.Etsy.Shops = append(c.Etsy.Shops, f.Etsy...)
}
