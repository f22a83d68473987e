package render

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/svg"
)

// Bad input fails with an *InputError that says what is wrong and is not retryable,
// and (for caps) fails before any media is read.
func TestInputErrors(t *testing.T) {
	front := func(f func(v *model.View)) func(d *model.DesignDetail) {
		return func(d *model.DesignDetail) { f(&d.Views[0]) }
	}
	tests := []struct {
		name   string
		design string
		view   string
		opts   Options
		mutate func(d *model.DesignDetail)
		want   string
	}{
		{name: "unknown view", design: "basic.json", view: "back", want: "no such view"},
		{name: "unknown export area", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) { v.Export.AreaType, v.Export.Area = "area", str("nope") }),
			want:   `export area "nope" is not an area of the view`},
		{name: "area type without area", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) { v.Export.AreaType = "area" }), want: "without an area id"},
		{name: "unknown area type", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) { v.Export.AreaType = "page" }), want: `areaType "page"`},
		{name: "empty custom box", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) { v.Export.AreaType = "custom" }), want: "is empty"},
		{name: "dpi zero", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) { v.Export.DPI = 0 }), want: "dpi 0 outside 1..2400"},
		{name: "dpi too high", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) { v.Export.DPI = 2401 }), want: "dpi 2401 outside"},
		{name: "unknown type", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) { v.Export.Type = "tiff" }), want: `export type "tiff"`},
		{name: "pixel cap", design: "basic.json", view: "front", opts: Options{MaxPixels: 10_000},
			want: "exceeds the cap of 0.01 megapixels"},
		{name: "pixel cap at print size", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) { v.Width, v.Height, v.Export.DPI = 20000, 20000, 2400 }),
			want:   "output 666667x666667 px"},
		{name: "source bomb", design: "basic.json", view: "front", opts: Options{MaxSourcePixels: 10_000},
			want: "declares 160x100 px"},
		{name: "media byte cap", design: "basic.json", view: "front", opts: Options{MaxMediaBytes: 100},
			want: "larger than the cap of 100 bytes"},
		{name: "unknown element area", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) { v.Elements[1].Area = str("gone") }), want: `area "gone" is not an area`},
		{name: "strict unknown font", design: "text.json", view: "words", opts: Options{Strict: true},
			want: `font family "Comic Foo" is not installed (strict mode)`},
		{name: "bad colour", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) { v.Elements[1].Colors[0].Color = "cream" }), want: `colour "cream" is not a hex colour`},
		{name: "svg over element cap", design: "illustrations.json", view: "art", opts: Options{SVG: svgLimits(3)},
			want: "media star"},
		{name: "missing media file", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) {
				v.Elements[3].Value = ptr(model.MediaValue(model.Media{ID: "nothing-here"}))
			}), want: "no file nothing-here.*"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := loadDesign(t, tc.design)
			if tc.mutate != nil {
				tc.mutate(d)
			}
			r := newRenderer(t, tc.opts)
			var buf bytes.Buffer
			_, err := r.RenderView(context.Background(), d, tc.view, DirSource(mediaDir), &buf)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v (%T), want *InputError", err, err)
			}
			if ie.Retryable() {
				t.Error("InputError is retryable")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to contain %q", err, tc.want)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes before failing", buf.Len())
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// countingSource counts media opened, to prove caps are checked before media I/O.
type countingSource struct {
	MediaSource
	opened int
}

func (c *countingSource) OpenMedia(ctx context.Context, m model.Media) (io.ReadCloser, error) {
	c.opened++
	return c.MediaSource.OpenMedia(ctx, m)
}

func TestPixelCapBeforeMedia(t *testing.T) {
	d := loadDesign(t, "basic.json")
	src := &countingSource{MediaSource: DirSource(mediaDir)}
	r := newRenderer(t, Options{MaxPixels: 100})
	if _, err := r.RenderView(context.Background(), d, "front", src, io.Discard); err == nil {
		t.Fatal("no error over the pixel cap")
	}
	if src.opened != 0 {
		t.Errorf("opened %d media files before refusing", src.opened)
	}
}

// Media source failures keep their own classification (a transient hub error stays
// retryable) instead of turning into input errors.
func TestMediaErrorPassesThrough(t *testing.T) {
	d := loadDesign(t, "basic.json")
	r := newRenderer(t, Options{})
	boom := errors.New("connection reset")
	_, err := r.RenderView(context.Background(), d, "front", failingSource{boom}, io.Discard)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap %v", err, boom)
	}
	var ie *InputError
	if errors.As(err, &ie) {
		t.Errorf("a media transport error became an InputError: %v", err)
	}
}

