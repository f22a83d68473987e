package intake

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// WooCommerce's webhook headers (docs/intake.md, "WooCommerce headers").
const (
	HeaderWooSignature  = "X-WC-Webhook-Signature"
	HeaderWooTopic      = "X-WC-Webhook-Topic"
	HeaderWooSource     = "X-WC-Webhook-Source"
	HeaderWooDeliveryID = "X-WC-Webhook-Delivery-ID"
	HeaderWooWebhookID  = "X-WC-Webhook-ID"
)

// WooCommerce order topics.
const (
	WooTopicCreated  = "order.created"
	WooTopicUpdated  = "order.updated"
	WooTopicDeleted  = "order.deleted"
	WooTopicRestored = "order.restored"
)

// PlatformWooCommerce names WooCommerce in order fetch tasks.
const PlatformWooCommerce = "woocommerce"

const endpointWooCommerce = "woocommerce"

// DefaultWooDesignMeta is the default line item meta key of the design reference: a
// visible key, which WooCommerce sends in webhook bodies.
const DefaultWooDesignMeta = "design"

// WooCommerce configures POST /webhooks/woocommerce.
type WooCommerce struct {
	// Secrets verify X-WC-Webhook-Signature; any one matching is enough (rotation).
	// Empty disables the endpoint (404).
	Secrets []string
	// DesignMeta is the line item meta key holding "<designId>.<designToken>"
	// (default "design"). A key starting with "_" is hidden: WooCommerce leaves it
	// out of webhook bodies, so each webhook is acknowledged and the order is read
	// through the REST API by an order fetch task (the worker needs the API settings).
	DesignMeta string
	// Stores maps a site (X-WC-Webhook-Source, e.g. "https://shop.example.com/",
	// matched without scheme and trailing slash, case-insensitively) to the hub store
	// id; DefaultStore serves every site not listed. A site neither covers is
	// refused with 422.
	Stores       map[string]string
	DefaultStore string
	// Domains maps a site to the order domain sent to the hub; unlisted sites send
	// their host name.
	Domains map[string]string
	// SiteSecrets are sites' own secrets (the stores file), by site: a delivery of a
	// site listed here must match one of them, of any other site one of Secrets.
	SiteSecrets map[string][]string
}

func (c WooCommerce) allSecrets() []string { return withOwn(c.Secrets, c.SiteSecrets) }

// Hidden reports whether the design meta key is one WooCommerce leaves out of
// webhook bodies.
func (c WooCommerce) Hidden() bool { return strings.HasPrefix(c.DesignMeta, "_") }

func (c WooCommerce) validate() []error {
	var errs []error
	if strings.TrimSpace(c.DesignMeta) == "" {
		errs = append(errs, fmt.Errorf("intake: woocommerce design meta key must not be empty"))
	}
	for _, s := range c.Secrets {
		if s == "" {
			errs = append(errs, fmt.Errorf("intake: an empty woocommerce secret"))
		}
	}
	for site, store := range c.Stores {
		if wooSiteKey(site) == "" || store == "" {
			errs = append(errs, fmt.Errorf("intake: woocommerce store mapping %q=%q: both sides needed", site, store))
		}
	}
	return errs
}

// wooSiteKey is the form sites are matched in: host and path, lowercase, without
// scheme and trailing slash ("shop.example.com", "example.com/shop").
func wooSiteKey(source string) string {
	s := strings.ToLower(strings.TrimSpace(source))
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	return strings.TrimRight(s, "/")
}

// wooSiteKeys normalises the keys of a site map.
func wooSiteKeys(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[wooSiteKey(k)] = v
	}
	return out
}

// wooPing is the body WooCommerce posts, unsigned, when a webhook is created or
// activated; it must be answered 2xx or the webhook is not saved.
var wooPing = regexp.MustCompile(`^webhook_id=[0-9]{1,20}$`)

// maxWooSignatureHeader caps X-WC-Webhook-Signature (44 base64 characters).
const maxWooSignatureHeader = 256

// maxWooHeader caps the other WooCommerce headers the intake reads.
const maxWooHeader = 512

