package hub

import (
	"context"
	"fmt"
	"github.com/printworker/printworker/model"
	"log/slog"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"time"
)

// TimestampLayout is the strict form of order timestamps: UTC, milliseconds, Z.
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// FormatTimestamp writes t in the strict form the hub expects for created/updated.
func FormatTimestamp(t time.Time) string { return t.UTC().Format(TimestampLayout) }

// ParseTimestamp reads the strict form and nothing else.
func ParseTimestamp(s string) (time.Time, error) {
	t, err := time.Parse(TimestampLayout, s)
	if err != nil || t.Format(TimestampLayout) != s {
		return time.Time{}, fmt.Errorf("timestamp %q: want the form 2024-01-02T03:04:05.000Z", s)
	}
	return t, nil
}

// HasCustomizations reports whether the order carries at least one line item with a
// valid design reference. Only such orders may be pushed (spec 1.3, 4.1 rule 2).
func HasCustomizations(o *model.Order) bool {
	if o == nil {
		return false
	}
	for _, li := range o.LineItems {
		if li.Ref().Validate() == nil {
			return true
		}
	}
	return false
}

// orderKeys and addressKeys are the required properties of 2.1 and 2.2.
var (
	orderKeys = []string{"billingDetails", "shippingDetails", "created", "updated", "domain",
		"email", "firstName", "lastName", "lineItems", "orderId", "status"}
	addressKeys = []string{"address1", "address2", "city", "companyName", "country",
		"countryCode", "firstName", "lastName", "phone", "province", "zip"}
)

// ValidateOrder checks an order before it is pushed, reporting every problem at once
// as a *ValidationError:
//   - every required property present: an empty string is a value, a missing key or
//     null is not (checked on orders decoded from JSON, see Order.Has);
//   - orderId not empty (it is the order's identity and URL path segment);
//   - email a bare valid address (net/mail), no display name; not empty, since
//     the spec requires a valid address and the hub rejects an empty one;
//   - domain in domains (case-insensitive) when domains is not empty;
//   - created and updated in the strict form 2006-01-02T15:04:05.000Z;
//   - each line item: positive design id, valid token, quantity at least 1, price not
//     negative.
func ValidateOrder(o *model.Order, domains []string) error {
	if o == nil {
		return &ValidationError{What: "order", Fields: []FieldError{{Field: "order", Reason: "missing"}}}
	}
	var fe []FieldError
	add := func(field, reason string) { fe = append(fe, FieldError{Field: field, Reason: reason}) }
	for _, k := range orderKeys {
		if !o.Has(k) {
			add(k, "required property is missing or null")
		}
	}
	for _, a := range []struct {
		key  string
		addr *model.Address
	}{{"billingDetails", &o.BillingDetails}, {"shippingDetails", &o.ShippingDetails}} {
		if !o.Has(a.key) {
			continue
		}
		for _, k := range addressKeys {
			if !a.addr.Has(k) {
				add(a.key+"."+k, "required property is missing or null")
			}
		}
	}
	if o.Has("orderId") && strings.TrimSpace(o.OrderID) == "" {
		add("orderId", "must not be empty")
	}
	if o.Has("email") {
		if a, err := mail.ParseAddress(o.Email); err != nil || a.Address != o.Email || a.Name != "" {
			add("email", fmt.Sprintf("%q is not a valid e-mail address", o.Email))
		}
	}
	if !headerSafe(o.Domain) {
		// v1 sends the domain in a header.
		add("domain", "holds control characters")
	} else if len(domains) > 0 && o.Has("domain") && !domainAllowed(o.Domain, domains) {
		add("domain", fmt.Sprintf("%q is not one of the configured domains %v", o.Domain, domains))
	}
	for _, ts := range []struct{ key, v string }{{"created", o.Created}, {"updated", o.Updated}} {
		if !o.Has(ts.key) {
			continue
		}
		if _, err := ParseTimestamp(ts.v); err != nil {
			add(ts.key, err.Error())
		}
	}
	for i, li := range o.LineItems {
		p := fmt.Sprintf("lineItems[%d]", i)
		if li.ID <= 0 {
			add(p+".id", "design id must be a positive integer")
		}
		if err := (model.DesignRef{ID: 1, Token: li.Token}).Validate(); err != nil {
			add(p+".token", "token must be 1..128 characters of [A-Za-z0-9_-]")
		}
		if li.Quantity < 1 {
			add(p+".quantity", "must be at least 1")
		}
		if li.Price < 0 || li.Price != li.Price {
			add(p+".price", "must be a non-negative number")
		}
	}
	if len(fe) == 0 {
		return nil
	}
	return &ValidationError{What: "order " + fmt.Sprintf("%q", o.OrderID), Fields: fe}
}