type failingSource struct{ err error }

func (f failingSource) OpenMedia(context.Context, model.Media) (io.ReadCloser, error) {
	return nil, f.err
}

func TestPlan(t *testing.T) {
	d := loadDesign(t, "basic.json")
	d.Views[0].Export.DPI = 300
	r := newRenderer(t, Options{})
	p, err := r.Plan(d, "front")
	if err != nil {
		t.Fatal(err)
	}
	// hub-gaps.md: 1 template px = 1 pt; pixels = round(box x dpi / 72).
	if p.WidthPx != 833 || p.HeightPx != 625 || p.PageWidthPt != 200 || p.PageHeightPt != 150 {
		t.Errorf("plan %+v", p)
	}
	if p.CanvasBytes != 4*833*625 {
		t.Errorf("CanvasBytes = %d", p.CanvasBytes)
	}
	// photo 160x100 + template 100x75, 4 bytes a pixel.
	if p.SourceBytes != 4*(160*100+100*75) {
		t.Errorf("SourceBytes = %d", p.SourceBytes)
	}
	if got, want := p.PeakBytes(), p.CanvasBytes+p.SourceBytes+p.CanvasBytes/10; got != want {
		t.Errorf("png PeakBytes = %d, want %d", got, want)
	}
	d.Views[0].Export.Type = model.ExportPDF
	if p, _ := r.Plan(d, "front"); p.CanvasBytes != 0 || p.PeakBytes() != 2*p.SourceBytes {
		t.Errorf("vector pdf: CanvasBytes %d, PeakBytes %d; want no canvas, twice the sources", p.CanvasBytes, p.PeakBytes())
	}
	d.Views[0].Export.Type = model.ExportPNG
	d.Views[0].Width, d.Views[0].Height = 1000, 1000
	if p, _ = r.Plan(d, "front"); p.WidthPx != 4167 || p.HeightPx != 4167 {
		t.Errorf("1000x1000 box at 300 dpi = %dx%d px, want 4167x4167", p.WidthPx, p.HeightPx)
	}
	r = newRenderer(t, Options{Basis: BasisPixel})
	if p, _ = r.Plan(d, "front"); p.WidthPx != 1000 || p.PageWidthPt != 240 {
		t.Errorf("pixel basis: %d px, %g pt; want 1000 px, 240 pt", p.WidthPx, p.PageWidthPt)
	}
}

func TestUnsupportedFeaturesReported(t *testing.T) {
	d := loadDesign(t, "basic.json")
	v := &d.Views[0]
	v.CutOutMask = []byte(`{"_id":"mask"}`)
	v.Elements[2].Curvable = []byte("true")
	v.Elements[2].CurveRadius = []byte("120")
	r := newRenderer(t, Options{})
	p, err := r.Plan(d, "front")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"view cutOutMask", "element title: curved text (curveRadius)"}
	if strings.Join(p.Unsupported, "|") != strings.Join(want, "|") {
		t.Errorf("Unsupported = %q, want %q", p.Unsupported, want)
	}
	res, err := r.RenderView(context.Background(), d, "front", DirSource(mediaDir), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range res.Warnings {
		if w.Code == WarnUnsupported {
			n++
		}
	}
	if n != len(want) {
		t.Errorf("warnings %v: want %d unsupported-feature", res.Warnings, len(want))
	}
}

func multiView(t *testing.T, typ string) *model.DesignDetail {
	t.Helper()
	d := loadDesign(t, "basic.json")
	back := d.Views[0]
	back.ID, back.Weight, back.Active = "back", 1, false
	back.Name = model.NewTranslations("en", "Back")
	back.Export.DPI = 36
	// The back comes first in the array; weight puts it second.
	d.Views = []model.View{back, d.Views[0]}
	for i := range d.Views {
		d.Views[i].Export.Type = typ
	}
	return d
}

