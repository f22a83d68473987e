package intake

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// PlatformBigCommerce names BigCommerce in fetch tasks and metrics.
const PlatformBigCommerce = "bigcommerce"

const endpointBigCommerce = PlatformBigCommerce

// BigCommerce configures POST /webhooks/bigcommerce and the order fetches behind it.
type BigCommerce struct {
	// Secrets verify the Standard Webhooks signature (webhook-signature): the app's
	// client secret, or a "whsec_<base64>" key. Several allow rotation.
	Secrets []string
	// HeaderSecrets are the values of the custom header (HeaderName) the hooks were
	// created with (POST /v3/hooks "headers"), compared in constant time; several
	// allow rotation. Neither these nor Secrets (of any store): the endpoint is
	// disabled (404).
	HeaderSecrets []string
	// HeaderName is that header (default X-Printworker-Secret).
	HeaderName string
	// StoreHash is the store ("stores/{hash}" in the webhook's producer) whose
	// webhooks are taken; webhooks of stores neither it nor Stores name are refused.
	StoreHash string
	// Store is the hub store the orders go to; Domain the order domain sent to the
	// hub (default: the store hash).
	Store, Domain string
	// Token is the API account's access token (X-Auth-Token) for the order reads.
	Token string
	// Stores are further stores served by the same deployment (the stores file).
	Stores []BigCommerceStore
	// APIURL is the API's base (default https://api.bigcommerce.com).
	APIURL string
	// DesignOption is the product option (display name) whose value is the design
	// reference "<designId>.<designToken>" (default "design").
	DesignOption string
}

// DefaultBigCommerceHeader is the default custom header of BigCommerce hooks.
const DefaultBigCommerceHeader = "X-Printworker-Secret"

func (b BigCommerce) headerName() string {
	if strings.TrimSpace(b.HeaderName) != "" {
		return strings.TrimSpace(b.HeaderName)
	}
	return DefaultBigCommerceHeader
}

func (b BigCommerce) enabled() bool {
	sig, hdr := b.allSecrets()
	return len(sig) > 0 || len(hdr) > 0
}

func (b BigCommerce) validate() []error {
	if !b.enabled() {
		return nil
	}
	var errs []error
	sig, hdr := b.allSecrets()
	for _, s := range append(append([]string{}, sig...), hdr...) {
		if s == "" {
			errs = append(errs, errors.New("intake: an empty bigcommerce secret"))
			break
		}
	}
	if _, err := standardKeys(sig); err != nil {
		errs = append(errs, fmt.Errorf("intake: bigcommerce secret: %w", err))
	}
	if len(b.stores()) == 0 {
		errs = append(errs, errors.New("intake: bigcommerce needs a store hash and a hub store"))
	}
	errs = append(errs, b.validateStores()...)
	if strings.TrimSpace(b.DesignOption) == "" {
		errs = append(errs, errors.New("intake: bigcommerce design option must not be empty"))
	}
	return errs
}

// bcWebhook is BigCommerce's webhook body: ids only.
type bcWebhook struct {
	Scope    string     `json:"scope"`
	StoreID  nullString `json:"store_id"`
	Producer string     `json:"producer"`
	Hash     string     `json:"hash"`
	Data     struct {
		Type string      `json:"type"`
		ID   json.Number `json:"id"`
	} `json:"data"`
}

// BigCommerce order scopes. Every one but archived is read back from the API: the
// webhook says that something changed, the order's status says what to do.
const (
	bcScopeCreated  = "store/order/created"
	bcScopeUpdated  = "store/order/updated"
	bcScopeStatus   = "store/order/statusUpdated"
	bcScopeArchived = "store/order/archived"
)

