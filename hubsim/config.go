// Package hubsim is a simulator of the personalization hub's interface
// (../shared/spec/hub-interface.md with the decisions of hub-gaps.md): orders,
// templates, design details, media and exports for the versions v1, 2022-08 and 2023-10,
// with the header names of each version, store/key/signature checks on every call,
// payload validation, fault injection and a request log.
//
// Tests, the demo and staging use it in place of the real hub. A *Server is an
// http.Handler: mount it in httptest.NewServer or run it with Start.
package hubsim

//go:generate go run ./internal/cmd/fixturegen -out testdata

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	"github.com/printworker/printworker/hub"
)

// Config configures a simulator. The zero value of every optional field has a default
// (see withDefaults); Stores must name at least one store.
type Config struct {
	// Stores are the accounts the simulator knows; each with its domains and API keys.
	Stores []Store
	// Encoding of the signature header: hub.EncodingHex (default) or hub.EncodingBase64.
	Encoding hub.SignatureEncoding
	// Words is the vendor word in the header names per version (X-<Word>-Store);
	// a version not listed uses hub.DefaultWord ("Service").
	Words map[hub.Version]string
	// PageSize is the number of templates per list page (default 20).
	PageSize int
	// MediaPath is the path pattern media files are served at, unsigned (the token is
	// the capability). It must hold {_id} and {token}. Default "/media/{_id}/{token}".
	MediaPath string
	// DesignsDir is a fixture folder loaded at start (see LoadDesigns); "" loads none.
	DesignsDir string
	// DesignsFS is a fixture tree loaded at start (see LoadDesignsFS), for instance
	// the embedded samples: fs.Sub(SampleFixtures(), "designs").
	DesignsFS fs.FS
	// DesignStore, when set, assigns every design (loaded or added) to this store
	// instead of its `shop`, so fixtures serve any configured store.
	DesignStore string
	// CheckLineItems refuses orders whose line items name a design the simulator does
	// not hold for the store (unknown id or wrong token): 400 naming lineItems[i].id or
	// .token. The spec does not say the hub checks this; off by default.
	CheckLineItems bool
	// Exporter renders exports. Nil serves the stored files of the fixture folder
	// (exports/<configurationId>/<viewId>.<png|pdf>).
	Exporter Exporter
	// StreamExports sends the export of one view as the exporter writes it, without
	// buffering the file, for exports too large to hold (a generated gigabyte, see
	// GeneratedExporter). The answer then has no Content-Length; faults applied after
	// handling (DropAfterHandling, truncation) do not apply to it; an exporter failure
	// after the first byte cuts the connection (the client sees a truncated body).
	// Whole-design exports are always buffered (they are merged or zipped).
	StreamExports bool
	// Faults are the initial fault settings; SetFaults changes them at run time.
	Faults Faults
	// MaxLogged bounds the request log; the oldest entries go first (default 10000).
	MaxLogged int
	// MaxBody bounds request bodies (default 4 MiB); larger bodies get 413.
	MaxBody int64
	// Logger receives one info record per request (default: discard).
	Logger *slog.Logger
	// Now is the clock for timestamps of stored templates and the log (default time.Now).
	Now func() time.Time
}

// Store is one account of the hub: its ID (sent in the store header), the order
// domains configured for it, and its API keys.
type Store struct {
	ID      string
	Domains []string
	Keys    []Key
}

// Key is an API key with its own secret. A disabled key is known but refused (403).
type Key struct {
	Key      string
	Secret   string
	Disabled bool
}

// Defaults.
const (
	DefaultPageSize  = 20
	DefaultMediaPath = "/media/{_id}/{token}"
	DefaultMaxLogged = 10000
	DefaultMaxBody   = 4 << 20
)

func (c Config) withDefaults() Config {
	if c.Encoding == "" {
		c.Encoding = hub.EncodingHex
	}
	if c.PageSize <= 0 {
		c.PageSize = DefaultPageSize
	}
	if c.MediaPath == "" {
		c.MediaPath = DefaultMediaPath
	}
	if c.MaxLogged <= 0 {
		c.MaxLogged = DefaultMaxLogged
	}
	if c.MaxBody <= 0 {
		c.MaxBody = DefaultMaxBody
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Validate reports every bad setting at once.
func (c Config) Validate() error {
	var errs []error
	if len(c.Stores) == 0 {
		errs = append(errs, errors.New("hubsim: at least one store is needed"))
	}
	seenStore := map[string]bool{}
	seenKey := map[string]bool{}
	for i, s := range c.Stores {
		if s.ID == "" {
			errs = append(errs, fmt.Errorf("hubsim: store %d: empty id", i))
		}
		if seenStore[s.ID] {
			errs = append(errs, fmt.Errorf("hubsim: store %q listed twice", s.ID))
		}
		seenStore[s.ID] = true
		if len(s.Keys) == 0 {
			errs = append(errs, fmt.Errorf("hubsim: store %q: no API key", s.ID))
		}
		for _, k := range s.Keys {
			switch {
			case k.Key == "":
				errs = append(errs, fmt.Errorf("hubsim: store %q: empty API key", s.ID))
			case k.Secret == "":
				errs = append(errs, fmt.Errorf("hubsim: store %q: key %q has no secret", s.ID, k.Key))
			}
			if seenKey[s.ID+"\x00"+k.Key] {
				errs = append(errs, fmt.Errorf("hubsim: store %q: key %q listed twice", s.ID, k.Key))
			}
			seenKey[s.ID+"\x00"+k.Key] = true
		}
	}
	if c.Encoding != "" && c.Encoding != hub.EncodingHex && c.Encoding != hub.EncodingBase64 {
		errs = append(errs, fmt.Errorf("hubsim: signature encoding %q: want hex or base64", c.Encoding))
	}
	for v := range c.Words {
		if _, err := hub.ParseVersion(string(v)); err != nil {
			errs = append(errs, fmt.Errorf("hubsim: header word: %w", err))
		}
	}
	if c.MediaPath != "" && (!strings.HasPrefix(c.MediaPath, "/") ||
		!strings.Contains(c.MediaPath, "{_id}") || !strings.Contains(c.MediaPath, "{token}")) {
		errs = append(errs, fmt.Errorf("hubsim: media path %q: want an absolute path holding {_id} and {token}", c.MediaPath))
	}
	if c.PageSize < 0 || c.MaxLogged < 0 || c.MaxBody < 0 {
		errs = append(errs, errors.New("hubsim: page size, log bound and body bound must not be negative"))
	}
	if c.DesignStore != "" && !seenStore[c.DesignStore] {
		errs = append(errs, fmt.Errorf("hubsim: design store %q is not a configured store", c.DesignStore))
	}
	if err := c.Faults.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
