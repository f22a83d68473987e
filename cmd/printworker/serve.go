package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/jobs"
)

// intakeFlags are the intake's settings as flags (serve and demo share them).
type intakeFlags struct {
	shopifySecrets   secretList
	designProperty   string
	shopifyStores    mapFlag
	defaultStore     string
	shopifyDomains   mapFlag
	ordersSecrets    secretList
	ordersStoreSecrs mapFlag
	tolerance        time.Duration
	productionTopic  string
	maxBody          byteSize
	deliveryTTL      time.Duration
	enqueueTimeout   time.Duration
	maxLines         int
	maxQuantity      int
	// sharedMaxQuantity is work's --max-quantity when work registered it first.
	sharedMaxQuantity *flag.Flag
	printTestOrders   bool
}

func addIntakeFlags(fs *flag.FlagSet) *intakeFlags {
	d := intake.DefaultConfig()
	f := &intakeFlags{maxBody: byteSize(d.MaxBody)}
	fs.Var(&f.shopifySecrets, "shopify-secret", "Shopify webhook secret(s) verifying X-Shopify-Hmac-Sha256; several (comma or newline separated) for rotation; none disables /webhooks/shopify")
	fs.String("shopify-secret-file", "", "file holding the Shopify webhook secret(s), one per line")
	fs.StringVar(&f.designProperty, "shopify-design-property", d.Shopify.DesignProperty, "line item property holding the design reference <id>.<token>")
	fs.Var(&f.shopifyStores, "shopify-store", "shop domain=hub store id, repeatable (e.g. my-shop.myshopify.com=store-1)")
	fs.StringVar(&f.defaultStore, "shopify-default-store", "", "hub store id of shops not listed in --shopify-store")
	fs.Var(&f.shopifyDomains, "shopify-domain", "shop domain=order domain sent to the hub, repeatable (default: the shop domain itself)")
	fs.Var(&f.ordersSecrets, "orders-secret", "secret(s) verifying X-Printworker-Signature on /webhooks/orders for every store; none (and no --orders-store-secret) disables it")
	fs.String("orders-secret-file", "", "file holding the orders secret(s), one per line")
	fs.Var(&f.ordersStoreSecrs, "orders-store-secret", "store id=secret for /webhooks/orders, repeatable; replaces --orders-secret for that store")
	fs.DurationVar(&f.tolerance, "orders-tolerance", d.Orders.Tolerance, "how far X-Printworker-Timestamp may be from now")
	fs.StringVar(&f.productionTopic, "production-topic", d.ProductionTopic, "topic that starts the exports: orders/paid, orders/create or orders/updated")
	fs.Var(&f.maxBody, "max-body", "largest webhook body accepted (413 above), e.g. 512KiB")
	fs.DurationVar(&f.deliveryTTL, "delivery-ttl", d.DeliveryTTL, "how long webhook ids are remembered to drop duplicates")
	fs.DurationVar(&f.enqueueTimeout, "enqueue-timeout", d.EnqueueTimeout, "bound of one webhook's enqueue; slower answers 503 so the store retries")
	fs.BoolVar(&f.printTestOrders, "print-test-orders", false, "export stores' test orders (Shopify \"test\": true, X-Shopify-Test) like real ones; off, they are acknowledged and logged only")
	fs.IntVar(&f.maxLines, "max-lines", d.MaxLines, "most personalized lines of one order; a larger order enqueues nothing (Shopify: 200 too_many_lines, /webhooks/orders: 422)")
	// work registers --max-quantity for its push and completion check first; its
	// sweeps' intake then reads that one setting.
	if f.sharedMaxQuantity = fs.Lookup("max-quantity"); f.sharedMaxQuantity == nil {
		fs.IntVar(&f.maxQuantity, "max-quantity", d.MaxQuantity, "largest quantity of one order line; an order with more enqueues nothing (store platforms: 200 quantity_too_large, /webhooks/orders: 422)")
	}
	return f
}

func (f *intakeFlags) config() intake.Config {
	c := intake.DefaultConfig()
	c.Shopify.Secrets = f.shopifySecrets
	c.Shopify.DesignProperty = f.designProperty
	c.Shopify.Stores = f.shopifyStores
	c.Shopify.DefaultStore = f.defaultStore
	c.Shopify.Domains = f.shopifyDomains
	c.Orders.Secrets = f.ordersSecrets
	if len(f.ordersStoreSecrs) > 0 {
		c.Orders.StoreSecrets = map[string][]string{}
		for store, s := range f.ordersStoreSecrs {
			c.Orders.StoreSecrets[store] = strings.Split(s, "|")
		}
	}
	c.Orders.Tolerance = f.tolerance
	c.ProductionTopic = f.productionTopic
	c.MaxBody = int64(f.maxBody)
	c.DeliveryTTL = f.deliveryTTL
	c.EnqueueTimeout = f.enqueueTimeout
	c.MaxLines = f.maxLines
	c.MaxQuantity = f.maxQuantity
	if f.sharedMaxQuantity != nil {
		if g, ok := f.sharedMaxQuantity.Value.(flag.Getter); ok {
			if n, ok := g.Get().(int); ok {
				c.MaxQuantity = n
			}
		}
	}
	c.PrintTestOrders = f.printTestOrders
	return c
}

