package render

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"hash/fnv"
	"image/png"
	"io"
	"math"
	"strings"

	gofpdf "codeberg.org/go-pdf/fpdf"
	"github.com/printworker/printworker/render/fonts"
	"github.com/printworker/printworker/render/svg"
)

// The vector PDF backend (export type "pdf"): a page the size of the export box in
// points, text as real text in embedded subset fonts, SVG as vector paths, pictures
// embedded at their native resolution (JPEG sources byte for byte).
//
// Coordinates. gofpdf takes y-down page coordinates and flips them itself
// (y_pdf = pageHeight - y). A layer's local space maps to page space (y down) by
// M = ToPage * layer.Transform. To draw a layer in its own local coordinates through
// gofpdf we set the PDF matrix C = F * M * F, F being the flip, because gofpdf emits
// F(q) for a local point q and we want F(M(q)) on the page. Conjugating by the flip
// keeps rotations' sense, so text stays upright and clockwise stays clockwise.

// addVectorPage draws the scene as vector content on a new page of pdf.
// streams takes the CMYK picture streams (see splicedStreams; nil for sRGB).
func (r *Renderer) addVectorPage(ctx context.Context, pdf *gofpdf.Fpdf, streams *splicedStreams, s *Scene) error {
	h := r.beginPrintPage(pdf, s)
	defer r.endPrintPage(pdf, s)
	page := s.ToPage()
	v := vectorPage{pdf: pdf, h: h, viewID: s.ViewID, alpha: 1, ink: r.inkMeter(), wholePictures: r.wholePictures, streams: streams, awaitMedia: s.awaitMedia}
	defer v.ink.report(s)
	// The pictures still being converted add their coverage to the scene's once the
	// document has their streams (splicedStreams.resolve), so that the page's text
	// and fpdf's document are made meanwhile; the result's colour information is
	// read after the document is written. A page that fails waits for its pictures'
	// goroutines instead.
	var err error
	defer func() { v.afterPictures(s, err != nil) }()
	v.textFallback, _ = r.fonts.Lookup(fonts.DefaultFamily, fonts.Regular)
	v.shapers = r.shapers
	for i := range s.Layers {
		if err = ctx.Err(); err != nil {
			return err
		}
		l := &s.Layers[i]
		clip := bounds(page, l.Clip)
		if clip.Empty() {
			continue
		}
		// The scene build checked the layer already; the writer checks what it is
		// about to write again, so no number outside the range reaches the file.
		if err = checkLayerNumbers(s.ViewID, page, v.h, l); err != nil {
			return err
		}
		pdf.ClipRect(clip.X, clip.Y, clip.W, clip.H, false)
		pdf.TransformBegin()
		pdf.Transform(v.flipConj(page.Mul(l.Transform)))
		switch l.Kind {
		case LayerFill:
			v.fill(l)
		case LayerImage:
			err = v.image(l)
		case LayerSVG:
			v.svg(l)
		case LayerText:
			v.text(l)
		}
		pdf.TransformEnd()
		pdf.ClipEnd()
		// Q restored the page's graphics state: full opacity again, no overprint.
		v.alpha, v.overprint = 1, false
		if err != nil {
			return err
		}
		if err = pdf.Error(); err != nil {
			err = fmt.Errorf("render: view %s: pdf layer %d (%s %s): %w", s.ViewID, i, l.Source, l.ElementID, err)
			return err
		}
	}
	return nil
}

type vectorPage struct {
	pdf    *gofpdf.Fpdf
	h      float64 // page height in pt
	viewID string
	// alpha is the alpha in force. Each layer is drawn inside q ... Q, which restores
	// the page state (alpha 1, default colours), so per-layer state is set inside the
	// layer and never assumed from an earlier one.
	alpha float64
	// ink converts colours to CMYK when the output is CMYK (pdfcmyk.go); nil for sRGB.
	ink *inkMeter
	// overprint is whether the overprint graphics state is in force.
	overprint bool
	// wholePictures: see Renderer.wholePictures.
	wholePictures bool
	// textFallback is the font of the invisible text laid over outlined glyphs.
	textFallback *fonts.Font
	// shapers lend their font faces (outlines, advances) to the text layers.
	shapers *shaperPool
	// streams holds the CMYK pictures' streams until the document is written.
	streams *splicedStreams
	// pictures are the CMYK pictures still being converted (cmykImage).
	pictures []*cmykPicture
	// awaitMedia is the scene's (nil when its pictures are decoded): a picture's
	// pixels are read only after it returns.
	awaitMedia func() error
}

