package storesim

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// WixOrder is a Wix eCommerce order (wix.ecom.v1.order) as far as printworker reads
// it.
type WixOrder struct {
	ID            string          `json:"id"`
	Number        string          `json:"number"`
	CreatedDate   string          `json:"createdDate"`
	UpdatedDate   string          `json:"updatedDate"`
	Status        string          `json:"status"`
	PaymentStatus string          `json:"paymentStatus"`
	BuyerInfo     WixBuyer        `json:"buyerInfo"`
	BillingInfo   WixAddressInfo  `json:"billingInfo"`
	ShippingInfo  WixShippingInfo `json:"shippingInfo"`
	LineItems     []WixLineItem   `json:"lineItems"`
}

// WixBuyer is the order's buyer.
type WixBuyer struct {
	Email     string `json:"email"`
	ContactID string `json:"contactId"`
}

// WixAddressInfo is an address with its contact details.
type WixAddressInfo struct {
	Address        WixAddress `json:"address"`
	ContactDetails WixContact `json:"contactDetails"`
}

// WixAddress is a postal address; Subdivision is ISO 3166-2 ("DE-NW").
type WixAddress struct {
	AddressLine1 string `json:"addressLine1"`
	AddressLine2 string `json:"addressLine2"`
	City         string `json:"city"`
	Subdivision  string `json:"subdivision"`
	Country      string `json:"country"`
	PostalCode   string `json:"postalCode"`
}

// WixContact is an address's contact.
type WixContact struct {
	FirstName string `json:"firstName"`
	LastName  string `json:"lastName"`
	Phone     string `json:"phone"`
	Company   string `json:"company"`
}

// WixShippingInfo holds the shipping destination.
type WixShippingInfo struct {
	Logistics struct {
		ShippingDestination WixAddressInfo `json:"shippingDestination"`
	} `json:"logistics"`
}

// WixLineItem is an order line; the customer's text is in
// CatalogReference.Options.CustomTextFields, by field title.
type WixLineItem struct {
	ID               string              `json:"id"`
	Quantity         int                 `json:"quantity"`
	Price            WixPrice            `json:"price"`
	CatalogReference WixCatalogReference `json:"catalogReference"`
}

// WixPrice is a money amount as Wix sends it: a decimal string.
type WixPrice struct {
	Amount string `json:"amount"`
}

// WixCatalogReference names the product and the buyer's options.
type WixCatalogReference struct {
	CatalogItemID string `json:"catalogItemId"`
	AppID         string `json:"appId"`
	Options       struct {
		CustomTextFields map[string]string `json:"customTextFields,omitempty"`
	} `json:"options"`
}

// Wix simulates the Wix side of an app's eCommerce webhooks: each event is a JWT
// signed RS256 with the app's private key, whose payload nests the event as JSON
// strings ({data: "{eventType, instanceId, data: \"{id, slug, actionEvent}\"}"}).
// Build it with NewWix; it is safe for concurrent use.
type Wix struct {
	// InstanceID is the app instance of the simulated site.
	InstanceID string

	key   *rsa.PrivateKey
	mu    sync.Mutex
	event int64
	now   func() time.Time
}

// NewWix returns a site with a fresh 2048-bit key pair.
func NewWix(instanceID string) (*Wix, error) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("storesim: wix key: %w", err)
	}
	return &Wix{InstanceID: instanceID, key: k, now: time.Now}, nil
}

