package intake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// shopifyOrder is the part of Shopify's order webhook payload the hub order needs.
// Shopify sends null for absent objects (customer, addresses) and for unset strings;
// pointers and nullString keep "absent" apart from "empty" only as far as the mapping
// needs: the hub wants empty strings either way (spec 2.1).
type shopifyOrder struct {
	ID                json.Number `json:"id"`
	Name              nullString  `json:"name"`
	Email             nullString  `json:"email"`
	ContactEmail      nullString  `json:"contact_email"`
	CreatedAt         nullString  `json:"created_at"`
	UpdatedAt         nullString  `json:"updated_at"`
	CancelledAt       nullString  `json:"cancelled_at"`
	FinancialStatus   nullString  `json:"financial_status"`
	FulfillmentStatus nullString  `json:"fulfillment_status"`
	Tags              nullString  `json:"tags"`
	// Test is true for test orders (a test payment gateway, Shopify's
	// bogus gateway); read as raw JSON so an app writing "true" is understood.
	Test            json.RawMessage   `json:"test"`
	Customer        *shopifyCustomer  `json:"customer"`
	BillingAddress  *shopifyAddress   `json:"billing_address"`
	ShippingAddress *shopifyAddress   `json:"shipping_address"`
	LineItems       []shopifyLineItem `json:"line_items"`
}

type shopifyCustomer struct {
	Email     nullString `json:"email"`
	FirstName nullString `json:"first_name"`
	LastName  nullString `json:"last_name"`
}

type shopifyAddress struct {
	Address1    nullString `json:"address1"`
	Address2    nullString `json:"address2"`
	City        nullString `json:"city"`
	Company     nullString `json:"company"`
	Country     nullString `json:"country"`
	CountryCode nullString `json:"country_code"`
	FirstName   nullString `json:"first_name"`
	LastName    nullString `json:"last_name"`
	Phone       nullString `json:"phone"`
	Province    nullString `json:"province"`
	Zip         nullString `json:"zip"`
}

type shopifyLineItem struct {
	ID         json.Number     `json:"id"`
	Quantity   int             `json:"quantity"`
	Price      nullString      `json:"price"`
	Properties json.RawMessage `json:"properties"`
}

// nullString decodes a JSON string, null, number or boolean into a string ("" for
// null). Shopify is consistent about strings, but phone numbers and zips typed by
// other apps arrive as numbers often enough that refusing them would lose orders.
type nullString string

func (s *nullString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*s = ""
	case len(b) > 0 && b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = nullString(v)
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9' || b[0] == 't' || b[0] == 'f'):
		*s = nullString(b)
	default:
		return fmt.Errorf("want a string, got %.20s", b)
	}
	return nil
}

func (s nullString) str() string { return strings.TrimSpace(string(s)) }

// refPattern is the shape of a design reference found in a property of any name: a
// numeric design id, a point, and a UUID-shaped token.
var refPattern = regexp.MustCompile(`^\d+\.[0-9a-fA-F-]{36}$`)

// shopifyMapping holds what mapping needs beyond the payload.
type shopifyMapping struct {
	domain         string
	designProperty string
	status         string // overrides the derived status ("" derives it)
}

// mapShopifyOrder turns a Shopify order payload into the hub order of spec 2.1. Line
// items without a design reference are left out: the hub only knows personalized lines.
func mapShopifyOrder(so *shopifyOrder, m shopifyMapping) (*model.Order, error) {
	if so.ID == "" {
		return nil, badRequest("order has no id")
	}
	if _, err := strconv.ParseInt(string(so.ID), 10, 64); err != nil {
		return nil, badRequest(fmt.Sprintf("order id %q is not an integer", so.ID))
	}
	created, err := strictTime("created_at", so.CreatedAt)
	if err != nil {
		return nil, err
	}
	updated, err := strictTime("updated_at", so.UpdatedAt)
	if err != nil {
		return nil, err
	}
	o := &model.Order{
		OrderID:         string(so.ID),
		Domain:          m.domain,
		Created:         created,
		Updated:         updated,
		Email:           firstOf(so.Email, so.ContactEmail, customerField(so.Customer, func(c *shopifyCustomer) nullString { return c.Email })),
		Status:          m.status,
		BillingDetails:  mapAddress(so.BillingAddress),
		ShippingDetails: mapAddress(so.ShippingAddress),
		LineItems:       []model.LineItem{},
	}
	// Names: the customer's, else the billing address's, else the shipping
	// address's (guest checkouts and POS orders often have no customer).
	o.FirstName = firstOf(customerField(so.Customer, func(c *shopifyCustomer) nullString { return c.FirstName }),
		addrField(so.BillingAddress, func(a *shopifyAddress) nullString { return a.FirstName }),
		addrField(so.ShippingAddress, func(a *shopifyAddress) nullString { return a.FirstName }))
	o.LastName = firstOf(customerField(so.Customer, func(c *shopifyCustomer) nullString { return c.LastName }),
		addrField(so.BillingAddress, func(a *shopifyAddress) nullString { return a.LastName }),
		addrField(so.ShippingAddress, func(a *shopifyAddress) nullString { return a.LastName }))
	if o.Status == "" {
		o.Status = withRush(shopifyStatus(so), so.Tags.str())
	}
	for i, li := range so.LineItems {
		ref, ok, err := lineItemRef(li.Properties, m.designProperty)
		if err != nil {
			return nil, badRequest(fmt.Sprintf("line_items[%d]: %v", i, err))
		}
		if !ok {
			continue
		}
		price, err := linePrice(li.Price.str())
		if err != nil {
			return nil, badRequest(fmt.Sprintf("line_items[%d].price %v", i, err))
		}
		if li.Quantity < 1 {
			// The hub refuses a line without a copy to print (spec 2.3): a push
			// would fail on every retry.
			return nil, badRequest(fmt.Sprintf("line_items[%d].quantity %d: a personalized line needs at least 1", i, li.Quantity))
		}
		o.LineItems = append(o.LineItems, model.LineItem{ID: ref.ID, Token: ref.Token, Quantity: li.Quantity, Price: price})
	}
	return o, nil
}