// decoded waits for the scene's pictures to be decoded (Scene.awaitMedia).
func (v *vectorPage) decoded() error {
	if v.awaitMedia == nil {
		return nil
	}
	return v.awaitMedia()
}

// flipConj returns F * m * F as a gofpdf matrix (see the file comment).
func (v *vectorPage) flipConj(m Matrix) gofpdf.TransformMatrix {
	a, b, c, d, e, f := m[0], m[1], m[2], m[3], m[4], m[5]
	// F(x, y) = (x, h - y). F*M*F(x, y): M(x, h-y) = (a x + c (h-y) + e, b x + d (h-y) + f),
	// then flip: (a x - c y + c h + e, h - b x + d y - d h - f).
	return gofpdf.TransformMatrix{
		A: a, B: -b, C: -c, D: d,
		E: c*v.h + e,
		F: v.h - d*v.h - f,
	}
}

// setAlpha sets fill and stroke alpha, skipping redundant graphics states.
func (v *vectorPage) setAlpha(a float64) {
	a = math.Max(0, math.Min(1, a))
	v.knockout()
	if a == v.alpha {
		return
	}
	v.pdf.SetAlpha(a, "Normal")
	v.alpha = a
}

func (v *vectorPage) fill(l *Layer) {
	f := l.Fill
	v.setAlpha(l.Opacity * float64(f.Color.A) / 255)
	v.setFill(f.Color)
	v.pdf.Rect(f.Rect.X, f.Rect.Y, f.Rect.W, f.Rect.H, "F")
}

// image embeds the layer's picture at its native pixel size: local space has one unit
// per source pixel, so the page transform alone scales it. JPEG files go in as they are
// (DCTDecode, no re-encoding); opaque PNG files too (gofpdf copies their deflate data).
// Anything else (recoloured pixels, PNGs gofpdf cannot copy) is encoded once as PNG.
func (v *vectorPage) image(l *Layer) error {
	im := l.Image
	if v.ink != nil {
		return v.cmykImage(l)
	}
	if err := v.decoded(); err != nil {
		return err
	}
	data, typ, err := pdfImageData(im)
	if err != nil {
		return fmt.Errorf("render: view %s: element %s: %w", v.viewID, l.ElementID, err)
	}
	// gofpdf keys an image's XObject by the hash of its bytes: the same picture
	// registered under two names would put one key twice in the page resources. Naming
	// images by content embeds a picture used twice (or on several pages) once.
	name := fmt.Sprintf("img-%x", sha256.Sum256(data))
	opt := gofpdf.ImageOptions{ImageType: typ}
	v.pdf.RegisterImageOptionsReader(name, opt, bytes.NewReader(data))
	v.setAlpha(l.Opacity)
	v.pdf.ImageOptions(name, 0, 0, float64(im.Width), float64(im.Height), false, opt, 0, "")
	return nil
}