// PublicKeyPEM is the app's public key as the Wix dashboard shows it (PKIX PEM).
func (x *Wix) PublicKeyPEM() []byte {
	der, _ := x509.MarshalPKIXPublicKey(&x.key.PublicKey)
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// WixDelivery is one webhook delivery: the JWT body and its event id. Posting it
// twice is a duplicate (same event id).
type WixDelivery struct {
	EventType string
	EventID   string
	Body      []byte
}

// Post sends d to url and returns the answer's status and body.
func (d WixDelivery) Post(ctx context.Context, c *http.Client, url string) (int, []byte, error) {
	h := http.Header{}
	h.Set("Content-Type", "text/plain")
	return post(ctx, c, url, d.Body, h)
}

// Event builds the signed delivery of an order event with a fresh event id:
// eventType wix.ecom.v1.order_approved, _payment_status_updated or _canceled carry
// the order as actionEvent.body.order, _updated as updatedEvent.currentEntity.
func (x *Wix) Event(eventType string, o WixOrder) WixDelivery {
	x.mu.Lock()
	x.event++
	id := fmt.Sprintf("evt-%08d-%s", x.event, o.ID)
	x.mu.Unlock()
	slug := eventType[len("wix.ecom.v1.order_"):]
	inner := map[string]any{"id": id, "entityFqdn": "wix.ecom.v1.order", "slug": slug, "entityId": o.ID,
		"eventTime": x.now().UTC().Format(time.RFC3339Nano)}
	if slug == "updated" {
		inner["updatedEvent"] = map[string]any{"currentEntity": o}
	} else {
		inner["actionEvent"] = map[string]any{"body": map[string]any{"order": o}}
	}
	innerJSON, _ := json.Marshal(inner)
	return WixDelivery{EventType: eventType, EventID: id, Body: x.Sign(eventType, innerJSON)}
}

// Sign wraps an event's data (JSON) in Wix's envelope and signs it: the JWT body
// of a delivery (tests build hostile ones with it).
func (x *Wix) Sign(eventType string, data []byte) []byte {
	mid, _ := json.Marshal(map[string]string{"eventType": eventType, "instanceId": x.InstanceID, "data": string(data)})
	now := x.now().Unix()
	claims, _ := json.Marshal(map[string]any{"data": string(mid), "iat": now, "exp": now + 3600})
	return SignRS256(x.key, claims)
}

// SignRS256 is a compact JWT of claims signed RS256 with k.
func SignRS256(k *rsa.PrivateKey, claims []byte) []byte {
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc.EncodeToString(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
	if err != nil {
		panic(err) // a valid key always signs
	}
	return []byte(signing + "." + enc.EncodeToString(sig))
}

// WixSampleOrder is an approved, paid order of two personalized lines (the
// reference in the custom text field titled field) and one plain line.
func WixSampleOrder(id string, field string, created time.Time) WixOrder {
	addr := WixAddressInfo{
		Address:        WixAddress{AddressLine1: "Hauptstraße 5", AddressLine2: "2. OG", City: "Köln", Subdivision: "DE-NW", Country: "DE", PostalCode: "50667"},
		ContactDetails: WixContact{FirstName: "Zoë", LastName: "Brandt", Phone: "+49 221 1234567", Company: "Brandt Druck"},
	}
	line := func(n int, qty int, amount, ref string) WixLineItem {
		li := WixLineItem{ID: "li-" + strconv.Itoa(n), Quantity: qty, Price: WixPrice{Amount: amount}}
		li.CatalogReference.CatalogItemID = "prod-" + strconv.Itoa(n)
		li.CatalogReference.AppID = "215238eb-22a5-4c36-9e7b-e7c08025e04e"
		if ref != "" {
			li.CatalogReference.Options.CustomTextFields = map[string]string{field: ref, "Gift note": "Happy birthday"}
		}
		return li
	}
	o := WixOrder{ID: id, Number: "10001", CreatedDate: created.UTC().Format(time.RFC3339Nano),
		UpdatedDate: created.Add(2 * time.Minute).UTC().Format(time.RFC3339Nano), Status: "APPROVED", PaymentStatus: "PAID",
		BuyerInfo: WixBuyer{Email: "zoe@example.com", ContactID: "c-1"}, BillingInfo: addr,
		LineItems: []WixLineItem{line(1, 2, "12.50", "1001.3f2504e0-4f89-11d3-9a0c-0305e82c3301"),
			line(2, 1, "20.00", "1002.9a1c7e52-3b0d-4c8e-8f5a-2d6b7c8e9f01"), line(3, 1, "10.00", "")}}
	o.ShippingInfo.Logistics.ShippingDestination = addr
	return o
}
