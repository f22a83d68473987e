package intake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Registering a store's webhooks (printworker stores register): each platform's
// documented webhook API is read, and the subscriptions the intake needs are created,
// or updated when they exist with another destination, secret or state. Existing
// subscriptions of other destinations are left alone (another integration's).

// HookResult is what register did to one subscription.
type HookResult struct {
	// Topic is the platform's topic or scope; Action "created", "updated" or
	// "unchanged"; ID the platform's id of the subscription.
	Topic, Action, ID string
}

// Topics the intake acts on, per platform (docs/intake.md).
var (
	bigCommerceScopes = []string{bcScopeCreated, bcScopeUpdated, bcScopeStatus, bcScopeArchived}
	wooTopics         = []string{WooTopicCreated, WooTopicUpdated, WooTopicDeleted, WooTopicRestored}
	shopifyTopics     = []string{TopicCreate, TopicUpdated, TopicPaid, TopicCancelled, TopicDelete}
)

// Destination is the webhook URL of platform under the intake's public base URL. A
// BigCommerce destination must be https on port 443 (BigCommerce calls no other).
func Destination(base, platform string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("intake url %q: want https://host[/path]", base)
	}
	if platform == PlatformBigCommerce && (u.Scheme != "https" || (u.Port() != "" && u.Port() != "443")) {
		return "", fmt.Errorf("intake url %q: BigCommerce delivers only to https on port 443", base)
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/webhooks/" + platform
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

// storeAPI is one platform API's client for register.
type storeAPI struct {
	c      *http.Client
	header http.Header
	// user, pass: HTTP basic auth (WooCommerce).
	user, pass string
}

// maxRegisterResponse caps one webhook API answer.
const maxRegisterResponse = 4 << 20

func (a storeAPI) do(ctx context.Context, method, u string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	req.Header = a.header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.user != "" {
		req.SetBasicAuth(a.user, a.pass)
	}
	resp, err := a.c.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, redactQuery(u), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxRegisterResponse))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, redactQuery(u), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s %s: HTTP %d: %.300s", method, redactQuery(u), resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if out == nil || len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: answer: %w", method, redactQuery(u), err)
	}
	return nil
}

// noRedirects keeps credentials from following a redirect to another host.
func noRedirects(c *http.Client) *http.Client {
	cc := *c
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cc
}

// RegisterBigCommerce creates or updates the store's hooks (POST/PUT
// /stores/{hash}/v3/hooks) for every order scope the intake acts on, delivering to
// destination with the custom header name: value.
func RegisterBigCommerce(ctx context.Context, c *http.Client, apiURL, storeHash, token, destination, headerName, headerValue string) ([]HookResult, error) {
	if storeHash == "" || token == "" || headerValue == "" {
		return nil, errors.New("bigcommerce: a store hash, the API account token and a header secret needed")
	}
	api := storeAPI{c: noRedirects(c), header: http.Header{"X-Auth-Token": {token}}}
	base := strings.TrimRight(apiURL, "/") + "/stores/" + url.PathEscape(storeHash) + "/v3/hooks"
	type hook struct {
		ID          json.Number       `json:"id,omitempty"`
		Scope       string            `json:"scope,omitempty"`
		Destination string            `json:"destination"`
		IsActive    bool              `json:"is_active"`
		Headers     map[string]string `json:"headers"`
	}
	var hooks []hook
	for page := 1; page <= 20; page++ {
		var list struct {
			Data []hook `json:"data"`
			Meta struct {
				Pagination struct {
					TotalPages int `json:"total_pages"`
				} `json:"pagination"`
			} `json:"meta"`
		}
		if err := api.do(ctx, http.MethodGet, base+"?limit=250&page="+strconv.Itoa(page), nil, &list); err != nil {
			return nil, fmt.Errorf("bigcommerce: %w", err)
		}
		hooks = append(hooks, list.Data...)
		if page >= list.Meta.Pagination.TotalPages {
			break
		}
	}
	headers := map[string]string{headerName: headerValue}
	var out []HookResult
	for _, scope := range bigCommerceScopes {
		var found *hook
		for i := range hooks {
			if hooks[i].Scope == scope && hooks[i].Destination == destination {
				found = &hooks[i]
				break
			}
		}
		want := hook{Scope: scope, Destination: destination, IsActive: true, Headers: headers}
		var got struct {
			Data hook `json:"data"`
		}
		switch {
		case found == nil:
			if err := api.do(ctx, http.MethodPost, base, want, &got); err != nil {
				return out, fmt.Errorf("bigcommerce: %w", err)
			}
			out = append(out, HookResult{Topic: scope, Action: "created", ID: string(got.Data.ID)})
		case !found.IsActive || found.Headers[headerName] != headerValue:
			want.Scope = ""
			if err := api.do(ctx, http.MethodPut, base+"/"+url.PathEscape(string(found.ID)), want, &got); err != nil {
				return out, fmt.Errorf("bigcommerce: %w", err)
			}
			out = append(out, HookResult{Topic: scope, Action: "updated", ID: string(found.ID)})
		default:
			out = append(out, HookResult{Topic: scope, Action: "unchanged", ID: string(found.ID)})
		}
	}
	return out, nil
}

