package hub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// testOrder returns the realistic order of testdata/order.json, decoded.
func testOrder(t *testing.T) *model.Order {
	t.Helper()
	var o model.Order
	if err := json.Unmarshal(fixture("order.json"), &o); err != nil {
		t.Fatal(err)
	}
	return &o
}

var testRef = model.DesignRef{ID: 1042, Token: "3fa85f64-5717-4562-b3fc-2c963f66afa6"}

// TestEveryOperationEveryVersion runs each operation against the fake hub at each
// version and checks what went over the wire: method, path, headers of the version,
// and (by the fake hub's 401 otherwise) the signature over the operation's
// verification string.
func TestEveryOperationEveryVersion(t *testing.T) {
	ctx := context.Background()
	type wire struct {
		op, method, path string
	}
	versions := []struct {
		v                     hub.Version
		storeHeader           string
		create, update, del   wire
		list, tcreate, tget   wire
		tupdate, tdel         wire
		design, export, eview wire
	}{
		{v: hub.V1, storeHeader: "X-Service-Shop",
			create: wire{hub.OpCreateOrder, "POST", "/v1/order"}, update: wire{hub.OpUpdateOrder, "POST", "/v1/order/1001"},
			del:  wire{hub.OpDeleteOrder, "DELETE", "/v1/order/1001"},
			list: wire{hub.OpListTemplates, "GET", "/v1/templates"}, tcreate: wire{hub.OpCreateTemplate, "POST", "/v1/templates"},
			tget: wire{hub.OpGetTemplate, "GET", "/v1/templates/tpl-1"}, tupdate: wire{hub.OpUpdateTemplate, "POST", "/v1/templates/mug-classic-330"},
			tdel:   wire{hub.OpDeleteTemplate, "DELETE", "/v1/templates/tpl-1"},
			design: wire{hub.OpGetDesign, "GET", "/v1/configuration/1042/" + testRef.Token},
			export: wire{hub.OpExportDesign, "GET", "/v1/configuration/1042/" + testRef.Token + "/export"},
			eview:  wire{hub.OpExportView, "GET", "/v1/configuration/1042/" + testRef.Token + "/view/front/export"}},
		{v: hub.V2022, storeHeader: "X-Service-Shop",
			create: wire{hub.OpCreateOrder, "POST", "/2022-08/orders"}, update: wire{hub.OpUpdateOrder, "POST", "/2022-08/orders/1001"},
			del:  wire{hub.OpDeleteOrder, "DELETE", "/2022-08/orders/1001"},
			list: wire{hub.OpListTemplates, "GET", "/2022-08/templates"}, tcreate: wire{hub.OpCreateTemplate, "POST", "/2022-08/templates"},
			tget: wire{hub.OpGetTemplate, "GET", "/2022-08/templates/tpl-1"}, tupdate: wire{hub.OpUpdateTemplate, "POST", "/2022-08/templates/mug-classic-330"},
			tdel:   wire{hub.OpDeleteTemplate, "DELETE", "/2022-08/templates/tpl-1"},
			design: wire{hub.OpGetDesign, "GET", "/2022-08/customizations/1042/" + testRef.Token},
			export: wire{hub.OpExportDesign, "GET", "/2022-08/export/1042/" + testRef.Token},
			eview:  wire{hub.OpExportView, "GET", "/2022-08/export/1042/" + testRef.Token + "/view/front"}},
		{v: hub.V2023, storeHeader: "X-Service-Store",
			create: wire{hub.OpCreateOrder, "POST", "/2023-10/orders"}, update: wire{hub.OpUpdateOrder, "POST", "/2023-10/orders/1001"},
			del:  wire{hub.OpDeleteOrder, "DELETE", "/2023-10/orders/1001"},
			list: wire{hub.OpListTemplates, "GET", "/2023-10/templates"}, tcreate: wire{hub.OpCreateTemplate, "POST", "/2023-10/templates"},
			tget: wire{hub.OpGetTemplate, "GET", "/2023-10/templates/tpl-1"}, tupdate: wire{hub.OpUpdateTemplate, "POST", "/2023-10/templates/mug-classic-330"},
			tdel:   wire{hub.OpDeleteTemplate, "DELETE", "/2023-10/templates/tpl-1"},
			design: wire{hub.OpGetDesign, "GET", "/2023-10/designs/1042/" + testRef.Token},
			export: wire{hub.OpExportDesign, "GET", "/2023-10/export/1042/" + testRef.Token},
			eview:  wire{hub.OpExportView, "GET", "/2023-10/export/1042/" + testRef.Token + "/view/front"}},
	}
	for _, enc := range []hub.SignatureEncoding{hub.EncodingHex, hub.EncodingBase64} {
		for _, vc := range versions {
			t.Run(string(vc.v)+"/"+string(enc), func(t *testing.T) {
				f := newFakeHub(t)
				f.enc = enc
				c := f.client(t, vc.v, func(cfg *hub.Config) { cfg.Encoding = enc })
				o := testOrder(t)
				var tpl model.Template
				if err := json.Unmarshal(fixture("template.json"), &tpl); err != nil {
					t.Fatal(err)
				}
				ops := []struct {
					want wire
					run  func() error
				}{
					{vc.create, func() error { return c.CreateOrder(ctx, o) }},
					{vc.update, func() error { return c.UpdateOrder(ctx, o) }},
					{vc.del, func() error { return c.DeleteOrder(ctx, "1001", "shop.example.com") }},
					{vc.list, func() error {
						l, err := c.ListTemplates(ctx, 0)
						if err == nil && (l.Total != 5 || len(l.Results) != 2) {
							t.Errorf("list = %+v", l)
						}
						return err
					}},
					{vc.tcreate, func() error { return c.CreateTemplate(ctx, &tpl) }},
					{vc.tget, func() error {
						got, err := c.GetTemplate(ctx, "tpl-1")
						if err == nil && (got.ProductID != "mug-classic-330" || len(got.Views) != 1) {
							t.Errorf("template = %+v", got)
						}
						return err
					}},
					{vc.tupdate, func() error { return c.UpdateTemplate(ctx, "mug-classic-330", &tpl) }},
					{vc.tdel, func() error { return c.DeleteTemplate(ctx, "tpl-1") }},
					{vc.design, func() error {
						d, err := c.GetDesign(ctx, testRef)
						if err == nil && (d.ConfigurationID != 1042 || len(d.Views) != 2) {
							t.Errorf("design = %+v", d)
						}
						return err
					}},
					{vc.export, func() error {
						return readDownload(t, func() (*hub.Download, error) { return c.ExportDesign(ctx, testRef) })
					}},
					{vc.eview, func() error {
						return readDownload(t, func() (*hub.Download, error) { return c.ExportView(ctx, testRef, "front") })
					}},
				}
				for _, op := range ops {
					f.reset()
					if err := op.run(); err != nil {
						t.Errorf("%s: %v", op.want.op, err)
						continue
					}
					reqs := f.requests()
					if len(reqs) != 1 {
						t.Fatalf("%s: %d requests, want 1", op.want.op, len(reqs))
					}
					r := reqs[0]
					if r.Op != op.want.op || r.Method != op.want.method || r.Path != op.want.path {
						t.Errorf("sent %s %s (%s), want %s %s (%s)", r.Method, r.Path, r.Op, op.want.method, op.want.path, op.want.op)
					}
					if r.Header.Get(vc.storeHeader) != "store-42" || r.Header.Get("X-Service-Api-Key") != "key-1" {
						t.Errorf("%s: headers %v", op.want.op, r.Header)
					}
					isExport := op.want.op == hub.OpExportDesign || op.want.op == hub.OpExportView
					if got := r.Header.Get("Accept"); (got == "application/json") == isExport {
						t.Errorf("%s: Accept %q (JSON calls only)", op.want.op, got)
					}
					if vc.v == hub.V2023 && r.Header.Get("X-Service-Shop") != "" {
						t.Errorf("%s: 2023-10 sent the old shop header", op.want.op)
					}
					isOrder := strings.HasPrefix(op.want.op, "order.")
					if got := r.Header.Get("X-Service-Domain"); (got != "") != (isOrder && vc.v == hub.V1) {
						t.Errorf("%s: domain header %q (only v1 order calls send it)", op.want.op, got)
					}
					if op.want.op == hub.OpDeleteOrder && vc.v != hub.V1 && r.Query.Get("domain") != "shop.example.com" {
						t.Errorf("delete order: query %v, want domain", r.Query)
					}
					if op.want.op == hub.OpCreateOrder || op.want.op == hub.OpUpdateOrder {
						if !jsonEqual(t, r.Body, fixture("order.json")) {
							t.Errorf("%s: body %s", op.want.op, r.Body)
						}
					}
				}
			})
		}
	}
}