func serveCommand() command {
	return command{
		name:    "serve",
		summary: "receive store webhooks and enqueue their jobs (the intake)",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "serve", "serve [flags]\n\nServes POST /webhooks/shopify, /webhooks/orders, /webhooks/woocommerce,\n/webhooks/bigcommerce, /webhooks/etsy, /webhooks/wix, /healthz, /readyz and /metrics.\nRun 'printworker work' beside it to process the jobs. See docs/intake.md.")
			addr := fs.String("addr", ":8080", "listen address")
			shutdown := fs.Duration("shutdown-timeout", 10*time.Second, "how long in-flight webhooks may finish on shutdown")
			lf := addLogFlags(fs)
			rf := addRedisFlags(fs)
			inf := addIntakeFlags(fs)
			stf := addStoreFlags(fs)
			woof := addWooCommerceFlags(fs)
			wixf := addWixFlags(fs)
			if err := parseFlags(fs, e, args); err != nil {
				return helpOK(err)
			}
			log, err := lf.logger(e)
			if err != nil {
				return err
			}
			cfg := inf.config()
			stf.apply(&cfg)
			woof.apply(&cfg)
			if err := wixf.apply(&cfg); err != nil {
				return err
			}
			if err := stf.applyFile(&cfg); err != nil {
				return err
			}
			if err := cfg.Validate(); err != nil {
				return usageError(err.Error())
			}
			// Not connect: an intake starts while Redis is down and says so on
			// /readyz (and 503 to webhooks), so an orchestrator can start both in any
			// order.
			rdb, err := rf.options()
			if err != nil {
				return err
			}
			defer rdb.Close()
			warnUnreachable(ctx, rdb, rf.url, log)
			tr := setupTracing(ctx, e, "intake", log)
			defer stopTracing(tr, log)
			ec := rf.enqueuerConfig(log)
			ec.Propagator = tr.Propagator
			enq, err := jobs.NewEnqueuer(rdb, ec)
			if err != nil {
				return err
			}
			defer enq.Close()
			deliveries := intake.NewRedisDeliveries(rdb, "")
			srv, err := intake.New(cfg, intake.JobsEnqueuer(enq), deliveries, deliveries.Ping, intake.WithLogger(log), intake.WithTracing(tr.Provider, tr.Propagator))
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", *addr)
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			log.Info("intake listening", "addr", ln.Addr().String(),
				"shopify", len(cfg.Shopify.Secrets) > 0, "orders", len(cfg.Orders.Secrets)+len(cfg.Orders.StoreSecrets) > 0,
				"woocommerce", len(cfg.WooCommerce.Secrets) > 0, "wix", len(cfg.Wix.PublicKeys) > 0,
				"production_topic", cfg.ProductionTopic)
			return serveHTTP(ctx, ln, srv.Handler(), *shutdown, log)
		},
	}
}

// warnUnreachable logs one warning when Redis does not answer at start: serve runs
// on (so intake and Redis can start in any order), but an operator reading the log
// should not have to find out from /readyz.
func warnUnreachable(ctx context.Context, rdb redis.UniversalClient, url string, log *slog.Logger) {
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		log.Warn("redis unreachable at start: webhooks are answered 503 and /readyz fails until it answers",
			"redis", redactRedisURL(url), "err", err)
	}
}

// maxHeaderBytes caps a request's headers together (net/http adds 4 KiB of slack).
const maxHeaderBytes = 64 << 10

// serveHTTP serves h on ln until ctx ends, then stops taking connections and lets
// requests in flight finish within grace: a webhook half-answered is one the store
// retries, which is safe, but one answered is better.
func serveHTTP(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration, log *slog.Logger) error {
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// Webhook headers are small; net/http's default (1 MB) let an unauthenticated
		// sender make the intake parse megabytes of header. Beyond it: 431.
		MaxHeaderBytes: maxHeaderBytes,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("intake shutting down", "grace", grace)
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// secretList is a list of secrets given comma or newline separated (a secret file
// holds one per line).
type secretList []string

func (s *secretList) String() string {
	if len(*s) == 0 {
		return ""
	}
	return fmt.Sprintf("[%d secrets]", len(*s)) // never print secrets in help or logs
}

func (s *secretList) Set(v string) error {
	for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		if p = strings.TrimSpace(p); p != "" {
			*s = append(*s, p)
		}
	}
	return nil
}

// mapFlag is a repeatable key=value flag (also comma separated).
type mapFlag map[string]string

func (m *mapFlag) String() string {
	if m == nil || len(*m) == 0 {
		return ""
	}
	var parts []string
	for k, v := range *m {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ",")
}

func (m *mapFlag) Set(v string) error {
	if *m == nil {
		*m = mapFlag{}
	}
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		k, val, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(val) == "" {
			return fmt.Errorf("%q: want key=value", p)
		}
		(*m)[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	return nil
}

// byteSize is a size flag: 2097152, 512KiB, 2MiB, 1GiB (also KB/MB/GB as powers of 1000).
type byteSize int64

// String is the size in the largest binary unit that holds it whole (1GiB, 512KiB,
// 1000): help shows defaults as people write them, and Set reads them back.
func (b *byteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *byteSize) Set(v string) error {
	s := strings.TrimSpace(v)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("%q: want a size such as 2MiB", v)
	}
	*b = byteSize(n * mult)
	return nil
}
