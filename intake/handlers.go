package intake

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// Endpoint names (metric label values).
const (
	endpointShopify = "shopify"
	endpointOrders  = "orders"
)

// Shopify's webhook headers.
const (
	HeaderShopifyHmac      = "X-Shopify-Hmac-Sha256"
	HeaderShopifyTopic     = "X-Shopify-Topic"
	HeaderShopifyShop      = "X-Shopify-Shop-Domain"
	HeaderShopifyWebhookID = "X-Shopify-Webhook-Id"
	// HeaderShopifyTest is "true" on deliveries of test orders.
	HeaderShopifyTest = "X-Shopify-Test"
)

// The generic endpoint's headers (docs/intake.md).
const (
	HeaderSignature = "X-Printworker-Signature"
	HeaderTimestamp = "X-Printworker-Timestamp"
	HeaderStore     = "X-Printworker-Store"
	HeaderTopic     = "X-Printworker-Topic"
	HeaderDelivery  = "X-Printworker-Delivery"
)

// readBody reads the raw body under the size cap: a declared length over the cap is
// refused before reading, a body that turns out longer is cut at the cap.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	tooLarge := &httpError{status: http.StatusRequestEntityTooLarge, outcome: outcomeTooLarge,
		reason: fmt.Sprintf("body larger than %d bytes", s.cfg.MaxBody)}
	if r.ContentLength > s.cfg.MaxBody {
		return nil, tooLarge
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge
		}
		return nil, badRequest("reading body: " + err.Error())
	}
	return b, nil
}

// handleShopify verifies, maps and enqueues one Shopify order webhook.
func (s *Server) handleShopify(w http.ResponseWriter, r *http.Request) (int, result, error) {
	if len(s.cfg.Shopify.allSecrets()) == 0 {
		return http.StatusNotFound, result{}, nil
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return 0, result{}, err
	}
	// Verify before anything looks at the body.
	if err := verifyShopify(s.cfg.Shopify.allSecrets(), r.Header.Get(HeaderShopifyHmac), body); err != nil {
		return 0, result{}, err
	}
	topic := strings.TrimSpace(r.Header.Get(HeaderShopifyTopic))
	shop := strings.ToLower(strings.TrimSpace(r.Header.Get(HeaderShopifyShop)))
	if topic == "" {
		return 0, result{}, badRequest(HeaderShopifyTopic + " header missing")
	}
	if _, ok := s.planFor(topic); !ok {
		// Shopify retries anything but 2xx; a topic we do not act on is taken and dropped.
		return http.StatusOK, result{Status: outcomeIgnored, Reason: "topic not handled", Topic: topic}, nil
	}
	if shop == "" {
		return 0, result{}, badRequest(HeaderShopifyShop + " header missing")
	}
	if len(s.cfg.Shopify.ShopSecrets) > 0 {
		// Shops with secrets of their own: one shop's secret cannot speak for another.
		if err := verifyShopify(s.cfg.Shopify.secretsOf(shop), r.Header.Get(HeaderShopifyHmac), body); err != nil {
			return 0, result{}, unauthorized("shop " + shop + ": " + err.Error())
		}
	}
	store, ok := s.cfg.Shopify.Stores[shop]
	if !ok {
		store = s.cfg.Shopify.DefaultStore
	}
	if store == "" {
		return 0, result{}, unprocessable(fmt.Sprintf("shop %q is not mapped to a hub store", shop))
	}
	domain := shop
	if d, ok := s.cfg.Shopify.Domains[shop]; ok {
		domain = d
	}

	var so shopifyOrder
	if err := decodeJSON(body, &so); err != nil {
		return 0, result{}, err
	}
	var o *model.Order
	if topic == TopicDelete {
		// orders/delete carries the id alone.
		if _, err := strconv.ParseInt(string(so.ID), 10, 64); err != nil {
			return 0, result{}, badRequest(fmt.Sprintf("order id %q is not an integer", so.ID))
		}
		o = &model.Order{OrderID: string(so.ID), Domain: domain, LineItems: []model.LineItem{}}
	} else {
		m := shopifyMapping{domain: domain, designProperty: s.cfg.Shopify.DesignProperty}
		if topic == TopicCancelled {
			m.status = "cancelled"
		}
		if o, err = mapShopifyOrder(&so, m); err != nil {
			return 0, result{}, err
		}
	}
	if topic != TopicDelete && !s.cfg.PrintTestOrders && (isTrue(so.Test) || strings.EqualFold(strings.TrimSpace(r.Header.Get(HeaderShopifyTest)), "true")) {
		status, res := s.testOrder(r.Context(), endpointShopify, topic, store, o)
		return status, res, nil
	}
	status, res := s.process(r.Context(), event{endpoint: endpointShopify, topic: topic, store: store,
		order: o, deliveryID: strings.TrimSpace(r.Header.Get(HeaderShopifyWebhookID))})
	return status, res, nil
}