func readDownload(t *testing.T, open func() (*hub.Download, error)) error {
	t.Helper()
	d, err := open()
	if err != nil {
		return err
	}
	defer d.Body.Close()
	b, err := io.ReadAll(d.Body)
	if err != nil {
		return err
	}
	if d.Kind != hub.KindPDF || !strings.HasPrefix(string(b), "%PDF-") || d.Length != int64(len(b)) {
		t.Errorf("download kind %q length %d, %d bytes", d.Kind, d.Length, len(b))
	}
	return nil
}

func TestHeaderWordAndBaseURLPerResource(t *testing.T) {
	orders, designs := newFakeHub(t), newFakeHub(t)
	orders.word, designs.word = "Legacy", "Acme"
	c, err := hub.NewClient(hub.Config{Store: "store-42", APIKey: "key-1", Secret: "s3cret",
		Orders:  hub.Endpoint{BaseURL: orders.srv.URL + "/", Word: "Legacy"},
		Designs: hub.Endpoint{BaseURL: designs.srv.URL, Word: "Acme"},
		BaseURL: orders.srv.URL,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.CreateOrder(ctx, testOrder(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetDesign(ctx, testRef); err != nil {
		t.Fatal(err)
	}
	or, dr := orders.requests(), designs.requests()
	if len(or) != 1 || or[0].Path != "/2022-08/orders" || or[0].Header.Get("X-Legacy-Shop") != "store-42" {
		t.Errorf("orders: %+v", or)
	}
	if len(dr) != 1 || dr[0].Path != "/2023-10/designs/1042/"+testRef.Token || dr[0].Header.Get("X-Acme-Store") != "store-42" {
		t.Errorf("designs: %+v", dr)
	}
	// A client signing with the wrong secret is refused by the hub: 401, permanent.
	bad, _ := hub.NewClient(hub.Config{Store: "store-42", APIKey: "key-1", Secret: "wrong", BaseURL: designs.srv.URL,
		Designs: hub.Endpoint{Word: "Acme"}})
	_, err = bad.GetDesign(ctx, testRef)
	var he *hub.Error
	if !errors.As(err, &he) || he.Status != 401 || he.Retryable() || !strings.Contains(he.Body, "bad signature") {
		t.Errorf("wrong secret: %v", err)
	}
}

func TestDeleteDomainPlacement(t *testing.T) {
	cases := []struct {
		v        hub.Version
		setting  string
		query    string
		header   string
		domainIn string
	}{
		{hub.V2022, "", "shop.example.com", "", "shop.example.com"},
		{hub.V2022, hub.DomainInQuery, "shop.example.com", "", "shop.example.com"},
		{hub.V2022, hub.DomainInHeader, "", "shop.example.com", "shop.example.com"},
		{hub.V2023, hub.DomainInHeader, "", "shop.example.com", "shop.example.com"},
		{hub.V1, hub.DomainInQuery, "", "shop.example.com", "shop.example.com"},
		{hub.V2022, hub.DomainInQuery, "", "", ""},
	}
	for _, tc := range cases {
		f := newFakeHub(t)
		c := f.client(t, tc.v, func(cfg *hub.Config) { cfg.DeleteDomain = tc.setting })
		if err := c.DeleteOrder(context.Background(), "A/1 2", tc.domainIn); err != nil {
			t.Fatal(err)
		}
		r := f.requests()[0]
		if r.Query.Get("domain") != tc.query || r.Header.Get("X-Service-Domain") != tc.header || r.IDs[0] != "A/1 2" {
			t.Errorf("%s %q: query %v header %q ids %q", tc.v, tc.setting, r.Query, r.Header.Get("X-Service-Domain"), r.IDs)
		}
	}
}

// TestPushConvergence checks the duplicate-convergence rules of hub-gaps.md: the hub
// answers each operation with the next status of its script.
func TestPushConvergence(t *testing.T) {
	noCustom := func(o *model.Order) { o.LineItems = nil }
	invalid := func(o *model.Order) { o.Email = "not an address" }
	cases := []struct {
		name      string
		push      string // create, update, delete
		mutate    func(*model.Order)
		script    map[string][]int
		want      hub.PushResult
		wantOps   []string
		wantErr   int  // HTTP status of the error, 0 none
		retryable bool // of the error
		validErr  bool
	}{
		{name: "create", push: "create", want: hub.PushResult{Op: "create"}, wantOps: []string{hub.OpCreateOrder}},
		{name: "create 200", push: "create", script: map[string][]int{hub.OpCreateOrder: {200}},
			want: hub.PushResult{Op: "create"}, wantOps: []string{hub.OpCreateOrder}},
		{name: "create 409 -> update", push: "create", script: map[string][]int{hub.OpCreateOrder: {409}},
			want: hub.PushResult{Op: "update", Converged: true}, wantOps: []string{hub.OpCreateOrder, hub.OpUpdateOrder}},
		{name: "create 409 -> update 503", push: "create", script: map[string][]int{hub.OpCreateOrder: {409}, hub.OpUpdateOrder: {503}},
			wantOps: []string{hub.OpCreateOrder, hub.OpUpdateOrder}, wantErr: 503, retryable: true},
		{name: "create 409 -> update 404", push: "create", script: map[string][]int{hub.OpCreateOrder: {409}, hub.OpUpdateOrder: {404}},
			wantOps: []string{hub.OpCreateOrder, hub.OpUpdateOrder}, wantErr: 404},
		{name: "create 400", push: "create", script: map[string][]int{hub.OpCreateOrder: {400}},
			wantOps: []string{hub.OpCreateOrder}, wantErr: 400},
		{name: "create 500", push: "create", script: map[string][]int{hub.OpCreateOrder: {500}},
			wantOps: []string{hub.OpCreateOrder}, wantErr: 500, retryable: true},
		{name: "create without customizations is skipped", push: "create", mutate: noCustom,
			want: hub.PushResult{Skipped: true}},
		{name: "create invalid", push: "create", mutate: invalid, validErr: true},
		{name: "update", push: "update", want: hub.PushResult{Op: "update"}, wantOps: []string{hub.OpUpdateOrder}},
		{name: "update 404 -> create", push: "update", script: map[string][]int{hub.OpUpdateOrder: {404}},
			want: hub.PushResult{Op: "create", Converged: true}, wantOps: []string{hub.OpUpdateOrder, hub.OpCreateOrder}},
		{name: "update 404 -> create 409", push: "update", script: map[string][]int{hub.OpUpdateOrder: {404}, hub.OpCreateOrder: {409}},
			wantOps: []string{hub.OpUpdateOrder, hub.OpCreateOrder}, wantErr: 409},
		{name: "update 429", push: "update", script: map[string][]int{hub.OpUpdateOrder: {429}},
			wantOps: []string{hub.OpUpdateOrder}, wantErr: 429, retryable: true},
		{name: "update without customizations deletes", push: "update", mutate: noCustom,
			want: hub.PushResult{Op: "delete"}, wantOps: []string{hub.OpDeleteOrder}},
		{name: "update without customizations, never pushed", push: "update", mutate: noCustom,
			script: map[string][]int{hub.OpDeleteOrder: {404}},
			want:   hub.PushResult{Op: "delete", Converged: true}, wantOps: []string{hub.OpDeleteOrder}},
		{name: "update invalid", push: "update", mutate: invalid, validErr: true},
		{name: "delete", push: "delete", want: hub.PushResult{Op: "delete"}, wantOps: []string{hub.OpDeleteOrder}},
		{name: "delete 404 is done", push: "delete", script: map[string][]int{hub.OpDeleteOrder: {404}},
			want: hub.PushResult{Op: "delete", Converged: true}, wantOps: []string{hub.OpDeleteOrder}},
		{name: "delete 502", push: "delete", script: map[string][]int{hub.OpDeleteOrder: {502}},
			wantOps: []string{hub.OpDeleteOrder}, wantErr: 502, retryable: true},
		{name: "delete 403", push: "delete", script: map[string][]int{hub.OpDeleteOrder: {403}},
			wantOps: []string{hub.OpDeleteOrder}, wantErr: 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeHub(t)
			script := map[string][]int{}
			for k, v := range tc.script {
				script[k] = slices.Clone(v)
			}
			f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
				if q := script[s.Op]; len(q) > 0 {
					script[s.Op] = q[1:]
					w.WriteHeader(q[0])
					_, _ = io.WriteString(w, `{"status":"scripted"}`)
					return
				}
				f.defaultAnswer(w, s)
			})
			c := f.client(t, hub.V2022)
			o := testOrder(t)
			if tc.mutate != nil {
				tc.mutate(o)
			}
			ctx := context.Background()
			var res hub.PushResult
			var err error
			switch tc.push {
			case "create":
				res, err = c.PushOrder(ctx, o)
			case "update":
				res, err = c.PushOrderUpdate(ctx, o)
			default:
				res, err = c.PushOrderDelete(ctx, o.OrderID, o.Domain)
			}
			if got := f.ops(); !slices.Equal(got, tc.wantOps) {
				t.Errorf("requests %v, want %v", got, tc.wantOps)
			}
			switch {
			case tc.validErr:
				var ve *hub.ValidationError
				if !errors.As(err, &ve) || ve.Retryable() || ve.Fields[0].Field != "email" {
					t.Errorf("err = %v, want a validation error on email", err)
				}
			case tc.wantErr != 0:
				var he *hub.Error
				if !errors.As(err, &he) || he.Status != tc.wantErr || he.Retryable() != tc.retryable {
					t.Errorf("err = %v, want status %d retryable %v", err, tc.wantErr, tc.retryable)
				}
			default:
				if err != nil || res != tc.want {
					t.Errorf("result %+v, %v; want %+v", res, err, tc.want)
				}
			}
		})
	}
}

// TestLogsCarryNoSecrets runs calls with a debug logger and checks that neither the
// secret, the signature nor the API key reach the log, while the calls are logged.
func TestLogsCarryNoSecrets(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f := newFakeHub(t)
	c := f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.Logger = log })
	ctx := context.Background()
	if _, err := c.PushOrder(ctx, testOrder(t)); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteOrder(ctx, "1001", "shop.example.com"); err != nil {
		t.Fatal(err)
	}
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) { w.WriteHeader(500) })
	_, errDesign := c.GetDesign(ctx, testRef)
	_, errExport := c.ExportView(ctx, testRef, "front")
	_, errMedia := c.OpenMedia(ctx, model.Media{ID: "m1", Token: "media-token-0123456789"})
	for _, err := range []error{errDesign, errExport, errMedia} {
		if err == nil || strings.Contains(err.Error(), testRef.Token) || strings.Contains(err.Error(), "media-token-0123456789") {
			t.Errorf("error shows a token: %v", err)
		}
	}
	out := buf.String()
	if !strings.Contains(out, "op=order.create") || !strings.Contains(out, "op=order.delete") || !strings.Contains(out, "status=500") {
		t.Errorf("calls not logged:\n%s", out)
	}
	sig := f.requests()[0].Header.Get("X-Service-Api-Signature")
	for _, secret := range []string{f.secret, f.key, sig, "domain=shop.example.com", testRef.Token, "media-token-0123456789"} {
		if strings.Contains(out, secret) {
			t.Errorf("log contains %q:\n%s", secret, out)
		}
	}
}
