package render

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	gofpdf "codeberg.org/go-pdf/fpdf"
	"github.com/printworker/printworker/render/internal/pngenc"
)

// The CMYK side of the vector PDF backend (docs/colour.md): colours are written as
// DeviceCMYK operators ("k", "K") from the output profile, never as RGB; pure black
// text and paint go to K alone and overprint; pictures are converted to CMYK and
// embedded Flate-compressed at their native resolution.

// setFill sets the fill colour: RGB for sRGB output, else the profile's CMYK (pure
// black as K only, overprinting when opaque).
func (v *vectorPage) setFill(c color.NRGBA) {
	if v.ink == nil {
		v.pdf.SetFillColor(int(c.R), int(c.G), int(c.B))
		return
	}
	px, kOnly := v.ink.vector(c)
	v.pdf.RawWriteStr(cmykOp(px, "k"))
	v.overprintIf(kOnly)
}

// setStroke sets the stroke colour as setFill does the fill colour.
func (v *vectorPage) setStroke(c color.NRGBA) {
	if v.ink == nil {
		v.pdf.SetDrawColor(int(c.R), int(c.G), int(c.B))
		return
	}
	px, kOnly := v.ink.vector(c)
	v.pdf.RawWriteStr(cmykOp(px, "K"))
	v.overprintIf(kOnly)
}

// setTextColour sets the colour text is filled with. fpdf writes no colour for text
// when it believes the fill colour equals the text colour; after a layer's Q that
// belief can be stale, so for RGB both are set. In CMYK neither is ever set through
// fpdf (both stay its initial black, so it writes no colour of its own) and the
// operator is written directly.
func (v *vectorPage) setTextColour(c color.NRGBA) {
	if v.ink == nil {
		v.pdf.SetTextColor(int(c.R), int(c.G), int(c.B))
		v.pdf.SetFillColor(int(c.R), int(c.G), int(c.B))
		return
	}
	v.setFill(c)
}

// overprintIf turns overprint on for opaque K-only black; anything else knocks out.
func (v *vectorPage) overprintIf(kOnly bool) {
	if kOnly && v.alpha == 1 {
		if !v.overprint {
			v.pdf.SetAlpha(1, blendOverprint)
			v.overprint = true
		}
		return
	}
	v.knockout()
}

// knockout turns overprint off when it is on (setAlpha's graphics states do not
// mention overprint, so they would leave it on).
func (v *vectorPage) knockout() {
	if v.overprint {
		v.pdf.SetAlpha(1, blendKnockout)
		v.overprint = false
	}
}

func cmykOp(px [4]uint8, op string) string {
	return fmt.Sprintf("%.4g %.4g %.4g %.4g %s\n", float64(px[0])/255, float64(px[1])/255, float64(px[2])/255, float64(px[3])/255, op)
}