// isTrue reads a JSON true (or the string "true").
func isTrue(raw json.RawMessage) bool {
	return strings.EqualFold(strings.Trim(strings.TrimSpace(string(raw)), `"`), "true")
}

// testOrder acknowledges a store's test order without exporting it
// (Config.PrintTestOrders): recorded in the log and the webhook metric.
func (s *Server) testOrder(ctx context.Context, endpoint, topic, store string, o *model.Order) (int, result) {
	s.log.InfoContext(ctx, "intake: test order acknowledged, not exported (--print-test-orders)", "endpoint", endpoint,
		"topic", topic, "store", store, "domain", o.Domain, "order", o.OrderID)
	return http.StatusOK, result{Status: outcomeTestOrder, Reason: "test order: not exported", Topic: topic, Store: store, Order: o.OrderID}
}

// verifyShopify checks the base64 HMAC-SHA256 of the raw body against every secret,
// each in constant time.
func verifyShopify(secrets []string, header string, body []byte) error {
	return verifyBase64HMAC(HeaderShopifyHmac, maxShopifyHmacHeader, secrets, header, body)
}

// verifyBase64HMAC checks header name, a base64 HMAC-SHA256 of the raw body no longer
// than limit, against every secret, each in constant time (Shopify, WooCommerce).
func verifyBase64HMAC(name string, limit int, secrets []string, header string, body []byte) error {
	if header == "" {
		return unauthorized(name + " header missing")
	}
	if len(header) > limit {
		return headerTooLarge(name, limit)
	}
	got, err := base64.StdEncoding.DecodeString(strings.TrimSpace(header))
	if err != nil {
		return unauthorized(name + " is not base64")
	}
	if len(got) != sha256.Size {
		return unauthorized(name + " is not a SHA-256 digest")
	}
	for _, secret := range secrets {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write(body)
		if hmac.Equal(m.Sum(nil), got) {
			return nil
		}
	}
	return unauthorized(name + " matches no configured secret")
}

// handleOrders verifies and enqueues one hub-shaped order from any store.
func (s *Server) handleOrders(w http.ResponseWriter, r *http.Request) (int, result, error) {
	if len(s.cfg.Orders.Secrets) == 0 && len(s.cfg.Orders.StoreSecrets) == 0 {
		return http.StatusNotFound, result{}, nil
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return 0, result{}, err
	}
	store := strings.TrimSpace(r.Header.Get(HeaderStore))
	if store == "" {
		return 0, result{}, unauthorized(HeaderStore + " header missing")
	}
	secrets, ok := s.cfg.Orders.StoreSecrets[store]
	if !ok {
		secrets = s.cfg.Orders.Secrets
	}
	if err := verifyGeneric(secrets, r.Header.Get(HeaderTimestamp), r.Header.Get(HeaderSignature), body, s.now(), s.cfg.Orders.Tolerance); err != nil {
		return 0, result{}, err
	}
	topic := strings.TrimSpace(r.Header.Get(HeaderTopic))
	if topic == "" {
		return 0, result{}, badRequest(HeaderTopic + " header missing")
	}
	if _, ok := s.planFor(topic); !ok {
		return http.StatusOK, result{Status: outcomeIgnored, Reason: "topic not handled", Topic: topic}, nil
	}
	o, err := genericOrder(topic, body)
	if err != nil {
		return 0, result{}, err
	}
	status, res := s.process(r.Context(), event{endpoint: endpointOrders, topic: topic, store: store,
		order: o, deliveryID: strings.TrimSpace(r.Header.Get(HeaderDelivery))})
	return status, res, nil
}

// genericOrder decodes and checks the body of a verified /webhooks/orders request.
func genericOrder(topic string, body []byte) (*model.Order, error) {
	var o model.Order
	if err := decodeJSON(body, &o); err != nil {
		return nil, err
	}
	// orderId and domain are the order's identity (with the store): without them no
	// job can name the order.
	var missing []string
	for _, f := range []struct{ name, v string }{{"orderId", o.OrderID}, {"domain", o.Domain}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name+": must not be empty")
		}
	}
	if len(missing) > 0 {
		return nil, unprocessable(strings.Join(missing, "; "))
	}
	if topic == TopicDelete {
		o = model.Order{OrderID: o.OrderID, Domain: o.Domain, LineItems: []model.LineItem{}}
	} else if len(o.LineItems) > 0 {
		// The sender owns the body: tell it now what the hub would refuse later.
		// Every line of a generic order is a design line, so an order whose lines
		// are all malformed is refused like one with a single bad line, not
		// "skipped" (only an order without lines is).
		if err := hub.ValidateOrder(&o, nil); err != nil {
			return nil, unprocessable(err.Error())
		}
	}
	return &o, nil
}

// SignaturePrefix starts the value of X-Printworker-Signature.
const SignaturePrefix = "sha256="

