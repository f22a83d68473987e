package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
)

// Defaults of the simulator's primary store: the demo and local tests use them.
const (
	hubsimDefaultStore  = "demo-store"
	hubsimDefaultKey    = "demo-key"
	hubsimDefaultSecret = "demo-secret"
	hubsimDefaultDomain = "shop.example.com"
)

// hubsimFlags are the settings of `printworker hubsim`.
type hubsimFlags struct {
	addr, designs, designStore     string
	store, key, secret, secretFile string
	domains                        stringList
	storesFile                     string
	encoding                       string
	words                          map[hub.Version]*string
	pageSize                       int
	mediaPath                      string
	checkLineItems                 bool
	exporter                       string
	fontDirs                       stringList
	logLevel                       string
	faults                         hubsim.Faults
}

func addHubsimFlags(fs *flag.FlagSet) *hubsimFlags {
	f := &hubsimFlags{words: map[hub.Version]*string{}}
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8090", "address to listen on (port 0 picks a free port)")
	fs.StringVar(&f.designs, "designs", "", `design fixture folder (designs/*.json, media/, exports/); "" serves the embedded samples, "none" no designs`)
	fs.StringVar(&f.designStore, "design-store", "", "assign every loaded design to this store (default: the --store)")
	fs.StringVar(&f.store, "store", hubsimDefaultStore, "ID of the primary store")
	fs.StringVar(&f.key, "key", hubsimDefaultKey, "API key of the primary store")
	fs.StringVar(&f.secret, "secret", "", "API secret of the key (default "+hubsimDefaultSecret+"; prefer --secret-file)")
	fs.StringVar(&f.secretFile, "secret-file", "", "file holding the API secret")
	fs.Var(&f.domains, "domain", "order domain of the primary store; repeat or comma-separate (default "+hubsimDefaultDomain+")")
	fs.StringVar(&f.storesFile, "stores-file", "", `JSON file of further stores: [{"id":..,"domains":[..],"keys":[{"key":..,"secret":..,"disabled":false}]}]; the worker's --hub-stores-file shape [{"store","apiKey","secret","domains"}] works too`)
	fs.StringVar(&f.encoding, "encoding", "hex", "signature encoding: hex or base64")
	for _, v := range []hub.Version{hub.V1, hub.V2022, hub.V2023} {
		w := hub.DefaultWord
		f.words[v] = &w
		fs.StringVar(f.words[v], "word-"+string(v), hub.DefaultWord, "vendor word in the header names of version "+string(v)+" (X-<word>-Store)")
	}
	fs.IntVar(&f.pageSize, "page-size", hubsim.DefaultPageSize, "templates per list page")
	fs.StringVar(&f.mediaPath, "media-path", hubsim.DefaultMediaPath, "path pattern media files are served at (unsigned; holds {_id} and {token})")
	fs.StringVar(&f.exporter, "exporter", "render", "how exports are made: render (the renderer draws each view from the design) or stored (the fixture folder's exports/ files)")
	fs.Var(&f.fontDirs, "font-dir", "extra font folder for --exporter render; repeat or comma-separate")
	fs.BoolVar(&f.checkLineItems, "check-line-items", false, "refuse orders whose line items name a design the store does not have")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error (every request is logged at info)")
	fs.DurationVar(&f.faults.Latency, "latency", 0, "fault: added latency before every answer")
	fs.Float64Var(&f.faults.ErrorRate, "error-rate", 0, "fault: share (0..1) of requests answered with --error-status")
	fs.IntVar(&f.faults.ErrorStatus, "error-status", 503, "fault: status of injected errors (5xx)")
	fs.IntVar(&f.faults.ErrorCount, "error-count", 0, "fault: stop after this many injected errors (0: never stop)")
	fs.IntVar(&f.faults.FailFirst, "fail-first", 0, "fault: answer the first N requests of every path with --error-status (0: off)")
	fs.IntVar(&f.faults.RateLimit, "rate-limit", 0, "fault: requests per --rate-period a store may make before 429 with Retry-After (0: off)")
	fs.DurationVar(&f.faults.RatePeriod, "rate-period", time.Second, "fault: window of --rate-limit")
	fs.Float64Var(&f.faults.DropRate, "drop-rate", 0, "fault: share (0..1) of connections closed without an answer")
	fs.IntVar(&f.faults.DropCount, "drop-count", 0, "fault: stop after this many drops (0: never stop)")
	fs.BoolVar(&f.faults.DropAfterHandling, "drop-after", false, "fault: drop after handling the request (its effect stays, the answer is lost)")
	fs.Float64Var(&f.faults.TruncateRate, "truncate-rate", 0, "fault: share (0..1) of answers cut to half their declared Content-Length")
	fs.IntVar(&f.faults.TruncateCount, "truncate-count", 0, "fault: stop after this many truncations (0: never stop)")
	fs.Uint64Var(&f.faults.Seed, "seed", 0, "fault: seed of the generator that picks the faulty requests")
	return f
}

