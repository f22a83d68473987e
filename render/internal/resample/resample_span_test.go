package resample

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math/rand/v2"
	"testing"

	"github.com/printworker/printworker/render/svg"
)

// Pass 1 over a span of a row (sourceSpan) gives exactly the values of pass 1 over the
// whole row, enlarging and shrinking, with samples inside, across and beyond the
// row's edges.
func TestSourceSpanMatchesWholeRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 5, 40, 300} {
		row := make([]uint8, 4*n)
		for i := range row {
			row[i] = uint8(rng.IntN(256))
		}
		for _, scale := range []float64{3.7, 1.2, 1, 0.8, 0.3} {
			k := newKernel(scale, n)
			idx := make([]int, k.maxTaps())
			w := make([]float32, len(idx))
			for range 200 {
				const samples = 64
				u0 := rng.Float64()*float64(n+40) - 20
				du := 1 / scale
				if rng.IntN(2) == 0 {
					du = -du // mirrored placements step backwards
				}
				want := make([]int16, 4*samples)
				hostISA.resampleRowInt(want, samples, 4, row, u0, du, k, idx, w)
				lo, hi := sourceSpan(u0, u0+(samples-1)*du, k, n)
				if lo < 0 || hi > n || lo >= hi {
					t.Fatalf("n %d: span [%d, %d)", n, lo, hi)
				}
				ks := k
				ks.n = hi - lo
				got := make([]int16, 4*samples)
				hostISA.resampleRowInt(got, samples, 4, row[4*lo:4*hi], u0-float64(lo), du, ks, idx, w)
				rgbOnly(got)
				rgbOnly(want)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("n %d scale %g u0 %g du %g span [%d, %d): values differ\ngot  %v\nwant %v", n, scale, u0, du, lo, hi, got, want)
				}
			}
		}
	}
}

// The 4:2:0 span conversion written out in opaqueSpanFetcher gives color.YCbCrToRGB's
// result for every (Y, Cb, Cr).
func TestYCCSpanMatchesConversion(t *testing.T) {
	// Chroma sample (cb, cr) at chroma column cb, row cr: every pair once; the four
	// luma samples under it take 4t..4t+3, so 64 images cover every Y.
	m := image.NewYCbCr(image.Rect(0, 0, 512, 512), image.YCbCrSubsampleRatio420)
	for cy := range 256 {
		for cx := range 256 {
			m.Cb[cy*m.CStride+cx], m.Cr[cy*m.CStride+cx] = uint8(cx), uint8(cy)
		}
	}
	buf := make([]uint8, 4*512)
	for tt := range 64 {
		for y := range 512 {
			for x := range 512 {
				m.Y[y*m.YStride+x] = uint8(4*tt + x&1 + 2*(y&1))
			}
		}
		fetch := hostISA.opaqueSpanFetcher(m, m.Rect, false)
		for y := range 512 {
			got := fetch(y, 0, 512, buf)
			for x := range 512 {
				r, g, b := color.YCbCrToRGB(m.Y[y*m.YStride+x], uint8(x/2), uint8(y/2))
				if q := got[4*x : 4*x+4]; q[0] != r || q[1] != g || q[2] != b || q[3] != 255 {
					t.Fatalf("Y %d Cb %d Cr %d: got %v, want %d %d %d 255", m.Y[y*m.YStride+x], x/2, y/2, q, r, g, b)
				}
			}
		}
		// Transposed (columns gathered, then converted), from an odd row too:
		// column x of the image is row x of the fetcher.
		fetchT := hostISA.opaqueSpanFetcher(m, m.Rect, true)
		bufT := make([]uint8, 4*512)
		for x := range 512 {
			y0 := x & 1
			got := fetchT(x, y0, 512, bufT)
			for y := y0; y < 512; y++ {
				r, g, b := color.YCbCrToRGB(m.Y[y*m.YStride+x], uint8(x/2), uint8(y/2))
				if q := got[4*(y-y0) : 4*(y-y0)+4]; q[0] != r || q[1] != g || q[2] != b || q[3] != 255 {
					t.Fatalf("transposed: Y %d Cb %d Cr %d: got %v, want %d %d %d 255", m.Y[y*m.YStride+x], x/2, y/2, q, r, g, b)
				}
			}
		}
	}
}

