package intake

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/printworker/printworker/model"
)

// PlatformWix names Wix (its webhooks carry the whole order: no fetch).
const PlatformWix = "wix"

const endpointWix = PlatformWix

// Wix eCommerce order events (eventType of the webhook envelope).
const (
	WixEventApproved      = "wix.ecom.v1.order_approved"
	WixEventPaymentStatus = "wix.ecom.v1.order_payment_status_updated"
	WixEventUpdated       = "wix.ecom.v1.order_updated"
	WixEventCanceled      = "wix.ecom.v1.order_canceled"
)

// DefaultWixDesignField is the default title of the custom text field holding the
// design reference.
const DefaultWixDesignField = "design"

// wixAnswerBudget bounds the intake's work on one Wix webhook: Wix waits 1,250 ms
// for the answer and retries after that, so the enqueue gets less than the rest of
// the intake's --enqueue-timeout.
const wixAnswerBudget = time.Second

// wixClockSkew is how long after its exp claim a Wix JWT is still taken (clocks
// differ; Wix retries late deliveries with the token it signed first).
const wixClockSkew = 5 * time.Minute

// Wix configures POST /webhooks/wix.
type Wix struct {
	// PublicKeys are the app's public keys (PEM, "PUBLIC KEY" or "RSA PUBLIC KEY"
	// blocks; several for rotation) verifying the RS256 JWT that is the body. None
	// disables the endpoint (404).
	PublicKeys []*rsa.PublicKey
	// DesignField is the title of the line item's custom text field holding the
	// design reference (catalogReference.options.customTextFields), matched
	// case-insensitively (default "design").
	DesignField string
	// Stores maps an app instance id (instanceId of the envelope, one per site) to
	// the hub store id; DefaultStore serves every instance not listed (neither: 422).
	Stores       map[string]string
	DefaultStore string
	// Domains maps an instance id to the order domain sent to the hub; an unlisted
	// instance sends its instance id.
	Domains map[string]string
}

func (c Wix) validate() []error {
	var errs []error
	if strings.TrimSpace(c.DesignField) == "" {
		errs = append(errs, errors.New("intake: wix design field must not be empty"))
	}
	for instance, store := range c.Stores {
		if instance == "" || store == "" {
			errs = append(errs, fmt.Errorf("intake: wix store mapping %q=%q: both sides needed", instance, store))
		}
	}
	return errs
}

// Bounds of the RSA keys taken: smaller keys are weak; larger ones cost more CPU
// per verification than a webhook endpoint should spend on an unauthenticated body.
const (
	minWixKeyBits = 2048
	maxWixKeyBits = 8192
)