// handleWooCommerce verifies, maps and enqueues one WooCommerce order webhook.
func (s *Server) handleWooCommerce(w http.ResponseWriter, r *http.Request) (int, result, error) {
	cfg := s.cfg.WooCommerce
	if len(cfg.allSecrets()) == 0 {
		return http.StatusNotFound, result{}, nil
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return 0, result{}, err
	}
	sig := r.Header.Get(HeaderWooSignature)
	if sig == "" && wooPing.Match(body) {
		// Unsigned by design: nothing is enqueued, so nothing is trusted.
		return http.StatusOK, result{Status: outcomeIgnored, Reason: "webhook ping"}, nil
	}
	if err := verifyBase64HMAC(HeaderWooSignature, maxWooSignatureHeader, cfg.allSecrets(), sig, body); err != nil {
		return 0, result{}, err
	}
	var hdr [3]string
	for i, name := range []string{HeaderWooTopic, HeaderWooSource, HeaderWooDeliveryID} {
		v := strings.TrimSpace(r.Header.Get(name))
		if len(v) > maxWooHeader {
			return 0, result{}, headerTooLarge(name, maxWooHeader)
		}
		hdr[i] = v
	}
	topic, source, delivery := hdr[0], hdr[1], hdr[2]
	if topic == "" {
		return 0, result{}, badRequest(HeaderWooTopic + " header missing")
	}
	switch topic {
	case WooTopicCreated, WooTopicUpdated, WooTopicDeleted, WooTopicRestored:
	default:
		// WooCommerce disables a webhook after repeated failures: take and drop.
		return http.StatusOK, result{Status: outcomeIgnored, Reason: "topic not handled", Topic: topic}, nil
	}
	site := wooSiteKey(source)
	if site == "" {
		return 0, result{}, badRequest(HeaderWooSource + " header missing")
	}
	if len(cfg.SiteSecrets) > 0 {
		// Sites with secrets of their own: one site's secret cannot speak for another.
		if err := verifyBase64HMAC(HeaderWooSignature, maxWooSignatureHeader, ownOr(cfg.Secrets, cfg.SiteSecrets, site), sig, body); err != nil {
			return 0, result{}, unauthorized("site " + site + ": " + err.Error())
		}
	}
	store, ok := cfg.Stores[site]
	if !ok {
		store = cfg.DefaultStore
	}
	if store == "" {
		return 0, result{}, unprocessable(fmt.Sprintf("site %q is not mapped to a hub store", site))
	}
	domain, ok := cfg.Domains[site]
	if !ok {
		domain, _, _ = strings.Cut(site, "/")
	}

	var wo wooOrder
	if err := decodeJSON(body, &wo); err != nil {
		return 0, result{}, err
	}
	ev := event{endpoint: endpointWooCommerce, topic: topic, store: store, shop: site, deliveryID: delivery, planned: true}
	switch {
	case topic == WooTopicDeleted:
		// order.deleted carries {"id": N} alone.
		id, err := wooID(wo.ID)
		if err != nil {
			return 0, result{}, err
		}
		ev.order = &model.Order{OrderID: id, Domain: domain, LineItems: []model.LineItem{}}
		ev.plan = plan{push: OpDelete, stop: true}
	case cfg.Hidden() && wo.Status.str() == "checkout-draft":
		return http.StatusOK, result{Status: outcomeIgnored, Reason: "checkout draft", Topic: topic, Store: store}, nil
	case cfg.Hidden() && wooGone(wo.Status.str()):
		// A deletion needs no design reference: no fetch.
		id, err := wooID(wo.ID)
		if err != nil {
			return 0, result{}, err
		}
		ev.order = &model.Order{OrderID: id, Domain: domain, LineItems: []model.LineItem{}}
		ev.plan = plan{push: OpDelete, stop: true}
		if at, err := wooTime("date_modified_gmt", wo.DateModifiedGMT); err == nil {
			ev.stamp, _ = time.Parse(time.RFC3339Nano, at)
		}
	case cfg.Hidden():
		// The reference is under a hidden key, absent from this body: acknowledge now,
		// read the order through the API in a task.
		id, err := wooID(wo.ID)
		if err != nil {
			return 0, result{}, err
		}
		// The identity of this event: the order at this modification and status.
		ev.order = &model.Order{OrderID: id, Domain: domain, Updated: wo.DateModifiedGMT.str(), Status: wo.Status.str(), LineItems: []model.LineItem{}}
		ev.plan = plan{fetch: &jobs.OrderFetch{Platform: PlatformWooCommerce, Store: store, Shop: site, OrderID: id,
			Event: jobs.FetchOrder, Delivery: delivery,
			WooCommerce: &jobs.WooFetch{Domain: domain, Topic: topic, DesignKey: cfg.DesignMeta}}}
	default:
		o, p, skip, err := mapWooEvent(topic, &wo, wooMapping{domain: domain, designMeta: cfg.DesignMeta})
		if err != nil {
			return 0, result{}, err
		}
		if skip != "" {
			return http.StatusOK, result{Status: outcomeIgnored, Reason: skip, Topic: topic, Store: store, Order: o.OrderID}, nil
		}
		ev.order, ev.plan = o, p
	}
	status, res := s.process(r.Context(), ev)
	return status, res, nil
}

