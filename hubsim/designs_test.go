package hubsim

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

var (
	shirt = model.DesignRef{ID: 1001, Token: "7d9f2c4e-1b3a-4c5d-8e6f-0a1b2c3d4e5f"}
	mug   = model.DesignRef{ID: 1002, Token: "2c5e8a1f-6b4d-4e3a-9f7c-8d2e1a0b9c3d"}
	card  = model.DesignRef{ID: 1003, Token: "e4b7c1d9-3a2f-4b8e-a6d5-7c9e0f1a2b3c"}
)

func designReq(v hub.Version, ref model.DesignRef) req {
	return req{v: v, method: "GET", path: hub.DesignPath(v, ref), parts: []string{fmt.Sprint(ref.ID), ref.Token}}
}

func exportReq(v hub.Version, ref model.DesignRef, view string) req {
	q := req{v: v, method: "GET", path: hub.ExportPath(v, ref, view), parts: []string{fmt.Sprint(ref.ID), ref.Token}}
	if view != "" {
		q.parts = append(q.parts, view)
	}
	return q
}

func TestDesignDetails(t *testing.T) {
	_, ts := start(t, nil)
	for _, v := range versions {
		for _, ref := range []model.DesignRef{shirt, mug, card} {
			t.Run(fmt.Sprintf("%s/%d", v, ref.ID), func(t *testing.T) {
				r := do(t, ts, designReq(v, ref))
				wantStatus(t, r, http.StatusOK)
				want, err := os.ReadFile(filepath.Join(fixture, fmt.Sprint(ref.ID)+".json"))
				if err != nil {
					t.Fatal(err)
				}
				var got, exp any
				r.json(t, &got)
				if err := json.Unmarshal(want, &exp); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, exp) {
					t.Fatalf("design detail differs from the fixture:\n%s", r.body)
				}
			})
		}
	}
	t.Run("not found", func(t *testing.T) {
		for name, q := range map[string]req{
			"wrong token":  designReq(hub.V2023, model.DesignRef{ID: shirt.ID, Token: "00000000-0000-0000-0000-000000000000"}),
			"unknown id":   designReq(hub.V2023, model.DesignRef{ID: 999, Token: shirt.Token}),
			"old v2 path":  {v: hub.V2023, method: "GET", path: "/2023-10/customizations/1001/" + shirt.Token, parts: []string{"1001", shirt.Token}},
			"unknown view": exportReq(hub.V2023, shirt, "collar"),
			"other store": func() req {
				q := designReq(hub.V2023, shirt)
				q.store, q.key, q.secret = "other-store", "other-key", "other-secret"
				return q
			}(),
		} {
			r := do(t, ts, q)
			if r.status != http.StatusNotFound {
				t.Errorf("%s: status %d, want 404", name, r.status)
			}
			r.apiErr(t)
		}
	})
}

func TestDesignStoreOverride(t *testing.T) {
	_, ts := start(t, func(c *Config) { c.DesignStore = "other-store" })
	q := designReq(hub.V2022, card)
	wantStatus(t, do(t, ts, q), http.StatusNotFound)
	q.store, q.key, q.secret = "other-store", "other-key", "other-secret"
	var d model.DesignDetail
	r := do(t, ts, q)
	wantStatus(t, r, http.StatusOK)
	r.json(t, &d)
	if d.Shop != "other-store" {
		t.Fatalf("shop %q", d.Shop)
	}
}

