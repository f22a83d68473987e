// Package render turns a design view into the print file the production line expects:
// PNG at the export dpi, vector PDF, or pdf-simple (one raster page per view).
//
// It is pure: design detail in, bytes out. Media bytes come from the caller through a
// MediaSource, so there is no network inside render. A view is first resolved into a
// backend-neutral Scene (scene.go, build.go), then drawn by the raster backend
// (raster.go) or the vector PDF backend (pdf.go). The rules are written down in
// docs/rendering.md.
package render

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"runtime"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/fonts"
	"github.com/printworker/printworker/render/internal/resample"
	"github.com/printworker/printworker/render/svg"
)

// Bases of the physical size (hub-gaps.md "Designs and exports").
const (
	// BasisPoint: 1 template pixel = 1 pt; PNG pixels = round(box x dpi / 72).
	BasisPoint = "point"
	// BasisPixel: 1 template pixel = 1 output pixel; the dpi is metadata only.
	BasisPixel = "pixel"
)

// PNG encoder speeds (Options.PNGSpeed; docs/benchmarks.md "Whole process" measures both).
const (
	// PNGSpeedBalanced: deflate level 1 with per-strip Huffman-only fallback, the
	// default: the smallest files for little CPU.
	PNGSpeedBalanced = "balanced"
	// PNGSpeedFastest: Huffman-only deflate (no match search), in the spirit of
	// fpnge: less encoding CPU, larger files (1.7x on the T-shirt reference).
	PNGSpeedFastest = "fastest"
)

// Defaults of Options.
const (
	DefaultMaxPixels       = 400_000_000
	DefaultMaxSourcePixels = 250_000_000
	DefaultMaxMediaBytes   = 256 << 20
	MinDPI, MaxDPI         = 1, 2400
	// DefaultMaxJPEGScans bounds a JPEG's scans: libjpeg's progressive scripts
	// write about 10, and each scan is a pass over every block of the picture.
	DefaultMaxJPEGScans = 100
	// DefaultMaxSVGCost bounds the drawing work of one raster output's SVG layers
	// (svg.DrawCost): about 40 s to 150 s of one core.
	DefaultMaxSVGCost = svg.DefaultMaxDrawCost
)

// Options are the renderer's settings.
type Options struct {
	// Basis is BasisPoint (default) or BasisPixel.
	Basis string
	// Lang is the language of text values drawn; "" takes each value's first language.
	Lang string
	// Strict makes an unknown font family, and characters no font has, an error
	// instead of a fallback with a warning.
	Strict bool
	// MaxPixels caps the output raster (width x height), checked before allocating.
	MaxPixels int64
	// MaxSourcePixels caps a source image's declared pixels (decompression bombs),
	// checked on the file header before decoding.
	MaxSourcePixels int64
	// MaxMediaBytes caps the bytes read from one media file.
	MaxMediaBytes int64
	// MaxJPEGScans caps a JPEG's scans (DefaultMaxJPEGScans when 0); a file with
	// more is refused before the scan past the cap is decoded.
	MaxJPEGScans int
	// MaxSVGCost caps the drawing work of a raster output's SVG layers, in
	// svg.DrawCost's pixel operations (DefaultMaxSVGCost when 0); a view over it
	// is refused before its canvas is allocated.
	MaxSVGCost int64
	// SVG caps SVG documents (size, elements, depth).
	SVG svg.Limits
	// FontDirs are extra font folders; families are read from the files' name tables.
	FontDirs []string
	// FontFallback is the fallback chain of families for characters an element's font
	// lacks (default fonts.DefaultFallback; set []string{} for none).
	FontFallback []string
	// FallbackFontDirs are searched for the fallback families only (default
	// fonts.DefaultFallbackDirs, skipped where absent).
	FallbackFontDirs []string
	// TextDirection is the paragraph direction of text lines, fabric.js's `direction`
	// of the designer: TextDirectionLTR (default, fabric.js's default), TextDirectionRTL,
	// or TextDirectionAuto (each line's first strong letter; docs/text.md "Pipeline of one text element").
	TextDirection string
	// NoCoverageFallback turns off the fallback by coverage: after the chain, a
	// character is otherwise taken from any font of FallbackFontDirs that has it
	// (docs/text.md "Font fallback").
	NoCoverageFallback bool
	// Workers is the compositing parallelism (default: GOMAXPROCS).
	Workers int
	// PNGSpeed is PNGSpeedBalanced (default, "") or PNGSpeedFastest.
	PNGSpeed string
}