// pdfImageData picks the bytes gofpdf embeds for an image layer.
func pdfImageData(im *ImageLayer) ([]byte, string, error) {
	if im.Data != nil {
		switch im.MimeType {
		case "image/jpeg":
			return im.Data, "JPG", nil
		case "image/png":
			if pngCopyable(im.Data) && !im.HasAlpha {
				return im.Data, "PNG", nil
			}
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, im.Image); err != nil {
		return nil, "", fmt.Errorf("encode picture for pdf: %w", err)
	}
	return buf.Bytes(), "PNG", nil
}

// pngCopyable reports whether gofpdf can embed a PNG file as is: 8-bit, not interlaced
// (gofpdf refuses 16-bit and interlaced PNGs).
func pngCopyable(b []byte) bool {
	// Signature (8) + IHDR length (4) + "IHDR" (4) + width (4) + height (4) + depth (1)
	// + colour type (1) + compression (1) + filter (1) + interlace (1).
	if len(b) < 29 || string(b[12:16]) != "IHDR" {
		return false
	}
	return b[24] == 8 && b[28] == 0
}

func (v *vectorPage) svg(l *Layer) {
	doc := l.SVG.Doc
	for i := range doc.Shapes {
		sh := &doc.Shapes[i]
		if len(sh.Clips) == 0 {
			v.svgShape(l, sh)
			continue
		}
		if !v.beginClips(sh.Clips) {
			continue // an empty clip hides the shape
		}
		alpha, overprint := v.alpha, v.overprint
		v.svgShape(l, sh)
		// Q restores the graphics state of q: the alpha and overprint known
		// to be in force are those of before.
		v.pdf.RawWriteStr("Q")
		v.alpha, v.overprint = alpha, overprint
	}
}

// beginClips opens a graphics state (q) clipped to every clip: false, with
// nothing written, when one of them has no part. The parts of one clip are
// written as one path, filled nonzero unless all are even-odd: parts winding
// opposite ways that overlap leave a hole there, which the raster does not.
func (v *vectorPage) beginClips(clips []*svg.Clip) bool {
	for _, c := range clips {
		if len(c.Parts) == 0 {
			return false
		}
	}
	v.pdf.RawWriteStr("q")
	for _, c := range clips {
		evenOdd := true
		for _, pt := range c.Parts {
			v.path(pt.Path)
			evenOdd = evenOdd && pt.EvenOdd
		}
		if evenOdd {
			v.pdf.RawWriteStr("W* n")
		} else {
			v.pdf.RawWriteStr("W n")
		}
	}
	return true
}

// svgShape writes the fill and stroke of one shape.
func (v *vectorPage) svgShape(l *Layer, sh *svg.Shape) {
	if len(sh.Path) == 0 {
		return // text without glyphs, an empty path: nothing to paint
	}
	{
		if sh.Fill != nil && sh.Fill.A > 0 && sh.FillGradient != nil &&
			v.svgGradient(sh.Path, sh.FillRule == "evenodd", sh.FillGradient, l.Opacity*sh.Opacity*sh.FillGradient.Opacity) {
			// drawn as a shading
		} else if sh.Fill != nil && sh.Fill.A > 0 {
			v.setAlpha(l.Opacity * sh.Opacity * sh.Fill.A)
			v.setFill(paintColour(sh.Fill.R, sh.Fill.G, sh.Fill.B))
			v.path(sh.Path)
			if sh.FillRule == "evenodd" {
				v.pdf.DrawPath("F*")
			} else {
				v.pdf.DrawPath("F")
			}
		}
		if sh.Stroke != nil && sh.Stroke.A > 0 && sh.StrokeWidth > 0 && sh.StrokeGradient != nil &&
			v.svgGradient(svg.StrokeToPath(*sh, gradientStrokeTol), false, sh.StrokeGradient, l.Opacity*sh.Opacity*sh.StrokeGradient.Opacity) {
			// the stroke's outline filled with a shading
		} else if sh.Stroke != nil && sh.Stroke.A > 0 && sh.StrokeWidth > 0 && sh.Pen != (svg.Matrix{}) && v.penPath(sh) == nil {
			// A pen too stretched for its space's numbers to stay in range: the
			// outline (in natural coordinates) is filled instead.
			v.setAlpha(l.Opacity * sh.Opacity * sh.Stroke.A)
			v.setFill(paintColour(sh.Stroke.R, sh.Stroke.G, sh.Stroke.B))
			v.path(svg.StrokeToPath(*sh, gradientStrokeTol))
			v.pdf.DrawPath("F")
		} else if sh.Stroke != nil && sh.Stroke.A > 0 && sh.StrokeWidth > 0 {
			v.setAlpha(l.Opacity * sh.Opacity * sh.Stroke.A)
			v.setStroke(paintColour(sh.Stroke.R, sh.Stroke.G, sh.Stroke.B))
			v.pdf.SetLineWidth(sh.StrokeWidth)
			v.pdf.SetLineCapStyle(orDefault(sh.LineCap, "butt"))
			v.pdf.SetLineJoinStyle(orDefault(sh.LineJoin, "miter"))
			if sh.MiterLimit > 0 {
				v.pdf.RawWriteStr(fmt.Sprintf("%.3f M\n", sh.MiterLimit))
			}
			v.pdf.SetDashPattern(sh.Dashes, sh.DashOffset)
			if pp := v.penPath(sh); pp != nil {
				// A non-uniform pen: the path is written in pen space under a cm
				// of the pen, so the width and dashes stretch as the drawing does.
				v.pdf.TransformBegin()
				v.pdf.Transform(v.flipConj(sh.Pen))
				v.path(pp)
				v.pdf.DrawPath("D")
				v.pdf.TransformEnd()
			} else {
				v.path(sh.Path)
				v.pdf.DrawPath("D")
			}
			v.pdf.SetDashPattern(nil, 0)
		}
	}
}

// penPath is a shape's path in the space of its non-uniform pen (svg.Shape.Pen), nil
// without a pen or when the pen's cm (as written on this page), its inverse or the
// mapped path leave the numbers a PDF holds (pdfMaxCoord).
func (v *vectorPage) penPath(sh *svg.Shape) svg.Path {
	if sh.Pen == (svg.Matrix{}) {
		return nil
	}
	inv, ok := sh.Pen.Invert()
	if !ok {
		return nil
	}
	cm := v.flipConj(sh.Pen)
	for _, c := range [...]float64{cm.A, cm.B, cm.C, cm.D, cm.E, cm.F, inv[0], inv[1], inv[2], inv[3]} {
		if !finiteIn(c, pdfMaxCoord) {
			return nil
		}
	}
	pp := sh.Path.Transform(inv)
	for _, s := range pp {
		for j := range segPoints(s.Op) {
			if !finiteIn(s.Pts[j].X, pdfMaxCoord) || !finiteIn(s.Pts[j].Y, pdfMaxCoord) {
				return nil
			}
		}
	}
	return pp
}

// path emits p's segments; quadratic Béziers are raised to cubics (PDF has none).
func (v *vectorPage) path(p svg.Path) {
	var cur, start svg.Point
	for _, s := range p {
		switch s.Op {
		case svg.MoveTo:
			cur, start = s.Pts[0], s.Pts[0]
			v.pdf.MoveTo(cur.X, cur.Y)
		case svg.LineTo:
			cur = s.Pts[0]
			v.pdf.LineTo(cur.X, cur.Y)
		case svg.QuadTo:
			q, e := s.Pts[0], s.Pts[1]
			c1 := svg.Point{X: cur.X + 2.0/3*(q.X-cur.X), Y: cur.Y + 2.0/3*(q.Y-cur.Y)}
			c2 := svg.Point{X: e.X + 2.0/3*(q.X-e.X), Y: e.Y + 2.0/3*(q.Y-e.Y)}
			v.pdf.CurveBezierCubicTo(c1.X, c1.Y, c2.X, c2.Y, e.X, e.Y)
			cur = e
		case svg.CubicTo:
			v.pdf.CurveBezierCubicTo(s.Pts[0].X, s.Pts[0].Y, s.Pts[1].X, s.Pts[1].Y, s.Pts[2].X, s.Pts[2].Y)
			cur = s.Pts[2]
		case svg.Close:
			v.pdf.ClosePath()
			cur = start
		}
	}
}

// pdfFontFamily is the family name a face is registered under in the PDF: one name per
// face (gofpdf's own bold/italic styles would look for separate files). The "pw-"
// prefix makes room for the subset tag (see subsetTagWriter).
func pdfFontFamily(f *fonts.Font) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, f.Family)
	return "pw-" + name + "-" + f.Style.String()
}

