// Package events sends printworker's order events (files ready, order cancelled, job
// failed) to HTTP endpoints configured per store, signed by the Standard Webhooks
// convention: headers webhook-id, webhook-timestamp and webhook-signature
// ("v1,<base64 HMAC-SHA256 of id.timestamp.body>"), secrets written "whsec_<base64>",
// so receivers verify them with any Standard Webhooks library.
//
// Delivery runs on asynq in its own queue (jobs.QueueEvents): the worker turns each
// published event into one delivery task per endpoint, delivered at least once,
// retried with the worker's backoff for Config.RetryFor, then archived with the last
// error. Every attempt carries the same webhook-id, so receivers deduplicate by it.
// A receiver answering 410 Gone stops all deliveries to that endpoint.
package events

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Defaults of Config.
const (
	DefaultTimeout  = 10 * time.Second
	DefaultRetryFor = 24 * time.Hour
)

// Endpoint is one receiver of events.
type Endpoint struct {
	// URL receives a POST per event; http or https.
	URL string `json:"url"`
	// Secret is the signing secret, "whsec_" + base64 of 24 to 64 key bytes;
	// SecretFile names a file holding it instead.
	Secret     string `json:"secret,omitempty"`
	SecretFile string `json:"secretFile,omitempty"`
}

// ID names the endpoint in delivery tasks and Redis keys: a digest of its URL, so
// neither the URL's query (which may hold a token) nor the secret is stored.
func (e Endpoint) ID() string {
	sum := sha256.Sum256([]byte(e.URL))
	return "ep_" + hex.EncodeToString(sum[:8])
}

// Redacted is the endpoint's URL for logs and errors: scheme, host and path only.
func (e Endpoint) Redacted() string {
	u, err := url.Parse(e.URL)
	if err != nil {
		return "(invalid url)"
	}
	return u.Scheme + "://" + u.Host + u.Path
}

// String keeps the secret out of any %v of an Endpoint.
func (e Endpoint) String() string { return e.Redacted() }

// LogValue keeps the secret out of slog.
func (e Endpoint) LogValue() slog.Value { return slog.StringValue(e.Redacted()) }

// Config configures event delivery. Zero values take the defaults given per field.
type Config struct {
	// Default are the endpoints of every store without its own entry in Stores.
	Default []Endpoint
	// Stores are per-store endpoints; a store listed here gets only these.
	Stores map[string][]Endpoint
	// Timeout bounds one delivery attempt (connect to last response byte);
	// default DefaultTimeout.
	Timeout time.Duration
	// RetryFor bounds how long one delivery is retried, counted from its first
	// failure; default DefaultRetryFor. The worker applies it as the retry window of
	// delivery tasks: the first failure after it archives the delivery, and an
	// operator's retry of the archived task gets a whole window again.
	RetryFor time.Duration
	// HTTPClient sends deliveries; default a client with Timeout.
	HTTPClient *http.Client
	Logger     *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.RetryFor == 0 {
		c.RetryFor = DefaultRetryFor
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: c.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
			// A redirect would resend the signed body elsewhere; the receiver's
			// answer is the 3xx, which is retried like any non-2xx.
			return http.ErrUseLastResponse
		}}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// RetryWindow is RetryFor or its default.
func (c Config) RetryWindow() time.Duration { return c.withDefaults().RetryFor }

// Enabled reports whether any endpoint is configured.
func (c Config) Enabled() bool { return len(c.Default) > 0 || len(c.Stores) > 0 }

// endpointsFor are the endpoints of store.
func (c Config) endpointsFor(store string) []Endpoint {
	if eps, ok := c.Stores[store]; ok {
		return eps
	}
	return c.Default
}