// A rotated picture drawn straight from each decoded type (spans converted by the
// band workers, rows or, past 45°, columns) is byte for byte the picture drawn from
// its RGBA conversion, for sub-images with odd origins too.
func TestSpanSourcesMatchRGBA(t *testing.T) {
	const w, h = 61, 47
	rng := rand.New(rand.NewPCG(3, 4))
	ycc := func(r image.YCbCrSubsampleRatio) image.Image {
		m := image.NewYCbCr(image.Rect(-3, 5, w+2, h+8), r)
		for i := range m.Y {
			m.Y[i] = uint8(rng.IntN(256))
		}
		for i := range m.Cb {
			m.Cb[i], m.Cr[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
		}
		return m.SubImage(image.Rect(0, 7, w, h+7))
	}
	gray := image.NewGray(image.Rect(1, 1, w+1, h+1))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(rng.IntN(256))
	}
	opaque := func(m draw.Image) image.Image {
		b := m.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				m.Set(x, y, color.NRGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), 255})
			}
		}
		return m
	}
	sources := map[string]image.Image{
		"ycc420":   ycc(image.YCbCrSubsampleRatio420),
		"ycc422":   ycc(image.YCbCrSubsampleRatio422),
		"ycc444":   ycc(image.YCbCrSubsampleRatio444),
		"ycc440":   ycc(image.YCbCrSubsampleRatio440),
		"ycc411":   ycc(image.YCbCrSubsampleRatio411),
		"gray":     gray,
		"nrgba":    opaque(image.NewNRGBA(image.Rect(2, -1, w+2, h-1))),
		"rgba-sub": opaque(image.NewRGBA(image.Rect(0, 0, w+5, h+3))).(*image.RGBA).SubImage(image.Rect(5, 3, w+5, h+3)),
	}
	for name, src := range sources {
		ref := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.Draw(ref, ref.Rect, src, src.Bounds().Min, draw.Src)
		if hostISA.opaqueSpanFetcher(src, image.Rect(0, 0, w, h), false) == nil {
			t.Fatalf("%s: no span fetcher for an opaque source", name)
		}
		for _, tc := range []struct{ deg, scale float64 }{{30, 2.3}, {60, 1.7}, {135, 1.2}, {-20, 0.6}, {200, 3}, {80, 0.4}} {
			t.Run(fmt.Sprintf("%s/%g°x%g", name, tc.deg, tc.scale), func(t *testing.T) {
				m := svg.Translate(100, 90).Mul(svg.Rotate(tc.deg)).Mul(svg.Scale(tc.scale, tc.scale)).Mul(svg.Translate(-w/2, -h/2))
				// A clip that cuts the picture between pixels, so that a window of
				// the source is read.
				clip := Rect{X: 60.5, Y: 30.25, W: 120, H: 130}
				poly := clipPolygon(placedQuad(m, w, h), clip)
				if len(poly) < 3 {
					t.Skip("picture outside the clip")
				}
				got := image.NewRGBA(image.Rect(0, 0, 200, 180))
				want := image.NewRGBA(got.Rect)
				for i := range got.Pix {
					got.Pix[i] = uint8(i * 7)
				}
				copy(want.Pix, got.Pix)
				hostISA.drawTransformed(got, got.Rect, poly, src, m, 1, 3, bandEnv{})
				hostISA.drawTransformed(want, want.Rect, poly, ref, m, 1, 3, bandEnv{})
				if !bytes.Equal(got.Pix, want.Pix) {
					t.Errorf("drawn from %s differs from the RGBA conversion", name)
				}
			})
		}
	}
}

// A sample whose taps all clamp to one edge pixel (edgeSample) is, to the bit, what
// the generic taps and their rounded weights give.
func TestEdgeSampleMatchesTaps(t *testing.T) {
	for _, n := range []int{1, 2, 7, 300} {
		k := newKernel(1.5, n)
		idx := make([]int, k.maxTaps())
		w := make([]float32, len(idx))
		var wi [64]int32
		hits := 0
		for step := range 20000 {
			c := -12 + float64(step)*(float64(n)+24)/20000
			e, L, ok := edgeSample(c, k, n)
			if !ok {
				continue
			}
			hits++
			m := k.taps(c, idx, w)
			fixedTapWeights(w[:m], wi[:m])
			var sum int32
			for j := range m {
				if idx[j] != e {
					t.Fatalf("n %d c %g: tap %d at %d, edge pixel %d", n, c, j, idx[j], e)
				}
				sum += wi[j]
			}
			if sum != cmLUTIntSum[L] {
				t.Fatalf("n %d c %g: weights sum to %d, table %d", n, c, sum, cmLUTIntSum[L])
			}
		}
		if hits == 0 {
			t.Fatalf("n %d: no sample beyond the edges", n)
		}
	}
	if _, _, ok := edgeSample(-20, newKernel(0.5, 10), 10); ok {
		t.Error("a shrinking kernel took the enlarging kernel's shortcut")
	}
}