// cmykImage embeds the layer's picture converted to CMYK at its native pixel size,
// with its alpha as a soft mask. A picture whose file is known (not recoloured) is
// converted and compressed on goroutines of its own while the page goes on with its
// other layers and fpdf writes the document (cmykPicture); its stream is spliced in
// when it is done. It is then named after its file and visible part (cmykName), since
// the stream it will have is not known yet; a recoloured picture is converted here
// and named after its stream, as all were before. A JPEG (opaque, its decoded size
// its header's) is registered even before its pixels are decoded (Scene.awaitMedia):
// its picture goroutine waits for them.
func (v *vectorPage) cmykImage(l *Layer) error {
	im := l.Image
	if im.MimeType == kindJPEG && im.Data != nil && v.streams != nil {
		vis := image.Rect(0, 0, im.Width, im.Height)
		if !v.wholePictures {
			vis = visibleIn(l, vis)
		}
		if vis.Empty() {
			return nil
		}
		name := cmykName(im, vis, false)
		if v.pdf.GetImageInfo(carriedName(name)) == nil {
			p := v.startCMYK(l, vis)
			v.pictures = append(v.pictures, p)
			if err := registerLaterImage(v.pdf, v.streams, name, p, vis.Dx(), vis.Dy(), false); err != nil {
				return err
			}
		}
		v.drawCMYK(l, name, vis)
		return nil
	}
	if err := v.decoded(); err != nil {
		return err
	}
	vis := im.Image.Bounds()
	if !v.wholePictures {
		vis = visiblePixels(l)
	}
	if vis.Empty() {
		return nil
	}
	src := subImage(im.Image, vis)
	vis = src.Bounds()
	if im.Data != nil && v.streams != nil {
		name := cmykName(im, vis, im.HasAlpha)
		if v.pdf.GetImageInfo(carriedName(name)) == nil {
			p := startCMYK(func() (image.Image, error) { return src, nil }, im.HasAlpha, v.ink)
			v.pictures = append(v.pictures, p)
			if err := registerLaterImage(v.pdf, v.streams, name, p, vis.Dx(), vis.Dy(), im.HasAlpha); err != nil {
				return err
			}
		}
		v.drawCMYK(l, name, vis)
		return nil
	}
	// The page loop checks the job context between layers; one picture is not cut short.
	raw, err := cmykRaw(context.Background(), src, im.HasAlpha, v.ink, nil)
	if err != nil {
		return fmt.Errorf("render: view %s: element %s: %w", v.viewID, l.ElementID, err)
	}
	name := fmt.Sprintf("cmyk%x", *raw.sum)[:40]
	if v.pdf.GetImageInfo(carriedName(name)) == nil {
		if err := registerRawImage(v.pdf, v.streams, name, raw); err != nil {
			return err
		}
	}
	v.drawCMYK(l, name, vis)
	return nil
}

// startCMYK starts converting the part vis of a JPEG layer's picture once it is
// decoded. The JPEG decoder gives a picture of its header's size, opaque (only a
// recoloured one has alpha, and it has no file): vis, the name and the registered
// size hold; a picture that breaks that fails the document rather than being drawn
// wrong.
func (v *vectorPage) startCMYK(l *Layer, vis image.Rectangle) *cmykPicture {
	im := l.Image
	return startCMYK(func() (image.Image, error) {
		if err := v.decoded(); err != nil {
			return nil, err
		}
		if im.Image.Bounds() != image.Rect(0, 0, im.Width, im.Height) || im.HasAlpha {
			return nil, fmt.Errorf("render: view %s: element %s: JPEG decoded to %v (alpha %v), not its header's %dx%d",
				v.viewID, l.ElementID, im.Image.Bounds(), im.HasAlpha, im.Width, im.Height)
		}
		src := subImage(im.Image, vis)
		if src.Bounds() != vis {
			return nil, fmt.Errorf("render: view %s: element %s: no part %v of the picture", v.viewID, l.ElementID, vis)
		}
		return src, nil
	}, false, v.ink)
}

// subImage is the part vis of img, or img itself when it has no SubImage (then all
// of it is embedded).
func subImage(img image.Image, vis image.Rectangle) image.Image {
	if sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok && vis != img.Bounds() {
		return sub.SubImage(vis)
	}
	return img
}

// drawCMYK draws the registered picture name over its visible part vis.
func (v *vectorPage) drawCMYK(l *Layer, name string, vis image.Rectangle) {
	v.setAlpha(l.Opacity)
	v.pdf.ImageOptions(carriedName(name), float64(vis.Min.X), float64(vis.Min.Y), float64(vis.Dx()), float64(vis.Dy()), false, gofpdf.ImageOptions{}, 0, "")
}

// cmykName names a picture converted from a file's pixels: the SHA-256 of the file
// and of the part embedded. Within a document the output profile and its ink
// settings are fixed, so the same name is the same stream, and the same file cropped
// the same way is embedded once. "cmykf" keeps these names apart from the stream-hash
// names of recoloured pictures; the name is as long as those.
func cmykName(im *ImageLayer, vis image.Rectangle, hasAlpha bool) string {
	h := sha256.New()
	h.Write(im.Data)
	var key [6*8 + 1]byte
	for i, x := range []int{vis.Min.X, vis.Min.Y, vis.Max.X, vis.Max.Y, im.Width, im.Height} {
		binary.BigEndian.PutUint64(key[8*i:], uint64(x))
	}
	if hasAlpha {
		key[6*8] = 1
	}
	h.Write(key[:])
	return fmt.Sprintf("cmykf%x", h.Sum(nil))[:40]
}