// linePrice reads a Shopify price (a decimal string, "" for none). strconv also
// reads "NaN", "Inf" and "Infinity", which no JSON can carry to the hub: they once
// failed later, as a 503 that Shopify retried for hours.
func linePrice(p string) (float64, error) {
	if p == "" {
		return 0, nil
	}
	price, err := strconv.ParseFloat(p, 64)
	if err != nil || math.IsNaN(price) || math.IsInf(price, 0) || price < 0 {
		return 0, fmt.Errorf("%q is not a finite non-negative number", p)
	}
	return price, nil
}

// shopifyStatus is the hub's free-form status: "cancelled" for a cancelled order, else
// the financial status (pending, paid, refunded...), with the fulfillment status
// appended when there is one ("paid/fulfilled").
func shopifyStatus(so *shopifyOrder) string {
	if so.CancelledAt.str() != "" {
		return "cancelled"
	}
	s := so.FinancialStatus.str()
	if f := so.FulfillmentStatus.str(); f != "" {
		if s == "" {
			return f
		}
		s += "/" + f
	}
	return s
}

// strictTime converts a Shopify timestamp (RFC 3339 with the shop's offset) to the
// hub's strict form: UTC with milliseconds and Z.
func strictTime(field string, v nullString) (string, error) {
	s := v.str()
	if s == "" {
		return "", badRequest(field + " is missing")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", badRequest(fmt.Sprintf("%s %q is not an RFC 3339 timestamp", field, s))
	}
	return hub.FormatTimestamp(t), nil
}

func mapAddress(a *shopifyAddress) model.Address {
	if a == nil {
		return model.Address{}
	}
	return model.Address{
		Address1:    a.Address1.str(),
		Address2:    a.Address2.str(),
		City:        a.City.str(),
		CompanyName: a.Company.str(),
		Country:     a.Country.str(),
		CountryCode: a.CountryCode.str(),
		FirstName:   a.FirstName.str(),
		LastName:    a.LastName.str(),
		Phone:       a.Phone.str(),
		Province:    a.Province.str(),
		Zip:         a.Zip.str(),
	}
}

func customerField(c *shopifyCustomer, f func(*shopifyCustomer) nullString) nullString {
	if c == nil {
		return ""
	}
	return f(c)
}

func addrField(a *shopifyAddress, f func(*shopifyAddress) nullString) nullString {
	if a == nil {
		return ""
	}
	return f(a)
}

func firstOf(vs ...nullString) string {
	for _, v := range vs {
		if s := v.str(); s != "" {
			return s
		}
	}
	return ""
}

// lineItemRef finds the design reference of a line item: the property named name,
// else the first property whose value is shaped like a reference. Shopify sends
// properties as [{name, value}]; an object {name: value} (older apps, the storefront
// cart) is read too. A property named name whose value is not a valid reference is an
// error: the line is personalized and would silently go unprinted.
func lineItemRef(raw json.RawMessage, name string) (model.DesignRef, bool, error) {
	props, err := decodeProperties(raw)
	if err != nil {
		return model.DesignRef{}, false, err
	}
	return refIn(props, name)
}

// refIn finds the design reference among a line's name/value pairs: the one named
// name, else the first value shaped like a reference (the store mappings share it).
func refIn(props []property, name string) (model.DesignRef, bool, error) {
	for _, p := range props {
		if p.name == name && p.value != "" {
			r, err := model.ParseDesignRef(p.value)
			if err != nil {
				return model.DesignRef{}, false, fmt.Errorf("property %q: %w", name, err)
			}
			return r, true, nil
		}
	}
	for _, p := range props {
		if refPattern.MatchString(p.value) {
			if r, err := model.ParseDesignRef(p.value); err == nil {
				return r, true, nil
			}
		}
	}
	return model.DesignRef{}, false, nil
}

type property struct{ name, value string }

func decodeProperties(raw json.RawMessage) ([]property, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if raw[0] == '{' {
		// An object: keep key order, it decides which reference-shaped value wins.
		dec := json.NewDecoder(bytes.NewReader(raw))
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("properties: %w", err)
		}
		var out []property
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("properties: %w", err)
			}
			var v nullString
			if err := dec.Decode(&v); err != nil {
				// Values of other shapes (objects, arrays) cannot be references.
				continue
			}
			out = append(out, property{name: k.(string), value: v.str()})
		}
		return out, nil
	}
	var list []struct {
		Name  nullString      `json:"name"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("properties: want [{name, value}]: %w", err)
	}
	out := make([]property, 0, len(list))
	for _, p := range list {
		var v nullString
		if json.Unmarshal(p.Value, &v) != nil {
			continue
		}
		out = append(out, property{name: p.Name.str(), value: v.str()})
	}
	return out, nil
}