func domainAllowed(d string, domains []string) bool {
	for _, x := range domains {
		if strings.EqualFold(strings.TrimSpace(x), strings.TrimSpace(d)) && d != "" {
			return true
		}
	}
	return false
}

// orderCall builds the call of an order operation. v1 sent the order's domain in a
// header (spec 9); it is sent there on every v1 order call.
func (c *Client) orderCall(op, method, orderID, domain string, body any) call {
	ep := c.cfg.Orders
	k := call{op: op, method: method, ep: ep, path: OrderPath(ep.Version, orderID),
		parts: OrderParts(c.cfg.Store, orderIDPart(orderID, body)), body: body}
	if ep.Version == V1 {
		k.domain = domain
	}
	return k
}

// orderIDPart is the order id that is signed: the path's, or on create the body's.
func orderIDPart(pathID string, body any) string {
	if pathID != "" {
		return pathID
	}
	if o, ok := body.(*model.Order); ok {
		return o.OrderID
	}
	return ""
}

// CreateOrder pushes a new order: POST /{v}/orders. It sends o as given; callers
// normally use PushOrder, which validates and converges duplicates.
func (c *Client) CreateOrder(ctx context.Context, o *model.Order) error {
	if o == nil || o.OrderID == "" {
		return &ValidationError{What: "order", Fields: []FieldError{{Field: "orderId", Reason: "must not be empty"}}}
	}
	k := c.orderCall(OpCreateOrder, http.MethodPost, "", o.Domain, o)
	return c.do(ctx, k, nil)
}

// UpdateOrder replaces a pushed order with the full body, domain included:
// POST /{v}/orders/:orderId.
func (c *Client) UpdateOrder(ctx context.Context, o *model.Order) error {
	if o == nil || o.OrderID == "" {
		return &ValidationError{What: "order", Fields: []FieldError{{Field: "orderId", Reason: "must not be empty"}}}
	}
	k := c.orderCall(OpUpdateOrder, http.MethodPost, o.OrderID, o.Domain, o)
	return c.do(ctx, k, nil)
}

// DeleteOrder removes a pushed order: DELETE /{v}/orders/:orderId. Delete has no body,
// so the domain completing the order's identity goes in the query (?domain=) or in
// the domain header, per Config.DeleteDomain (v1 always uses the header).
func (c *Client) DeleteOrder(ctx context.Context, orderID, domain string) error {
	if orderID == "" {
		return &ValidationError{What: "order", Fields: []FieldError{{Field: "orderId", Reason: "must not be empty"}}}
	}
	if !headerSafe(domain) {
		return &ValidationError{What: fmt.Sprintf("order %q", orderID), Fields: []FieldError{{Field: "domain", Reason: "holds control characters"}}}
	}
	k := c.orderCall(OpDeleteOrder, http.MethodDelete, orderID, domain, nil)
	if domain != "" {
		switch {
		case c.cfg.DeleteDomain == DomainInHeader:
			k.domain = domain
		case c.cfg.Orders.Version != V1:
			k.query = url.Values{"domain": {domain}}
		}
	}
	return c.do(ctx, k, nil)
}

// Push operations, as finally done.
const (
	PushCreate = "create"
	PushUpdate = "update"
	PushDelete = "delete"
)

// PushResult tells what a push did.
type PushResult struct {
	Skipped bool   // the order has no customizations and was not sent
	Op      string // PushCreate, PushUpdate or PushDelete as finally done; "" when skipped
	// Converged is true when the first operation met a duplicate or a missing order
	// (409 on create, 404 on update or delete) and the push converged from there.
	Converged bool
}

