package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/reconcile"
)

// sweepFlags are the reconciliation sweep's settings (docs/intake.md,
// "Reconciliation"): its pace, the order API credentials of Shopify and Wix, and
// the intake's store mapping, which work and reconcile take like serve so that a
// swept order goes where its webhook would have.
type sweepFlags struct {
	cfg            reconcile.Config
	shopifyTokens  mapFlag
	shopifyVersion string
	shopifyAPIURL  string
	wixAPIKey      string
	wixSites       mapFlag
	wixAPIURL      string
	apiTimeout     time.Duration

	intake *intakeFlags
	stores *storeFlags
	woo    *wooFlags
	wix    *wixFlags
	wooAPI *wooAPIFlags
}

// addSweepFlags adds the sweep's flags; stores and wooAPI are the command's own
// when it has them already (work), nil to add them here (reconcile).
func addSweepFlags(fs *flag.FlagSet, stores *storeFlags, wooAPI *wooAPIFlags) *sweepFlags {
	d := reconcile.DefaultConfig()
	f := &sweepFlags{cfg: d, stores: stores, wooAPI: wooAPI}
	fs.DurationVar(&f.cfg.Interval, "reconcile-interval", d.Interval, "sweep every store's order API this often, once per interval across the fleet (work); 0: no sweeps")
	fs.DurationVar(&f.cfg.Margin, "reconcile-margin", d.Margin, "how far before the last sweep's end the next one reads again (store clocks and list indexes lag)")
	fs.DurationVar(&f.cfg.Settle, "reconcile-settle", d.Settle, "orders changed this recently are left to the next sweep: their webhooks are most likely on the way")
	fs.Var(&f.shopifyTokens, "shopify-api-token", "shop domain=Admin API access token (read_orders) the sweep lists the shop's orders with, repeatable; a shop without one is not swept")
	fs.String("shopify-api-token-file", "", "file holding --shopify-api-token (shop=token, comma separated)")
	fs.StringVar(&f.shopifyVersion, "shopify-api-version", "2025-01", "Shopify Admin API version of the order list")
	fs.StringVar(&f.shopifyAPIURL, "shopify-api-url", "", "origin of the Shopify Admin API (default https://<shop domain>; a proxy or a simulator)")
	fs.StringVar(&f.wixAPIKey, "wix-api-key", "", "Wix API key (Read Orders) the sweep lists orders with; none: Wix sites are not swept")
	fs.String("wix-api-key-file", "", "file holding --wix-api-key")
	fs.Var(&f.wixSites, "wix-site", "app instance id=Wix site id the API key reads (wix-site-id), repeatable")
	fs.StringVar(&f.wixAPIURL, "wix-api-url", "https://www.wixapis.com", "Wix API base")
	fs.DurationVar(&f.apiTimeout, "reconcile-api-timeout", 30*time.Second, "bound of one order list request; a slower answer is retried")
	f.intake = addIntakeFlags(fs)
	f.woo = addWooCommerceFlags(fs)
	f.wix = addWixFlags(fs)
	if f.stores == nil {
		f.stores = addStoreFlags(fs)
	}
	if f.wooAPI == nil {
		f.wooAPI = addWooCommerceAPIFlags(fs)
	}
	return f
}

// intakeConfig is the intake's configuration as serve builds it.
func (f *sweepFlags) intakeConfig() (intake.Config, error) {
	cfg := f.intake.config()
	f.stores.apply(&cfg)
	f.woo.apply(&cfg)
	if err := f.wix.apply(&cfg); err != nil {
		return cfg, err
	}
	// The stores file's further stores are swept as the flags' ones are.
	return cfg, f.stores.applyFile(&cfg)
}

// sweeps are the configured sweeps: the fleet's, and Etsy's own when
// --etsy-poll-interval asks for a faster pace (a shop without webhooks).
type sweeps struct {
	all  *reconcile.Sweeper
	etsy *reconcile.Sweeper
}

