package main

import (
	"flag"
	"net/http"
	"time"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/netguard"
)

// wooFlags are the WooCommerce webhook settings of serve (docs/intake.md,
// "WooCommerce headers").
type wooFlags struct {
	secrets      secretList
	designMeta   string
	stores       mapFlag
	defaultStore string
	domains      mapFlag
}

func addWooCommerceFlags(fs *flag.FlagSet) *wooFlags {
	f := &wooFlags{}
	fs.Var(&f.secrets, "woocommerce-secret", "WooCommerce webhook secret(s) verifying X-WC-Webhook-Signature; several (comma or newline separated) for rotation; none disables /webhooks/woocommerce")
	fs.String("woocommerce-secret-file", "", "file holding the WooCommerce webhook secret(s), one per line")
	fs.StringVar(&f.designMeta, "woocommerce-design-meta", intake.DefaultWooDesignMeta, "line item meta key holding the design reference <id>.<token>; a key starting with _ is hidden from webhooks and makes the worker fetch each order through the REST API (--woocommerce-url)")
	fs.Var(&f.stores, "woocommerce-store", "site=hub store id, repeatable; the site as in X-WC-Webhook-Source (e.g. shop.example.com=store-1)")
	fs.StringVar(&f.defaultStore, "woocommerce-default-store", "", "hub store id of sites not listed in --woocommerce-store")
	fs.Var(&f.domains, "woocommerce-domain", "site=order domain sent to the hub, repeatable (default: the site's host)")
	return f
}

func (f *wooFlags) apply(c *intake.Config) {
	c.WooCommerce.Secrets = f.secrets
	c.WooCommerce.DesignMeta = f.designMeta
	c.WooCommerce.Stores = f.stores
	c.WooCommerce.DefaultStore = f.defaultStore
	c.WooCommerce.Domains = f.domains
}

// wooAPIFlags are the WooCommerce REST settings of work: the order fetch tasks run
// there.
type wooAPIFlags struct {
	url, key, secret string
	timeout          time.Duration
}

func addWooCommerceAPIFlags(fs *flag.FlagSet) *wooAPIFlags {
	f := &wooAPIFlags{}
	fs.StringVar(&f.url, "woocommerce-url", "", "WooCommerce site whose orders the worker fetches (https; http only to a loopback address, which --fetch-allow must name); empty: no fetches")
	fs.StringVar(&f.key, "woocommerce-consumer-key", "", "WooCommerce REST consumer key (read access)")
	fs.StringVar(&f.secret, "woocommerce-consumer-secret", "", "WooCommerce REST consumer secret")
	fs.String("woocommerce-consumer-secret-file", "", "file holding the WooCommerce REST consumer secret")
	fs.DurationVar(&f.timeout, "woocommerce-timeout", 30*time.Second, "bound of one WooCommerce REST request; a slower answer is retried")
	return f
}

// api returns the WooCommerce site the worker's order fetches read, nil when
// --woocommerce-url is empty: WooCommerce fetch tasks are still handled then, and
// fail permanently with a reason that names the missing flags rather than waiting
// in the queue unseen.
func (f *wooAPIFlags) api(guard *netguard.Guard) (*intake.WooCommerceAPI, error) {
	if f.url == "" {
		return nil, nil
	}
	api := &intake.WooCommerceAPI{URL: f.url, ConsumerKey: f.key, ConsumerSecret: f.secret,
		HTTP: &http.Client{Transport: guard.Transport(nil), Timeout: f.timeout, CheckRedirect: intake.NoRedirect}}
	if err := api.Validate(); err != nil {
		return nil, usageError("--woocommerce-url: " + err.Error())
	}
	return api, nil
}