// cmykPicture is a picture being converted to CMYK and compressed (cmykRaw) on
// goroutines of its own, with its own ink meter.
type cmykPicture struct {
	meter inkMeter
	// converted is closed once meter holds the picture's highest coverage, done
	// once raw (its sum set) and err are.
	converted, done chan struct{}
	raw             rawImage
	err             error
}

// startCMYK starts converting the picture pixels returns (see cmykRaw) on a
// goroutine of its own. As in the page loop, the job context does not cut one
// picture short: the goroutines end with the picture.
func startCMYK(pixels func() (image.Image, error), hasAlpha bool, ink *inkMeter) *cmykPicture {
	p := &cmykPicture{meter: inkMeter{p: ink.p}, converted: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		converted := sync.OnceFunc(func() { close(p.converted) })
		defer converted() // also when there are no pixels
		img, err := pixels()
		if err != nil {
			p.err = err
			return
		}
		p.raw, p.err = cmykRaw(context.Background(), img, hasAlpha, &p.meter, converted)
	}()
	return p
}

// stream waits for the picture and returns its stream and SHA-256 (for
// splicedStreams.addLater).
func (p *cmykPicture) stream() ([]byte, *[sha256.Size]byte, error) {
	<-p.done
	return p.raw.data, p.raw.sum, p.err
}

// mask waits for the picture and returns its soft mask stream.
func (p *cmykPicture) mask() ([]byte, *[sha256.Size]byte, error) {
	<-p.done
	return p.raw.smask, nil, p.err
}

// afterPictures has each of the page's pictures add its ink coverage to s once the
// document's streams are resolved (the picture converted by then); when the page
// failed, it waits for the pictures instead, so that no goroutine outlives it.
// Coverage in percent rises with the meter's maximum, so the maximum of the parts'
// percentages is the percentage of their maximum.
func (v *vectorPage) afterPictures(s *Scene, failed bool) {
	for _, p := range v.pictures {
		if failed {
			<-p.done
			continue
		}
		v.streams.whenResolved(func() {
			<-p.converted
			s.MaxInkPercent = max(s.MaxInkPercent, p.meter.percent())
		})
	}
	v.pictures = nil
}

// registerLaterImage registers a w x h CMYK picture whose streams p delivers later
// (see registerRawImage).
func registerLaterImage(pdf *gofpdf.Fpdf, streams *splicedStreams, name string, p *cmykPicture, w, h int, hasAlpha bool) error {
	data := streams.addLater(p.stream)
	var smask []byte
	if hasAlpha {
		smask = streams.addLater(p.mask)
	}
	return registerImageInfo(pdf, name, rawImage{w: w, h: h, cs: "DeviceCMYK", dp: cmykParms(w)}, data, smask)
}

// cmykParms is the /DecodeParms of a CMYK picture stream w pixels wide.
func cmykParms(w int) string {
	return fmt.Sprintf("/Predictor 15 /Colors 4 /BitsPerComponent 8 /Columns %d", w)
}

// visiblePixels is the part of a picture layer's pixels its clip lets through (the
// element's area, or the export box with its bleed), plus a pixel's margin so that
// a viewer's smoothing at the clip edge sees the same neighbours, at native
// resolution. A picture filling its area is usually cropped by it (the reference
// T-shirt's square photo fills a 760 x 520 area: a third of its rows are never
// seen), and converting and compressing only what prints saves that share of the
// CMYK work (20 % of the CMYK T-shirt PDF's CPU; its file 9.29 -> 6.59 MiB). The
// sRGB path keeps the original file whole instead, because it embeds the JPEG's bytes unchanged.
func visiblePixels(l *Layer) image.Rectangle {
	b := l.Image.Image.Bounds()
	if l.Image.Width != b.Dx() || l.Image.Height != b.Dy() {
		return b
	}
	return visibleIn(l, b)
}

