package gang

import (
	"context"
	"fmt"
	"image"
	"image/draw"
	"io"
	"path"
	"strconv"
	"sync"

	"github.com/printworker/printworker/render"
)

// Loader gives the pixels of a design file by its Design.Key. The renderer asks for a
// file when the first row of one of its copies is encoded and lets go of it once the
// encoder is far enough past its last copy, so a whole day's designs are never all in
// memory; a file may be asked for again (and must then give the same pixels).
type Loader interface {
	Load(ctx context.Context, key string) (image.Image, error)
}

// DefaultMemoryLimit is the soft Go memory limit printworker gang sets for itself
// (runtime/debug.SetMemoryLimit): rendering decodes design after design, and without a
// limit the collector lets the heap grow to twice the designs in use.
const DefaultMemoryLimit = 300 << 20

// bandRows is the row granularity of the element index.
const bandRows = 64

// elemKind says what an element draws.
type elemKind uint8

const (
	elemArt elemKind = iota
	elemLabel
	elemMark
	elemCode
)

// element is one thing on the sheet: a copy's artwork, its label or a cut mark.
type element struct {
	kind  elemKind
	r     image.Rectangle // on the sheet
	p     *Placement      // elemArt, elemLabel
	key   string          // elemArt
	text  string          // elemLabel
	scale int             // elemLabel: font pixel size multiplier
	runs  [][2]int        // elemCode: the bars' columns [x0, x1)
}

// sheetRenderer produces the rows of one sheet from its placements.
type sheetRenderer struct {
	width int
	elems []element
	bands [][]int32 // element indices per bandRows rows
	cache *designCache
	glyph glyphs

	errOnce sync.Once
	err     error
	cancel  context.CancelFunc
}