// ParseWixPublicKeys reads every PEM block of pemText as an RSA public key (PKIX
// "PUBLIC KEY" or PKCS #1 "RSA PUBLIC KEY"), 2048 to 8192 bits.
func ParseWixPublicKeys(pemText []byte) ([]*rsa.PublicKey, error) {
	var keys []*rsa.PublicKey
	rest := pemText
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		var pub any
		var err error
		switch b.Type {
		case "PUBLIC KEY":
			pub, err = x509.ParsePKIXPublicKey(b.Bytes)
		case "RSA PUBLIC KEY":
			pub, err = x509.ParsePKCS1PublicKey(b.Bytes)
		default:
			return nil, fmt.Errorf("wix public key: a PEM block of type %q, want PUBLIC KEY", b.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("wix public key: %w", err)
		}
		k, ok := pub.(*rsa.PublicKey)
		if !ok {
			return nil, fmt.Errorf("wix public key: %T, want RSA (Wix signs with RS256)", pub)
		}
		if n := k.N.BitLen(); n < minWixKeyBits || n > maxWixKeyBits {
			return nil, fmt.Errorf("wix public key: %d bits, want %d to %d", n, minWixKeyBits, maxWixKeyBits)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, errors.New("wix public key: no PEM block found")
	}
	return keys, nil
}

// maxJWTHeader caps the JWT header segment (base64): Wix's is {"alg":"RS256",
// "typ":"JWT", "kid":...}, well under it.
const maxJWTHeader = 1024

// verifyRS256 checks a compact JWT signed with RS256 by one of keys and returns its
// payload. Only RS256 is taken ("none", HS256 with the public key as secret and
// every other algorithm are refused before any key is tried), and every segment is
// length-checked before it is decoded: one unauthenticated body costs at most one
// RSA verification per key.
func verifyRS256(keys []*rsa.PublicKey, token []byte) ([]byte, error) {
	token = bytes.TrimSpace(token)
	parts := bytes.SplitN(token, []byte("."), 4)
	if len(parts) != 3 {
		return nil, unauthorized("body is not a compact JWT (three segments)")
	}
	if len(parts[0]) > maxJWTHeader {
		return nil, unauthorized("JWT header segment too long")
	}
	hdr, err := base64.RawURLEncoding.DecodeString(string(parts[0]))
	if err != nil {
		return nil, unauthorized("JWT header is not base64url")
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(hdr, &h) != nil || h.Alg != "RS256" {
		return nil, unauthorized(fmt.Sprintf("JWT algorithm %.20q, want RS256", h.Alg))
	}
	// An RS256 signature is as long as the key's modulus.
	if len(parts[2]) > base64.RawURLEncoding.EncodedLen(maxWixKeyBits/8) {
		return nil, unauthorized("JWT signature too long")
	}
	sig, err := base64.RawURLEncoding.DecodeString(string(parts[2]))
	if err != nil {
		return nil, unauthorized("JWT signature is not base64url")
	}
	digest := sha256.Sum256(token[:len(parts[0])+1+len(parts[1])])
	ok := false
	for _, k := range keys {
		if len(sig) == k.Size() && rsa.VerifyPKCS1v15(k, crypto.SHA256, digest[:], sig) == nil {
			ok = true
			break
		}
	}
	if !ok {
		return nil, unauthorized("JWT signature matches no configured wix public key")
	}
	payload, err := base64.RawURLEncoding.DecodeString(string(parts[1]))
	if err != nil {
		return nil, badRequest("JWT payload is not base64url")
	}
	return payload, nil
}

// wixEnvelope is the verified JWT's payload and the two JSON strings nested in it:
// {data: "{eventType, instanceId, data: \"{id, entityId, slug, actionEvent...}\"}"}.
type wixEnvelope struct {
	Data string `json:"data"`
	Exp  *int64 `json:"exp"`
}

type wixEventEnvelope struct {
	EventType  string `json:"eventType"`
	InstanceID string `json:"instanceId"`
	Data       string `json:"data"`
}

type wixEvent struct {
	ID          string `json:"id"`
	EntityID    string `json:"entityId"`
	Slug        string `json:"slug"`
	ActionEvent *struct {
		Body struct {
			Order *wixOrder `json:"order"`
		} `json:"body"`
	} `json:"actionEvent"`
	UpdatedEvent *struct {
		CurrentEntity *wixOrder `json:"currentEntity"`
	} `json:"updatedEvent"`
}

// wixOrder is the part of an eCommerce order (wix.ecom.v1.order) the hub order needs.
type wixOrder struct {
	ID            nullString `json:"id"`
	Number        nullString `json:"number"`
	CreatedDate   nullString `json:"createdDate"`
	UpdatedDate   nullString `json:"updatedDate"`
	Status        nullString `json:"status"`
	PaymentStatus nullString `json:"paymentStatus"`
	BuyerInfo     *struct {
		Email nullString `json:"email"`
	} `json:"buyerInfo"`
	BillingInfo  *wixAddressWithContact `json:"billingInfo"`
	ShippingInfo *struct {
		Logistics *struct {
			ShippingDestination *wixAddressWithContact `json:"shippingDestination"`
		} `json:"logistics"`
	} `json:"shippingInfo"`
	LineItems []wixLineItem `json:"lineItems"`
}

type wixAddressWithContact struct {
	Address *struct {
		AddressLine1 nullString `json:"addressLine1"`
		AddressLine2 nullString `json:"addressLine2"`
		City         nullString `json:"city"`
		Subdivision  nullString `json:"subdivision"`
		Country      nullString `json:"country"`
		PostalCode   nullString `json:"postalCode"`
	} `json:"address"`
	ContactDetails *struct {
		FirstName nullString `json:"firstName"`
		LastName  nullString `json:"lastName"`
		Phone     nullString `json:"phone"`
		Company   nullString `json:"company"`
	} `json:"contactDetails"`
}

type wixLineItem struct {
	Quantity json.Number `json:"quantity"`
	Price    *struct {
		Amount nullString `json:"amount"`
	} `json:"price"`
	CatalogReference *struct {
		Options *struct {
			CustomTextFields map[string]json.RawMessage `json:"customTextFields"`
		} `json:"options"`
	} `json:"catalogReference"`
}

// handleWix verifies, maps and enqueues one Wix eCommerce order webhook.
func (s *Server) handleWix(w http.ResponseWriter, r *http.Request) (int, result, error) {
	cfg := s.cfg.Wix
	if len(cfg.PublicKeys) == 0 {
		return http.StatusNotFound, result{}, nil
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return 0, result{}, err
	}
	payload, err := verifyRS256(cfg.PublicKeys, body)
	if err != nil {
		return 0, result{}, err
	}
	ev, skip, err := s.wixEvent(payload)
	if err != nil {
		return 0, result{}, err
	}
	if skip != "" {
		return http.StatusOK, result{Status: outcomeIgnored, Reason: skip, Topic: ev.topic, Store: ev.store}, nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), wixAnswerBudget)
	defer cancel()
	status, res := s.process(ctx, ev)
	return status, res, nil
}

// wixEvent decodes a verified payload into an event; skip names why an event is
// taken and dropped (another event type, an order not approved yet).
func (s *Server) wixEvent(payload []byte) (event, string, error) {
	cfg := s.cfg.Wix
	var env wixEnvelope
	if err := decodeJSON(payload, &env); err != nil {
		return event{}, "", err
	}
	if env.Exp != nil && s.now().Unix() > *env.Exp+int64(wixClockSkew/time.Second) {
		return event{}, "", unauthorized("JWT expired")
	}
	var ee wixEventEnvelope
	if err := decodeJSON([]byte(env.Data), &ee); err != nil {
		return event{}, "", err
	}
	ev := event{endpoint: endpointWix, topic: ee.EventType, planned: true}
	switch ee.EventType {
	case WixEventApproved, WixEventPaymentStatus, WixEventUpdated, WixEventCanceled:
	default:
		return ev, "event not handled", nil
	}
	instance := strings.TrimSpace(ee.InstanceID)
	store, ok := cfg.Stores[instance]
	if !ok {
		store = cfg.DefaultStore
	}
	if store == "" {
		return ev, "", unprocessable(fmt.Sprintf("wix instance %q is not mapped to a hub store", instance))
	}
	ev.store = store
	domain, ok := cfg.Domains[instance]
	if !ok {
		domain = instance
	}
	var we wixEvent
	if err := decodeJSON([]byte(ee.Data), &we); err != nil {
		return ev, "", err
	}
	ev.deliveryID = strings.TrimSpace(we.ID)
	var wo *wixOrder
	switch {
	case we.ActionEvent != nil:
		wo = we.ActionEvent.Body.Order
	case we.UpdatedEvent != nil:
		wo = we.UpdatedEvent.CurrentEntity
	}
	if wo == nil {
		return ev, "", badRequest("event carries no order")
	}
	o, p, skip, err := mapWixEvent(ee.EventType, wo, wixMapping{domain: domain, designField: cfg.DesignField})
	if err != nil {
		return ev, "", err
	}
	ev.order, ev.plan = o, p
	return ev, skip, nil
}

type wixMapping struct {
	domain      string
	designField string
}

// mapWixEvent maps a Wix order event to the hub order and the plan that keeps the
// hub equal to the store: an order not approved yet is skipped; a cancelled or
// fully refunded one is deleted with its work stopped; an approved one is pushed
// (created on approval, updated after) and exported once paid.
func mapWixEvent(eventType string, wo *wixOrder, m wixMapping) (*model.Order, plan, string, error) {
	o, err := mapWixOrder(wo, m)
	if err != nil {
		return nil, plan{}, "", err
	}
	status, pay := strings.ToUpper(wo.Status.str()), strings.ToUpper(wo.PaymentStatus.str())
	switch {
	case eventType == WixEventCanceled || status == "CANCELED" || pay == "FULLY_REFUNDED":
		return o, plan{push: OpDelete, stop: true}, "", nil
	case status != "APPROVED" && eventType != WixEventApproved:
		// INITIALIZED: a checkout not turned into an order yet.
		return o, plan{}, "order not approved", nil
	}
	p := plan{push: OpUpdate, export: pay == "PAID" || pay == "PARTIALLY_REFUNDED"}
	if eventType == WixEventApproved {
		p.push = OpCreate
	}
	return o, p, "", nil
}

// mapWixOrder turns a Wix eCommerce order into the hub order of spec 2.1.
func mapWixOrder(wo *wixOrder, m wixMapping) (*model.Order, error) {
	id := wo.ID.str()
	if id == "" || len(id) > 64 {
		return nil, badRequest("order id missing or longer than 64 characters")
	}
	created, err := strictTime("createdDate", wo.CreatedDate)
	if err != nil {
		return nil, err
	}
	updated := created
	if wo.UpdatedDate.str() != "" {
		if updated, err = strictTime("updatedDate", wo.UpdatedDate); err != nil {
			return nil, err
		}
	}
	var ship *wixAddressWithContact
	if wo.ShippingInfo != nil && wo.ShippingInfo.Logistics != nil {
		ship = wo.ShippingInfo.Logistics.ShippingDestination
	}
	o := &model.Order{
		OrderID:         id,
		Domain:          m.domain,
		Created:         created,
		Updated:         updated,
		Status:          strings.ToLower(wo.Status.str() + "/" + wo.PaymentStatus.str()),
		BillingDetails:  mapWixAddress(wo.BillingInfo),
		ShippingDetails: mapWixAddress(ship),
		LineItems:       []model.LineItem{},
	}
	if wo.BuyerInfo != nil {
		o.Email = wo.BuyerInfo.Email.str()
	}
	o.FirstName = firstOf(nullString(o.BillingDetails.FirstName), nullString(o.ShippingDetails.FirstName))
	o.LastName = firstOf(nullString(o.BillingDetails.LastName), nullString(o.ShippingDetails.LastName))
	for i, li := range wo.LineItems {
		ref, ok, err := wixLineRef(li, m.designField)
		if err != nil {
			return nil, badRequest(fmt.Sprintf("lineItems[%d]: %v", i, err))
		}
		if !ok {
			continue
		}
		qty, err := strconv.Atoi(string(li.Quantity))
		if err != nil || qty < 1 {
			return nil, badRequest(fmt.Sprintf("lineItems[%d].quantity %q: a personalized line needs at least 1", i, li.Quantity))
		}
		var amount string
		if li.Price != nil {
			amount = li.Price.Amount.str()
		}
		price, err := linePrice(amount)
		if err != nil {
			return nil, badRequest(fmt.Sprintf("lineItems[%d].price.amount %v", i, err))
		}
		o.LineItems = append(o.LineItems, model.LineItem{ID: ref.ID, Token: ref.Token, Quantity: qty, Price: price})
	}
	return o, nil
}

// wixLineRef finds a line's design reference among its custom text fields: the
// field titled name (any case), else the first value shaped like a reference. Map
// order is random in Go, so the fallback takes the smallest matching title, the
// same one on every delivery.
func wixLineRef(li wixLineItem, name string) (model.DesignRef, bool, error) {
	if li.CatalogReference == nil || li.CatalogReference.Options == nil {
		return model.DesignRef{}, false, nil
	}
	fields := li.CatalogReference.Options.CustomTextFields
	fallback := ""
	for title, raw := range fields {
		var v nullString
		if json.Unmarshal(raw, &v) != nil || v.str() == "" {
			continue
		}
		if strings.EqualFold(strings.TrimSpace(title), name) {
			r, err := model.ParseDesignRef(v.str())
			if err != nil {
				return model.DesignRef{}, false, fmt.Errorf("custom text field %q: %w", title, err)
			}
			return r, true, nil
		}
		if refPattern.MatchString(v.str()) && (fallback == "" || title < fallback) {
			fallback = title
		}
	}
	if fallback != "" {
		var v nullString
		_ = json.Unmarshal(fields[fallback], &v)
		if r, err := model.ParseDesignRef(v.str()); err == nil {
			return r, true, nil
		}
	}
	return model.DesignRef{}, false, nil
}

func mapWixAddress(a *wixAddressWithContact) model.Address {
	var out model.Address
	if a == nil {
		return out
	}
	if ad := a.Address; ad != nil {
		country := ad.Country.str()
		out.Address1, out.Address2, out.City = ad.AddressLine1.str(), ad.AddressLine2.str(), ad.City.str()
		out.Country, out.CountryCode, out.Zip = country, country, ad.PostalCode.str()
		// Wix sends ISO 3166-2 subdivisions ("US-NY"); the hub's province is the
		// part after the country.
		out.Province = strings.TrimPrefix(ad.Subdivision.str(), country+"-")
	}
	if c := a.ContactDetails; c != nil {
		out.FirstName, out.LastName, out.Phone, out.CompanyName = c.FirstName.str(), c.LastName.str(), c.Phone.str(), c.Company.str()
	}
	return out
}
