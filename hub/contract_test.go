package hub_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/model"
)

// Contract tests: the client against the hub simulator over real HTTP, for every
// operation and version, and with every fault the simulator injects. They assert what
// a caller of the client sees.

const (
	simStore  = "demo-store"
	simKey    = "demo-key"
	simSecret = "demo-secret"
	simDomain = "shop.example.com"
	simDir    = "../hubsim/testdata/designs"
)

type simEnv struct {
	sim *hubsim.Server
	url string
}

func startSim(t *testing.T, mutate func(*hubsim.Config)) simEnv {
	t.Helper()
	cfg := hubsim.Config{
		Stores: []hubsim.Store{
			{ID: simStore, Domains: []string{simDomain}, Keys: []hubsim.Key{
				{Key: simKey, Secret: simSecret}, {Key: "old-key", Secret: "old-secret", Disabled: true}}},
		},
		DesignsDir: simDir,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	sim, err := hubsim.New(cfg)
	if err != nil {
		t.Fatalf("hubsim.New: %v", err)
	}
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	return simEnv{sim: sim, url: ts.URL}
}

func (e simEnv) client(t *testing.T, v hub.Version, mutate func(*hub.Config)) *hub.Client {
	t.Helper()
	ep := hub.Endpoint{Version: v}
	cfg := hub.Config{Store: simStore, APIKey: simKey, Secret: simSecret, BaseURL: e.url,
		Orders: ep, Templates: ep, Designs: ep, Domains: []string{simDomain}}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := hub.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// simOrder is a valid order whose line items reference the simulator's fixture designs.
func simOrder(t *testing.T, sim *hubsim.Server, id string) *model.Order {
	t.Helper()
	o := testOrder(t)
	o.OrderID = id
	o.LineItems = nil
	for _, ref := range sim.Designs() {
		o.LineItems = append(o.LineItems, model.LineItem{ID: ref.ID, Token: ref.Token, Quantity: 1, Price: 9.5})
	}
	if len(o.LineItems) == 0 {
		t.Fatal("simulator has no designs")
	}
	return o
}

var allVersions = []hub.Version{hub.V1, hub.V2022, hub.V2023}

func TestContractOrders(t *testing.T) {
	ctx := context.Background()
	for _, v := range allVersions {
		t.Run(string(v), func(t *testing.T) {
			env := startSim(t, nil)
			c := env.client(t, v, nil)
			o := simOrder(t, env.sim, "A-100")

			steps := []struct {
				name string
				run  func() (hub.PushResult, error)
				want hub.PushResult
			}{
				{"create", func() (hub.PushResult, error) { return c.PushOrder(ctx, o) }, hub.PushResult{Op: "create"}},
				{"create again converges to update", func() (hub.PushResult, error) { return c.PushOrder(ctx, o) },
					hub.PushResult{Op: "update", Converged: true}},
				{"update", func() (hub.PushResult, error) { o.Status = "shipped"; return c.PushOrderUpdate(ctx, o) },
					hub.PushResult{Op: "update"}},
				{"delete", func() (hub.PushResult, error) { return c.PushOrderDelete(ctx, o.OrderID, o.Domain) },
					hub.PushResult{Op: "delete"}},
				{"delete again is done", func() (hub.PushResult, error) { return c.PushOrderDelete(ctx, o.OrderID, o.Domain) },
					hub.PushResult{Op: "delete", Converged: true}},
				{"update of a missing order converges to create", func() (hub.PushResult, error) { return c.PushOrderUpdate(ctx, o) },
					hub.PushResult{Op: "create", Converged: true}},
				{"update without customizations deletes", func() (hub.PushResult, error) {
					bare := *o
					bare.LineItems = nil
					return c.PushOrderUpdate(ctx, &bare)
				}, hub.PushResult{Op: "delete"}},
			}
			for _, s := range steps {
				got, err := s.run()
				if err != nil || got != s.want {
					t.Fatalf("%s: %+v, %v; want %+v", s.name, got, err, s.want)
				}
				stored, ok := env.sim.Order(simStore, o.OrderID, simDomain)
				switch s.want.Op {
				case "delete":
					if ok {
						t.Errorf("%s: order still stored", s.name)
					}
				default:
					if !ok || stored.Order.Status != o.Status || len(stored.Order.LineItems) != len(o.LineItems) {
						t.Errorf("%s: stored %+v (found %v)", s.name, stored.Order, ok)
					}
				}
			}
			for _, r := range env.sim.Requests() {
				if !r.SignatureOK || r.Version != v {
					t.Errorf("%s %s: version %q signature ok %v", r.Method, r.Path, r.Version, r.SignatureOK)
				}
			}

			// Skipped and invalid orders never reach the hub.
			env.sim.ResetRequests()
			bare := simOrder(t, env.sim, "A-101")
			bare.LineItems = nil
			if res, err := c.PushOrder(ctx, bare); err != nil || !res.Skipped {
				t.Errorf("order without customizations: %+v, %v", res, err)
			}
			bad := simOrder(t, env.sim, "A-102")
			bad.Domain = "elsewhere.example"
			var ve *hub.ValidationError
			if _, err := c.PushOrder(ctx, bad); !errors.As(err, &ve) || ve.Fields[0].Field != "domain" {
				t.Errorf("invalid order: %v", err)
			}
			if n := len(env.sim.Requests()); n != 0 {
				t.Errorf("%d requests for orders that must not be sent", n)
			}
			// The hub's own validation, bypassing the client's: a permanent 400 naming the field.
			err := c.CreateOrder(ctx, bad)
			var he *hub.Error
			if !errors.As(err, &he) || he.Status != 400 || he.Retryable() || !strings.Contains(he.Body, "domain") {
				t.Errorf("hub validation: %v", err)
			}
		})
	}
}

func TestContractTemplates(t *testing.T) {
	ctx := context.Background()
	files, _ := filepath.Glob("../hubsim/testdata/templates/*.json")
	if len(files) < 3 {
		t.Fatalf("want the simulator's template fixtures, found %d", len(files))
	}
	for _, v := range allVersions {
		t.Run(string(v), func(t *testing.T) {
			env := startSim(t, func(c *hubsim.Config) { c.PageSize = 2 })
			c := env.client(t, v, nil)
			var products []string
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				tpl, err := model.DecodeTemplate(b)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.CreateTemplate(ctx, tpl); err != nil {
					t.Fatalf("create %s: %v", f, err)
				}
				products = append(products, tpl.ProductID)
			}
			// Creating a duplicate productId is a permanent 409.
			dup, _ := model.DecodeTemplate(must(os.ReadFile(files[0])))
			if err := c.CreateTemplate(ctx, dup); !hub.IsStatus(err, 409) {
				t.Errorf("duplicate template: %v", err)
			}

			var listed []model.TemplateSummary
			for s, err := range c.AllTemplates(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				listed = append(listed, s)
			}
			if len(listed) != len(products) {
				t.Fatalf("listed %d templates, want %d", len(listed), len(products))
			}
			pages := 0
			for _, r := range env.sim.Requests() {
				if r.Method == "GET" && strings.HasSuffix(r.Path, "/templates") {
					pages++
				}
			}
			if want := (len(products) + 1) / 2; pages != want {
				t.Errorf("listing took %d pages, want %d at page size 2", pages, want)
			}

			first := listed[0]
			got, err := c.GetTemplate(ctx, first.ID)
			if err != nil || got.ProductID != first.ProductID || len(got.Views) == 0 {
				t.Fatalf("get %s: %+v, %v", first.ID, got, err)
			}
			// Read, edit, write back: the update keeps everything else.
			got.Name = "Renamed " + got.Name
			if err := c.UpdateTemplate(ctx, got.ProductID, got); err != nil {
				t.Fatalf("update: %v", err)
			}
			again, err := c.GetTemplate(ctx, first.ID)
			if err != nil || again.Name != got.Name {
				t.Fatalf("after update: %+v, %v", again, err)
			}
			if !jsonEqual(t, must(json.Marshal(again.Views)), must(json.Marshal(got.Views))) {
				t.Error("update changed the views")
			}
			if err := c.UpdateTemplate(ctx, "no-such-product", got); !hub.IsStatus(err, 404) {
				t.Errorf("update of unknown product: %v", err)
			}

			if err := c.DeleteTemplate(ctx, first.ID); err != nil {
				t.Fatal(err)
			}
			_, err = c.GetTemplate(ctx, first.ID)
			var he *hub.Error
			if !errors.As(err, &he) || he.Status != 404 || he.Retryable() {
				t.Errorf("get after delete: %v", err)
			}
		})
	}
}

func TestContractDesigns(t *testing.T) {
	ctx := context.Background()
	for _, v := range allVersions {
		t.Run(string(v), func(t *testing.T) {
			// A vendor word per version, as real deployments have.
			env := startSim(t, func(c *hubsim.Config) { c.Words = map[hub.Version]string{v: "Acme"} })
			c := env.client(t, v, func(cfg *hub.Config) {
				cfg.Designs.Word = "Acme"
				cfg.MaxExportBytes = 64 << 20
			})
			refs := env.sim.Designs()
			if len(refs) < 3 {
				t.Fatalf("%d fixture designs", len(refs))
			}
			for _, ref := range refs {
				d, err := c.GetDesign(ctx, ref)
				if err != nil {
					t.Fatalf("design %s: %v", ref, err)
				}
				want, _ := env.sim.Design(ref.ID)
				if d.ConfigurationID != ref.ID || d.Token != ref.Token || len(d.Views) != len(want.Views) {
					t.Errorf("design %s: id %d views %d", ref, d.ConfigurationID, len(d.Views))
				}

				// Export all: one view -> that view's file; all-PDF views -> one PDF;
				// otherwise a zip with a file per view (hub-gaps.md).
				allPDF := true
				for _, vw := range d.Views {
					allPDF = allPDF && vw.Export.Type != model.ExportPNG
				}
				wantKind := hub.KindZIP
				switch {
				case len(d.Views) == 1:
					wantKind = kindOfExportType(d.Views[0].Export.Type)
				case allPDF:
					wantKind = hub.KindPDF
				}
				body, dl := download(t, func() (*hub.Download, error) { return c.ExportDesign(ctx, ref) })
				if dl.Kind != wantKind || dl.Filename == "" || dl.Length != int64(len(body)) {
					t.Errorf("export %s: kind %q (want %q) filename %q length %d of %d", ref, dl.Kind, wantKind, dl.Filename, dl.Length, len(body))
				}
				if wantKind == hub.KindZIP {
					zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
					if err != nil || len(zr.File) != len(d.Views) {
						t.Errorf("export %s: zip %v with %d entries", ref, err, len(zr.File))
					}
				}

				for _, vw := range d.Views {
					body, dl := download(t, func() (*hub.Download, error) { return c.ExportView(ctx, ref, vw.ID) })
					if want := kindOfExportType(vw.Export.Type); dl.Kind != want || len(body) == 0 || !strings.Contains(dl.Filename, ".") {
						t.Errorf("export %s view %s: kind %q want %q, %d bytes, filename %q", ref, vw.ID, dl.Kind, want, len(body), dl.Filename)
					}
				}

				for _, m := range hubsim.DesignMedia(d) {
					body, dl := download(t, func() (*hub.Download, error) { return c.OpenMedia(ctx, m) })
					if int64(len(body)) != m.Size || !strings.Contains(m.MimeType, dl.Kind) {
						t.Errorf("media %s: %d bytes (meta %d), kind %q for %s", m.ID, len(body), m.Size, dl.Kind, m.MimeType)
					}
				}
			}

			// What a caller sees for the hub's refusals.
			cases := []struct {
				name   string
				c      *hub.Client
				ref    model.DesignRef
				status int
			}{
				{"unknown design", c, model.DesignRef{ID: 999999, Token: refs[0].Token}, 404},
				{"wrong token", c, model.DesignRef{ID: refs[0].ID, Token: "wrong-token"}, 404},
				{"wrong secret", env.client(t, v, func(cfg *hub.Config) { cfg.Secret = "nope"; cfg.Designs.Word = "Acme" }), refs[0], 401},
				{"old header word", env.client(t, v, nil), refs[0], 401},
				{"disabled key", env.client(t, v, func(cfg *hub.Config) {
					cfg.APIKey, cfg.Secret, cfg.Designs.Word = "old-key", "old-secret", "Acme"
				}), refs[0], 403},
			}
			for _, tc := range cases {
				_, err := tc.c.GetDesign(ctx, tc.ref)
				var he *hub.Error
				if !errors.As(err, &he) || he.Status != tc.status || he.Retryable() || he.Body == "" {
					t.Errorf("%s: %v, want permanent %d with a body", tc.name, err, tc.status)
				}
			}
			if _, err := c.ExportView(ctx, refs[0], "no-such-view"); !hub.IsStatus(err, 404) {
				t.Errorf("unknown view: %v", err)
			}
		})
	}
}

func kindOfExportType(t string) string {
	if t == model.ExportPNG {
		return hub.KindPNG
	}
	return hub.KindPDF
}

func download(t *testing.T, open func() (*hub.Download, error)) ([]byte, *hub.Download) {
	t.Helper()
	d, err := open()
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	defer d.Body.Close()
	b, err := io.ReadAll(d.Body)
	if err != nil {
		t.Fatalf("download body: %v", err)
	}
	return b, d
}

// TestContractFaults injects each fault of the simulator and checks the error a
// caller gets, its class and, where a retry follows, that the retry succeeds.
func TestContractFaults(t *testing.T) {
	ctx := context.Background()

	t.Run("5xx share", func(t *testing.T) {
		env := startSim(t, func(c *hubsim.Config) { c.Faults = hubsim.Faults{ErrorRate: 1, ErrorCount: 2, ErrorStatus: 502} })
		c := env.client(t, hub.V2023, nil)
		ref := env.sim.Designs()[0]
		for i := range 2 {
			_, err := c.GetDesign(ctx, ref)
			var he *hub.Error
			if !errors.As(err, &he) || he.Status != 502 || !he.Retryable() {
				t.Fatalf("attempt %d: %v, want retryable 502", i+1, err)
			}
		}
		if _, err := c.GetDesign(ctx, ref); err != nil {
			t.Fatalf("after the faults: %v", err)
		}
	})

	t.Run("retry loop over a random 5xx share", func(t *testing.T) {
		// The job queue's loop in miniature: retry while Retryable says so.
		env := startSim(t, func(c *hubsim.Config) { c.Faults = hubsim.Faults{ErrorRate: 0.5, Seed: 7} })
		c := env.client(t, hub.V2022, nil)
		o := simOrder(t, env.sim, "R-1")
		var res hub.PushResult
		var err error
		attempts := 0
		for attempts = 1; attempts <= 30; attempts++ {
			res, err = c.PushOrder(ctx, o)
			var he *hub.Error
			if err == nil || !errors.As(err, &he) || !he.Retryable() {
				break
			}
		}
		if err != nil || res.Op == "" {
			t.Fatalf("after %d attempts: %+v, %v", attempts, res, err)
		}
		if _, ok := env.sim.Order(simStore, "R-1", simDomain); !ok {
			t.Error("order not stored")
		}
	})

	t.Run("429 with Retry-After", func(t *testing.T) {
		env := startSim(t, func(c *hubsim.Config) { c.Faults = hubsim.Faults{RateLimit: 1, RatePeriod: time.Minute} })
		c := env.client(t, hub.V2022, nil)
		if _, err := c.ListTemplates(ctx, 0); err != nil {
			t.Fatal(err)
		}
		_, err := c.ListTemplates(ctx, 0)
		var he *hub.Error
		if !errors.As(err, &he) || he.Status != 429 || !he.Retryable() {
			t.Fatalf("second call: %v, want retryable 429", err)
		}
		if d := he.RetryAfter(); d <= 0 || d > time.Minute {
			t.Errorf("RetryAfter = %s, want within the minute window", d)
		}
	})

	t.Run("dropped connection before handling", func(t *testing.T) {
		env := startSim(t, func(c *hubsim.Config) { c.Faults = hubsim.Faults{DropRate: 1, DropCount: 1} })
		c := env.client(t, hub.V2022, nil)
		o := simOrder(t, env.sim, "D-1")
		_, err := c.PushOrder(ctx, o)
		var he *hub.Error
		if !errors.As(err, &he) || he.Status != 0 || !he.Retryable() {
			t.Fatalf("dropped: %v, want retryable network error", err)
		}
		if res, err := c.PushOrder(ctx, o); err != nil || res != (hub.PushResult{Op: "create"}) {
			t.Errorf("retry: %+v, %v", res, err)
		}
	})

	t.Run("answer lost after the hub stored the order", func(t *testing.T) {
		env := startSim(t, func(c *hubsim.Config) {
			c.Faults = hubsim.Faults{DropRate: 1, DropCount: 1, DropAfterHandling: true}
		})
		c := env.client(t, hub.V2022, nil)
		o := simOrder(t, env.sim, "D-2")
		if _, err := c.PushOrder(ctx, o); err == nil || !errors.As(err, new(*hub.Error)) {
			t.Fatalf("lost answer: %v", err)
		}
		if _, ok := env.sim.Order(simStore, "D-2", simDomain); !ok {
			t.Fatal("the hub should have stored the order before the answer was lost")
		}
		// The retry meets the stored order (409) and converges to an update.
		if res, err := c.PushOrder(ctx, o); err != nil || res != (hub.PushResult{Op: "update", Converged: true}) {
			t.Errorf("retry: %+v, %v", res, err)
		}
	})

	t.Run("truncated bodies", func(t *testing.T) {
		env := startSim(t, func(c *hubsim.Config) { c.Faults = hubsim.Faults{TruncateRate: 1, TruncateCount: 2} })
		c := env.client(t, hub.V2023, nil)
		ref := env.sim.Designs()[0]
		_, err := c.GetDesign(ctx, ref)
		var he *hub.Error
		if !errors.As(err, &he) || !he.Retryable() || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("truncated JSON: %v, want retryable unexpected EOF", err)
		}
		d, err := c.ExportDesign(ctx, ref)
		if err != nil {
			t.Fatalf("export: %v", err)
		}
		n, err := io.Copy(io.Discard, d.Body)
		d.Body.Close()
		if !errors.As(err, &he) || !he.Retryable() || he.Op != hub.OpExportDesign || n != d.Length/2 {
			t.Errorf("truncated export: read %d of %d, %v", n, d.Length, err)
		}
		if _, err := c.GetDesign(ctx, ref); err != nil {
			t.Errorf("after the faults: %v", err)
		}
	})

	t.Run("latency beyond the timeout", func(t *testing.T) {
		env := startSim(t, func(c *hubsim.Config) { c.Faults = hubsim.Faults{Latency: time.Second} })
		c := env.client(t, hub.V2023, func(cfg *hub.Config) { cfg.Timeout = 50 * time.Millisecond })
		ref := env.sim.Designs()[0]
		_, err := c.GetDesign(ctx, ref)
		var he *hub.Error
		if !errors.As(err, &he) || !he.Retryable() || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("json call: %v, want a retryable deadline error", err)
		}
		_, err = c.ExportView(ctx, ref, "front")
		if !errors.As(err, &he) || !he.Retryable() || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("export: %v, want a retryable deadline error", err)
		}
	})

	t.Run("latency within the timeout", func(t *testing.T) {
		env := startSim(t, func(c *hubsim.Config) { c.Faults = hubsim.Faults{Latency: 30 * time.Millisecond} })
		c := env.client(t, hub.V2023, nil)
		if _, err := c.GetDesign(ctx, env.sim.Designs()[0]); err != nil {
			t.Errorf("slow but in time: %v", err)
		}
	})

	t.Run("oversized export", func(t *testing.T) {
		env := startSim(t, nil)
		c := env.client(t, hub.V2023, func(cfg *hub.Config) { cfg.MaxExportBytes = 100 })
		_, err := c.ExportDesign(ctx, env.sim.Designs()[0])
		var he *hub.Error
		if !errors.As(err, &he) || he.Retryable() || !errors.Is(err, hub.ErrTooLarge) {
			t.Errorf("oversized export: %v, want permanent ErrTooLarge", err)
		}
	})

	t.Run("unknown path", func(t *testing.T) {
		env := startSim(t, nil)
		c := env.client(t, hub.V2023, func(cfg *hub.Config) { cfg.MediaURL = "{base}/nowhere/{_id}" })
		_, err := c.OpenMedia(ctx, model.Media{ID: "x"})
		if !hub.IsStatus(err, http.StatusNotFound) {
			t.Errorf("unknown path: %v", err)
		}
	})
}