// build makes the sweepers of every store with order API credentials.
func (f *sweepFlags) build(rdb redis.UniversalClient, enq *jobs.Enqueuer, keyPrefix string, guard *netguard.Guard, reg prometheus.Registerer, log *slog.Logger) (*sweeps, error) {
	cfg, err := f.intakeConfig()
	if err != nil {
		return nil, err
	}
	woo, err := f.wooAPI.api(guard)
	if err != nil {
		return nil, err
	}
	feed, err := intake.NewFetcher(cfg, intake.JobsEnqueuer(enq), guard, intake.WithFetchLogger(log), intake.WithWooCommerceAPI(woo))
	if err != nil {
		return nil, usageError(err.Error())
	}
	client := &reconcile.Client{HTTP: &http.Client{Transport: guard.Transport(nil), Timeout: f.apiTimeout, CheckRedirect: intake.NoRedirect}}
	var listers, etsyListers []reconcile.Lister
	shops := make([]string, 0, len(f.shopifyTokens))
	for shop := range f.shopifyTokens {
		shops = append(shops, shop)
	}
	sort.Strings(shops)
	for _, shop := range shops {
		l := &reconcile.Shopify{Client: client, ShopDomain: shop, BaseURL: f.shopifyAPIURL, Token: f.shopifyTokens[shop], APIVersion: f.shopifyVersion}
		guard.Trust(cmpOr(f.shopifyAPIURL, "https://"+shop))
		listers = append(listers, l)
	}
	if woo != nil {
		guard.Trust(woo.URL)
		listers = append(listers, &reconcile.WooCommerce{Client: client, URL: woo.URL, ConsumerKey: woo.ConsumerKey, ConsumerSecret: woo.ConsumerSecret})
	}
	b := cfg.BigCommerce
	bcStores := append([]intake.BigCommerceStore{{StoreHash: b.StoreHash, Token: b.Token}}, b.Stores...)
	for _, s := range bcStores {
		if s.StoreHash != "" && s.Token != "" {
			guard.Trust(b.APIURL)
			listers = append(listers, &reconcile.BigCommerce{Client: client, APIURL: b.APIURL, StoreHash: s.StoreHash, Token: s.Token})
		}
	}
	e := cfg.Etsy
	etsyShops := append([]intake.EtsyShop{{ShopID: e.ShopID, APIKey: e.APIKey, Token: e.Token}}, e.Shops...)
	for _, s := range etsyShops {
		// A shop of the stores file reads with the platform's API key unless it
		// names its own.
		key := cmpOr(s.APIKey, e.APIKey)
		if s.ShopID == "" || key == "" || s.Token == "" {
			continue
		}
		guard.Trust(e.APIURL)
		l := &reconcile.Etsy{Client: client, APIURL: e.APIURL, ShopID: s.ShopID, APIKey: key, Token: s.Token}
		if e.PollInterval > 0 {
			etsyListers = append(etsyListers, l)
		} else {
			listers = append(listers, l)
		}
	}
	if f.wixAPIKey != "" {
		guard.Trust(f.wixAPIURL)
		instances := make([]string, 0, len(f.wixSites))
		for inst := range f.wixSites {
			instances = append(instances, inst)
		}
		sort.Strings(instances)
		for _, inst := range instances {
			listers = append(listers, &reconcile.Wix{Client: client, APIURL: f.wixAPIURL, Instance: inst, SiteID: f.wixSites[inst], APIKey: f.wixAPIKey})
		}
	}
	rc := f.cfg
	rc.KeyPrefix = keyPrefix
	var m *reconcile.Metrics
	if reg != nil {
		m = reconcile.NewMetrics(reg)
	}
	opts := []reconcile.Option{reconcile.WithLogger(log), reconcile.WithMetrics(m)}
	s := &sweeps{}
	if s.all, err = reconcile.New(rc, rdb, feed, enq.State(), listers, opts...); err != nil {
		return nil, usageError(err.Error())
	}
	if len(etsyListers) > 0 {
		rc.Interval = cfg.Etsy.PollInterval
		if s.etsy, err = reconcile.New(rc, rdb, feed, enq.State(), etsyListers, opts...); err != nil {
			return nil, usageError(err.Error())
		}
	}
	return s, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// start runs the sweeps until ctx ends; the returned func waits for them.
func (s *sweeps) start(ctx context.Context) (wait func()) {
	var wg sync.WaitGroup
	for _, sw := range []*reconcile.Sweeper{s.all, s.etsy} {
		if sw != nil {
			wg.Go(func() { sw.Run(ctx) })
		}
	}
	return wg.Wait
}

// listers are every swept store.
func (s *sweeps) listers() []reconcile.Lister {
	out := slices.Clone(s.all.Listers())
	if s.etsy != nil {
		out = append(out, s.etsy.Listers()...)
	}
	return out
}

// sweeper is the one sweeping l.
func (s *sweeps) sweeper(l reconcile.Lister) *reconcile.Sweeper {
	if s.etsy != nil && slices.Contains(s.etsy.Listers(), l) {
		return s.etsy
	}
	return s.all
}

// reconcileCommand sweeps one platform's stores now: every order changed since
// --since (else since the fleet's watermark) that the pipeline does not have is
// enqueued as its webhook would have been.
func reconcileCommand() command {
	const synopsis = "reconcile --platform shopify|woocommerce|bigcommerce|etsy|wix [--since 24h] [flags]\n\n" +
		"Lists the platform's orders changed since --since (default: since the last sweep, less\n" +
		"--reconcile-margin) through its order API, and enqueues every one the pipeline does not have,\n" +
		"as its webhook would have been. Takes the store flags of serve and work, and the Redis flags."
	return command{
		name:    "reconcile",
		summary: "sweep a platform's order API now for orders no webhook brought",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "reconcile", synopsis)
			lf := addLogFlags(fs)
			rf := addRedisFlags(fs)
			swf := addSweepFlags(fs, nil, nil)
			platform := fs.String("platform", "", "the platform to sweep: shopify, woocommerce, bigcommerce, etsy or wix")
			since := fs.Duration("since", 0, "read the orders changed in this last span (e.g. 24h) instead of since the last sweep")
			if err := parseFlags(fs, e, args); err != nil {
				return helpOK(err)
			}
			switch *platform {
			case intake.PlatformShopify, intake.PlatformWooCommerce, intake.PlatformBigCommerce, intake.PlatformEtsy, intake.PlatformWix:
			default:
				return usageError(fmt.Sprintf("--platform %q: want shopify, woocommerce, bigcommerce, etsy or wix", *platform))
			}
			if *since < 0 {
				return usageError("--since must not be negative")
			}
			log, err := lf.logger(e)
			if err != nil {
				return err
			}
			// The store APIs are the operator's configuration: build trusts them, and
			// nothing else (no redirect is followed).
			guard := netguard.Must()
			rdb, err := rf.connect(ctx)
			if err != nil {
				return err
			}
			defer rdb.Close()
			enq, err := jobs.NewEnqueuer(rdb, rf.enqueuerConfig(log))
			if err != nil {
				return err
			}
			s, err := swf.build(rdb, enq, "", guard, nil, log)
			if err != nil {
				return err
			}
			var from time.Time
			if *since > 0 {
				from = time.Now().Add(-*since)
			}
			n := 0
			var errs []error
			for _, l := range s.listers() {
				if l.Platform() != *platform {
					continue
				}
				n++
				res, err := s.sweeper(l).Sweep(ctx, l, from)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s %s: %w", l.Platform(), l.Shop(), err))
					continue
				}
				if !res.Swept {
					fmt.Fprintf(e.stdout, "%s %s: another sweep is running; nothing done\n", l.Platform(), l.Shop())
					continue
				}
				fmt.Fprintf(e.stdout, "%s %s: since %s: listed %d, recovered %d, handled %d, seen %d, skipped %d, failed %d, later %d, retry %d\n",
					l.Platform(), l.Shop(), res.Since.UTC().Format(time.RFC3339), res.Listed, res.Recovered, res.Handled, res.Seen,
					res.Skipped, res.Failed, res.Later, res.Retry)
			}
			if n == 0 {
				return usageError(fmt.Sprintf("no %s store has order API credentials (docs/intake.md, \"Reconciliation\")", *platform))
			}
			return errors.Join(errs...)
		},
	}
}
