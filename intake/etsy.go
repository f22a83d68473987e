package intake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// PlatformEtsy names Etsy in fetch tasks and metrics.
const PlatformEtsy = "etsy"

const endpointEtsy = PlatformEtsy

// Etsy configures POST /webhooks/etsy, the receipt fetches and the receipt poller.
type Etsy struct {
	// Secrets verify the Standard Webhooks signature: the "whsec_..." signing
	// secret of the app's webhook; several allow rotation. Empty disables the
	// endpoint (404); the poller works without it.
	Secrets []string
	// ShopID is the shop whose receipts are taken.
	ShopID string
	// Store is the hub store the orders go to; Domain the order domain sent to the
	// hub (default "etsy-<shop id>").
	Store, Domain string
	// APIKey (x-api-key) and Token (OAuth bearer, scope transactions_r) read receipts.
	APIKey, Token string
	// Shops are further shops served by the same deployment (the stores file).
	Shops []EtsyShop
	// APIURL is the API's base (default https://openapi.etsy.com).
	APIURL string
	// PollInterval polls getShopReceipts this often (0: webhooks only).
	PollInterval time.Duration
	// DesignVariation is the transaction variation whose formatted value is the
	// design reference (default "Personalization").
	DesignVariation string
}

func (e Etsy) enabled() bool { return len(e.allSecrets()) > 0 || e.PollInterval > 0 }

func (e Etsy) validate() []error {
	var errs []error
	if e.PollInterval < 0 {
		errs = append(errs, fmt.Errorf("intake: etsy poll interval %s is negative", e.PollInterval))
	}
	if !e.enabled() {
		return errs
	}
	for _, s := range e.Secrets {
		if !strings.HasPrefix(s, "whsec_") {
			errs = append(errs, errors.New(`intake: an etsy secret must start with "whsec_"`))
		}
	}
	if _, err := standardKeys(e.allSecrets()); err != nil {
		errs = append(errs, fmt.Errorf("intake: etsy secret: %w", err))
	}
	errs = append(errs, e.validateShops(false)...)
	if strings.TrimSpace(e.DesignVariation) == "" {
		errs = append(errs, errors.New("intake: etsy design variation must not be empty"))
	}
	return errs
}

// etsyWebhook is Etsy's webhook body: where the receipt is, not the receipt.
type etsyWebhook struct {
	EventType   string     `json:"event_type"`
	ResourceURL string     `json:"resource_url"`
	ShopID      nullString `json:"shop_id"`
}

// Etsy's event kinds, from either form of event_type ("order.paid" as Etsy sends
// it now, "ORDER_PAID" as its first documentation wrote it).
const (
	etsyFetch   = iota // read the receipt: its state decides (order.paid, other order events)
	etsyCancel         // order.canceled: stop the exports, delete the order from the hub
	etsyAck            // order.shipped, order.delivered: nothing to print again
	etsyIgnored        // not an order event
)

// etsyEventKind classifies an event type.
func etsyEventKind(eventType string) int {
	t := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(eventType), "_", "."))
	switch t {
	case "order.canceled", "order.cancelled":
		return etsyCancel
	case "order.shipped", "order.delivered":
		return etsyAck
	}
	if strings.HasPrefix(t, "order.") {
		return etsyFetch
	}
	return etsyIgnored
}

// handleEtsy verifies one Etsy webhook and enqueues what its event asks for: the
// fetch of its receipt, or its cancellation.
func (s *Server) handleEtsy(w http.ResponseWriter, r *http.Request) (int, result, error) {
	cfg := s.cfg.Etsy
	secrets := cfg.allSecrets()
	if len(secrets) == 0 {
		return http.StatusNotFound, result{}, nil
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return 0, result{}, err
	}
	webhookID, err := s.verifyStandardBody(r.Header, body, secrets)
	if err != nil {
		return 0, result{}, err
	}
	var wh etsyWebhook
	if err := decodeJSON(body, &wh); err != nil {
		return 0, result{}, err
	}
	kind := etsyEventKind(wh.EventType)
	if kind == etsyIgnored {
		return http.StatusOK, result{Status: outcomeIgnored, Reason: "event not handled", Topic: wh.EventType}, nil
	}
	shop, ok := cfg.shop(wh.ShopID.str())
	if !ok {
		return 0, result{}, unprocessable(fmt.Sprintf("shop %q is not a configured shop", wh.ShopID.str()))
	}
	if len(cfg.Shops) > 0 {
		// Several shops: the delivery must carry this shop's own secret.
		if _, err := s.verifyStandardBody(r.Header, body, shop.Secrets); err != nil {
			return 0, result{}, unauthorized("shop " + shop.ShopID + ": " + err.Error())
		}
	}
	receipt, err := etsyReceiptID(wh.ResourceURL, shop.ShopID, cfg.APIURL)
	if err != nil {
		return 0, result{}, err
	}
	switch kind {
	case etsyAck:
		s.log.InfoContext(r.Context(), "intake: etsy event acknowledged, nothing to print", "event", wh.EventType,
			"store", shop.Store, "order", receipt, "delivery", webhookID)
		return http.StatusOK, result{Status: outcomeAcknowledged, Reason: "nothing to print", Topic: wh.EventType,
			Store: shop.Store, Order: receipt}, nil
	case etsyCancel:
		// No read needed: the event says it all. Stamped when received (store order).
		status, res := s.process(r.Context(), event{endpoint: endpointEtsy, topic: wh.EventType, store: shop.Store,
			order:      &model.Order{OrderID: receipt, Domain: shop.domain(), LineItems: []model.LineItem{}},
			deliveryID: webhookID, plan: plan{push: OpDelete, stop: true}, planned: true})
		return status, res, nil
	}
	// Etsy retries a delivery under the same webhook-id.
	p := jobs.OrderFetch{Platform: PlatformEtsy, Store: shop.Store, Shop: shop.ShopID, OrderID: receipt,
		Event: jobs.FetchOrder, Delivery: webhookID}
	status, res := s.enqueueFetch(r.Context(), endpointEtsy, wh.EventType, p)
	return status, res, nil
}