// writePDF writes the finished document to w with its subset fonts tagged.
func writePDF(pdf *gofpdf.Fpdf, w io.Writer) error {
	tw := &subsetTagWriter{w: w}
	if err := pdf.Output(tw); err != nil {
		return err
	}
	return tw.flush()
}

// subsetTagWriter renames gofpdf's embedded fonts to the PDF convention for subsets.
//
// gofpdf embeds only the glyphs a document uses, but names the font "utf8<family>"
// without the "ABCDEF+" tag that tells a reader (and a print shop's preflight, and
// pdffonts) the font is a subset. We register families as "pw-<name>" so the PDF says
// "/utf8pw-<name>"; this writer replaces "/utf8pw-" with "/<TAG>+", the same length,
// so every xref offset stays right. The tag is six capitals derived from the name.
// The pattern only occurs in the uncompressed font dictionaries gofpdf writes.
type subsetTagWriter struct {
	w     io.Writer
	carry []byte
	buf   []byte // reused: the carry and the next chunk of a write
}

const subsetPattern = "/utf8pw-"

// maxFontName bounds the name after the pattern that must be in hand to tag it.
const maxFontName = 96

// patchChunk bounds the bytes a patching writer (subsetTagWriter, pdfxWriter) copies
// and searches at once. fpdf hands over the whole document in one Write (a CMYK
// PDF's picture streams make it megabytes); copying it whole next to the carried
// tail cost a fresh document-sized buffer per writer, while a chunk stays in cache
// and its buffer is reused (with the buffers sized up front: 4 % of a CMYK PDF's
// instructions and 16 % of its allocation).
const patchChunk = 256 << 10