// handleBigCommerce verifies one BigCommerce webhook and enqueues the fetch of its
// order.
func (s *Server) handleBigCommerce(w http.ResponseWriter, r *http.Request) (int, result, error) {
	cfg := s.cfg.BigCommerce
	if !cfg.enabled() {
		return http.StatusNotFound, result{}, nil
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return 0, result{}, err
	}
	// Verified with every store's secrets before the body is read, then again
	// with its own store's: one store's secret cannot speak for another.
	sig, hdr := cfg.allSecrets()
	webhookID, err := s.verifyBigCommerce(r.Header, body, sig, hdr)
	if err != nil {
		return 0, result{}, err
	}
	var wh bcWebhook
	if err := decodeJSON(body, &wh); err != nil {
		return 0, result{}, err
	}
	var event string
	switch wh.Scope {
	case bcScopeCreated, bcScopeUpdated, bcScopeStatus:
		event = jobs.FetchOrder
	case bcScopeArchived:
		event = jobs.FetchDelete
	default:
		// BigCommerce retries anything but 2xx; a scope we do not act on is taken.
		return http.StatusOK, result{Status: outcomeIgnored, Reason: "scope not handled", Topic: wh.Scope}, nil
	}
	hash, _ := strings.CutPrefix(wh.Producer, "stores/")
	st, ok := cfg.store(hash)
	if !ok {
		return 0, result{}, unprocessable(fmt.Sprintf("producer %q is not a configured store", wh.Producer))
	}
	if _, err := s.verifyBigCommerce(r.Header, body, st.Secrets, st.HeaderSecrets); err != nil {
		return 0, result{}, unauthorized("store " + st.StoreHash + ": " + err.Error())
	}
	id, err := strconv.ParseInt(string(wh.Data.ID), 10, 64)
	if err != nil || id <= 0 {
		return 0, result{}, badRequest(fmt.Sprintf("data.id %q is not a positive integer", wh.Data.ID))
	}
	// BigCommerce sends one event more than once with the same hash (and a new
	// webhook-id): the hash is the identity.
	delivery := strings.TrimSpace(wh.Hash)
	if delivery == "" {
		delivery = webhookID
	}
	if delivery == "" {
		// Header-authenticated and without a hash: the event itself is the identity.
		delivery = st.StoreHash + ":" + wh.Scope + ":" + strconv.FormatInt(id, 10) + ":" + strconv.FormatInt(s.now().Unix(), 10)
	}
	p := jobs.OrderFetch{Platform: PlatformBigCommerce, Store: st.Store, Shop: st.StoreHash,
		OrderID: strconv.FormatInt(id, 10), Event: event, Delivery: delivery}
	status, res := s.enqueueFetch(r.Context(), endpointBigCommerce, wh.Scope, p)
	return status, res, nil
}

// maxBigCommerceHeader caps the custom secret header.
const maxBigCommerceHeader = 1024

// verifyBigCommerce authenticates a BigCommerce delivery: a Standard Webhooks
// signature when one is sent and a signing secret is configured (checked against
// sig; a wrong one is refused even with a right header), else the custom header the
// hook was created with, compared in constant time with every header secret (a
// signature nothing here can check does not stand in the way of a right header).
// Neither: 401. It returns the webhook-id ("" without a checked signature).
func (s *Server) verifyBigCommerce(h http.Header, body []byte, sig, hdr []string) (string, error) {
	if h.Get(standardwebhooks.HeaderWebhookSignature) != "" && len(sig) > 0 {
		keys, err := standardKeys(sig)
		if err != nil {
			return "", err
		}
		return verifyStandard(keys, h, body, s.now(), s.cfg.Orders.Tolerance)
	}
	name := s.cfg.BigCommerce.headerName()
	v := h.Get(name)
	switch {
	case v == "":
		return "", unauthorized("neither webhook-signature nor " + name + " sent")
	case len(v) > maxBigCommerceHeader:
		return "", headerTooLarge(name, maxBigCommerceHeader)
	}
	if !secretIn(v, hdr) {
		return "", unauthorized(name + " matches no configured secret")
	}
	return "", nil
}