// RegisterWooCommerce creates or updates the site's webhooks (/wp-json/wc/v3/webhooks)
// for every order topic, delivering to destination signed with secret. WooCommerce
// never shows a webhook's secret, so an existing one is always updated (its secret
// set, its status active).
func RegisterWooCommerce(ctx context.Context, c *http.Client, siteURL, key, consumerSecret, destination, secret string) ([]HookResult, error) {
	if siteURL == "" || key == "" || consumerSecret == "" || secret == "" {
		return nil, errors.New("woocommerce: the site url, a REST key pair with read/write access and a webhook secret needed")
	}
	api := storeAPI{c: noRedirects(c), user: key, pass: consumerSecret}
	base := strings.TrimRight(siteURL, "/") + "/wp-json/wc/v3/webhooks"
	type webhook struct {
		ID          json.Number `json:"id,omitempty"`
		Name        string      `json:"name,omitempty"`
		Status      string      `json:"status"`
		Topic       string      `json:"topic,omitempty"`
		DeliveryURL string      `json:"delivery_url"`
		Secret      string      `json:"secret,omitempty"`
	}
	var hooks []webhook
	for page := 1; page <= 20; page++ {
		var batch []webhook
		if err := api.do(ctx, http.MethodGet, base+"?per_page=100&page="+strconv.Itoa(page), nil, &batch); err != nil {
			return nil, fmt.Errorf("woocommerce: %w", err)
		}
		hooks = append(hooks, batch...)
		if len(batch) < 100 {
			break
		}
	}
	var out []HookResult
	for _, topic := range wooTopics {
		var found *webhook
		for i := range hooks {
			if hooks[i].Topic == topic && hooks[i].DeliveryURL == destination {
				found = &hooks[i]
				break
			}
		}
		want := webhook{Status: "active", DeliveryURL: destination, Secret: secret}
		var got webhook
		if found == nil {
			want.Name, want.Topic = "printworker "+topic, topic
			if err := api.do(ctx, http.MethodPost, base, want, &got); err != nil {
				return out, fmt.Errorf("woocommerce: %w", err)
			}
			out = append(out, HookResult{Topic: topic, Action: "created", ID: string(got.ID)})
			continue
		}
		if err := api.do(ctx, http.MethodPut, base+"/"+url.PathEscape(string(found.ID)), want, &got); err != nil {
			return out, fmt.Errorf("woocommerce: %w", err)
		}
		out = append(out, HookResult{Topic: topic, Action: "updated", ID: string(found.ID)})
	}
	return out, nil
}

// RegisterShopify creates or updates the shop's webhook subscriptions (Admin REST
// /admin/api/{version}/webhooks.json) for every order topic, delivering JSON to
// destination. Shopify signs them with the app's client secret, which the API does
// not set: that secret is --shopify-secret.
func RegisterShopify(ctx context.Context, c *http.Client, shopURL, version, token, destination string) ([]HookResult, error) {
	if shopURL == "" || version == "" || token == "" {
		return nil, errors.New("shopify: the shop, an API version and an Admin API access token with read_orders needed")
	}
	api := storeAPI{c: noRedirects(c), header: http.Header{"X-Shopify-Access-Token": {token}}}
	base := strings.TrimRight(shopURL, "/") + "/admin/api/" + url.PathEscape(version) + "/webhooks"
	type webhook struct {
		ID      json.Number `json:"id,omitempty"`
		Topic   string      `json:"topic,omitempty"`
		Address string      `json:"address"`
		Format  string      `json:"format,omitempty"`
	}
	var list struct {
		Webhooks []webhook `json:"webhooks"`
	}
	if err := api.do(ctx, http.MethodGet, base+".json?limit=250", nil, &list); err != nil {
		return nil, fmt.Errorf("shopify: %w", err)
	}
	var out []HookResult
	for _, topic := range shopifyTopics {
		var found *webhook
		for i := range list.Webhooks {
			// One subscription per topic and app: another address is ours to move.
			if list.Webhooks[i].Topic == topic {
				found = &list.Webhooks[i]
				break
			}
		}
		var got struct {
			Webhook webhook `json:"webhook"`
		}
		switch {
		case found == nil:
			in := map[string]webhook{"webhook": {Topic: topic, Address: destination, Format: "json"}}
			if err := api.do(ctx, http.MethodPost, base+".json", in, &got); err != nil {
				return out, fmt.Errorf("shopify: %w", err)
			}
			out = append(out, HookResult{Topic: topic, Action: "created", ID: string(got.Webhook.ID)})
		case found.Address != destination:
			in := map[string]webhook{"webhook": {ID: found.ID, Address: destination}}
			if err := api.do(ctx, http.MethodPut, base+"/"+url.PathEscape(string(found.ID))+".json", in, &got); err != nil {
				return out, fmt.Errorf("shopify: %w", err)
			}
			out = append(out, HookResult{Topic: topic, Action: "updated", ID: string(found.ID)})
		default:
			out = append(out, HookResult{Topic: topic, Action: "unchanged", ID: string(found.ID)})
		}
	}
	return out, nil
}