// OrderCalls are the one-request order calls a push is made of. The push helpers
// make every request through them, so a caller that limits requests (the worker's
// rate limit takes a token per request) sees each one, the converging second request
// included. *Client is its own OrderCalls.
type OrderCalls interface {
	CreateOrder(ctx context.Context, o *model.Order) error
	UpdateOrder(ctx context.Context, o *model.Order) error
	DeleteOrder(ctx context.Context, orderID, domain string) error
}

// PushOrder sends a new order so that a retried push converges:
//   - an order without customizations is skipped (not validated, not sent);
//   - an invalid order fails with *ValidationError before any request;
//   - create; a 409 (the order exists, e.g. an earlier attempt succeeded unseen)
//     becomes an update.
func (c *Client) PushOrder(ctx context.Context, o *model.Order) (PushResult, error) {
	return c.PushOrderThrough(ctx, c, o)
}

// PushOrderThrough is PushOrder making its requests through calls.
func (c *Client) PushOrderThrough(ctx context.Context, calls OrderCalls, o *model.Order) (PushResult, error) {
	if !HasCustomizations(o) {
		return PushResult{Skipped: true}, nil
	}
	if err := ValidateOrder(o, c.cfg.Domains); err != nil {
		return PushResult{}, err
	}
	err := calls.CreateOrder(ctx, o)
	if err == nil {
		return PushResult{Op: PushCreate}, nil
	}
	if !IsStatus(err, http.StatusConflict) {
		return PushResult{}, err
	}
	c.log.DebugContext(ctx, "hub order exists, updating", slog.String("order", o.OrderID))
	if err := calls.UpdateOrder(ctx, o); err != nil {
		return PushResult{}, err
	}
	return PushResult{Op: PushUpdate, Converged: true}, nil
}

// PushOrderUpdate sends the current state of an order so that the hub matches it:
//   - an order that no longer has customizations is deleted from the hub (404 there
//     means it never was pushed: done);
//   - an invalid order fails with *ValidationError before any request;
//   - update; a 404 (never pushed, or the create was lost) becomes a create.
func (c *Client) PushOrderUpdate(ctx context.Context, o *model.Order) (PushResult, error) {
	return c.PushOrderUpdateThrough(ctx, c, o)
}

// PushOrderUpdateThrough is PushOrderUpdate making its requests through calls.
func (c *Client) PushOrderUpdateThrough(ctx context.Context, calls OrderCalls, o *model.Order) (PushResult, error) {
	if o == nil {
		return PushResult{}, ValidateOrder(nil, nil)
	}
	if !HasCustomizations(o) {
		if o.OrderID == "" {
			return PushResult{Skipped: true}, nil
		}
		return c.PushOrderDeleteThrough(ctx, calls, o.OrderID, o.Domain)
	}
	if err := ValidateOrder(o, c.cfg.Domains); err != nil {
		return PushResult{}, err
	}
	err := calls.UpdateOrder(ctx, o)
	if err == nil {
		return PushResult{Op: PushUpdate}, nil
	}
	if !IsStatus(err, http.StatusNotFound) {
		return PushResult{}, err
	}
	c.log.DebugContext(ctx, "hub order unknown, creating", slog.String("order", o.OrderID))
	if err := calls.CreateOrder(ctx, o); err != nil {
		return PushResult{}, err
	}
	return PushResult{Op: PushCreate, Converged: true}, nil
}

// PushOrderDelete deletes an order; a 404 means it is already gone, which is the goal.
func (c *Client) PushOrderDelete(ctx context.Context, orderID, domain string) (PushResult, error) {
	return c.PushOrderDeleteThrough(ctx, c, orderID, domain)
}

// PushOrderDeleteThrough is PushOrderDelete making its request through calls.
func (c *Client) PushOrderDeleteThrough(ctx context.Context, calls OrderCalls, orderID, domain string) (PushResult, error) {
	err := calls.DeleteOrder(ctx, orderID, domain)
	if err == nil {
		return PushResult{Op: PushDelete}, nil
	}
	if IsStatus(err, http.StatusNotFound) {
		return PushResult{Op: PushDelete, Converged: true}, nil
	}
	return PushResult{}, err
}
