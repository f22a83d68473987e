package hubsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/mail"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// Orders are kept by (store, orderId, domain): the identity of spec 2.1.
type orderKey struct{ store, id, domain string }

// StoredOrder is an order as the simulator holds it.
type StoredOrder struct {
	Store   string
	Order   model.Order
	Version hub.Version // version of the last create or update
	Created time.Time   // when the simulator first stored it
	Updated time.Time   // when the simulator last stored it
}

// Orders returns a deep copy of the store's orders sorted by orderId, then domain.
func (s *Server) Orders(store string) []StoredOrder {
	s.mu.Lock()
	var out []StoredOrder
	for k, o := range s.orders {
		if k.store == store {
			out = append(out, *o)
		}
	}
	s.mu.Unlock()
	for i := range out {
		out[i].Order = clone(out[i].Order)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Order.OrderID != out[j].Order.OrderID {
			return out[i].Order.OrderID < out[j].Order.OrderID
		}
		return out[i].Order.Domain < out[j].Order.Domain
	})
	return out
}

// Order returns a deep copy of one stored order.
func (s *Server) Order(store, orderID, domain string) (StoredOrder, bool) {
	s.mu.Lock()
	o, ok := s.orders[orderKey{store, orderID, domain}]
	s.mu.Unlock()
	if !ok {
		return StoredOrder{}, false
	}
	cp := *o
	cp.Order = clone(cp.Order)
	return cp, true
}

// orderAnswer is the body of a successful order call (the spec shows none; callers
// must not rely on it).
type orderAnswer struct {
	OrderID string `json:"orderId"`
	Domain  string `json:"domain"`
	Result  string `json:"result"`
}

func (s *Server) createOrder(w http.ResponseWriter, r *http.Request, c call) {
	o, err := s.validateOrder(bodyOf(r), c, r.Header.Get(c.h.Domain))
	if err != nil {
		writeValidation(w, err)
		return
	}
	k := orderKey{c.store.ID, o.OrderID, o.Domain}
	now := s.cfg.Now()
	s.mu.Lock()
	_, exists := s.orders[k]
	if !exists {
		s.orders[k] = &StoredOrder{Store: c.store.ID, Order: o, Version: c.v, Created: now, Updated: now}
	}
	s.mu.Unlock()
	if exists {
		writeError(w, http.StatusConflict, fmt.Sprintf("order %q on domain %q already exists", o.OrderID, o.Domain), "orderId")
		return
	}
	writeJSON(w, http.StatusCreated, orderAnswer{o.OrderID, o.Domain, "created"})
}

func (s *Server) updateOrder(w http.ResponseWriter, r *http.Request, c call) {
	o, err := s.validateOrder(bodyOf(r), c, r.Header.Get(c.h.Domain))
	if err != nil {
		writeValidation(w, err)
		return
	}
	if id := r.PathValue("id"); id != o.OrderID {
		writeValidation(w, badField("orderId", "body orderId %q differs from the path's %q", o.OrderID, id))
		return
	}
	k := orderKey{c.store.ID, o.OrderID, o.Domain}
	s.mu.Lock()
	old, exists := s.orders[k]
	if exists {
		s.orders[k] = &StoredOrder{Store: c.store.ID, Order: o, Version: c.v, Created: old.Created, Updated: s.cfg.Now()}
	}
	s.mu.Unlock()
	if !exists {
		writeError(w, http.StatusNotFound, fmt.Sprintf("order %q on domain %q not found", o.OrderID, o.Domain), "")
		return
	}
	writeJSON(w, http.StatusOK, orderAnswer{o.OrderID, o.Domain, "updated"})
}

// deleteOrder takes the domain from ?domain= or, failing that, the domain header
// (hub-gaps.md: delete has no body).
func (s *Server) deleteOrder(w http.ResponseWriter, r *http.Request, c call) {
	id := r.PathValue("id")
	domain := r.URL.Query().Get("domain")
	if domain == "" {
		domain = r.Header.Get(c.h.Domain)
	}
	if domain == "" {
		writeValidation(w, badField("domain", "give the order's domain as ?domain= or in the %s header", c.h.Domain))
		return
	}
	k := orderKey{c.store.ID, id, domain}
	s.mu.Lock()
	_, exists := s.orders[k]
	delete(s.orders, k)
	s.mu.Unlock()
	if !exists {
		writeError(w, http.StatusNotFound, fmt.Sprintf("order %q on domain %q not found", id, domain), "")
		return
	}
	writeJSON(w, http.StatusOK, orderAnswer{id, domain, "deleted"})
}

// Order properties (2.1) and address fields (2.2) in the order errors are reported.
var (
	orderStringFields = []string{"created", "updated", "domain", "email", "firstName", "lastName", "orderId", "status"}
	addressFields     = []string{"address1", "address2", "city", "companyName", "country", "countryCode", "firstName", "lastName", "phone", "province", "zip"}
)

// TimeLayout is the strict timestamp form of order created/updated (hub-gaps.md).
const TimeLayout = "2006-01-02T15:04:05.000Z"