// chunked calls write for p in pieces of at most patchChunk bytes.
func chunked(p []byte, write func([]byte) error) (int, error) {
	n := len(p)
	for len(p) > 0 {
		c := min(len(p), patchChunk)
		if err := write(p[:c]); err != nil {
			return 0, err
		}
		p = p[c:]
	}
	return n, nil
}

func (t *subsetTagWriter) Write(p []byte) (int, error) { return chunked(p, t.write) }

func (t *subsetTagWriter) write(p []byte) error {
	buf := append(append(t.buf[:0], t.carry...), p...)
	t.buf = buf
	for i := 0; ; {
		j := bytes.Index(buf[i:], []byte(subsetPattern))
		if j < 0 {
			break
		}
		at := i + j
		end := at + len(subsetPattern)
		for end < len(buf) && end-at < maxFontName && !isPDFDelimiter(buf[end]) {
			end++
		}
		if end == len(buf) {
			break // the name continues in the next write
		}
		copy(buf[at:], "/"+subsetTag(buf[at+len(subsetPattern):end])+"+")
		i = end
	}
	// Hold back a tail that may hold the start of a pattern and its name.
	keep := min(len(buf), len(subsetPattern)+maxFontName)
	if _, err := t.w.Write(buf[:len(buf)-keep]); err != nil {
		return err
	}
	t.carry = append(t.carry[:0], buf[len(buf)-keep:]...)
	return nil
}

func (t *subsetTagWriter) flush() error {
	_, err := t.w.Write(t.carry)
	t.carry = nil
	return err
}

func isPDFDelimiter(c byte) bool {
	switch c {
	case ' ', '\n', '\r', '\t', '/', '<', '>', '[', ']', '(', ')', '{', '}', '%':
		return true
	}
	return false
}

// subsetTag derives six capital letters from a font name (FNV-1a).
func subsetTag(name []byte) string {
	h := fnv.New64a()
	h.Write(name)
	v := h.Sum64()
	tag := make([]byte, 6)
	for i := range tag {
		tag[i] = byte('A' + v%26)
		v /= 26
	}
	return string(tag)
}

func paintByte(v float64) int { return int(math.Round(math.Max(0, math.Min(1, v)) * 255)) }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