// config turns the flags into a simulator configuration.
func (f *hubsimFlags) config() (hubsim.Config, error) {
	secret := f.secret
	if secret == "" {
		secret = hubsimDefaultSecret
	}
	domains := []string(f.domains)
	if len(domains) == 0 {
		domains = []string{hubsimDefaultDomain}
	}
	enc, err := hub.ParseSignatureEncoding(f.encoding)
	if err != nil {
		return hubsim.Config{}, err
	}
	cfg := hubsim.Config{
		Stores:    []hubsim.Store{{ID: f.store, Domains: domains, Keys: []hubsim.Key{{Key: f.key, Secret: secret}}}},
		Encoding:  enc,
		Words:     map[hub.Version]string{},
		PageSize:  f.pageSize,
		MediaPath: f.mediaPath,
		Faults:    f.faults,

		CheckLineItems: f.checkLineItems,
	}
	for v, w := range f.words {
		cfg.Words[v] = *w
	}
	if f.storesFile != "" {
		more, err := readStoresFile(f.storesFile)
		if err != nil {
			return hubsim.Config{}, err
		}
		cfg.Stores = append(cfg.Stores, more...)
	}
	switch f.designs {
	case "none":
	case "":
		designs, err := fs.Sub(hubsim.SampleFixtures(), "designs")
		if err != nil {
			return hubsim.Config{}, err
		}
		cfg.DesignsFS = designs
	default:
		cfg.DesignsDir = f.designs
	}
	if f.designs != "none" {
		cfg.DesignStore = f.designStore
		if cfg.DesignStore == "" {
			cfg.DesignStore = f.store
		}
	}
	switch f.exporter {
	case "stored":
	case "render":
		r, err := render.New(render.Options{FontDirs: f.fontDirs})
		if err != nil {
			return hubsim.Config{}, err
		}
		cfg.Exporter = renderExporter(r)
	default:
		return hubsim.Config{}, fmt.Errorf("--exporter %q: want render or stored", f.exporter)
	}
	return cfg, cfg.Validate()
}

// renderExporter plugs the renderer into the simulator: each exported view is drawn
// from the design detail with media read from the simulator's store.
func renderExporter(r *render.Renderer) hubsim.Exporter {
	return hubsim.ExporterFunc(func(ctx context.Context, d *model.DesignDetail, viewID string, media hubsim.MediaOpener, w io.Writer) (string, error) {
		res, err := r.RenderView(ctx, d, viewID, media, w)
		if err != nil {
			return "", err
		}
		return res.ContentType, nil
	})
}

// readStoresFile reads further stores. Each entry is either the simulator's shape
// {"id","domains","keys":[{"key","secret","disabled"}]} or the worker's --hub-stores-file
// shape {"store","apiKey","secret","domains"}, so one file can configure both.
func readStoresFile(path string) ([]hubsim.Store, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--stores-file: %w", err)
	}
	var in []struct {
		ID      string   `json:"id"`
		Store   string   `json:"store"`
		Domains []string `json:"domains"`
		Keys    []struct {
			Key      string `json:"key"`
			Secret   string `json:"secret"`
			Disabled bool   `json:"disabled"`
		} `json:"keys"`
		APIKey string `json:"apiKey"`
		Secret string `json:"secret"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("--stores-file %s: %w", path, err)
	}
	var out []hubsim.Store
	for i, s := range in {
		st := hubsim.Store{ID: s.ID, Domains: s.Domains}
		if st.ID == "" {
			st.ID = s.Store
		}
		if s.ID != "" && s.Store != "" && s.ID != s.Store {
			return nil, fmt.Errorf("--stores-file %s: entry %d names two stores (id %q, store %q)", path, i, s.ID, s.Store)
		}
		for _, k := range s.Keys {
			st.Keys = append(st.Keys, hubsim.Key{Key: k.Key, Secret: k.Secret, Disabled: k.Disabled})
		}
		if s.APIKey != "" || s.Secret != "" {
			st.Keys = append(st.Keys, hubsim.Key{Key: s.APIKey, Secret: s.Secret})
		}
		out = append(out, st)
	}
	return out, nil
}

func hubsimCommand() command {
	return command{
		name:    "hubsim",
		summary: "serve the hub simulator (for tests, the demo and staging)",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "hubsim", "hubsim [flags]\n\n"+
				"Serves the personalization hub's interface (orders, templates, designs, media,\n"+
				"exports; versions v1, 2022-08 and 2023-10) with signature checks, validation and\n"+
				"fault injection. See docs/hubsim.md.")
			f := addHubsimFlags(fs)
			if err := parseFlags(fs, e, args); err != nil {
				return helpOK(err)
			}
			var level slog.Level
			if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
				return usageError("hubsim: --log-level: " + err.Error())
			}
			log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
			cfg, err := f.config()
			if err != nil {
				return usageError(err.Error())
			}
			cfg.Logger = log
			if f.secret == "" {
				log.Warn("hubsim: using the built-in demo secret; set --secret-file for anything shared")
			}
			sim, err := hubsim.New(cfg)
			if err != nil {
				return err
			}
			addr, done, err := sim.Start(ctx, f.addr)
			if err != nil {
				return err
			}
			var ids []string
			for _, r := range sim.Designs() {
				ids = append(ids, r.String())
			}
			log.Info("hubsim listening", "url", "http://"+addr.String(), "stores", len(cfg.Stores),
				"designs", strings.Join(ids, " "), "faults", fmt.Sprintf("%+v", sim.Faults()))
			fmt.Fprintf(e.stdout, "hubsim listening on http://%s\n", addr)
			err = <-done
			if err != nil && !errors.Is(err, context.Canceled) {
				return fmt.Errorf("hubsim: %w", err)
			}
			log.Info("hubsim stopped")
			return nil
		},
	}
}