// etsyHosts are Etsy's own API hosts: resource_url names one of them (the
// documentation writes api.etsy.com, deliveries openapi.etsy.com).
var etsyHosts = []string{"openapi.etsy.com", "api.etsy.com"}

// etsyReceiptID takes the receipt id out of a resource_url of the shop. The URL
// must be https on Etsy's API host (or the configured API's), and is never fetched
// itself: the worker builds the request from its own API base and the ids, so a
// webhook cannot point a worker anywhere.
func etsyReceiptID(resource, shop, apiURL string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil {
		return "", badRequest("resource_url is not a URL")
	}
	host := strings.ToLower(u.Host)
	allowed := slices.Contains(etsyHosts, host) && u.Scheme == "https"
	if api, err := url.Parse(apiURL); err == nil && api.Host != "" && strings.EqualFold(api.Host, u.Host) && api.Scheme == u.Scheme {
		allowed = true
	}
	if !allowed {
		return "", badRequest(fmt.Sprintf("resource_url host %q is not Etsy's API", u.Host))
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	n := len(parts)
	if n < 4 || parts[n-4] != "shops" || parts[n-2] != "receipts" {
		return "", badRequest("resource_url is not a shop receipt")
	}
	if parts[n-3] != shop {
		return "", unprocessable(fmt.Sprintf("resource_url names shop %q, not the delivery's shop", parts[n-3]))
	}
	if id, err := strconv.ParseUint(parts[n-1], 10, 64); err != nil || id == 0 {
		return "", badRequest("resource_url's receipt id is not a positive integer")
	}
	return parts[n-1], nil
}

// etsyReceipt is the part of a shop receipt the hub order needs.
type etsyReceipt struct {
	ReceiptID       json.Number       `json:"receipt_id"`
	Status          nullString        `json:"status"`
	IsPaid          bool              `json:"is_paid"`
	BuyerEmail      nullString        `json:"buyer_email"`
	Name            nullString        `json:"name"`
	FirstLine       nullString        `json:"first_line"`
	SecondLine      nullString        `json:"second_line"`
	City            nullString        `json:"city"`
	State           nullString        `json:"state"`
	Zip             nullString        `json:"zip"`
	CountryISO      nullString        `json:"country_iso"`
	CreateTimestamp json.Number       `json:"create_timestamp"`
	UpdateTimestamp json.Number       `json:"update_timestamp"`
	Transactions    []etsyTransaction `json:"transactions"`
}

type etsyTransaction struct {
	Quantity int `json:"quantity"`
	Price    *struct {
		Amount  int64 `json:"amount"`
		Divisor int64 `json:"divisor"`
	} `json:"price"`
	Variations []struct {
		FormattedName  nullString `json:"formatted_name"`
		FormattedValue nullString `json:"formatted_value"`
	} `json:"variations"`
}

// etsyState: cancelled and fully refunded receipts leave the hub; paid ones print;
// the rest wait.
func etsyState(r *etsyReceipt) orderState {
	switch strings.ToLower(r.Status.str()) {
	case "canceled", "cancelled", "fully refunded":
		return stateCancelled
	}
	if r.IsPaid {
		return statePaid
	}
	return stateUnpaid
}

func etsyTime(field string, v json.Number) (string, error) {
	sec, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || sec <= 0 || sec > 1<<40 {
		return "", badRequest(fmt.Sprintf("%s %q is not Unix seconds", field, v))
	}
	return hub.FormatTimestamp(time.Unix(sec, 0)), nil
}

// mapEtsyReceipt turns a receipt into the hub order of spec 2.1. Etsy has one
// address (shipping, which doubles as billing) and one name for it.
func mapEtsyReceipt(r *etsyReceipt, domain, variation string) (*model.Order, orderState, error) {
	if id, err := strconv.ParseUint(string(r.ReceiptID), 10, 64); err != nil || id == 0 {
		return nil, 0, badRequest(fmt.Sprintf("receipt_id %q is not a positive integer", r.ReceiptID))
	}
	created, err := etsyTime("create_timestamp", r.CreateTimestamp)
	if err != nil {
		return nil, 0, err
	}
	updated, err := etsyTime("update_timestamp", r.UpdateTimestamp)
	if err != nil {
		return nil, 0, err
	}
	first, last, _ := strings.Cut(r.Name.str(), " ")
	addr := model.Address{
		Address1: r.FirstLine.str(), Address2: r.SecondLine.str(), City: r.City.str(), Country: r.CountryISO.str(),
		CountryCode: r.CountryISO.str(), FirstName: first, LastName: strings.TrimSpace(last),
		Province: r.State.str(), Zip: r.Zip.str(),
	}
	o := &model.Order{
		OrderID: string(r.ReceiptID), Domain: domain, Created: created, Updated: updated,
		Email: r.BuyerEmail.str(), FirstName: addr.FirstName, LastName: addr.LastName,
		Status:         strings.ToLower(r.Status.str()),
		BillingDetails: addr, ShippingDetails: addr, LineItems: []model.LineItem{},
	}
	for i, t := range r.Transactions {
		props := make([]property, 0, len(t.Variations))
		for _, v := range t.Variations {
			name := v.FormattedName.str()
			if strings.EqualFold(name, variation) {
				name = variation
			}
			props = append(props, property{name: name, value: v.FormattedValue.str()})
		}
		ref, ok, err := refIn(props, variation)
		if err != nil {
			return nil, 0, badRequest(fmt.Sprintf("transactions[%d]: %v", i, err))
		}
		if !ok {
			continue
		}
		if t.Quantity < 1 {
			return nil, 0, badRequest(fmt.Sprintf("transactions[%d].quantity %d: a personalized line needs at least 1", i, t.Quantity))
		}
		var price float64
		if t.Price != nil {
			if t.Price.Amount < 0 || t.Price.Divisor <= 0 {
				return nil, 0, badRequest(fmt.Sprintf("transactions[%d].price %d/%d is not a price", i, t.Price.Amount, t.Price.Divisor))
			}
			price = float64(t.Price.Amount) / float64(t.Price.Divisor)
		}
		o.LineItems = append(o.LineItems, model.LineItem{ID: ref.ID, Token: ref.Token, Quantity: t.Quantity, Price: price})
	}
	return o, etsyState(r), nil
}

func etsyHeader(shop EtsyShop) http.Header {
	return http.Header{"X-Api-Key": {shop.APIKey}, "Authorization": {"Bearer " + shop.Token}}
}

func (f *Fetcher) etsyShopURL(shop EtsyShop) string {
	return strings.TrimRight(f.cfg.Etsy.APIURL, "/") + "/v3/application/shops/" + url.PathEscape(shop.ShopID)
}

// etsyReader reads Etsy receipts (the v3 open API).
type etsyReader struct{ f *Fetcher }

func (r etsyReader) readOrder(ctx context.Context, p jobs.OrderFetch) (fetched, error) {
	o, st, err := r.f.etsyReceipt(ctx, p)
	if err != nil {
		return fetched{}, err
	}
	return statePlan(o, st), nil
}

// etsyReceipt reads one receipt (getShopReceipt) and maps it.
func (f *Fetcher) etsyReceipt(ctx context.Context, p jobs.OrderFetch) (*model.Order, orderState, error) {
	shop, ok := f.cfg.Etsy.shop(p.Shop)
	if !ok {
		return nil, 0, &fetchError{platform: PlatformEtsy, what: "receipt " + p.OrderID,
			err: fmt.Errorf("shop %q is not a configured shop", p.Shop)}
	}
	var r etsyReceipt
	if err := f.getJSON(ctx, PlatformEtsy, "etsy:"+shop.ShopID, f.etsyShopURL(shop)+"/receipts/"+url.PathEscape(p.OrderID), etsyHeader(shop), &r); err != nil {
		return nil, 0, err
	}
	o, st, err := mapEtsyReceipt(&r, shop.domain(), f.cfg.Etsy.DesignVariation)
	if err != nil {
		return nil, 0, &fetchError{platform: PlatformEtsy, what: "receipt " + p.OrderID, err: err}
	}
	if o.OrderID != p.OrderID {
		return nil, 0, &fetchError{platform: PlatformEtsy, what: "receipt " + p.OrderID,
			err: fmt.Errorf("the API answered receipt %q", o.OrderID)}
	}
	return o, st, nil
}