// visibleIn is visiblePixels for a picture whose pixels are b, Width x Height (b
// may be known before the pixels are decoded: rowsRead).
func visibleIn(l *Layer, b image.Rectangle) image.Rectangle {
	// Local space is the picture's pixel grid (drawn at 0,0 Width x Height).
	inv, ok := l.Transform.Invert()
	if !ok {
		return b
	}
	r := bounds(inv, l.Clip)
	if math.IsNaN(r.X+r.Y+r.W+r.H) || math.IsInf(r.X+r.Y+r.W+r.H, 0) {
		return b
	}
	x0 := int(math.Max(math.Floor(r.X)-1, -1))
	y0 := int(math.Max(math.Floor(r.Y)-1, -1))
	x1 := int(math.Min(math.Ceil(r.X+r.W)+1, float64(b.Max.X)+1))
	y1 := int(math.Min(math.Ceil(r.Y+r.H)+1, float64(b.Max.Y)+1))
	return image.Rect(x0, y0, x1, y1).Intersect(b)
}

// cmykRaw converts an image to an inverted-CMYK Flate stream (see rawImage; its sum
// set) and, when it has alpha, a soft mask; converted, when set, is called once the
// samples are converted (ink holds their coverage) and only compressing is left. The
// samples are converted whole (in bands of rows on all cores, convertParts) and then
// filtered and deflated in parallel strips by pngenc.EncodeZlib into one zlib stream
// each (cmykZlib says why Huffman-only).
func cmykRaw(ctx context.Context, img image.Image, hasAlpha bool, ink *inkMeter, converted func()) (rawImage, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	cmyk := make([]byte, 4*w*h)
	var alpha []byte
	if hasAlpha {
		alpha = make([]byte, w*h)
	}
	convertParts(img, ink, func(part *inkMeter, y0 int, pix []byte) {
		out := cmyk[4*w*y0 : 4*w*y0+len(pix)]
		part.row(out, pix)
		invert(out)
		if alpha != nil {
			a := alpha[w*y0 : w*y0+len(pix)/4]
			for i := range a {
				a[i] = pix[4*i+3]
			}
		}
	})
	if converted != nil {
		converted()
	}
	// Sized for the photo's stream (about 60 % of the samples at cmykZlib) so that it
	// is not grown by doubling, copying and clearing megabytes each time.
	data := bytes.NewBuffer(make([]byte, 0, len(cmyk)*5/8))
	// The stream's SHA-256 (the picture's name or the document /ID's share of it) is
	// taken as EncodeZlib hands over each strip, while its workers compress the next
	// ones, rather than over the whole stream once it is done.
	sum := sha256.New()
	if err := pngenc.EncodeZlib(ctx, io.MultiWriter(data, sum), cmyk, w, h, 4*w, 4, cmykZlib); err != nil {
		return rawImage{}, err
	}
	var digest [sha256.Size]byte
	sum.Sum(digest[:0])
	raw := rawImage{w: w, h: h, cs: "DeviceCMYK", data: data.Bytes(),
		dp: cmykParms(w), sum: &digest}
	if alpha != nil {
		var mask bytes.Buffer
		if err := pngenc.EncodeZlib(ctx, &mask, alpha, w, h, w, 1, cmykZlib); err != nil {
			return rawImage{}, err
		}
		raw.smask = mask.Bytes()
	}
	return raw, nil
}

// invert stores CMYK samples inverted (255-v), as fpdf declares Decode [1 0 1 0 1 0
// 1 0] for DeviceCMYK; eight bytes at a time, since 255-v is v XOR 0xff.
func invert(p []byte) {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		binary.NativeEndian.PutUint64(p[i:], ^binary.NativeEndian.Uint64(p[i:]))
	}
	for ; i < len(p); i++ {
		p[i] = ^p[i]
	}
}