// wooOrder is the part of WooCommerce's REST order (/wc/v3/orders/{id}, also the
// webhook body) the hub order needs.
type wooOrder struct {
	ID              json.Number   `json:"id"`
	Status          nullString    `json:"status"`
	DateCreatedGMT  nullString    `json:"date_created_gmt"`
	DateModifiedGMT nullString    `json:"date_modified_gmt"`
	DatePaidGMT     nullString    `json:"date_paid_gmt"`
	Billing         *wooAddress   `json:"billing"`
	Shipping        *wooAddress   `json:"shipping"`
	LineItems       []wooLineItem `json:"line_items"`
}

type wooAddress struct {
	FirstName nullString `json:"first_name"`
	LastName  nullString `json:"last_name"`
	Company   nullString `json:"company"`
	Address1  nullString `json:"address_1"`
	Address2  nullString `json:"address_2"`
	City      nullString `json:"city"`
	State     nullString `json:"state"`
	Postcode  nullString `json:"postcode"`
	Country   nullString `json:"country"`
	Email     nullString `json:"email"`
	Phone     nullString `json:"phone"`
}

type wooLineItem struct {
	ID       json.Number    `json:"id"`
	Quantity json.Number    `json:"quantity"`
	Price    json.Number    `json:"price"`
	MetaData []wooMetaEntry `json:"meta_data"`
}

// wooMetaEntry is one line item meta. WooCommerce stores whatever a plugin put
// there: the value may be a string, a number or an object (an object is no
// reference and reads as "").
type wooMetaEntry struct {
	Key        nullString      `json:"key"`
	Value      json.RawMessage `json:"value"`
	DisplayKey nullString      `json:"display_key"`
}

func (m wooMetaEntry) value() string {
	var v nullString
	if json.Unmarshal(m.Value, &v) != nil {
		return ""
	}
	return v.str()
}

// wooMapping holds what mapping needs beyond the payload.
type wooMapping struct {
	domain     string
	designMeta string
}

// wooPaid reports whether an order is paid: WooCommerce's own paid statuses, or a
// payment date (an order on hold after payment keeps it).
func wooPaid(wo *wooOrder) bool {
	switch wo.Status.str() {
	case "processing", "completed":
		return true
	}
	return wo.DatePaidGMT.str() != ""
}

// mapWooEvent maps a WooCommerce order event (created, updated, restored) to the hub
// order and the plan that keeps the hub equal to the store: a checkout draft is not
// an order yet (skip names why); a cancelled or refunded order is deleted from the
// hub and its pending work stopped; any other order (pending, on hold, failed) is
// pushed, and exported once paid.
func mapWooEvent(topic string, wo *wooOrder, m wooMapping) (*model.Order, plan, string, error) {
	o, err := mapWooOrder(wo, m)
	if err != nil {
		return nil, plan{}, "", err
	}
	switch wo.Status.str() {
	case "checkout-draft":
		// The block checkout saves the cart as a draft order before the customer pays;
		// order.created fires for it. The real order follows as order.updated.
		return o, plan{}, "checkout draft", nil
	}
	if wooGone(wo.Status.str()) {
		return o, plan{push: OpDelete, stop: true}, "", nil
	}
	p := plan{push: OpUpdate, export: wooPaid(wo), restore: topic == WooTopicRestored}
	if topic == WooTopicCreated || topic == WooTopicRestored {
		p.push = OpCreate
	}
	return o, p, "", nil
}

// wooGone reports whether an order in status is off the hub: cancelled or refunded
// (the hub's copy is deleted, its pending work stopped).
func wooGone(status string) bool {
	switch status {
	case "cancelled", "refunded", "trash":
		return true
	}
	return false
}

// wooID reads an order id: a positive integer.
func wooID(id json.Number) (string, error) {
	n, err := strconv.ParseInt(string(id), 10, 64)
	if err != nil || n <= 0 {
		return "", badRequest(fmt.Sprintf("order id %q is not a positive integer", id))
	}
	return strconv.FormatInt(n, 10), nil
}

