// Package bench_test measures the render stages on the reference designs
// (docs/benchmarks.md). It uses render's public API only.
//
//	go test ./bench -run '^$' -bench . -benchtime=3x -count=5 | tee new.txt
//	benchstat new.txt
package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/printworker/printworker/bench/refdesign"
	"github.com/printworker/printworker/internal/testcpu"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
)

// refDir is the committed reference folder. The poster's photo is not committed (tens
// of MB); go run ./bench/gen writes it (bench/peers.sh does). When a design's media are
// missing, the design is generated into a temporary folder instead: identical bytes for
// the same Go release.
const refDir = "../testdata/bench"

var (
	genMu  sync.Mutex
	genDir = map[string]string{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, media := range genDir {
		os.RemoveAll(filepath.Dir(media))
	}
	os.Exit(code)
}

// loadDesign reads a committed reference design and returns a media source holding
// every media file it names.
func loadDesign(tb testing.TB, name string) (*model.DesignDetail, render.DirSource) {
	tb.Helper()
	d := readDesign(tb, name)
	media := filepath.Join(refDir, "media")
	for _, v := range d.Views {
		ids := []string{v.Template.MediaID()}
		for _, e := range v.Elements {
			if e.Value != nil && e.Type != model.ElementText {
				ids = append(ids, e.Value.MediaID())
			}
		}
		for _, id := range ids {
			if m, _ := filepath.Glob(filepath.Join(refDir, "media", id+".*")); len(m) == 0 {
				media = generated(tb, name)
			}
		}
	}
	return d, render.DirSource(media)
}

// readDesign reads a committed reference design alone (plans need no media).
func readDesign(tb testing.TB, name string) *model.DesignDetail {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(refDir, "designs", name+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	var d model.DesignDetail
	if err := json.Unmarshal(b, &d); err != nil {
		tb.Fatal(err)
	}
	return &d
}

// generated writes the named design into a temporary folder once per test binary and
// returns its media folder.
func generated(tb testing.TB, name string) string {
	tb.Helper()
	genMu.Lock()
	defer genMu.Unlock()
	if dir, ok := genDir[name]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "printworker-bench-")
	if err != nil {
		tb.Fatal(err)
	}
	if err := refdesign.Write(dir, name); err != nil {
		tb.Fatal(err)
	}
	genDir[name] = filepath.Join(dir, "media")
	return genDir[name]
}

func newRenderer(tb testing.TB) *render.Renderer {
	tb.Helper()
	r, err := render.New(render.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// TestReferencePlans checks that the reference designs describe what
// docs/benchmarks.md says they do, so the benchmarks measure the intended sizes.
func TestReferencePlans(t *testing.T) {
	r := newRenderer(t)
	tests := []struct {
		name                string
		view                string
		typ                 string
		dpi                 float64
		widthPx, heightPx   int
		pageWidth, pageHigh float64
	}{
		{refdesign.TShirtFront, "front", model.ExportPNG, 300, 4167, 5000, 1000, 1200},
		{refdesign.TShirtTwoViews, "front", model.ExportPNG, 300, 4167, 5000, 1000, 1200},
		{refdesign.TShirtTwoViews, "back", model.ExportPNG, 300, 4167, 5000, 1000, 1200},
		{refdesign.NameLabel, "label", model.ExportPNG, 300, 1417, 458, 340, 110},
		{refdesign.Poster, "poster", model.ExportPNG, 600, 4958, 7017, 595, 842},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.view, func(t *testing.T) {
			d := readDesign(t, tt.name)
			p, err := r.Plan(d, tt.view)
			if err != nil {
				t.Fatal(err)
			}
			if p.Type != tt.typ || p.DPI != tt.dpi || p.WidthPx != tt.widthPx || p.HeightPx != tt.heightPx ||
				p.PageWidthPt != tt.pageWidth || p.PageHeightPt != tt.pageHigh {
				t.Errorf("plan %s %v dpi %dx%d px, %vx%v pt; want %s %v dpi %dx%d px, %vx%v pt",
					p.Type, p.DPI, p.WidthPx, p.HeightPx, p.PageWidthPt, p.PageHeightPt,
					tt.typ, tt.dpi, tt.widthPx, tt.heightPx, tt.pageWidth, tt.pageHigh)
			}
			if len(p.Unsupported) > 0 {
				t.Errorf("unsupported features in a reference design: %v", p.Unsupported)
			}
		})
	}
}

// TestReferenceScene checks that reference 1 resolves to the layers it was built with
// (background, photo, badge, three texts). The 2000 x 2000 photo filling 760
// template px is 189 dpi at a 300-dpi export: the one warning expected.
func TestReferenceScene(t *testing.T) {
	r := newRenderer(t)
	d, media := loadDesign(t, refdesign.TShirtFront)
	s, err := r.BuildScene(context.Background(), d, "front", media)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range s.Layers {
		got = append(got, l.ElementID+":"+l.Kind.String())
	}
	want := []string{"bg:" + render.LayerFill.String(), "photo:" + render.LayerImage.String(),
		"badge:" + render.LayerSVG.String(), "title:" + render.LayerText.String(),
		"team:" + render.LayerText.String(), "lines:" + render.LayerText.String()}
	if len(got) != len(want) {
		t.Fatalf("layers %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("layer %d is %s, want %s", i, got[i], want[i])
		}
	}
	if len(s.Warnings) != 1 || s.Warnings[0].Code != render.WarnLowResolution || s.Warnings[0].ElementID != "photo" {
		t.Errorf("warnings %v, want one %s on photo", s.Warnings, render.WarnLowResolution)
	}
}

// BenchmarkBuildScene: design -> scene, media read and decoded (the 2000 x 2000 JPEG,
// the SVG), text laid out.
func BenchmarkBuildScene(b *testing.B) {
	r := newRenderer(b)
	d, media := loadDesign(b, refdesign.TShirtFront)
	ctx := context.Background()
	cpu := cpuMeter{tb: b}
	b.ReportAllocs()
	cpu.on()
	for b.Loop() {
		if _, err := r.BuildScene(ctx, d, "front", media); err != nil {
			b.Fatal(err)
		}
	}
	cpu.off()
	cpu.report(b)
}

// BenchmarkRasterize: scene -> 4167 x 5000 RGBA canvas. Rasterize releases the decoded
// sources it draws, so each iteration gets a fresh scene (built off the clock).
func BenchmarkRasterize(b *testing.B) { benchRasterize(b, nil) }

// benchRasterize times Rasterize on fresh scenes of reference 1; keep, when set, picks
// the layers drawn (the floor's subsets).
func benchRasterize(b *testing.B, keep func(*render.Scene)) {
	r := newRenderer(b)
	d, media := loadDesign(b, refdesign.TShirtFront)
	ctx := context.Background()
	cpu := cpuMeter{tb: b}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := r.BuildScene(ctx, d, "front", media)
		if err != nil {
			b.Fatal(err)
		}
		if keep != nil {
			keep(s)
		}
		b.StartTimer()
		cpu.on()
		if _, err := r.Rasterize(ctx, s); err != nil {
			b.Fatal(err)
		}
		cpu.off()
	}
	cpu.report(b)
}

// BenchmarkEncodePNG: the rasterized canvas of reference 1 -> PNG bytes (render/internal/pngenc
// with its defaults, the encoder RenderView uses).
func BenchmarkEncodePNG(b *testing.B) {
	r := newRenderer(b)
	d, media := loadDesign(b, refdesign.TShirtFront)
	ctx := context.Background()
	s, err := r.BuildScene(ctx, d, "front", media)
	if err != nil {
		b.Fatal(err)
	}
	img, err := r.Rasterize(ctx, s)
	if err != nil {
		b.Fatal(err)
	}
	var n countWriter
	cpu := cpuMeter{tb: b}
	b.SetBytes(int64(len(img.Pix)))
	b.ReportAllocs()
	cpu.on()
	for b.Loop() {
		n = 0
		if err := render.EncodePNG(ctx, &n, img, render.PNGOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	cpu.off()
	cpu.report(b)
	b.ReportMetric(float64(n), "out-bytes")
}

// BenchmarkRenderView: the whole render of each reference view as the worker runs it:
// decode, draw, encode, written to memory.
func BenchmarkRenderView(b *testing.B) {
	cases := []struct{ bench, design, view, typ string }{
		{"tshirt-front/png", refdesign.TShirtFront, "front", ""},
		{"tshirt-front/pdf", refdesign.TShirtFront, "front", model.ExportPDF},
		{"tshirt-front/pdf-simple", refdesign.TShirtFront, "front", model.ExportPDFSimple},
		{"tshirt-back/png", refdesign.TShirtTwoViews, "back", ""},
		{"name-label/png", refdesign.NameLabel, "label", ""},
		{"poster-600dpi/png", refdesign.Poster, "poster", ""},
	}
	for _, c := range cases {
		b.Run(c.bench, func(b *testing.B) {
			r := newRenderer(b)
			d, media := loadDesign(b, c.design)
			if c.typ != "" {
				for i := range d.Views {
					d.Views[i].Export.Type = c.typ
				}
			}
			ctx := context.Background()
			var buf bytes.Buffer
			cpu := cpuMeter{tb: b}
			b.ReportAllocs()
			cpu.on()
			for b.Loop() {
				buf.Reset()
				if _, err := r.RenderView(ctx, d, c.view, media, &buf); err != nil {
					b.Fatal(err)
				}
			}
			cpu.off()
			cpu.report(b)
			b.ReportMetric(float64(buf.Len()), "out-bytes")
		})
	}
}

// cpuMeter adds up the process CPU time spent in the timed parts of a benchmark and
// reports it per iteration as cpu-ms/op (next to the wall-clock ns/op).
type cpuMeter struct {
	tb    testing.TB
	start time.Duration
	total time.Duration
}

func (m *cpuMeter) on()  { m.start = testcpu.Time(m.tb) }
func (m *cpuMeter) off() { m.total += testcpu.Time(m.tb) - m.start }
func (m *cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64(m.total)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