// convertParts calls fn for every band of img's rows (as non-premultiplied RGBA,
// nrgbaBand; y0 from the top of the bounds), on up to one goroutine per core, each
// with its own ink meter, whose maxima join ink's at the end. Decoding the picture's
// rows (YCbCr to RGBA) is otherwise serial. The goroutines take the bands in turn
// rather than a fixed half each: the cost of a band varies (the grid's steep cells,
// and a photo's cells cluster), and a core lent to another process for a while no
// longer holds up the whole picture.
func convertParts(img image.Image, ink *inkMeter, fn func(part *inkMeter, y0 int, pix []byte)) {
	const rows = 64
	b := img.Bounds()
	workers := max(1, min(runtime.GOMAXPROCS(0), b.Dy()/128))
	bands := (b.Dy() + rows - 1) / rows
	var next atomic.Int32
	meters := make([]inkMeter, workers)
	var wg sync.WaitGroup
	for p := range workers {
		meters[p] = inkMeter{p: ink.p}
		wg.Go(func() {
			band := image.NewRGBA(image.Rect(0, 0, b.Dx(), min(rows, b.Dy())))
			for i := int(next.Add(1)) - 1; i < bands; i = int(next.Add(1)) - 1 {
				y0 := i * rows
				fn(&meters[p], y0, nrgbaBand(img, b.Min.Y+y0, min(rows, b.Dy()-y0), band))
			}
		})
	}
	wg.Wait()
	for _, m := range meters {
		ink.max = max(ink.max, m.max)
	}
}

// addRasterPageCMYK is pdf-simple in CMYK: the view rasterized, flattened on white
// paper and converted to CMYK, one Flate image filling the page.
// The plates, when the renderer makes any, come from the same raster.
func (r *Renderer) addRasterPageCMYK(ctx context.Context, pdf *gofpdf.Fpdf, streams *splicedStreams, s *Scene, ink *inkMeter) (*plates, error) {
	canvas, err := r.Rasterize(ctx, s)
	if err != nil {
		return nil, err
	}
	var pl *plates
	if r.hasPlates() {
		if pl, err = r.makePlates(ctx, s, canvas); err != nil {
			return nil, err
		}
	}
	flattenOnWhite(canvas)
	raw, err := cmykRaw(ctx, canvas, false, ink, nil)
	if err != nil {
		return nil, fmt.Errorf("render: view %s: raster page: %w", s.ViewID, err)
	}
	name := fmt.Sprintf("view%x", sha256.Sum256([]byte(s.ViewID)))[:24]
	r.beginPrintPage(pdf, s)
	defer r.endPrintPage(pdf, s)
	if err := registerRawImage(pdf, streams, name, raw); err != nil {
		return nil, fmt.Errorf("render: view %s: raster page: %w", s.ViewID, err)
	}
	pdf.ImageOptions(carriedName(name), 0, 0, s.PageWidthPt, s.PageHeightPt, false, gofpdf.ImageOptions{}, 0, "")
	if err := pdf.Error(); err != nil {
		return nil, fmt.Errorf("render: view %s: raster page: %w", s.ViewID, err)
	}
	return pl, nil
}

// paintColour is an SVG paint (0..1 channels) as an opaque 8-bit colour.
func paintColour(r, g, b float64) color.NRGBA {
	return color.NRGBA{uint8(paintByte(r)), uint8(paintByte(g)), uint8(paintByte(b)), 255}
}

// inkMeter returns a converter for a CMYK output, nil for sRGB.
func (r *Renderer) inkMeter() *inkMeter {
	if !r.print.CMYK() {
		return nil
	}
	return &inkMeter{p: r.print}
}

// report records the highest ink coverage in the scene (for the result).
func (m *inkMeter) report(s *Scene) {
	if m != nil {
		s.MaxInkPercent = max(s.MaxInkPercent, m.percent())
	}
}

// cmykZlib compresses the CMYK picture streams. Huffman-only with the auto filter
// took 272-321 CPU ms for the reference T-shirt's CMYK PDF against 380-469 for level
// 1 with any filter: a filtered photo gives level 1 almost no matches, so it stores
// blocks that pngenc then re-codes Huffman-only, doing the work twice. The file is
// 1 % larger than level 1 unfiltered and 7 % larger than Sub at level 1.
var cmykZlib = pngenc.Options{Level: pngenc.LevelHuffmanOnly}