// secretIn compares v with every secret in constant time (SHA-256 first, so the
// comparison does not leak the secrets' lengths either).
func secretIn(v string, secrets []string) bool {
	got := sha256.Sum256([]byte(v))
	ok := 0
	for _, sec := range secrets {
		want := sha256.Sum256([]byte(sec))
		ok |= subtle.ConstantTimeCompare(got[:], want[:])
	}
	return ok == 1
}

// enqueueFetch dedupes a verified id-only notification on its delivery and enqueues
// the fetch of its order.
func (s *Server) enqueueFetch(ctx context.Context, endpoint, topic string, p jobs.OrderFetch) (int, result) {
	res := result{Topic: topic, Store: p.Store, Order: p.OrderID}
	fe, ok := s.enq.(FetchEnqueuer)
	if !ok {
		s.log.ErrorContext(ctx, "intake: the enqueuer cannot enqueue order fetches", "endpoint", endpoint)
		res.Status, res.Reason = outcomeUnavailable, "queue unavailable, retry later"
		return http.StatusServiceUnavailable, res
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.EnqueueTimeout)
	defer cancel()
	// Per store: two stores' deliveries may share an id (a hash of the event).
	key := "delivery:" + endpoint + ":" + deliveryKey(p.Shop) + ":" + deliveryKey(p.Delivery)
	ev := event{endpoint: endpoint, order: &model.Order{OrderID: p.OrderID}}
	var claimed []string
	if s.deliveries != nil {
		ok, err := s.deliveries.Claim(ctx, key, s.cfg.DeliveryTTL)
		if err != nil {
			s.log.ErrorContext(ctx, "intake: duplicate check failed", "err", err, "order", p.OrderID)
			res.Status, res.Reason = outcomeUnavailable, "queue unavailable, retry later"
			return http.StatusServiceUnavailable, res
		}
		if !ok {
			res.Status, res.Reason = outcomeDuplicate, "already received"
			return http.StatusOK, res
		}
		claimed = []string{key}
	}
	if err := fe.FetchOrder(ctx, p); err != nil {
		s.release(ev, claimed)
		s.log.ErrorContext(ctx, "intake: enqueue failed", "err", err, "order", p.OrderID, "endpoint", endpoint)
		res.Status, res.Reason = outcomeUnavailable, "queue unavailable, retry later"
		return http.StatusServiceUnavailable, res
	}
	s.m.jobs.WithLabelValues("fetch").Inc()
	s.log.InfoContext(ctx, "intake: order fetch enqueued", "endpoint", endpoint, "topic", topic,
		"store", p.Store, "order", p.OrderID)
	res.Status, res.Jobs = outcomeEnqueued, []string{"fetch"}
	return http.StatusOK, res
}

// bcOrder is the part of GET /v2/orders/{id} the hub order needs.
type bcOrder struct {
	ID             json.Number `json:"id"`
	StatusID       int         `json:"status_id"`
	Status         nullString  `json:"status"`
	DateCreated    nullString  `json:"date_created"`
	DateModified   nullString  `json:"date_modified"`
	BillingAddress *bcAddress  `json:"billing_address"`
}

type bcAddress struct {
	FirstName   nullString `json:"first_name"`
	LastName    nullString `json:"last_name"`
	Company     nullString `json:"company"`
	Street1     nullString `json:"street_1"`
	Street2     nullString `json:"street_2"`
	City        nullString `json:"city"`
	State       nullString `json:"state"`
	Zip         nullString `json:"zip"`
	Country     nullString `json:"country"`
	CountryISO2 nullString `json:"country_iso2"`
	Phone       nullString `json:"phone"`
	Email       nullString `json:"email"`
}

// bcProduct is one line of GET /v2/orders/{id}/products.
type bcProduct struct {
	ID             json.Number `json:"id"`
	Quantity       int         `json:"quantity"`
	PriceIncTax    nullString  `json:"price_inc_tax"`
	ProductOptions []struct {
		DisplayName  nullString `json:"display_name"`
		DisplayValue nullString `json:"display_value"`
		Value        nullString `json:"value"`
	} `json:"product_options"`
}

