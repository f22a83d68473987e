package intake

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Many stores per platform (docs/intake.md, "Many stores"). The id-only platforms
// (BigCommerce, Etsy) name the store in every delivery (BigCommerce's producer
// stores/{hash}, Etsy's shop_id); each store has its hub store, order domain, API
// credentials and, when it has its own, webhook secrets. The flags describe one
// store of each; the stores file (cmd/printworker) adds the others.

// BigCommerceStore is one BigCommerce store served by the deployment.
type BigCommerceStore struct {
	// StoreHash names the store (producer "stores/{hash}").
	StoreHash string `json:"storeHash"`
	// Store is the hub store its orders go to; Domain the order domain (default:
	// the store hash).
	Store  string `json:"store"`
	Domain string `json:"domain,omitempty"`
	// Token is the API account's access token (X-Auth-Token) for the order reads.
	Token string `json:"token,omitempty"`
	// Secrets verify its Standard Webhooks signatures and HeaderSecrets its custom
	// header; empty: the platform's (BigCommerce.Secrets, .HeaderSecrets). A
	// delivery naming this store must carry one of its own.
	Secrets       []string `json:"secrets,omitempty"`
	HeaderSecrets []string `json:"headerSecrets,omitempty"`
}

func (b BigCommerceStore) domain() string {
	if b.Domain != "" {
		return b.Domain
	}
	return b.StoreHash
}

// stores lists every configured store: the one of the top-level fields (flags),
// then Stores.
func (b BigCommerce) stores() []BigCommerceStore {
	var out []BigCommerceStore
	if b.StoreHash != "" || b.Store != "" {
		out = append(out, BigCommerceStore{StoreHash: b.StoreHash, Store: b.Store, Domain: b.Domain, Token: b.Token})
	}
	return append(out, b.Stores...)
}

// store finds a store by hash, with the platform's secrets filled in where it has
// none of its own.
func (b BigCommerce) store(hash string) (BigCommerceStore, bool) {
	for _, s := range b.stores() {
		if s.StoreHash == hash && hash != "" {
			if len(s.Secrets) == 0 {
				s.Secrets = b.Secrets
			}
			if len(s.HeaderSecrets) == 0 {
				s.HeaderSecrets = b.HeaderSecrets
			}
			return s, true
		}
	}
	return BigCommerceStore{}, false
}

// allSecrets are the signature keys and header secrets of every store: what a
// delivery is verified with before its body is read.
func (b BigCommerce) allSecrets() (sig, header []string) {
	sig, header = append([]string{}, b.Secrets...), append([]string{}, b.HeaderSecrets...)
	for _, s := range b.Stores {
		sig = append(sig, s.Secrets...)
		header = append(header, s.HeaderSecrets...)
	}
	return sig, header
}

func (b BigCommerce) validateStores() []error {
	var errs []error
	seen := map[string]bool{}
	for i, s := range b.stores() {
		if s.StoreHash == "" || s.Store == "" {
			errs = append(errs, fmt.Errorf("intake: bigcommerce store %d: a store hash and a hub store needed", i+1))
		}
		if seen[s.StoreHash] {
			errs = append(errs, fmt.Errorf("intake: bigcommerce store %q listed twice", s.StoreHash))
		}
		seen[s.StoreHash] = true
		for _, sec := range append(append([]string{}, s.Secrets...), s.HeaderSecrets...) {
			if sec == "" {
				errs = append(errs, fmt.Errorf("intake: bigcommerce store %q: an empty secret", s.StoreHash))
			}
		}
	}
	return errs
}

// EtsyShop is one Etsy shop served by the deployment.
type EtsyShop struct {
	// ShopID is the shop's numeric id.
	ShopID string `json:"shopId"`
	// Store is the hub store its receipts go to; Domain the order domain (default
	// "etsy-<shop id>").
	Store  string `json:"store"`
	Domain string `json:"domain,omitempty"`
	// APIKey (x-api-key; default the platform's) and Token (OAuth bearer of this
	// shop, scope transactions_r) read its receipts.
	APIKey string `json:"apiKey,omitempty"`
	Token  string `json:"token,omitempty"`
	// Secrets verify its webhooks ("whsec_..."); empty: Etsy.Secrets.
	Secrets []string `json:"secrets,omitempty"`
}

func (e EtsyShop) domain() string {
	if e.Domain != "" {
		return e.Domain
	}
	return "etsy-" + e.ShopID
}

// shops lists every configured shop: the one of the top-level fields (flags), then
// Shops.
func (e Etsy) shops() []EtsyShop {
	var out []EtsyShop
	if e.ShopID != "" || e.Store != "" {
		out = append(out, EtsyShop{ShopID: e.ShopID, Store: e.Store, Domain: e.Domain, APIKey: e.APIKey, Token: e.Token})
	}
	return append(out, e.Shops...)
}

// shop finds a shop by id, the platform's secrets and API key filled in where it
// has none of its own.
func (e Etsy) shop(id string) (EtsyShop, bool) {
	for _, s := range e.shops() {
		if s.ShopID == id && id != "" {
			if len(s.Secrets) == 0 {
				s.Secrets = e.Secrets
			}
			if s.APIKey == "" {
				s.APIKey = e.APIKey
			}
			return s, true
		}
	}
	return EtsyShop{}, false
}

// allSecrets are the webhook secrets of every shop.
func (e Etsy) allSecrets() []string {
	out := append([]string{}, e.Secrets...)
	for _, s := range e.Shops {
		out = append(out, s.Secrets...)
	}
	return out
}

func (e Etsy) validateShops(fetch bool) []error {
	var errs []error
	seen := map[string]bool{}
	for i, s := range e.shops() {
		if _, err := strconv.ParseUint(s.ShopID, 10, 64); err != nil || s.Store == "" {
			errs = append(errs, fmt.Errorf("intake: etsy shop %d: a numeric shop id and a hub store needed", i+1))
		}
		if seen[s.ShopID] {
			errs = append(errs, fmt.Errorf("intake: etsy shop %q listed twice", s.ShopID))
		}
		seen[s.ShopID] = true
		for _, sec := range s.Secrets {
			if !strings.HasPrefix(sec, "whsec_") {
				errs = append(errs, fmt.Errorf(`intake: etsy shop %q: a secret must start with "whsec_"`, s.ShopID))
			}
		}
		if fetch {
			full, _ := e.shop(s.ShopID)
			if full.APIKey == "" || full.Token == "" {
				errs = append(errs, fmt.Errorf("intake: etsy shop %q: fetches need an api key and a token", s.ShopID))
			}
		}
	}
	if len(e.shops()) == 0 {
		errs = append(errs, errors.New("intake: etsy needs a numeric shop id and a hub store"))
	}
	return errs
}
