package demo

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/storesim"
)

// The platforms the demo takes its orders from (--platform). Shopify's webhooks are
// the demo's own; the others come from the matching store simulator (storesim).
const (
	PlatformShopify = "shopify"
	// The simulated stores' identities and credentials.
	demoBCStoreHash  = "demostore1"
	demoEtsyShopID   = "31415926"
	demoWixInstance  = "demo-wix-instance"
	demoStoreSecret  = "demo-store-secret"
	demoStoreToken   = "demo-store-token"
	demoStoreAPIKey  = "demo-store-api-key"
	demoStoreKeyPair = "ck_demo"
	// The line data names the simulated stores keep the design reference under. The
	// WooCommerce one is hidden (it starts with _), so WooCommerce orders are read
	// through its REST API by an order fetch, as BigCommerce and Etsy orders are.
	demoBCOption     = "Design"
	demoEtsyVariant  = "Personalization"
	demoWooMeta      = "_design"
	demoWixTextField = "Design"
)

// Platforms are --platform's values.
var Platforms = []string{PlatformShopify, intake.PlatformWooCommerce, intake.PlatformBigCommerce, intake.PlatformEtsy, intake.PlatformWix}

// demoSim is a running store simulator: it holds the demo orders, signs their
// webhooks and serves the API the worker's order fetches read.
type demoSim struct {
	platform string
	api      string // base URL of the simulator's API; "" for Wix (no fetch)
	bc       *storesim.BigCommerce
	etsy     *storesim.Etsy
	woo      *storesim.WooCommerce
	wix      *storesim.Wix
	wixKeys  []*rsa.PublicKey
}