// orderState is what an order's store status asks printworker to do.
type orderState int

const (
	stateUnpaid    orderState = iota // pushed, not exported
	statePaid                        // pushed and exported
	stateCancelled                   // deleted from the hub, pending work stopped
)

// bcState maps BigCommerce's order status ids: paid statuses print; cancelled,
// refunded and declined orders leave the hub; the rest (incomplete, pending,
// awaiting payment, manual verification, disputed) wait.
func bcState(statusID int) orderState {
	switch statusID {
	case 2, 3, 8, 9, 10, 11, 14: // shipped, partially shipped, awaiting pickup, awaiting shipment, completed, awaiting fulfillment, partially refunded
		return statePaid
	case 4, 5, 6: // refunded, cancelled, declined
		return stateCancelled
	}
	return stateUnpaid
}

// bcTime reads a BigCommerce date (RFC 1123 with a numeric zone, as the v2 API
// writes it; RFC 3339 also taken) into the hub's strict form.
func bcTime(field string, v nullString) (string, error) {
	s := v.str()
	if s == "" {
		return "", badRequest(field + " is missing")
	}
	for _, layout := range []string{time.RFC1123Z, time.RFC1123, time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return hub.FormatTimestamp(t), nil
		}
	}
	return "", badRequest(fmt.Sprintf("%s %q is not an RFC 1123 date", field, s))
}

func bcAddr(a *bcAddress) model.Address {
	if a == nil {
		return model.Address{}
	}
	return model.Address{
		Address1: a.Street1.str(), Address2: a.Street2.str(), City: a.City.str(), CompanyName: a.Company.str(),
		Country: a.Country.str(), CountryCode: a.CountryISO2.str(), FirstName: a.FirstName.str(), LastName: a.LastName.str(),
		Phone: a.Phone.str(), Province: a.State.str(), Zip: a.Zip.str(),
	}
}

// mapBigCommerceOrder turns an order, its shipping address (nil: none) and its lines
// into the hub order of spec 2.1 and the state that decides its jobs. Lines without
// a design reference are left out.
func mapBigCommerceOrder(bo *bcOrder, ship *bcAddress, lines []bcProduct, domain, designOption string) (*model.Order, orderState, error) {
	if _, err := strconv.ParseInt(string(bo.ID), 10, 64); err != nil {
		return nil, 0, badRequest(fmt.Sprintf("order id %q is not an integer", bo.ID))
	}
	created, err := bcTime("date_created", bo.DateCreated)
	if err != nil {
		return nil, 0, err
	}
	updated, err := bcTime("date_modified", bo.DateModified)
	if err != nil {
		return nil, 0, err
	}
	billing := bcAddr(bo.BillingAddress)
	shipping := billing
	if ship != nil {
		shipping = bcAddr(ship)
	}
	o := &model.Order{
		OrderID: string(bo.ID), Domain: domain, Created: created, Updated: updated,
		Status:         strings.ToLower(bo.Status.str()),
		FirstName:      billing.FirstName,
		LastName:       billing.LastName,
		BillingDetails: billing, ShippingDetails: shipping,
		LineItems: []model.LineItem{},
	}
	if bo.BillingAddress != nil {
		o.Email = bo.BillingAddress.Email.str()
	}
	for i, li := range lines {
		props := make([]property, 0, len(li.ProductOptions))
		for _, po := range li.ProductOptions {
			v := po.DisplayValue.str()
			if v == "" {
				v = po.Value.str()
			}
			name := po.DisplayName.str()
			if strings.EqualFold(name, designOption) {
				// Option names are typed by the merchant: "Design" is the design option.
				name = designOption
			}
			props = append(props, property{name: name, value: v})
		}
		ref, ok, err := refIn(props, designOption)
		if err != nil {
			return nil, 0, badRequest(fmt.Sprintf("products[%d]: %v", i, err))
		}
		if !ok {
			continue
		}
		price, err := linePrice(li.PriceIncTax.str())
		if err != nil {
			return nil, 0, badRequest(fmt.Sprintf("products[%d].price_inc_tax %v", i, err))
		}
		if li.Quantity < 1 {
			return nil, 0, badRequest(fmt.Sprintf("products[%d].quantity %d: a personalized line needs at least 1", i, li.Quantity))
		}
		o.LineItems = append(o.LineItems, model.LineItem{ID: ref.ID, Token: ref.Token, Quantity: li.Quantity, Price: price})
	}
	return o, bcState(bo.StatusID), nil
}

