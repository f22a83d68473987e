package intake

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Topics the intake understands. The generic endpoint uses the same names as Shopify so
// that one vocabulary (and one production-trigger setting) serves every store.
const (
	TopicCreate    = "orders/create"
	TopicUpdated   = "orders/updated"
	TopicPaid      = "orders/paid"
	TopicCancelled = "orders/cancelled"
	TopicDelete    = "orders/delete"
)

// Config holds the intake's settings.
type Config struct {
	// MaxBody caps a webhook body; larger bodies are answered 413 (default 2 MiB).
	MaxBody int64
	// ProductionTopic is the topic that starts the exports of an order (default
	// orders/paid): create/updated only keep the hub's order data current, so unpaid
	// orders are not printed.
	ProductionTopic string
	// DeliveryTTL is how long delivery ids (and business identities) are remembered
	// to recognise duplicates (default 72h, longer than Shopify's 48h retry window).
	DeliveryTTL time.Duration
	// EnqueueTimeout bounds the enqueue of one webhook (default 5s); a slower Redis
	// answers 503 so the store retries, rather than holding the store's connection.
	EnqueueTimeout time.Duration
	// MaxLines caps the personalized lines of one order (default 500): each is an
	// export, and a signed body of tiny lines could otherwise queue tens of thousands.
	// An order over it enqueues nothing: Shopify is answered 200 "too_many_lines"
	// (its retries could never succeed and would end with the webhook removed), the
	// generic endpoint 422 with the same status.
	MaxLines int
	// MaxQuantity caps the quantity of one line (default DefaultMaxQuantity, 10,000);
	// an order with a line over it enqueues nothing, answered as for MaxLines with
	// the status "quantity_too_large".
	MaxQuantity int
	// PrintTestOrders exports stores' test orders (Shopify "test": true or
	// X-Shopify-Test: true) like real ones; off, they are acknowledged (200
	// "test_order"), logged and counted, and nothing is enqueued.
	PrintTestOrders bool

	Shopify     Shopify
	Orders      Generic
	WooCommerce WooCommerce
	Wix         Wix
	// BigCommerce and Etsy send ids only; their orders are read by a fetch job.
	BigCommerce BigCommerce
	Etsy        Etsy
}

// Default API bases and line data names of the id-only platforms.
const (
	DefaultBigCommerceAPIURL = "https://api.bigcommerce.com"
	DefaultEtsyAPIURL        = "https://openapi.etsy.com"
)

// withAPIDefaults fills the API bases when unset (a Config built by hand).
func (c Config) withAPIDefaults() Config {
	if c.BigCommerce.APIURL == "" {
		c.BigCommerce.APIURL = DefaultBigCommerceAPIURL
	}
	if c.Etsy.APIURL == "" {
		c.Etsy.APIURL = DefaultEtsyAPIURL
	}
	if c.MaxLines <= 0 {
		c.MaxLines = DefaultMaxLines
	}
	return c
}

// Shopify configures POST /webhooks/shopify.
type Shopify struct {
	// Secrets verify X-Shopify-Hmac-Sha256; any one matching is enough, so a secret
	// can be rotated by listing the new one next to the old one. Empty disables the
	// endpoint (404).
	Secrets []string
	// DesignProperty is the line item property holding "<designId>.<designToken>"
	// (default "_design"; a leading underscore hides it from customers in Shopify).
	DesignProperty string
	// Stores maps a shop domain (X-Shopify-Shop-Domain) to the hub store id its
	// orders go to; DefaultStore serves every shop not listed. A signed webhook from
	// a shop neither covers is refused with 422.
	Stores       map[string]string
	DefaultStore string
	// Domains maps a shop domain to the order domain sent to the hub (one of the
	// domains configured for the hub account). Unlisted shops send their shop domain.
	Domains map[string]string
	// ShopSecrets are shops' own secrets (the stores file): a delivery of a shop
	// listed here must match one of them, of any other shop one of Secrets.
	ShopSecrets map[string][]string
}

// allSecrets are Secrets and every shop's own.
func (c Shopify) allSecrets() []string { return withOwn(c.Secrets, c.ShopSecrets) }

// secretsOf are the secrets a delivery of shop must match.
func (c Shopify) secretsOf(shop string) []string { return ownOr(c.Secrets, c.ShopSecrets, shop) }

// withOwn joins the platform's secrets and every store's own.
func withOwn(all []string, own map[string][]string) []string {
	out := append([]string{}, all...)
	for _, ss := range own {
		out = append(out, ss...)
	}
	return out
}