// rgbOnly clears the fourth value of each sample of pass-1 output written 4 values a
// sample (an intRing slot's, which nothing reads).
func rgbOnly(v []int16) {
	for i := 3; i < len(v); i += 4 {
		v[i] = 0
	}
}

// resampleRowIntSample is pass 1 of one sample as resampleRowInt's per-sample code
// computes it (inside: the weight table; all taps on one edge pixel: its value times
// the weights' sum; otherwise the clamped taps), the reference of its runs.
func resampleRowIntSample(o []int16, row []uint8, ui int64, k kernel1D, idx []int, w []float32) {
	const round = 1 << (hBits - iBits - 1)
	rn := len(row) / 4
	var r, g, b int32
	if i0 := int(ui >> 32); k.stretch == 1 && i0 >= 1 && i0+2 < rn {
		lw := &cmLUTInt[lutIndex(ui)]
		for j := range 4 {
			p := row[4*(i0-1+j):]
			r, g, b = r+lw[j]*int32(p[0]), g+lw[j]*int32(p[1]), b+lw[j]*int32(p[2])
		}
	} else if e, L, ok := edgeSampleFixed(ui, k, rn); ok {
		p, sum := row[4*e:], cmLUTIntSum[L]
		r, g, b = sum*int32(p[0]), sum*int32(p[1]), sum*int32(p[2])
	} else {
		m := k.taps(fromFixed32(ui), idx, w)
		wi := make([]int32, m)
		fixedTapWeights(w[:m], wi)
		for j := range m {
			p := row[4*idx[j]:]
			r, g, b = r+wi[j]*int32(p[0]), g+wi[j]*int32(p[1]), b+wi[j]*int32(p[2])
		}
	}
	o[0], o[1], o[2] = int16((r+round)>>(hBits-iBits)), int16((g+round)>>(hBits-iBits)), int16((b+round)>>(hBits-iBits))
}

// resampleRowInt's runs (inside: rowRunInt4; beyond the clamp: one value stored)
// give each sample's value, for rows of every short length and long ones, samples
// starting far outside either edge and crossing the row either way.
func TestResampleRowIntRunsMatchSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 4, 5, 7, 40} {
		row := make([]uint8, 4*n)
		for i := range row {
			row[i] = uint8(rng.IntN(256))
		}
		for _, scale := range []float64{3.7, 1.2, 1, 0.8} {
			k := newKernel(scale, n)
			idx := make([]int, k.maxTaps())
			w := make([]float32, len(idx))
			for range 300 {
				samples := 1 + rng.IntN(150)
				u0 := rng.Float64()*float64(n+60) - 30
				du := 1 / scale
				if rng.IntN(2) == 0 {
					du = -du
				}
				got := make([]int16, 4*samples)
				hostISA.resampleRowInt(got, samples, 4, row, u0, du, k, idx, w)
				rgbOnly(got)
				want := make([]int16, 4*samples)
				ui, dui := toFixed32(u0), toFixed32(du)
				for s := range samples {
					resampleRowIntSample(want[4*s:], row, ui, k, idx, w)
					ui += dui
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("n %d scale %g u0 %g du %g: values differ\ngot  %v\nwant %v", n, scale, u0, du, got, want)
				}
			}
		}
	}
}

// Spans of a 4:2:0 or 4:2:2 row converted in whole blocks (yccPlaneBlocks, with a
// buffer of spanPad more bytes) are the pixels converted one at a time, from either
// phase of a chroma pair, for every length, at the planes' ends too.
func TestYCCSpanBlocksMatchPixels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, r := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio422} {
		m := image.NewYCbCr(image.Rect(1, 2, 70, 13), r)
		for i := range m.Y {
			m.Y[i] = uint8(rng.IntN(256))
		}
		for i := range m.Cb {
			m.Cb[i], m.Cr[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
		}
		fetch := hostISA.opaqueSpanFetcher(m, image.Rect(0, 0, m.Rect.Dx(), m.Rect.Dy()), false)
		buf := make([]uint8, 4*m.Rect.Dx()+spanPad)
		for y := range m.Rect.Dy() {
			for x0 := range m.Rect.Dx() {
				for x1 := x0 + 1; x1 <= m.Rect.Dx(); x1++ {
					got := fetch(y, x0, x1, buf)
					if len(got) != 4*(x1-x0) {
						t.Fatalf("row %d [%d, %d): %d bytes", y, x0, x1, len(got))
					}
					for x := x0; x < x1; x++ {
						px, py := m.Rect.Min.X+x, m.Rect.Min.Y+y
						yi, ci := m.YOffset(px, py), m.COffset(px, py)
						wr, wg, wb := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
						if q := got[4*(x-x0) : 4*(x-x0)+4]; q[0] != wr || q[1] != wg || q[2] != wb || q[3] != 255 {
							t.Fatalf("%v row %d [%d, %d) pixel %d: %v, want %d %d %d 255", r, y, x0, x1, x, q, wr, wg, wb)
						}
					}
				}
			}
		}
	}
}