func TestRenderAllZip(t *testing.T) {
	d := multiView(t, model.ExportPNG)
	r := newRenderer(t, Options{})
	var buf bytes.Buffer
	res, err := r.RenderAll(context.Background(), d, DirSource(mediaDir), &buf)
	if err != nil {
		t.Fatal(err)
	}
	if res.ContentType != ContentTypeZip || len(res.Views) != 2 || res.Bytes != int64(buf.Len()) {
		t.Fatalf("result %+v", res)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"1001-Basic-mug-Front.png", "1001-Basic-mug-Back.png"}
	wantWidth := []int{200, 100}
	if len(zr.File) != 2 {
		t.Fatalf("%d zip entries", len(zr.File))
	}
	for i, f := range zr.File {
		if f.Name != wantNames[i] {
			t.Errorf("entry %d = %q, want %q", i, f.Name, wantNames[i])
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if img.Bounds().Dx() != wantWidth[i] {
			t.Errorf("%s is %d px wide, want %d", f.Name, img.Bounds().Dx(), wantWidth[i])
		}
	}
}

func TestRenderAllPDFSimple(t *testing.T) {
	if _, err := exec.LookPath("pdfinfo"); err != nil {
		t.Skip("pdfinfo not installed")
	}
	d := multiView(t, model.ExportPDFSimple)
	r := newRenderer(t, Options{})
	var buf bytes.Buffer
	res, err := r.RenderAll(context.Background(), d, DirSource(mediaDir), &buf)
	if err != nil {
		t.Fatal(err)
	}
	if res.ContentType != ContentTypePDF || len(res.Views) != 2 || res.Views[0].ViewID != "front" {
		t.Fatalf("result %+v", res)
	}
	path := filepath.Join(t.TempDir(), "all.pdf")
	must(t, os.WriteFile(path, buf.Bytes(), 0o644))
	out, err := exec.Command("pdfinfo", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "Pages:           2") {
		t.Errorf("pdfinfo:\n%s", out)
	}
	img, err := exec.Command("pdfimages", "-list", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	// One raster per page at the view's export dpi: 200x150 at 72 dpi, 100x75 at 36.
	for _, want := range []string{" 200   150  rgb     3   8", " 100    75  rgb     3   8"} {
		if !strings.Contains(string(img), want) {
			t.Errorf("pdfimages -list lacks %q:\n%s", want, img)
		}
	}
}

// The same design always yields the same bytes (names and contents are stable across
// retries).
func TestDeterministic(t *testing.T) {
	r := newRenderer(t, Options{Workers: 4})
	var a, b bytes.Buffer
	for _, buf := range []*bytes.Buffer{&a, &b} {
		d := loadDesign(t, "pictures.json")
		if _, err := r.RenderView(context.Background(), d, "main", DirSource(mediaDir), buf); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renders of the same design differ")
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := loadDesign(t, "basic.json")
	_, err := newRenderer(t, Options{}).RenderView(ctx, d, "front", DirSource(mediaDir), io.Discard)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func svgLimits(maxElements int) svg.Limits { return svg.Limits{MaxElements: maxElements} }

// PNGSpeedFastest changes only the compression: the same pixels as the default, in a
// different file. An unknown speed is refused by New.
func TestPNGSpeed(t *testing.T) {
	if _, err := New(Options{PNGSpeed: "warp"}); err == nil {
		t.Error("New accepted png speed \"warp\"")
	}
	files := map[string][]byte{}
	for _, speed := range []string{"", PNGSpeedBalanced, PNGSpeedFastest} {
		var buf bytes.Buffer
		d := loadDesign(t, "pictures.json")
		if _, err := newRenderer(t, Options{PNGSpeed: speed}).RenderView(context.Background(), d, "main", DirSource(mediaDir), &buf); err != nil {
			t.Fatalf("speed %q: %v", speed, err)
		}
		files[speed] = buf.Bytes()
	}
	if !bytes.Equal(files[""], files[PNGSpeedBalanced]) {
		t.Error("the default and balanced PNGs differ")
	}
	if bytes.Equal(files[""], files[PNGSpeedFastest]) {
		t.Error("fastest wrote the same bytes as balanced: not Huffman-only")
	}
	def, err := png.Decode(bytes.NewReader(files[""]))
	if err != nil {
		t.Fatal(err)
	}
	fast, err := png.Decode(bytes.NewReader(files[PNGSpeedFastest]))
	if err != nil {
		t.Fatal(err)
	}
	b := def.Bounds()
	if fast.Bounds() != b {
		t.Fatalf("bounds %v and %v", b, fast.Bounds())
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if def.At(x, y) != fast.At(x, y) {
				t.Fatalf("pixel (%d, %d): %v balanced, %v fastest", x, y, def.At(x, y), fast.At(x, y))
			}
		}
	}
}