// ownOr is a store's own secrets, else the platform's.
func ownOr(all []string, own map[string][]string, key string) []string {
	if ss, ok := own[key]; ok {
		return ss
	}
	return all
}

// Generic configures POST /webhooks/orders (hub-shaped orders from any store).
type Generic struct {
	// Secrets verify X-Printworker-Signature for every store; StoreSecrets, when it
	// lists the store of a request, replaces them for that store. Several secrets
	// allow rotation. No secret at all disables the endpoint (404).
	Secrets      []string
	StoreSecrets map[string][]string
	// Tolerance is how far X-Printworker-Timestamp may be from now (default 5m);
	// older signed requests are refused as replays.
	Tolerance time.Duration
}

// DefaultMaxLines is the default of Config.MaxLines.
const DefaultMaxLines = 500

// DefaultConfig returns the defaults documented in docs/intake.md.
func DefaultConfig() Config {
	return Config{
		MaxBody:         2 << 20,
		ProductionTopic: TopicPaid,
		DeliveryTTL:     72 * time.Hour,
		EnqueueTimeout:  5 * time.Second,
		MaxLines:        DefaultMaxLines,
		MaxQuantity:     DefaultMaxQuantity,
		Shopify:         Shopify{DesignProperty: "_design"},
		Orders:          Generic{Tolerance: 5 * time.Minute},
		BigCommerce:     BigCommerce{APIURL: DefaultBigCommerceAPIURL, DesignOption: "design"},
		Etsy:            Etsy{APIURL: DefaultEtsyAPIURL, DesignVariation: "Personalization"},
		WooCommerce:     WooCommerce{DesignMeta: DefaultWooDesignMeta},
		Wix:             Wix{DesignField: DefaultWixDesignField},
	}
}

// Validate reports every bad value at once.
func (c Config) Validate() error {
	var errs []error
	if c.MaxBody <= 0 {
		errs = append(errs, fmt.Errorf("intake: max body %d must be positive", c.MaxBody))
	}
	switch c.ProductionTopic {
	case TopicCreate, TopicUpdated, TopicPaid:
	default:
		errs = append(errs, fmt.Errorf("intake: production topic %q: want %s, %s or %s", c.ProductionTopic, TopicPaid, TopicCreate, TopicUpdated))
	}
	if c.DeliveryTTL <= 0 {
		errs = append(errs, fmt.Errorf("intake: delivery ttl %s must be positive", c.DeliveryTTL))
	}
	if c.MaxLines <= 0 {
		errs = append(errs, fmt.Errorf("intake: max lines %d must be positive", c.MaxLines))
	}
	if c.EnqueueTimeout <= 0 {
		errs = append(errs, fmt.Errorf("intake: enqueue timeout %s must be positive", c.EnqueueTimeout))
	}
	if strings.TrimSpace(c.Shopify.DesignProperty) == "" {
		errs = append(errs, errors.New("intake: shopify design property must not be empty"))
	}
	for _, s := range c.Shopify.Secrets {
		if s == "" {
			errs = append(errs, errors.New("intake: an empty shopify secret"))
		}
	}
	for shop, store := range c.Shopify.Stores {
		if shop == "" || store == "" {
			errs = append(errs, fmt.Errorf("intake: shopify store mapping %q=%q: both sides needed", shop, store))
		}
	}
	if c.Orders.Tolerance <= 0 {
		errs = append(errs, fmt.Errorf("intake: signature tolerance %s must be positive", c.Orders.Tolerance))
	}
	for _, s := range c.Orders.Secrets {
		if s == "" {
			errs = append(errs, errors.New("intake: an empty orders secret"))
		}
	}
	for store, ss := range c.Orders.StoreSecrets {
		if store == "" || len(ss) == 0 {
			errs = append(errs, fmt.Errorf("intake: orders store secret for %q: both store and secret needed", store))
		}
	}
	errs = append(errs, c.BigCommerce.validate()...)
	errs = append(errs, c.Etsy.validate()...)
	errs = append(errs, c.WooCommerce.validate()...)
	errs = append(errs, c.Wix.validate()...)
	if len(c.Shopify.allSecrets()) == 0 && len(c.Orders.Secrets) == 0 && len(c.Orders.StoreSecrets) == 0 &&
		len(c.WooCommerce.allSecrets()) == 0 && len(c.Wix.PublicKeys) == 0 && !c.BigCommerce.enabled() && len(c.Etsy.allSecrets()) == 0 {
		errs = append(errs, errors.New("intake: no webhook secret configured: set a store's secret (shopify, woocommerce...) or an orders secret"))
	}
	return errors.Join(errs...)
}
