package svg

import (
	"context"
	"fmt"
	"github.com/printworker/printworker/internal/testctx"
	"image"
	"runtime"
	"strings"
	"testing"
)

// manyShapes is an SVG of n full-canvas shapes of size x size (the 19,000
// rectangles at 500 x 500 took 48 s).
func manyShapes(n, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">`, size, size)
	for i := range n {
		fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#%06x"/>`, size, size, (i*7919)&0xffffff)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// zigzag is an SVG path of n segments, each running the canvas's whole height (the
// even-odd rasterizer once kept every such edge's crossings of every sample row of a
// band: 16 KB a segment).
func zigzag(n, size int, attrs string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d"><path %s d="M0 0`, size, size, attrs)
	for i := 1; i <= n; i++ {
		y := 0
		if i%2 == 1 {
			y = size
		}
		fmt.Fprintf(&b, " L%.3f %d", float64(i)*float64(size)/float64(n), y)
	}
	b.WriteString(`Z"/></svg>`)
	return b.String()
}

func mustParse(t testing.TB, src string) *Doc {
	t.Helper()
	d, err := Parse(strings.NewReader(src), Limits{MaxBytes: 64 << 20, MaxElements: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDrawCancel: a draw whose context ends mid-way returns the context's error at the
// next check (one shape, one band of rows or a few thousand edges later), not at the
// end of the drawing; the checks are counted, not timed.
func TestDrawCancel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		doc   *Doc
		size  int
		after int64
	}{
		// 19,000 full-canvas shapes: stopped in the tenth shape.
		{"19000 shapes", mustParse(t, manyShapes(19000, 500)), 500, 40},
		// One even-odd path of 100k full-height segments: stopped while its edges
		// are clipped to the first band.
		{"even-odd 100k segments", mustParse(t, zigzag(100_000, 256, `fill="#000" fill-rule="evenodd"`)), 256, 20},
		// Its nonzero twin and its stroke.
		{"nonzero 100k segments", mustParse(t, zigzag(100_000, 256, `fill="#000"`)), 256, 20},
		{"stroke 20k segments", mustParse(t, zigzag(20_000, 256, `fill="none" stroke="#000" stroke-width="3"`)), 256, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := testctx.CancelAt(tc.after)
			img := image.NewRGBA(image.Rect(0, 0, tc.size, tc.size))
			err := Draw(ctx, img, tc.doc, Identity, img.Bounds(), 1)
			if err != context.Canceled {
				t.Fatalf("err %v, want context.Canceled", err)
			}
			if n := ctx.Calls(); n != tc.after {
				t.Errorf("context checked %d times, want the draw to stop at check %d", n, tc.after)
			}
		})
	}
}

// TestDrawCost: the cost model grows with the shapes' covered pixels and their edges,
// and puts the hostile drawings over the default limit at the sizes they were
// drawn at, while the golden test documents stay far below it.
func TestDrawCost(t *testing.T) {
	t.Parallel()
	full := image.Rect(0, 0, 500, 500)
	for _, tc := range []struct {
		name     string
		doc      *Doc
		m        Matrix
		clip     image.Rectangle
		min, max float64
	}{
		{"one full rect", mustParse(t, manyShapes(1, 500)), Identity, full, 250_000, 260_000},
		{"a rect clipped to a quarter", mustParse(t, manyShapes(1, 500)), Identity, image.Rect(0, 0, 250, 250), 62_000, 66_000},
		{"a rect scaled 4x", mustParse(t, manyShapes(1, 500)), Scale(4, 4), image.Rect(0, 0, 2000, 2000), 4e6, 4.1e6},
		{"19000 shapes at 2000 px", mustParse(t, manyShapes(19000, 500)), Scale(4, 4), image.Rect(0, 0, 2000, 2000), DefaultMaxDrawCost, 1e12},
		{"100k full-height segments", mustParse(t, zigzag(100_000, 256, `fill="#000"`)), Identity, image.Rect(0, 0, 256, 256), 100_000 * costRowNonZero * 256, 2e8},
		// Each of its 16 sample rows a row sorts 100k crossings: 29 s.
		{"100k full-height segments, even-odd", mustParse(t, zigzag(100_000, 256, `fill="#000" fill-rule="evenodd"`)), Identity, image.Rect(0, 0, 256, 256), 5e9, 2e10},
		{"outside the clip", mustParse(t, manyShapes(100, 500)), Identity, image.Rect(600, 600, 700, 700), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := DrawCost(tc.doc, tc.m, tc.clip, 1)
			if c < tc.min || c > tc.max {
				t.Errorf("cost %.4g, want %.4g..%.4g", c, tc.min, tc.max)
			}
		})
	}
	for _, g := range goldenCases {
		d := mustParse(t, g.svg)
		// At 20x the natural size, a print-size drawing of the clipart.
		m := Scale(20, 20)
		clip := image.Rect(0, 0, int(d.Width*20)+1, int(d.Height*20)+1)
		if c := DrawCost(d, m, clip, 1); c > DefaultMaxDrawCost/100 {
			t.Errorf("%s: cost %.3g at 20x, near the default limit %.3g", g.name, c, float64(DefaultMaxDrawCost))
		}
	}
}

// TestDrawMemory: a path of 10k segments each running the canvas's height allocates a
// bounded amount a segment (its edges), filled even-odd or stroked with round joins.
// Before, the even-odd rasterizer kept every edge's crossings of all sample rows of a
// band (16 KB a segment: the 100k segments took 1.6 GB), and a stroke's
// outline was built as a path, mapped and flattened before its edges were made
// (9.5 KB a segment with round joins).
func TestDrawMemory(t *testing.T) {
	for _, tc := range []struct {
		name   string
		attrs  string
		perSeg float64
	}{
		{"even-odd fill", `fill="#000" fill-rule="evenodd"`, 1024},
		{"nonzero fill", `fill="#000"`, 512},
		{"stroke, round joins", `fill="none" stroke="#000" stroke-width="3" stroke-linejoin="round"`, 3072},
		{"stroke, miter joins", `fill="none" stroke="#000" stroke-width="3"`, 2048},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const segs = 10_000
			d := mustParse(t, zigzag(segs, 128, tc.attrs))
			img := image.NewRGBA(image.Rect(0, 0, 128, 128))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			if err := Draw(context.Background(), img, d, Identity, img.Bounds(), 1); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			perSeg := float64(after.TotalAlloc-before.TotalAlloc) / segs
			t.Logf("%.0f bytes allocated a segment", perSeg)
			if perSeg > tc.perSeg {
				t.Errorf("%.0f bytes allocated a segment, want under %.0f", perSeg, tc.perSeg)
			}
			// The drawing was not skipped: the zigzag inks a good part of the canvas.
			inked := 0
			for i := 3; i < len(img.Pix); i += 4 {
				if img.Pix[i] != 0 {
					inked++
				}
			}
			if inked < 128*128/4 {
				t.Errorf("%d pixels inked, want at least a quarter of the canvas", inked)
			}
			// The budget's estimate errs high: it counts at least what was allocated.
			if est := float64(d.DrawBytes()) / segs; est < perSeg {
				t.Errorf("Doc.DrawBytes counts %.0f bytes a segment, less than the %.0f allocated", est, perSeg)
			}
		})
	}
}

