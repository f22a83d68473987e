package main

import (
	"flag"
	"log/slog"
	"net/http"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/jobs"
)

// storeFlags are the settings of the stores whose webhooks carry ids only
// (BigCommerce, Etsy). serve takes the secrets and the store mapping; work takes the
// API credentials its order fetches and the Etsy poller use. Both commands accept
// every flag, so one environment serves the fleet.
type storeFlags struct {
	bc          intake.BigCommerce
	bcSecrets   secretList
	bcHeader    secretList
	etsy        intake.Etsy
	etsySecrets secretList
	// storesFile names the --stores-file (docs/intake.md, "Many stores").
	storesFile string
}

func addStoreFlags(fs *flag.FlagSet) *storeFlags {
	d := intake.DefaultConfig()
	f := &storeFlags{}
	fs.Var(&f.bcSecrets, "bigcommerce-secret", "BigCommerce app client secret(s) (or whsec_ keys) verifying webhook-signature; several for rotation; none disables /webhooks/bigcommerce")
	fs.String("bigcommerce-secret-file", "", "file holding the BigCommerce secret(s), one per line")
	fs.Var(&f.bcHeader, "bigcommerce-header-secret", "value(s) of the custom header BigCommerce hooks were created with (POST /v3/hooks \"headers\"), accepted when a delivery carries no signature; several for rotation")
	fs.String("bigcommerce-header-secret-file", "", "file holding the BigCommerce header secret(s), one per line")
	fs.StringVar(&f.bc.HeaderName, "bigcommerce-header-name", intake.DefaultBigCommerceHeader, "name of that custom header")
	fs.StringVar(&f.storesFile, "stores-file", "", "JSON file of further stores per platform (bigcommerce, etsy, shopify, woocommerce, wix), each with its hub store, domain, secrets and API credentials (docs/intake.md)")
	fs.StringVar(&f.bc.StoreHash, "bigcommerce-store-hash", "", "store hash of the BigCommerce store (producer stores/{hash})")
	fs.StringVar(&f.bc.Store, "bigcommerce-store", "", "hub store id BigCommerce orders go to")
	fs.StringVar(&f.bc.Domain, "bigcommerce-domain", "", "order domain sent to the hub (default: the store hash)")
	fs.StringVar(&f.bc.Token, "bigcommerce-token", "", "BigCommerce API account access token (X-Auth-Token, orders read-only)")
	fs.String("bigcommerce-token-file", "", "file holding --bigcommerce-token")
	fs.StringVar(&f.bc.APIURL, "bigcommerce-api-url", d.BigCommerce.APIURL, "BigCommerce API base")
	fs.StringVar(&f.bc.DesignOption, "bigcommerce-design-option", d.BigCommerce.DesignOption, "product option (display name) holding the design reference <id>.<token>")
	fs.Var(&f.etsySecrets, "etsy-secret", "Etsy webhook signing secret(s), whsec_...; several for rotation; none disables /webhooks/etsy")
	fs.String("etsy-secret-file", "", "file holding the Etsy secret(s), one per line")
	fs.StringVar(&f.etsy.ShopID, "etsy-shop-id", "", "numeric id of the Etsy shop")
	fs.StringVar(&f.etsy.Store, "etsy-store", "", "hub store id Etsy receipts go to")
	fs.StringVar(&f.etsy.Domain, "etsy-domain", "", "order domain sent to the hub (default etsy-<shop id>)")
	fs.StringVar(&f.etsy.APIKey, "etsy-api-key", "", "Etsy app keystring (x-api-key)")
	fs.StringVar(&f.etsy.Token, "etsy-token", "", "Etsy OAuth access token (scope transactions_r)")
	fs.String("etsy-token-file", "", "file holding --etsy-token")
	fs.StringVar(&f.etsy.APIURL, "etsy-api-url", d.Etsy.APIURL, "Etsy API base")
	fs.DurationVar(&f.etsy.PollInterval, "etsy-poll-interval", 0, "poll getShopReceipts this often, once per interval across the fleet (work); 0: webhooks only")
	fs.StringVar(&f.etsy.DesignVariation, "etsy-design-variation", d.Etsy.DesignVariation, "transaction variation holding the design reference <id>.<token>")
	return f
}

// apply sets the stores' settings on an intake configuration.
func (f *storeFlags) apply(c *intake.Config) {
	c.BigCommerce = f.bc
	c.BigCommerce.Secrets = f.bcSecrets
	c.BigCommerce.HeaderSecrets = f.bcHeader
	c.Etsy = f.etsy
	c.Etsy.Secrets = f.etsySecrets
}

// applyFile adds the stores of --stores-file (if set) to c, after every flag of
// the platforms is applied.
func (f *storeFlags) applyFile(c *intake.Config) error {
	if f.storesFile == "" {
		return nil
	}
	sf, err := readPlatformStores(f.storesFile)
	if err != nil {
		return err
	}
	sf.apply(c)
	return nil
}

// fetchWork is the order fetch handler of every platform (registered with the
// worker whatever is configured: a fetch for a store not set up then ends with a
// clear error instead of waiting for a handler). An Etsy shop polled at
// --etsy-poll-interval is the reconciliation sweep's (reconcile.go).
type fetchWork struct {
	handler *intake.Fetcher
}

func (f *storeFlags) work(rdb redis.UniversalClient, enq *jobs.Enqueuer, keyPrefix string, guard *netguard.Guard, woo *intake.WooCommerceAPI, log *slog.Logger) (*fetchWork, error) {
	cfg := intake.DefaultConfig()
	f.apply(&cfg)
	opts := []intake.FetcherOption{intake.WithFetchLogger(log), intake.WithWooCommerceAPI(woo)}
	if f.storesFile != "" {
		sf, err := readPlatformStores(f.storesFile)
		if err != nil {
			return nil, err
		}
		sf.apply(&cfg)
		sites, err := sf.wooSites(func() *http.Client {
			return &http.Client{Transport: guard.Transport(nil), Timeout: 30 * time.Second, CheckRedirect: intake.NoRedirect}
		})
		if err != nil {
			return nil, err
		}
		opts = append(opts, intake.WithWooCommerceSites(sites...))
	}
	h, err := intake.NewFetcher(cfg, intake.JobsEnqueuer(enq), guard, opts...)
	if err != nil {
		return nil, usageError(err.Error())
	}
	return &fetchWork{handler: h}, nil
}

// handlers are the fetch handler under both its task types: jobs.TypeStoreFetch is
// what older versions enqueued WooCommerce fetches as (docs/intake.md, "Order
// fetches").
func (fw *fetchWork) handlers() map[string]asynq.Handler {
	return map[string]asynq.Handler{jobs.TypeOrderFetch: fw.handler, jobs.TypeStoreFetch: fw.handler}
}