// bcPageSize is the v2 API's largest page of order products.
const bcPageSize = 250

// bigCommerceReader reads BigCommerce orders (the v2 orders API).
type bigCommerceReader struct{ f *Fetcher }

// readOrder removes an archived order without reading it, else reads and maps it.
func (r bigCommerceReader) readOrder(ctx context.Context, p jobs.OrderFetch) (fetched, error) {
	if p.Event == jobs.FetchDelete {
		st, ok := r.f.cfg.BigCommerce.store(p.Shop)
		if !ok {
			return fetched{}, &fetchError{platform: PlatformBigCommerce, what: "order " + p.OrderID,
				err: fmt.Errorf("store %q is not a configured store", p.Shop)}
		}
		return statePlan(&model.Order{OrderID: p.OrderID, Domain: st.domain()}, stateCancelled), nil
	}
	o, st, err := r.f.bigCommerceOrder(ctx, p)
	if err != nil {
		return fetched{}, err
	}
	return statePlan(o, st), nil
}

// bigCommerceOrder reads the order, its shipping address and its products, and
// maps them.
func (f *Fetcher) bigCommerceOrder(ctx context.Context, p jobs.OrderFetch) (*model.Order, orderState, error) {
	cfg, ok := f.cfg.BigCommerce.store(p.Shop)
	if !ok {
		return nil, 0, &fetchError{platform: PlatformBigCommerce, what: "order " + p.OrderID,
			err: fmt.Errorf("store %q is not a configured store", p.Shop)}
	}
	base := strings.TrimRight(f.cfg.BigCommerce.APIURL, "/") + "/stores/" + url.PathEscape(cfg.StoreHash) + "/v2/orders/" + url.PathEscape(p.OrderID)
	h := http.Header{"X-Auth-Token": {cfg.Token}}
	var bo bcOrder
	if err := f.getJSON(ctx, PlatformBigCommerce, "bigcommerce:"+cfg.StoreHash, base, h, &bo); err != nil {
		return nil, 0, err
	}
	var ships []bcAddress
	if err := f.getJSON(ctx, PlatformBigCommerce, "bigcommerce:"+cfg.StoreHash, base+"/shipping_addresses", h, &ships); err != nil {
		return nil, 0, err
	}
	var lines []bcProduct
	// Pages until a short one; bounded so a looping API cannot keep a worker.
	for page := 1; page <= f.cfg.MaxLines/bcPageSize+2; page++ {
		var batch []bcProduct
		u := fmt.Sprintf("%s/products?limit=%d&page=%d", base, bcPageSize, page)
		if err := f.getJSON(ctx, PlatformBigCommerce, "bigcommerce:"+cfg.StoreHash, u, h, &batch); err != nil {
			return nil, 0, err
		}
		lines = append(lines, batch...)
		if len(batch) < bcPageSize {
			break
		}
	}
	var ship *bcAddress
	if len(ships) > 0 {
		ship = &ships[0]
	}
	o, st, err := mapBigCommerceOrder(&bo, ship, lines, cfg.domain(), f.cfg.BigCommerce.DesignOption)
	if err != nil {
		return nil, 0, &fetchError{platform: PlatformBigCommerce, what: "order " + p.OrderID, err: err}
	}
	if o.OrderID != p.OrderID {
		return nil, 0, &fetchError{platform: PlatformBigCommerce, what: "order " + p.OrderID,
			err: fmt.Errorf("the API answered order %q", o.OrderID)}
	}
	return o, st, nil
}