// demoSample is the part of a demo order (Shopify's JSON) the other platforms'
// orders are made of: the same ids, dates, buyer and designs.
type demoSample struct {
	ID        json.Number `json:"id"`
	Name      string      `json:"name"`
	Email     string      `json:"email"`
	CreatedAt time.Time   `json:"created_at"`
	UpdatedAt time.Time   `json:"updated_at"`
	Billing   *demoAddr   `json:"billing_address"`
	Shipping  *demoAddr   `json:"shipping_address"`
	Lines     []struct {
		Title      string `json:"title"`
		Quantity   int    `json:"quantity"`
		Price      string `json:"price"`
		Properties []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"properties"`
	} `json:"line_items"`
}

type demoAddr struct {
	FirstName   string  `json:"first_name"`
	LastName    string  `json:"last_name"`
	Company     *string `json:"company"`
	Address1    string  `json:"address1"`
	Address2    string  `json:"address2"`
	City        string  `json:"city"`
	Province    string  `json:"province_code"`
	Zip         string  `json:"zip"`
	Country     string  `json:"country"`
	CountryCode string  `json:"country_code"`
	Phone       string  `json:"phone"`
}

func (a *demoAddr) company() string {
	if a == nil || a.Company == nil {
		return ""
	}
	return *a.Company
}

// ref is the design reference of line i ("" for a plain line).
func (s *demoSample) ref(i int) string {
	for _, p := range s.Lines[i].Properties {
		if p.Name == "_design" {
			return p.Value
		}
	}
	return ""
}

// shipTo is where the order goes: its shipping address, else its billing address.
func (s *demoSample) shipTo() *demoAddr {
	if s.Shipping != nil {
		return s.Shipping
	}
	if s.Billing != nil {
		return s.Billing
	}
	return &demoAddr{}
}

// startStore starts the simulator of --platform on a loopback port and returns it
// (nil for Shopify, whose webhooks the demo signs itself).
func (d *demoRun) startStore(ctx context.Context) (*demoSim, error) {
	s := &demoSim{platform: d.o.Platform}
	var h http.Handler
	switch d.o.Platform {
	case PlatformShopify:
		return nil, nil
	case intake.PlatformBigCommerce:
		s.bc = storesim.NewBigCommerce(demoBCStoreHash, demoStoreToken, demoStoreSecret)
		h = s.bc.Handler()
	case intake.PlatformEtsy:
		s.etsy = storesim.NewEtsy(demoEtsyShopID, demoStoreAPIKey, demoStoreToken,
			"whsec_"+base64.StdEncoding.EncodeToString([]byte(demoStoreSecret)))
		h = s.etsy.Handler()
	case intake.PlatformWooCommerce:
		s.woo = storesim.NewWooCommerce(demoStoreSecret, "", demoStoreKeyPair, demoStoreSecret)
		d.cleanup = append(d.cleanup, s.woo.Close)
		h = s.woo
	case intake.PlatformWix:
		var err error
		if s.wix, err = storesim.NewWix(demoWixInstance); err != nil {
			return nil, err
		}
		if s.wixKeys, err = intake.ParseWixPublicKeys(s.wix.PublicKeyPEM()); err != nil {
			return nil, err
		}
		fmt.Fprintf(d.out, "store    %s simulator (webhooks only)\n", d.o.Platform)
		return s, nil
	default:
		return nil, usageError(fmt.Sprintf("demo: --platform %q: want one of %s", d.o.Platform, strings.Join(Platforms, ", ")))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo: store simulator: %w", err)
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- d.w.Serve(sctx, ln, h) }()
	d.cleanup = append(d.cleanup, func() { stop(); <-done })
	s.api = "http://" + ln.Addr().String()
	if s.woo != nil {
		// The site a webhook names (X-WC-Webhook-Source) is the one the fetch reads.
		s.woo.Source = s.api + "/"
	}
	fmt.Fprintf(d.out, "store    %s simulator, API %s\n", d.o.Platform, s.api)
	return s, nil
}

// intakeConfig sets the intake up for the simulated store: its secret, and its
// orders mapped to the demo's hub store and domain (the same as Shopify's, so the
// same orders land under the same keys).
func (s *demoSim) intakeConfig(c *intake.Config, store, domain string) {
	switch s.platform {
	case intake.PlatformBigCommerce:
		c.BigCommerce = intake.BigCommerce{Secrets: []string{demoStoreSecret}, StoreHash: demoBCStoreHash, Store: store,
			Domain: domain, Token: demoStoreToken, APIURL: s.api, DesignOption: demoBCOption}
	case intake.PlatformEtsy:
		c.Etsy = intake.Etsy{Secrets: []string{s.etsy.Secret}, ShopID: demoEtsyShopID, Store: store, Domain: domain,
			APIKey: demoStoreAPIKey, Token: demoStoreToken, APIURL: s.api, DesignVariation: demoEtsyVariant}
	case intake.PlatformWooCommerce:
		c.WooCommerce = intake.WooCommerce{Secrets: []string{demoStoreSecret}, DesignMeta: demoWooMeta,
			Stores: map[string]string{s.woo.Source: store}, Domains: map[string]string{s.woo.Source: domain}}
	case intake.PlatformWix:
		c.Wix = intake.Wix{PublicKeys: s.wixKeys, DesignField: demoWixTextField,
			Stores: map[string]string{demoWixInstance: store}, Domains: map[string]string{demoWixInstance: domain}}
	}
}

// fetchHandlers are the worker's order fetch handlers reading the simulator's API
// (none for Wix, whose webhooks carry the whole order).
func (s *demoSim) fetchHandlers(c intake.Config, enq intake.Enqueuer, d *demoRun) (map[string]asynq.Handler, error) {
	if s == nil || s.api == "" {
		return nil, nil
	}
	var opts []intake.FetcherOption
	if s.woo != nil {
		opts = append(opts, intake.WithWooCommerceAPI(&intake.WooCommerceAPI{URL: s.api, ConsumerKey: demoStoreKeyPair,
			ConsumerSecret: demoStoreSecret, HTTP: &http.Client{Timeout: 30 * time.Second, CheckRedirect: intake.NoRedirect}}))
	}
	// The simulator listens on loopback, which the outbound guard refuses unless
	// allowed.
	f, err := intake.NewFetcher(c, enq, netguard.Must("127.0.0.1"), append(opts, intake.WithFetchLogger(d.log))...)
	if err != nil {
		return nil, err
	}
	return d.w.FetchHandlers(f), nil
}

// send puts the demo order into the simulated store and has it send its webhook to
// the intake; it returns the intake's answer.
func (s *demoSim) send(ctx context.Context, intakeURL string, o *demoSample) (intakeAnswer, error) {
	id, err := strconv.ParseInt(string(o.ID), 10, 64)
	if err != nil {
		return intakeAnswer{}, fmt.Errorf("demo: order id %q: %w", o.ID, err)
	}
	var (
		status int
		body   []byte
		wh     storesim.Webhook
	)
	switch s.platform {
	case intake.PlatformBigCommerce:
		s.bc.Put(demoBCOrder(int(id), o))
		if wh, err = s.bc.Webhook("store/order/statusUpdated", int(id), time.Now()); err != nil {
			return intakeAnswer{}, err
		}
		status, body, err = postWebhook(ctx, intakeURL+"/webhooks/bigcommerce", wh)
	case intake.PlatformEtsy:
		s.etsy.Put(demoEtsyReceipt(int(id), o))
		if wh, err = s.etsy.Webhook(int(id), time.Now()); err != nil {
			return intakeAnswer{}, err
		}
		status, body, err = postWebhook(ctx, intakeURL+"/webhooks/etsy", wh)
	case intake.PlatformWooCommerce:
		wo := demoWooOrder(id, o)
		s.woo.Put(wo)
		status, body, err = s.woo.Webhook("order.updated", wo).Post(ctx, nil, intakeURL+"/webhooks/woocommerce")
	case intake.PlatformWix:
		status, body, err = s.wix.Event(intake.WixEventApproved, demoWixOrder(o)).Post(ctx, nil, intakeURL+"/webhooks/wix")
	}
	if err != nil {
		return intakeAnswer{}, fmt.Errorf("demo: post %s webhook of order %s: %w", s.platform, o.ID, err)
	}
	var a intakeAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return a, fmt.Errorf("demo: intake answer for order %s (HTTP %d): %w", o.ID, status, err)
	}
	return a, nil
}

// postWebhook posts a Standard Webhooks delivery and returns the answer.
func postWebhook(ctx context.Context, url string, wh storesim.Webhook) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(wh.Body))
	if err != nil {
		return 0, nil, err
	}
	req.Header = wh.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

func demoBCOrder(id int, o *demoSample) storesim.BCOrder {
	addr := func(a *demoAddr) storesim.BCAddress {
		return storesim.BCAddress{FirstName: a.FirstName, LastName: a.LastName, Company: a.company(), Street1: a.Address1,
			Street2: a.Address2, City: a.City, State: a.Province, Zip: a.Zip, Country: a.Country, CountryISO2: a.CountryCode,
			Phone: a.Phone, Email: o.Email}
	}
	bo := storesim.BCOrder{ID: id, StatusID: 11, Status: "Awaiting Fulfillment", Created: o.CreatedAt, Modified: o.UpdatedAt}
	if o.Billing != nil {
		bo.Billing = addr(o.Billing)
	} else {
		bo.Billing = storesim.BCAddress{Email: o.Email}
	}
	if o.Shipping != nil {
		ship := addr(o.Shipping)
		bo.Shipping = &ship
	}
	for i, l := range o.Lines {
		p := storesim.BCProduct{Name: l.Title, Quantity: l.Quantity, Price: l.Price}
		if ref := o.ref(i); ref != "" {
			p.Options = []storesim.BCOption{{DisplayName: demoBCOption, DisplayValue: ref, Value: ref}}
		}
		bo.Products = append(bo.Products, p)
	}
	return bo
}

func demoEtsyReceipt(id int, o *demoSample) storesim.EtsyReceipt {
	a := o.shipTo()
	r := storesim.EtsyReceipt{ID: id, Status: "paid", IsPaid: true, BuyerEmail: o.Email,
		Name: strings.TrimSpace(a.FirstName + " " + a.LastName), FirstLine: a.Address1, City: a.City, State: a.Province,
		Zip: a.Zip, CountryISO: a.CountryCode, Created: o.CreatedAt, Modified: o.UpdatedAt}
	for i, l := range o.Lines {
		t := storesim.EtsyTransaction{Quantity: l.Quantity, Amount: demoCents(l.Price)}
		if ref := o.ref(i); ref != "" {
			t.Variations = [][2]string{{demoEtsyVariant, ref}}
		}
		r.Transactions = append(r.Transactions, t)
	}
	return r
}

func demoWooOrder(id int64, o *demoSample) storesim.WooOrder {
	addr := func(a *demoAddr) storesim.WooAddress {
		if a == nil {
			return storesim.WooAddress{}
		}
		return storesim.WooAddress{FirstName: a.FirstName, LastName: a.LastName, Company: a.company(), Address1: a.Address1,
			Address2: a.Address2, City: a.City, State: a.Province, Postcode: a.Zip, Country: a.CountryCode, Phone: a.Phone}
	}
	paid := storesim.WooGMT(o.CreatedAt)
	wo := storesim.WooOrder{ID: id, Number: strings.TrimPrefix(o.Name, "#"), Status: "processing", Currency: "EUR",
		DateCreatedGMT: storesim.WooGMT(o.CreatedAt), DateModifiedGMT: storesim.WooGMT(o.UpdatedAt), DatePaidGMT: &paid,
		Billing: addr(o.Billing), Shipping: addr(o.Shipping)}
	wo.Billing.Email = o.Email
	for i, l := range o.Lines {
		price, _ := strconv.ParseFloat(l.Price, 64)
		li := storesim.WooLineItem{ID: int64(i + 1), Name: l.Title, ProductID: int64(500 + i), Quantity: l.Quantity, Price: price,
			Total: strconv.FormatFloat(price*float64(l.Quantity), 'f', 2, 64)}
		if ref := o.ref(i); ref != "" {
			li.MetaData = []storesim.WooMeta{{ID: int64(i + 1), Key: demoWooMeta, Value: ref, DisplayKey: demoWooMeta, DisplayValue: ref}}
		}
		wo.LineItems = append(wo.LineItems, li)
	}
	return wo
}

func demoWixOrder(o *demoSample) storesim.WixOrder {
	info := func(a *demoAddr) storesim.WixAddressInfo {
		if a == nil {
			return storesim.WixAddressInfo{}
		}
		sub := ""
		if a.Province != "" {
			sub = a.CountryCode + "-" + a.Province
		}
		return storesim.WixAddressInfo{
			Address: storesim.WixAddress{AddressLine1: a.Address1, AddressLine2: a.Address2, City: a.City, Subdivision: sub,
				Country: a.CountryCode, PostalCode: a.Zip},
			ContactDetails: storesim.WixContact{FirstName: a.FirstName, LastName: a.LastName, Phone: a.Phone, Company: a.company()}}
	}
	wo := storesim.WixOrder{ID: string(o.ID), Number: strings.TrimPrefix(o.Name, "#"),
		CreatedDate: o.CreatedAt.UTC().Format(time.RFC3339Nano), UpdatedDate: o.UpdatedAt.UTC().Format(time.RFC3339Nano),
		Status: "APPROVED", PaymentStatus: "PAID", BuyerInfo: storesim.WixBuyer{Email: o.Email, ContactID: "c-" + string(o.ID)},
		BillingInfo: info(o.Billing)}
	if o.Shipping != nil {
		wo.ShippingInfo.Logistics.ShippingDestination = info(o.Shipping)
	}
	for i, l := range o.Lines {
		li := storesim.WixLineItem{ID: "li-" + strconv.Itoa(i+1), Quantity: l.Quantity, Price: storesim.WixPrice{Amount: l.Price}}
		li.CatalogReference.CatalogItemID = "prod-" + strconv.Itoa(i+1)
		if ref := o.ref(i); ref != "" {
			li.CatalogReference.Options.CustomTextFields = map[string]string{demoWixTextField: ref}
		}
		wo.LineItems = append(wo.LineItems, li)
	}
	return wo
}

// demoCents is a decimal price in cents (Etsy's amounts).
func demoCents(price string) int64 {
	f, _ := strconv.ParseFloat(price, 64)
	return int64(math.Round(f * 100))
}