// Sign computes the X-Printworker-Signature value for body sent at ts: the lowercase
// hex HMAC-SHA256, keyed with secret, of the decimal Unix timestamp, a '.', and the raw
// body. Signing the timestamp with the body is what makes the tolerance check hold.
func Sign(secret string, ts time.Time, body []byte) string {
	return SignaturePrefix + hex.EncodeToString(mac(secret, strconv.FormatInt(ts.Unix(), 10), body))
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Bounds of the signature headers. A sender rotating its secret sends two signatures,
// so a handful is plenty; without a bound, one request with 100,000 comma-separated
// entries made the intake recompute the body's HMAC 100,000 times (114 s of CPU for a
// 3 MB request, unauthenticated).
const (
	// MaxSignatures is the most X-Printworker-Signature entries read.
	MaxSignatures = 5
	// maxSignatureHeader caps X-Printworker-Signature: MaxSignatures entries of
	// "sha256=" and 64 hex digits with separators fit with room to spare.
	maxSignatureHeader = 1024
	// maxShopifyHmacHeader caps X-Shopify-Hmac-Sha256 (44 base64 characters).
	maxShopifyHmacHeader = 256
)

// headerTooLarge is a signature header over its cap (431, as net/http answers for
// request headers over the server's limit).
func headerTooLarge(name string, limit int) error {
	return &httpError{status: http.StatusRequestHeaderFieldsTooLarge, outcome: outcomeHeaderTooLarge,
		reason: fmt.Sprintf("%s longer than %d bytes", name, limit)}
}

// verifyGeneric checks the timestamp against the tolerance, then the signature
// against every secret in constant time. Several signatures may be sent comma
// separated (a sender rotating its secret signs with both).
func verifyGeneric(secrets []string, tsHeader, sigHeader string, body []byte, now time.Time, tolerance time.Duration) error {
	return verifier{mac: mac}.generic(secrets, tsHeader, sigHeader, body, now, tolerance)
}

// verifier checks generic signatures with mac (tests count its calls).
type verifier struct {
	mac func(secret, ts string, body []byte) []byte
}

func (v verifier) generic(secrets []string, tsHeader, sigHeader string, body []byte, now time.Time, tolerance time.Duration) error {
	if len(sigHeader) > maxSignatureHeader {
		return headerTooLarge(HeaderSignature, maxSignatureHeader)
	}
	if tsHeader == "" {
		return unauthorized(HeaderTimestamp + " header missing")
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(tsHeader), 10, 64)
	if err != nil {
		return unauthorized(HeaderTimestamp + " is not Unix seconds")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return unauthorized(fmt.Sprintf("%s is %s away from now (tolerance %s)", HeaderTimestamp, d.Round(time.Second), tolerance))
	}
	if sigHeader == "" {
		return unauthorized(HeaderSignature + " header missing")
	}
	sigs, err := parseSignatures(sigHeader)
	if err != nil {
		return err
	}
	if len(sigs) == 0 {
		return unauthorized(HeaderSignature + " holds no sha256=<hex> signature")
	}
	// One MAC per secret, however many signatures were sent.
	ts := strings.TrimSpace(tsHeader)
	for _, secret := range secrets {
		want := v.mac(secret, ts, body)
		for _, got := range sigs {
			if hmac.Equal(want, got) {
				return nil
			}
		}
	}
	return unauthorized(HeaderSignature + " matches no configured secret")
}

// parseSignatures reads the comma-separated "sha256=<hex>" entries of
// X-Printworker-Signature, at most MaxSignatures of them (more is a 400). Entries of
// another scheme or not hex are skipped, so a future scheme can be sent beside this one.
func parseSignatures(header string) ([][]byte, error) {
	parts := strings.SplitN(header, ",", MaxSignatures+1)
	if len(parts) > MaxSignatures {
		return nil, badRequest(fmt.Sprintf("%s holds more than %d signatures", HeaderSignature, MaxSignatures))
	}
	var out [][]byte
	for _, p := range parts {
		h, ok := strings.CutPrefix(strings.TrimSpace(p), SignaturePrefix)
		if !ok {
			continue
		}
		got, err := hex.DecodeString(h)
		if err != nil || len(got) != sha256.Size {
			continue
		}
		out = append(out, got)
	}
	return out, nil
}

// decodeJSON decodes one JSON value, turning syntax and type errors into a 400 that
// says where the body went wrong.
func decodeJSON(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return badRequest(fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se))
		case errors.As(err, &te):
			return badRequest(fmt.Sprintf("malformed JSON: field %q: want %s, got %s", te.Field, te.Type, te.Value))
		case errors.Is(err, io.EOF):
			return badRequest("malformed JSON: empty body")
		}
		return badRequest("malformed JSON: " + err.Error())
	}
	if dec.More() {
		return badRequest("malformed JSON: data after the first value")
	}
	return nil
}