// validateOrder checks an order body as the spec says and returns it decoded. From
// 2022-08 every property must be present and non-null (empty strings allowed where a
// string is); v1 predates that rule, so there missing properties read as empty, and
// the domain comes from the domain header when the body has none.
func (s *Server) validateOrder(body []byte, c call, headerDomain string) (model.Order, error) {
	strict := c.v != hub.V1
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return model.Order{}, badField("", "body must be a JSON order object")
	}
	if !strict && headerDomain != "" {
		if d, _ := m["domain"].(string); d == "" {
			m["domain"] = headerDomain
		}
	}
	str := func(obj map[string]any, prefix, name string) (string, error) {
		v, ok := obj[name]
		if !ok || v == nil {
			if strict {
				return "", badField(prefix+name, "required (send an empty string when there is no value)")
			}
			obj[name] = ""
			return "", nil
		}
		sv, ok := v.(string)
		if !ok {
			return "", badField(prefix+name, "must be a string")
		}
		return sv, nil
	}
	vals := map[string]string{}
	for _, f := range orderStringFields {
		v, err := str(m, "", f)
		if err != nil {
			return model.Order{}, err
		}
		vals[f] = v
	}
	for _, a := range []string{"billingDetails", "shippingDetails"} {
		v, ok := m[a]
		if !ok || v == nil {
			if strict {
				return model.Order{}, badField(a, "required address object")
			}
			v = map[string]any{}
			m[a] = v
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return model.Order{}, badField(a, "must be an address object")
		}
		for _, f := range addressFields {
			if _, err := str(obj, a+".", f); err != nil {
				return model.Order{}, err
			}
		}
	}
	if err := checkLineItems(m); err != nil {
		return model.Order{}, err
	}
	if vals["orderId"] == "" {
		return model.Order{}, badField("orderId", "must not be empty")
	}
	if e := vals["email"]; strict || e != "" {
		if a, err := mail.ParseAddress(e); err != nil || a.Address != e {
			return model.Order{}, badField("email", "%q is not a valid e-mail address", e)
		}
	}
	for _, f := range []string{"created", "updated"} {
		if v := vals[f]; strict || v != "" {
			if t, err := time.Parse(TimeLayout, v); err != nil || t.Format(TimeLayout) != v {
				return model.Order{}, badField(f, "%q is not a UTC timestamp of the form %s", v, TimeLayout)
			}
		}
	}
	if d := vals["domain"]; !slices.Contains(c.store.Domains, d) {
		return model.Order{}, badField("domain", "%q is not a domain configured for store %q", d, c.store.ID)
	}
	if s.cfg.CheckLineItems {
		if err := s.checkDesigns(m, c.store.ID); err != nil {
			return model.Order{}, err
		}
	}
	// Re-encode the checked (and, in v1, completed) object into the typed order.
	b, err := json.Marshal(m)
	if err != nil {
		return model.Order{}, badField("", "re-encoding the order: %v", err)
	}
	var o model.Order
	if err := json.Unmarshal(b, &o); err != nil {
		return model.Order{}, badField("", "decoding the order: %v", err)
	}
	return o, nil
}

// checkLineItems checks lineItems (2.3): a non-empty array (orders without
// customizations are not pushed) of {id integer, token string, quantity integer,
// price number}.
func checkLineItems(m map[string]any) error {
	v, ok := m["lineItems"]
	if !ok || v == nil {
		return badField("lineItems", "required array of line items")
	}
	items, ok := v.([]any)
	if !ok {
		return badField("lineItems", "must be an array")
	}
	if len(items) == 0 {
		return badField("lineItems", "an order without customizations is not pushed")
	}
	for i, it := range items {
		p := "lineItems[" + strconv.Itoa(i) + "]"
		obj, ok := it.(map[string]any)
		if !ok {
			return badField(p, "must be a line item object")
		}
		if n, err := number(obj, p, "id", true); err != nil {
			return err
		} else if n <= 0 {
			return badField(p+".id", "must be a positive design id")
		}
		tok, ok := obj["token"].(string)
		if !ok || tok == "" {
			return badField(p+".token", "required non-empty design token")
		}
		if n, err := number(obj, p, "quantity", true); err != nil {
			return err
		} else if n < 1 {
			return badField(p+".quantity", "must be at least 1")
		}
		if n, err := number(obj, p, "price", false); err != nil {
			return err
		} else if n < 0 {
			return badField(p+".price", "must not be negative")
		}
	}
	return nil
}

// number reads a JSON number field, requiring an integer when integer is set.
func number(obj map[string]any, prefix, name string, integer bool) (float64, error) {
	f := prefix + "." + name
	n, ok := obj[name].(json.Number)
	if !ok {
		return 0, badField(f, "required number")
	}
	if integer {
		i, err := n.Int64()
		if err != nil {
			return 0, badField(f, "must be an integer")
		}
		return float64(i), nil
	}
	x, err := n.Float64()
	if err != nil {
		return 0, badField(f, "must be a number")
	}
	return x, nil
}

// checkDesigns refuses line items naming a design the store does not have.
func (s *Server) checkDesigns(m map[string]any, store string) error {
	items, _ := m["lineItems"].([]any)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, it := range items {
		obj, _ := it.(map[string]any)
		n, _ := obj["id"].(json.Number)
		id, _ := n.Int64()
		p := "lineItems[" + strconv.Itoa(i) + "]"
		d := s.designs[id]
		if d == nil || d.Shop != store {
			return badField(p+".id", "design %d is unknown", id)
		}
		if tok, _ := obj["token"].(string); tok != d.Token {
			return badField(p+".token", "token does not match design %d", id)
		}
	}
	return nil
}