// The column-block fetcher of a band worker (columnBlockFetcher) returns the
// transposed spans the column gather returns, byte for byte: sweeps along columns
// forwards and backwards as bands read them, random jumps, spans at the picture's
// edges and its last columns (which fall back), odd origins.
func TestColumnBlockFetcherMatchesGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i, rect := range []image.Rectangle{image.Rect(0, 0, 67, 90), image.Rect(3, 5, 70, 101), image.Rect(1, 1, 40, 33), image.Rect(0, 0, 300, 211), image.Rect(0, 0, 300, 211), image.Rect(0, 0, 300, 211)} {
		// The sweeps' drift (a third of a row a column), none, and a steep one:
		// the margins it sets change how often a block is copied, never a byte.
		drift := [...]float64{1. / 3, 1. / 3, 1. / 3, 1. / 3, 0, -5}[i]
		m := image.NewYCbCr(rect, image.YCbCrSubsampleRatio420)
		for i := range m.Y {
			m.Y[i] = uint8(rng.IntN(256))
		}
		for i := range m.Cb {
			m.Cb[i], m.Cr[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
		}
		win := image.Rect(0, 0, rect.Dx(), rect.Dy())
		gather := hostISA.opaqueSpanFetcher(m, win, true)
		fallbacks, calls := 0, 0
		blocks := hostISA.columnBlockFetcher(m, rect.Min.X, rect.Min.Y, func(y, x0, x1 int, buf []uint8) []uint8 {
			fallbacks++
			return gather(y, x0, x1, buf)
		}, drift)
		if blocks == nil {
			t.Skip("no AVX2")
		}
		got, want := make([]uint8, 4*rect.Dy()+spanPad), make([]uint8, 4*rect.Dy()+spanPad)
		check := func(y, x0, x1 int) {
			calls++
			g, w := blocks(y, x0, x1, got), gather(y, x0, x1, want)
			if !bytes.Equal(g, w) {
				t.Fatalf("%v: column %d rows [%d, %d): blocks differ from the gather", rect, y, x0, x1)
			}
		}
		// Sweeps: a span drifting along the rows as the column advances.
		for _, dir := range []int{1, -1} {
			for k := range rect.Dx() {
				y := k
				if dir < 0 {
					y = rect.Dx() - 1 - k
				}
				x0 := min(rect.Dy()-1, k/3)
				check(y, x0, min(rect.Dy(), x0+5+k%11))
			}
		}
		for range 3000 {
			y := rng.IntN(rect.Dx())
			x0 := rng.IntN(rect.Dy())
			check(y, x0, x0+1+rng.IntN(rect.Dy()-x0))
		}
		// The blocks serve the columns of whole blocks of sixteen inside the
		// picture (a third of the narrowest one's).
		if fallbacks > calls*3/4 {
			t.Errorf("%v: %d of %d spans fell back", rect, fallbacks, calls)
		}
	}
}

// transpose8 (8x8 byte transposes where the indexes allow) copies eight columns
// into eight planes as the byte loop does, for every row count.
func TestTranspose8(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	src := make([]uint8, 40*70)
	for i := range src {
		src[i] = uint8(rng.IntN(256))
	}
	for rows := range 70 {
		for _, at := range []int{0, 3, 31} {
			ls := rows + 5
			got, want := make([]uint8, 8*ls), make([]uint8, 8*ls)
			hostISA.transpose8(got, src, at, 40, rows, ls)
			for r := range rows {
				for c := range 8 {
					want[c*ls+r] = src[at+r*40+c]
				}
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%d rows from %d: planes differ from the byte loop", rows, at)
			}
		}
	}
}