// The text directions (Options.TextDirection).
const (
	TextDirectionLTR  = "ltr"
	TextDirectionRTL  = "rtl"
	TextDirectionAuto = "auto"
)

func (o Options) withDefaults() Options {
	if o.TextDirection == "" {
		o.TextDirection = TextDirectionLTR
	}
	if o.Basis == "" {
		o.Basis = BasisPoint
	}
	if o.MaxPixels == 0 {
		o.MaxPixels = DefaultMaxPixels
	}
	if o.MaxSourcePixels == 0 {
		o.MaxSourcePixels = DefaultMaxSourcePixels
	}
	if o.MaxMediaBytes == 0 {
		o.MaxMediaBytes = DefaultMaxMediaBytes
	}
	if o.MaxJPEGScans == 0 {
		o.MaxJPEGScans = DefaultMaxJPEGScans
	}
	if o.MaxSVGCost == 0 {
		o.MaxSVGCost = DefaultMaxSVGCost
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.FontFallback == nil {
		o.FontFallback = fonts.DefaultFallback
	}
	if o.FallbackFontDirs == nil {
		o.FallbackFontDirs = fonts.DefaultFallbackDirs
	}
	return o
}

// Validate reports every bad setting at once.
func (o Options) Validate() error {
	var errs []error
	if o.Basis != "" && o.Basis != BasisPoint && o.Basis != BasisPixel {
		errs = append(errs, fmt.Errorf("render: basis %q: want %q or %q", o.Basis, BasisPoint, BasisPixel))
	}
	if o.PNGSpeed != "" && o.PNGSpeed != PNGSpeedBalanced && o.PNGSpeed != PNGSpeedFastest {
		errs = append(errs, fmt.Errorf("render: png speed %q: want %q or %q", o.PNGSpeed, PNGSpeedBalanced, PNGSpeedFastest))
	}
	switch o.TextDirection {
	case "", TextDirectionLTR, TextDirectionRTL, TextDirectionAuto:
	default:
		errs = append(errs, fmt.Errorf("render: text direction %q: want %q, %q or %q", o.TextDirection, TextDirectionLTR, TextDirectionRTL, TextDirectionAuto))
	}
	if o.MaxPixels < 0 {
		errs = append(errs, fmt.Errorf("render: max pixels %d is negative", o.MaxPixels))
	}
	if o.MaxSourcePixels < 0 {
		errs = append(errs, fmt.Errorf("render: max source pixels %d is negative", o.MaxSourcePixels))
	}
	if o.MaxMediaBytes < 0 {
		errs = append(errs, fmt.Errorf("render: max media bytes %d is negative", o.MaxMediaBytes))
	}
	if o.MaxJPEGScans < 0 {
		errs = append(errs, fmt.Errorf("render: max JPEG scans %d is negative", o.MaxJPEGScans))
	}
	if o.MaxSVGCost < 0 {
		errs = append(errs, fmt.Errorf("render: max SVG cost %d is negative", o.MaxSVGCost))
	}
	return errors.Join(errs...)
}

// MediaSource supplies media files (pictures, illustrations, template images). The
// caller owns the transport; render only reads.
type MediaSource interface {
	OpenMedia(ctx context.Context, m model.Media) (io.ReadCloser, error)
}

// Renderer renders design views. It is safe for concurrent use.
type Renderer struct {
	opts    Options
	fonts   *fonts.Registry
	shapers *shaperPool
	// print is the print-grade output (print.go); nil for sRGB without bleed.
	print *Print
	// thumbPx is the longest side of Result.Thumbnail (thumbnail.go); 0: none.
	thumbPx int
	// wholePictures embeds CMYK pictures whole instead of their visible part
	// (visiblePixels); only TestCMYKPictureCropped sets it, to show that cropping
	// changes nothing on the printed page.
	wholePictures bool
	// pictures draws the picture layers (render/internal/resample), keeping its band
	// workers' buffers across draws.
	pictures *resample.Drawer
}

// New builds a renderer: the font registry (embedded fonts plus opts.FontDirs) is
// loaded once here.
func New(opts Options) (*Renderer, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	reg, err := fonts.Open(fonts.Config{Dirs: opts.FontDirs, Fallback: opts.FontFallback, FallbackDirs: opts.FallbackFontDirs, NoCoverage: opts.NoCoverageFallback})
	if err != nil {
		return nil, fmt.Errorf("render: fonts: %w", err)
	}
	return &Renderer{opts: opts, fonts: reg, shapers: newShaperPool(2 * opts.Workers), pictures: resample.New(opts.Workers)}, nil
}

// Fonts returns the font registry in use.
func (r *Renderer) Fonts() *fonts.Registry { return r.fonts }

// Result describes one written file.
type Result struct {
	// ViewID is the view rendered ("" for a RenderAll package of several views).
	ViewID string
	// Type is png, pdf, pdf-simple, or zip (RenderAll of png views).
	Type        string
	ContentType string
	DPI         float64
	// WidthPx and HeightPx are the raster size (png, pdf-simple); 0 for vector pdf.
	WidthPx, HeightPx int
	// PageWidthPt and PageHeightPt are the physical size in points.
	PageWidthPt, PageHeightPt float64
	// Bytes written to w.
	Bytes    int64
	Warnings []Warning
	// EffectiveDPI is the lowest effective resolution of the file's raster
	// pictures (Scene.EffectiveDPI); 0 when it has none.
	EffectiveDPI float64 `json:"effectiveDpi,omitempty"`
	// Views holds the per-view results of a RenderAll package.
	Views []Result
	// Colour describes the file's colour and page geometry (print.go).
	Colour ColourInfo
	// Sidecars are files that go beside this one: a png's white plate and cut
	// (plates.go); written by the caller under SidecarName.
	Sidecars []Sidecar `json:"sidecars,omitempty"`
	// Thumbnail is a small opaque preview of the view (thumbnail.go); nil unless the
	// renderer was made WithThumbnails.
	Thumbnail image.Image `json:"-"`
}

// Warning codes (preflight).
const (
	// WarnLowResolution: a picture's effective resolution is below the export dpi.
	WarnLowResolution = "low-resolution"
	// WarnClipped: an element is cut by the export box.
	WarnClipped = "clipped"
	// WarnMissingFont: a font family or style is not installed; another face is used.
	WarnMissingFont = "missing-font"
	// WarnMissingGlyph: neither the font nor the fallback chain has a glyph for a
	// character (drawn as a box; an error in strict mode).
	WarnMissingGlyph = "missing-glyph"
	// WarnFontFallback: characters the element's font lacks are drawn with a face of
	// the fallback chain.
	WarnFontFallback = "font-fallback"
	// WarnTextInput: the text holds something printed other than typed: invalid
	// characters, excess combining marks, bidi controls, more than maxCharacters.
	WarnTextInput = "text-input"
	// WarnUnsupported: a design feature the renderer does not draw.
	WarnUnsupported = "unsupported-feature"
	// WarnMediaMismatch: decoded media dimensions differ from the media's meta.
	WarnMediaMismatch = "media-mismatch"
)

// Warning is one preflight finding a print shop wants to see.
type Warning struct {
	Code      string `json:"code"`
	ViewID    string `json:"viewId,omitempty"`
	ElementID string `json:"elementId,omitempty"`
	Message   string `json:"message"`
}

func (w Warning) String() string {
	s := w.Code
	if w.ViewID != "" {
		s += " view " + w.ViewID
	}
	if w.ElementID != "" {
		s += " element " + w.ElementID
	}
	return s + ": " + w.Message
}

// InputError is a problem with the design or its media that a retry cannot fix:
// malformed design, an unknown area, a cap exceeded, an undecodable file.
type InputError struct {
	ViewID    string
	ElementID string
	Reason    string
	Err       error
}

func (e *InputError) Error() string {
	s := "render"
	if e.ViewID != "" {
		s += ": view " + e.ViewID
	}
	if e.ElementID != "" {
		s += ": element " + e.ElementID
	}
	s += ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *InputError) Unwrap() error { return e.Err }

// Retryable is false: the same input fails the same way.
func (e *InputError) Retryable() bool { return false }

func inputErr(viewID, elemID string, err error, format string, args ...any) *InputError {
	return &InputError{ViewID: viewID, ElementID: elemID, Reason: fmt.Sprintf(format, args...), Err: err}
}