// Validate reports every bad value at once. Secret files are read (ResolveSecrets)
// before; here a SecretFile still unread is an error.
func (c Config) Validate() error {
	var errs []error
	check := func(where string, e Endpoint) {
		u, err := url.Parse(e.URL)
		switch {
		case e.URL == "":
			errs = append(errs, fmt.Errorf("events: %s: url is empty", where))
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			errs = append(errs, fmt.Errorf("events: %s: url %q: want an absolute http(s) URL", where, e.Redacted()))
		}
		if _, err := DecodeSecret(e.Secret); err != nil {
			errs = append(errs, fmt.Errorf("events: %s (%s): %w", where, e.Redacted(), err))
		}
	}
	// Deliveries name their endpoint by URL digest: one URL has one secret.
	secrets := map[string]string{}
	same := func(where string, e Endpoint) {
		if s, ok := secrets[e.URL]; ok && s != e.Secret {
			errs = append(errs, fmt.Errorf("events: %s: url %s appears with two different secrets", where, e.Redacted()))
		}
		secrets[e.URL] = e.Secret
	}
	for i, e := range c.Default {
		check(fmt.Sprintf("default endpoint %d", i+1), e)
		same(fmt.Sprintf("default endpoint %d", i+1), e)
	}
	for store, eps := range c.Stores {
		if store == "" {
			errs = append(errs, errors.New("events: a store entry has an empty store name"))
		}
		for i, e := range eps {
			check(fmt.Sprintf("store %q endpoint %d", store, i+1), e)
			same(fmt.Sprintf("store %q endpoint %d", store, i+1), e)
		}
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("events: timeout %s is negative", c.Timeout))
	}
	if c.RetryFor < 0 {
		errs = append(errs, fmt.Errorf("events: retry-for %s is negative", c.RetryFor))
	}
	return errors.Join(errs...)
}

// DecodeSecret returns the key bytes of a "whsec_<base64>" secret. The spec asks for
// 24 to 64 bytes; shorter keys are refused rather than silently weak.
func DecodeSecret(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("secret is empty")
	}
	if !strings.HasPrefix(s, secretPrefix) {
		return nil, errors.New(`secret must start with "whsec_" (Standard Webhooks form: whsec_ + base64 of the key)`)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, secretPrefix))
	if err != nil {
		return nil, errors.New("secret after whsec_ is not standard base64")
	}
	if len(key) < 24 || len(key) > 64 {
		return nil, fmt.Errorf("secret key is %d bytes: want 24 to 64", len(key))
	}
	return key, nil
}

const secretPrefix = "whsec_"

// File is the events file (--events-file): endpoints per store.
//
//	{"stores": {"s1": [{"url": "https://erp.example/hooks", "secretFile": "/run/secrets/s1"}]}}
type File struct {
	Stores map[string][]Endpoint `json:"stores"`
}

// LoadFile reads an events file; unknown fields are errors, so a misspelt setting is
// reported at start instead of ignored.
func LoadFile(path string) (map[string][]Endpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	stores, err := ParseFile(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return stores, nil
}

// maxFileBytes bounds an events file: thousands of endpoints fit in far less.
const maxFileBytes = 4 << 20

// ParseFile reads the bytes of an events file (see LoadFile).
func ParseFile(b []byte) (map[string][]Endpoint, error) {
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("%d bytes: an events file is at most %d", len(b), maxFileBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the JSON object")
	}
	return f.Stores, nil
}

// ResolveSecrets fills each endpoint's Secret from its SecretFile (trailing newline
// trimmed), reporting every problem at once. Both set is an error.
func ResolveSecrets(eps []Endpoint) error {
	var errs []error
	for i := range eps {
		e := &eps[i]
		if e.SecretFile == "" {
			continue
		}
		if e.Secret != "" {
			errs = append(errs, fmt.Errorf("events: endpoint %s: secret and secretFile both set", e.Redacted()))
			continue
		}
		b, err := os.ReadFile(e.SecretFile)
		if err != nil {
			errs = append(errs, fmt.Errorf("events: endpoint %s: secret file: %w", e.Redacted(), err))
			continue
		}
		e.Secret = strings.TrimRight(string(b), "\r\n")
	}
	return errors.Join(errs...)
}