func TestMedia(t *testing.T) {
	s, ts := start(t, func(c *Config) { c.MediaPath = "/files/{token}/{_id}" })
	seen := map[string]bool{}
	for _, ref := range s.Designs() {
		d, _ := s.Design(ref.ID)
		for _, m := range DesignMedia(&d) {
			seen[m.ID] = true
			path := s.MediaPath(m)
			if !strings.HasPrefix(path, "/files/"+m.Token+"/") {
				t.Fatalf("media path %q does not follow the pattern", path)
			}
			r := do(t, ts, req{noSign: true, method: "GET", path: path})
			wantStatus(t, r, http.StatusOK)
			if ct := r.header.Get("Content-Type"); ct != m.MimeType {
				t.Errorf("%s: content type %q, want %q", m.ID, ct, m.MimeType)
			}
			if int64(len(r.body)) != m.Size {
				t.Errorf("%s: %d bytes, want %d", m.ID, len(r.body), m.Size)
			}
			wantStatus(t, do(t, ts, req{noSign: true, method: "GET", path: "/files/wrong-token/" + m.ID}), http.StatusNotFound)
		}
	}
	if len(seen) != 10 {
		t.Fatalf("%d media objects in the fixtures, want 10", len(seen))
	}
	if err := s.AddMedia(model.Media{ID: "m1", Token: "t1", MimeType: "text/plain"}, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	rc, err := s.OpenMedia(t.Context(), model.Media{ID: "m1", Token: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	if string(b) != "hello" {
		t.Fatalf("OpenMedia read %q", b)
	}
	if _, err := s.OpenMedia(t.Context(), model.Media{ID: "m1", Token: "t2"}); err == nil {
		t.Fatal("OpenMedia accepted a wrong token")
	}
}

func TestExportView(t *testing.T) {
	_, ts := start(t, nil)
	cases := []struct {
		ref      model.DesignRef
		view     string
		ctype    string
		filename string
		pageSize string // PDF page size (pdfinfo), or PNG pixel size
	}{
		{shirt, "front", "application/pdf", "1001-Team-Shirt.pdf", "300 x 400 pts"},
		{shirt, "back", "application/pdf", "tshirt-classic-2024-03-05-1001.pdf", "500 x 600 pts"},
		{shirt, "sleeve", "application/pdf", "1001-Team-Shirt-sleeve.pdf", "120 x 80 pts"},
		{mug, "left", "image/png", "1002-Coffee-Mug.png", "1167x458"},
		{mug, "right", "image/png", "1002-Coffee-Mug.png", "1250x521"},
		{card, "card", "application/pdf", "1003-Greeting-Card-2024-05-20.pdf", "420 x 298 pts"},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/%d/%s", v, c.ref.ID, c.view), func(t *testing.T) {
				r := do(t, ts, exportReq(v, c.ref, c.view))
				wantStatus(t, r, http.StatusOK)
				if got := r.header.Get("Content-Type"); got != c.ctype {
					t.Errorf("content type %q, want %q", got, c.ctype)
				}
				if got, want := r.header.Get("Content-Disposition"), `attachment; filename="`+c.filename+`"`; got != want {
					t.Errorf("content disposition %q, want %q", got, want)
				}
				if c.ctype == "image/png" {
					cfg, err := png.DecodeConfig(bytes.NewReader(r.body))
					if err != nil {
						t.Fatal(err)
					}
					if got := fmt.Sprintf("%dx%d", cfg.Width, cfg.Height); got != c.pageSize {
						t.Errorf("PNG %s, want %s", got, c.pageSize)
					}
					return
				}
				info := pdfInfo(t, r.body)
				if info["Pages"] != "1" || info["Page size"] != c.pageSize {
					t.Errorf("pdfinfo %v, want one page of %s", info, c.pageSize)
				}
			})
		}
	}
}

func TestExportAll(t *testing.T) {
	_, ts := start(t, nil)
	for _, v := range versions {
		t.Run(string(v)+"/multi-view pdf", func(t *testing.T) {
			r := do(t, ts, exportReq(v, shirt, ""))
			wantStatus(t, r, http.StatusOK)
			if r.header.Get("Content-Type") != "application/pdf" ||
				r.header.Get("Content-Disposition") != `attachment; filename="1001-Team-Shirt.pdf"` {
				t.Fatalf("headers %v", r.header)
			}
			qpdfCheck(t, r.body)
			// A page per view in weight order: front (0), back (1), sleeve (2), although
			// the design lists the sleeve second.
			sizes := pdfPageSizes(t, r.body)
			want := []string{"300 x 400 pts", "500 x 600 pts", "120 x 80 pts"}
			if !reflect.DeepEqual(sizes, want) {
				t.Fatalf("page sizes %q, want %q", sizes, want)
			}
		})
		t.Run(string(v)+"/multi-view png", func(t *testing.T) {
			r := do(t, ts, exportReq(v, mug, ""))
			wantStatus(t, r, http.StatusOK)
			if r.header.Get("Content-Type") != "application/zip" ||
				r.header.Get("Content-Disposition") != `attachment; filename="1002-Coffee-Mug.zip"` {
				t.Fatalf("headers %v", r.header)
			}
			zr, err := zip.NewReader(bytes.NewReader(r.body), int64(len(r.body)))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range zr.File {
				names = append(names, f.Name)
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				if _, err := png.DecodeConfig(rc); err != nil {
					t.Errorf("%s: %v", f.Name, err)
				}
				rc.Close()
			}
			if want := []string{"1002-Coffee-Mug-Left.png", "1002-Coffee-Mug-Right.png"}; !reflect.DeepEqual(names, want) {
				t.Fatalf("zip entries %q, want %q", names, want)
			}
		})
		t.Run(string(v)+"/single view", func(t *testing.T) {
			r := do(t, ts, exportReq(v, card, ""))
			wantStatus(t, r, http.StatusOK)
			if r.header.Get("Content-Type") != "application/pdf" || pdfInfo(t, r.body)["Pages"] != "1" {
				t.Fatalf("headers %v", r.header)
			}
		})
	}
}

// fakeExporter draws nothing: it writes a marker PDF or PNG after reading every media
// file of the view through the MediaOpener, so the test sees that the hook is used.
type fakeExporter struct {
	opened []string
	pdf    []byte
}