// Render streams sheet i (0-based) of l as a transparent PNG to w, in bands: only
// the strips the encoder has in flight and the design files near the current rows
// are in memory, never the canvas. opt tunes the encoder (its DPI defaults to the
// sheet's).
func Render(ctx context.Context, w io.Writer, l *Layout, i int, ld Loader, opt render.PNGOptions) error {
	if i < 0 || i >= len(l.Sheets) {
		return &InputError{Reason: fmt.Sprintf("sheet %d of %d", i+1, len(l.Sheets))}
	}
	if opt.DPI == 0 {
		opt.DPI = l.Config.DPI
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &l.Sheets[i]
	// Rows behind the current one that another encoder worker may still ask for: the
	// in-flight window of 2*Workers strips, plus the strip before it (filter context).
	behind := (2*opt.ResolvedWorkers() + 2) * opt.ResolvedStripRows()
	r := newSheetRenderer(l, s, ld, behind)
	r.cancel = cancel
	err := render.EncodePNGRows(ctx, w, s.Width, s.Length, r.row(ctx), opt)
	if r.err != nil {
		return r.err
	}
	return err
}

func newSheetRenderer(l *Layout, s *Sheet, ld Loader, behind int) *sheetRenderer {
	c := l.Config
	r := &sheetRenderer{width: s.Width, glyph: newGlyphs()}
	spans := map[string][][2]int{}
	for k := range s.Placements {
		p := &s.Placements[k]
		d := l.Designs[p.Design]
		r.elems = append(r.elems, element{kind: elemArt, r: image.Rect(p.X, p.Y, p.X+p.W, p.Y+p.H), p: p, key: d.Key})
		spans[d.Key] = append(spans[d.Key], [2]int{p.Y, p.Y + p.H})
		if c.Label > 0 {
			r.elems = append(r.elems, r.label(c, d, p))
		}
		if c.Code > 0 {
			if e, ok := code(c, d, p); ok {
				r.elems = append(r.elems, e)
			}
		}
		if c.CutMarks {
			r.elems = append(r.elems, cutMarks(c, p, s.Width, s.Length)...)
		}
	}
	r.bands = make([][]int32, (s.Length+bandRows-1)/bandRows)
	for i, e := range r.elems {
		if e.r.Empty() {
			continue
		}
		for b := e.r.Min.Y / bandRows; b <= (e.r.Max.Y-1)/bandRows; b++ {
			r.bands[b] = append(r.bands[b], int32(i))
		}
	}
	r.cache = &designCache{ld: ld, spans: spans, behind: behind, entries: map[string]*cacheEntry{}, designs: map[string]Design{}}
	for _, d := range l.Designs {
		r.cache.designs[d.Key] = d
	}
	return r
}

// fail keeps the first error and stops the encoder.
func (r *sheetRenderer) fail(err error) {
	r.errOnce.Do(func() {
		r.err = err
		r.cancel()
	})
}

// row is the encoder's row function: transparent, then every element crossing y.
func (r *sheetRenderer) row(ctx context.Context) render.PNGRowFunc {
	return func(y int, dst []byte) {
		clear(dst)
		for _, i := range r.bands[y/bandRows] {
			e := &r.elems[i]
			if y < e.r.Min.Y || y >= e.r.Max.Y {
				continue
			}
			switch e.kind {
			case elemArt:
				img, err := r.cache.get(ctx, e.key, y)
				if err != nil {
					r.fail(err)
					return
				}
				drawArtRow(dst, img, e.p, y)
			case elemLabel:
				r.drawLabelRow(dst, e, y)
			case elemMark:
				fillRow(dst, e.r.Min.X, e.r.Max.X)
			case elemCode:
				for _, run := range e.runs {
					fillRow(dst, run[0], run[1])
				}
			}
		}
	}
}

// drawArtRow copies row y of a placement's artwork. Copies never overlap, so pixels
// are copied, not composited: the sheet holds the design's exact pixels.
func drawArtRow(dst []byte, img *image.NRGBA, p *Placement, y int) {
	v := y - p.Y
	out := dst[4*p.X : 4*(p.X+p.W)]
	if p.Rotation == 0 {
		off := img.PixOffset(p.Src.Min.X, p.Src.Min.Y+v)
		copy(out, img.Pix[off:off+4*p.W])
		return
	}
	// Turned clockwise: sheet (u, v) shows file pixel (Src.Min.X+v, Src.Max.Y-1-u).
	off := img.PixOffset(p.Src.Min.X+v, p.Src.Max.Y-1)
	for u := 0; u < p.W; u++ {
		copy(out[4*u:4*u+4], img.Pix[off:off+4])
		off -= img.Stride
	}
}

// fillRow paints [x0, x1) opaque black (labels, cut marks).
func fillRow(dst []byte, x0, x1 int) {
	for x := x0; x < x1; x++ {
		dst[4*x], dst[4*x+1], dst[4*x+2], dst[4*x+3] = 0, 0, 0, 0xff
	}
}

// label is the text element under a copy: order, line and copy number, or the file
// name for a file without an order.
func (r *sheetRenderer) label(c Config, d Design, p *Placement) element {
	text := path.Base(d.Key)
	if d.OrderID != "" {
		text = "#" + d.OrderID
		if d.Line > 0 {
			text += " L" + strconv.Itoa(d.Line)
		}
	}
	text += " " + strconv.Itoa(p.Copy) + "/" + strconv.Itoa(d.Quantity)
	scale := max(1, (c.Label-2)/glyphH)
	inset := markThickness(c.DPI) + 2
	maxChars := max(0, (p.W-inset)/(glyphW*scale))
	if len(text) > maxChars {
		text = text[:maxChars]
	}
	y := p.Y + p.H + (c.Label-glyphH*scale)/2
	x := p.X + inset
	return element{kind: elemLabel, r: image.Rect(x, y, x+len(text)*glyphW*scale, y+glyphH*scale), p: p, text: text, scale: scale}
}

func (r *sheetRenderer) drawLabelRow(dst []byte, e *element, y int) {
	gy := (y - e.r.Min.Y) / e.scale
	x := e.r.Min.X
	for i := 0; i < len(e.text); i++ {
		bits := r.glyph.row(e.text[i], gy)
		for gx := 0; gx < glyphW; gx++ {
			if bits&(1<<gx) != 0 {
				fillRow(dst, x+gx*e.scale, x+(gx+1)*e.scale)
			}
		}
		x += glyphW * e.scale
	}
}

// markThickness is the cut mark line width: a quarter point, at least one pixel.
func markThickness(dpi float64) int { return max(1, int(dpi/288+0.5)) }

// cutMarks are L-shaped corner marks in the gap around a copy's artwork, one pixel
// off the artwork and at most half the gap long, so neighbours' marks never meet. The
// marks below the artwork sit under the label and code bands.
func cutMarks(c Config, p *Placement, w, h int) []element {
	t := markThickness(c.DPI)
	off := 1
	n := c.Gap/2 - off
	x0, y0, x1, y1 := p.X, p.Y, p.X+p.W, p.Y+p.H
	below := y1 + c.Label + c.Code + off
	rs := []image.Rectangle{
		image.Rect(x0-off-n, y0, x0-off, y0+t), image.Rect(x0, y0-off-n, x0+t, y0-off), // top left
		image.Rect(x1+off, y0, x1+off+n, y0+t), image.Rect(x1-t, y0-off-n, x1, y0-off), // top right
		image.Rect(x0-off-n, y1-t, x0-off, y1), image.Rect(x0, below, x0+t, below+n), // bottom left
		image.Rect(x1+off, y1-t, x1+off+n, y1), image.Rect(x1-t, below, x1, below+n), // bottom right
	}
	var out []element
	for _, r := range rs {
		if r = r.Intersect(image.Rect(0, 0, w, h)); !r.Empty() {
			out = append(out, element{kind: elemMark, r: r})
		}
	}
	return out
}

// designCache holds decoded design files while the encoder is near their copies.
type designCache struct {
	ld      Loader
	designs map[string]Design
	spans   map[string][][2]int // rows [y0, y1) of each copy of the file
	behind  int

	mu      sync.Mutex
	entries map[string]*cacheEntry
	swept   int
}

type cacheEntry struct {
	once sync.Once
	img  *image.NRGBA
	err  error
}

// get returns the file's pixels as NRGBA, loading them once while they are needed.
// As the rows advance it drops files with no copy within c.behind rows of y (either
// side: the encoder's workers ask for rows up to that far apart); a file with copies
// far down the sheet is loaded again when they come, which costs a decode but keeps
// memory to the copies near the current rows.
func (c *designCache) get(ctx context.Context, key string, y int) (*image.NRGBA, error) {
	c.mu.Lock()
	if y > c.swept+bandRows {
		for k := range c.entries {
			if !c.near(k, y) {
				delete(c.entries, k)
			}
		}
		c.swept = y
	}
	e := c.entries[key]
	if e == nil {
		e = &cacheEntry{}
		c.entries[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.img, e.err = c.load(ctx, key) })
	return e.img, e.err
}

// near reports whether a copy of key covers rows within c.behind of y.
func (c *designCache) near(key string, y int) bool {
	for _, s := range c.spans[key] {
		if s[1] > y-c.behind && s[0] < y+c.behind {
			return true
		}
	}
	return false
}

func (c *designCache) load(ctx context.Context, key string) (*image.NRGBA, error) {
	img, err := c.ld.Load(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("gang: design %s: %w", key, err)
	}
	d := c.designs[key]
	if b := img.Bounds(); b.Dx() != d.Width || b.Dy() != d.Height {
		return nil, fmt.Errorf("gang: design %s is %dx%d px now, %dx%d px when planned", key, b.Dx(), b.Dy(), d.Width, d.Height)
	}
	return trimmedCopy(img, d.Trim), nil
}

// trimmedCopy keeps only the trimmed box of img (in file coordinates, so Src
// rectangles index it unchanged) as straight-alpha NRGBA: the transparent
// surroundings of a design need no memory while the sheet renders.
func trimmedCopy(img image.Image, trim image.Rectangle) *image.NRGBA {
	b := img.Bounds()
	n := image.NewNRGBA(trim)
	if src, ok := img.(*image.NRGBA); ok {
		for y := trim.Min.Y; y < trim.Max.Y; y++ {
			so := src.PixOffset(b.Min.X+trim.Min.X, b.Min.Y+y)
			copy(n.Pix[n.PixOffset(trim.Min.X, y):][:4*trim.Dx()], src.Pix[so:so+4*trim.Dx()])
		}
		return n
	}
	draw.Draw(n, trim, img, b.Min.Add(trim.Min), draw.Src)
	return n
}

// toNRGBA gives img as straight-alpha NRGBA with its origin at (0,0), converting
// with color.NRGBAModel when it is anything else.
func toNRGBA(img image.Image) *image.NRGBA {
	if n, ok := img.(*image.NRGBA); ok && n.Rect.Min == (image.Point{}) {
		return n
	}
	b := img.Bounds()
	n := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(n, n.Rect, img, b.Min, draw.Src)
	return n
}