// FuzzDraw: any document parsed from hostile input draws or stops at a cancelled
// context without panicking, and its cost is finite and not negative.
func FuzzDraw(f *testing.F) {
	f.Add(manyShapes(50, 64), uint16(0))
	f.Add(manyShapes(50, 64), uint16(7))
	f.Add(zigzag(2000, 64, `fill="#000" fill-rule="evenodd"`), uint16(3))
	f.Add(zigzag(500, 64, `fill="none" stroke="#000" stroke-width="9" stroke-linejoin="round"`), uint16(0))
	f.Add(`<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><path fill-rule="evenodd" d="M0 0L1e308 9L-1e308 -9ZM4 4C9 0 0 9 4 4Z"/></svg>`, uint16(0))
	f.Fuzz(func(t *testing.T, src string, cancelAfter uint16) {
		d, err := Parse(strings.NewReader(src), Limits{MaxBytes: 1 << 16, MaxElements: 500})
		if err != nil {
			return
		}
		img := image.NewRGBA(image.Rect(0, 0, 64, 64))
		m := Scale(64/max(d.Width, 1), 64/max(d.Height, 1))
		c := DrawCost(d, m, img.Bounds(), 1)
		if c < 0 || c != c {
			t.Fatalf("cost %v", c)
		}
		if c > 1e8 {
			return // not drawn in a fuzz run
		}
		ctx := context.Context(context.Background())
		if cancelAfter > 0 {
			ctx = testctx.CancelAt(int64(cancelAfter))
		}
		err = Draw(ctx, img, d, m, img.Bounds(), 1)
		if err != nil && err != context.Canceled {
			t.Fatal(err)
		}
	})
}