func (f *fakeExporter) ExportView(ctx context.Context, d *model.DesignDetail, viewID string, media MediaOpener, w io.Writer) (string, error) {
	v, ok := d.ViewByID(viewID)
	if !ok {
		return "", fmt.Errorf("no view %s", viewID)
	}
	m, _, err := v.Template.Media()
	if err != nil {
		return "", err
	}
	rc, err := media.OpenMedia(ctx, m)
	if err != nil {
		return "", err
	}
	rc.Close()
	f.opened = append(f.opened, m.ID)
	_, err = w.Write(f.pdf)
	return "application/pdf", err
}

func TestExporterHook(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(fixture, "exports/1001/sleeve.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	ex := &fakeExporter{pdf: page}
	_, ts := start(t, func(c *Config) { c.Exporter = ex })
	r := do(t, ts, exportReq(hub.V2023, shirt, ""))
	wantStatus(t, r, http.StatusOK)
	if got := pdfPageSizes(t, r.body); len(got) != 3 {
		t.Fatalf("pages %q", got)
	}
	want := []string{"6561f0a0c0ffee000000a001", "6561f0a0c0ffee000000a002", "6561f0a0c0ffee000000a003"}
	if !reflect.DeepEqual(ex.opened, want) {
		t.Fatalf("exporter opened %q, want %q (weight order)", ex.opened, want)
	}
}

func TestExportWithoutFiles(t *testing.T) {
	s, ts := start(t, func(c *Config) { c.DesignsDir = "" })
	d := loadDesign(t, 1003)
	if err := s.AddDesign(d); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, do(t, ts, designReq(hub.V2023, card)), http.StatusOK)
	r := do(t, ts, exportReq(hub.V2023, card, "card"))
	wantStatus(t, r, http.StatusInternalServerError)
	r.apiErr(t)
}

func TestAddDesignValidates(t *testing.T) {
	s, _ := start(t, func(c *Config) { c.DesignsDir = "" })
	d := loadDesign(t, 1001)
	d.Views[1].Active = true
	if err := s.AddDesign(d); err == nil || !strings.Contains(err.Error(), "views[1].active") {
		t.Fatalf("AddDesign: %v", err)
	}
	d = loadDesign(t, 1001)
	d.Token = "bad token"
	if err := s.AddDesign(d); err == nil {
		t.Fatal("AddDesign accepted a bad token")
	}
}

func loadDesign(t *testing.T, id int64) model.DesignDetail {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixture, fmt.Sprint(id)+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var d model.DesignDetail
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// Poppler and qpdf checks.

func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed (apt-get install poppler-utils qpdf)", name)
	}
	return p
}

func writeTemp(t *testing.T, b []byte, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func pdfInfo(t *testing.T, pdf []byte, args ...string) map[string]string {
	t.Helper()
	out, err := exec.Command(tool(t, "pdfinfo"), append(args, writeTemp(t, pdf, "x.pdf"))...).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}

var pageSizeRE = regexp.MustCompile(`(?m)^Page +\d+ size: +(.+?)$`)

// pdfPageSizes lists each page's size as pdfinfo prints it ("300 x 400 pts").
func pdfPageSizes(t *testing.T, pdf []byte) []string {
	t.Helper()
	out, err := exec.Command(tool(t, "pdfinfo"), "-f", "1", "-l", "1000", writeTemp(t, pdf, "x.pdf")).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	var sizes []string
	for _, m := range pageSizeRE.FindAllStringSubmatch(string(out), -1) {
		sizes = append(sizes, strings.TrimSpace(m[1]))
	}
	return sizes
}

func qpdfCheck(t *testing.T, pdf []byte) {
	t.Helper()
	out, err := exec.Command(tool(t, "qpdf"), "--check", writeTemp(t, pdf, "x.pdf")).CombinedOutput()
	if err != nil {
		t.Fatalf("qpdf --check: %v\n%s", err, out)
	}
}

func TestExporterErrors(t *testing.T) {
	fail := func(err error) Exporter {
		return ExporterFunc(func(context.Context, *model.DesignDetail, string, MediaOpener, io.Writer) (string, error) {
			return "", err
		})
	}
	for _, c := range []struct {
		err  error
		want int
	}{
		{fmt.Errorf("no file: %w", ErrNotFound), http.StatusNotFound},
		{errors.New("renderer broke"), http.StatusInternalServerError},
	} {
		_, ts := start(t, func(cfg *Config) { cfg.Exporter = fail(c.err) })
		for _, q := range []req{exportReq(hub.V2022, mug, "left"), exportReq(hub.V2022, mug, "")} {
			r := do(t, ts, q)
			wantStatus(t, r, c.want)
			r.apiErr(t)
		}
	}
}