// mapWooOrder turns a WooCommerce REST order into the hub order of spec 2.1. Line
// items without a design reference are left out.
func mapWooOrder(wo *wooOrder, m wooMapping) (*model.Order, error) {
	id, err := wooID(wo.ID)
	if err != nil {
		return nil, err
	}
	created, err := wooTime("date_created_gmt", wo.DateCreatedGMT)
	if err != nil {
		return nil, err
	}
	updated := created
	if wo.DateModifiedGMT.str() != "" {
		if updated, err = wooTime("date_modified_gmt", wo.DateModifiedGMT); err != nil {
			return nil, err
		}
	}
	o := &model.Order{
		OrderID:         id,
		Domain:          m.domain,
		Created:         created,
		Updated:         updated,
		Email:           wooField(wo.Billing, func(a *wooAddress) nullString { return a.Email }).str(),
		Status:          wo.Status.str(),
		BillingDetails:  mapWooAddress(wo.Billing),
		ShippingDetails: mapWooAddress(wo.Shipping),
		LineItems:       []model.LineItem{},
	}
	// Guest checkouts with a shipping address only (local pickup, gifts) leave the
	// billing name empty.
	o.FirstName = firstOf(wooField(wo.Billing, func(a *wooAddress) nullString { return a.FirstName }),
		wooField(wo.Shipping, func(a *wooAddress) nullString { return a.FirstName }))
	o.LastName = firstOf(wooField(wo.Billing, func(a *wooAddress) nullString { return a.LastName }),
		wooField(wo.Shipping, func(a *wooAddress) nullString { return a.LastName }))
	for i, li := range wo.LineItems {
		ref, ok, err := wooLineRef(li.MetaData, m.designMeta)
		if err != nil {
			return nil, badRequest(fmt.Sprintf("line_items[%d]: %v", i, err))
		}
		if !ok {
			continue
		}
		qty, err := strconv.Atoi(string(li.Quantity))
		if err != nil || qty < 1 {
			return nil, badRequest(fmt.Sprintf("line_items[%d].quantity %q: a personalized line needs at least 1", i, li.Quantity))
		}
		price, err := linePrice(string(li.Price))
		if err != nil {
			return nil, badRequest(fmt.Sprintf("line_items[%d].price %v", i, err))
		}
		o.LineItems = append(o.LineItems, model.LineItem{ID: ref.ID, Token: ref.Token, Quantity: qty, Price: price})
	}
	return o, nil
}

// wooLineRef finds a line's design reference: the meta whose key (or display key,
// as the shop shows it) is name, else the first meta value shaped like a reference.
// A meta named name whose value is no valid reference is an error: the line is
// personalized and would silently go unprinted.
func wooLineRef(meta []wooMetaEntry, name string) (model.DesignRef, bool, error) {
	for _, e := range meta {
		if e.Key.str() != name && !strings.EqualFold(e.DisplayKey.str(), name) {
			continue
		}
		v := e.value()
		if v == "" {
			continue
		}
		r, err := model.ParseDesignRef(v)
		if err != nil {
			return model.DesignRef{}, false, fmt.Errorf("meta %q: %w", name, err)
		}
		return r, true, nil
	}
	for _, e := range meta {
		if v := e.value(); refPattern.MatchString(v) {
			if r, err := model.ParseDesignRef(v); err == nil {
				return r, true, nil
			}
		}
	}
	return model.DesignRef{}, false, nil
}

// wooTime reads a WooCommerce GMT date ("2024-03-14T13:00:00", no offset; RFC 3339
// is read too) into the hub's strict form.
func wooTime(field string, v nullString) (string, error) {
	if t, err := time.ParseInLocation("2006-01-02T15:04:05", v.str(), time.UTC); err == nil {
		return hub.FormatTimestamp(t), nil
	}
	return strictTime(field, v)
}

func mapWooAddress(a *wooAddress) model.Address {
	if a == nil {
		return model.Address{}
	}
	return model.Address{
		Address1:    a.Address1.str(),
		Address2:    a.Address2.str(),
		City:        a.City.str(),
		CompanyName: a.Company.str(),
		// WooCommerce keeps the ISO code only; the hub's country is free text.
		Country:     a.Country.str(),
		CountryCode: a.Country.str(),
		FirstName:   a.FirstName.str(),
		LastName:    a.LastName.str(),
		Phone:       a.Phone.str(),
		Province:    a.State.str(),
		Zip:         a.Postcode.str(),
	}
}

func wooField(a *wooAddress, f func(*wooAddress) nullString) nullString {
	if a == nil {
		return ""
	}
	return f(a)
}

// wooOrderURL is the REST address of one order with every item meta, hidden keys
// included.
func wooOrderURL(base, id string) string {
	return strings.TrimRight(base, "/") + "/wp-json/wc/v3/orders/" + url.PathEscape(id) + "?all_item_meta=true"
}

// orderRestorer is the optional part of an Enqueuer that lifts an order's deletion
// (*jobs.Enqueuer through JobsEnqueuer); without it a restored order stays deleted
// on the hub.
type orderRestorer interface {
	RestoreOrder(ctx context.Context, store string, o *model.Order) error
}
