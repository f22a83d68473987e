package render

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/fonts"
	"github.com/printworker/printworker/render/svg"
)

// BuildScene resolves a view of the design into a Scene, reading and decoding the
// media it needs. Errors from the design are *InputError; media source errors are
// passed through wrapped (their own classification decides retries).
func (r *Renderer) BuildScene(ctx context.Context, d *model.DesignDetail, viewID string, media MediaSource) (*Scene, error) {
	p, err := r.PrepareView(ctx, d, viewID, media)
	if err != nil {
		return nil, err
	}
	if err := p.decode(ctx); err != nil {
		return nil, err
	}
	return p.scene, nil
}

type sceneBuilder struct {
	r     *Renderer
	view  *model.View
	scene *Scene
	media *mediaCache
}

// buildScene resolves the view into a scene whose raster media are measured but not
// decoded yet: it returns them as pending, with the plan computed from the design.
func (r *Renderer) buildScene(ctx context.Context, v *model.View, src MediaSource) (*Scene, Plan, []*pendingDecode, error) {
	p, err := r.plan(v)
	if err != nil {
		return nil, p, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, p, nil, err
	}
	s := &Scene{
		ViewID: v.ID, Type: p.Type, Basis: p.Basis, DPI: p.DPI, Box: p.Box,
		PageWidthPt: p.PageWidthPt, PageHeightPt: p.PageHeightPt,
		WidthPx: p.WidthPx, HeightPx: p.HeightPx, Trim: p.Trim, BleedPt: p.BleedPt,
	}
	if s.cutArea, err = r.cutArea(v); err != nil {
		return nil, p, nil, err
	}
	for _, f := range unsupportedFeatures(v) {
		s.Warnings = append(s.Warnings, Warning{Code: WarnUnsupported, ElementID: f.elementID, Message: f.what + " is not rendered"})
	}
	b := &sceneBuilder{r: r, view: v, scene: s, media: newMediaCache(r, src, v.ID)}
	if v.Export.ExportTemplate {
		if err := b.template(ctx); err != nil {
			return nil, p, nil, err
		}
	}
	for _, e := range elementsByWeight(v) {
		if !e.Exported() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, p, nil, err
		}
		var err error
		switch e.Type {
		case model.ElementBackground:
			err = b.background(e)
		case model.ElementPicture, model.ElementIllustration:
			err = b.picture(ctx, e)
		case model.ElementText:
			err = b.text(e)
		}
		if err != nil {
			return nil, p, nil, err
		}
	}
	page := s.ToPage()
	for i := range s.Layers {
		if err := checkLayerNumbers(v.ID, page, s.PageHeightPt, &s.Layers[i]); err != nil {
			return nil, p, nil, err
		}
	}
	s.checkBleed()
	for i := range s.Warnings {
		s.Warnings[i].ViewID = v.ID
	}
	s.Warnings = summarizeWarnings(s.Warnings, s)
	s.svgBytes = b.media.svgBytes
	return s, p, b.media.pending, nil
}

// elementsByWeight returns the elements in ascending weight, ties in array order.
func elementsByWeight(v *model.View) []*model.Element {
	out := make([]*model.Element, len(v.Elements))
	for i := range v.Elements {
		out[i] = &v.Elements[i]
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Weight < out[j].Weight })
	return out
}

func (b *sceneBuilder) warn(code, elemID, format string, args ...any) {
	b.scene.Warnings = append(b.scene.Warnings, Warning{Code: code, ElementID: elemID, Message: fmt.Sprintf(format, args...)})
}

func (b *sceneBuilder) viewRect() Rect { return Rect{0, 0, b.view.Width, b.view.Height} }

// areaRect returns the rectangle of an area id; "" or nil means none.
func (b *sceneBuilder) areaRect(id *string, elemID string) (Rect, bool, error) {
	if id == nil || *id == "" {
		return Rect{}, false, nil
	}
	a, ok := b.view.AreaByID(*id)
	if !ok {
		return Rect{}, false, inputErr(b.view.ID, elemID, nil, "area %q is not an area of the view", *id)
	}
	return Rect{a.X, a.Y, a.Width, a.Height}, true, nil
}

// clip is the element's area intersected with the export box.
func (b *sceneBuilder) clip(e *model.Element) (Rect, error) {
	c := b.scene.Box
	if a, ok, err := b.areaRect(e.Area, e.ID); err != nil {
		return c, err
	} else if ok {
		c = b.scene.intoBleed(c.Intersect(a))
	}
	return c, nil
}

func (b *sceneBuilder) template(ctx context.Context) error {
	m, ok, err := b.view.Template.Media()
	if err != nil {
		return inputErr(b.view.ID, "", err, "view template")
	}
	if !ok {
		if id := b.view.Template.MediaID(); id != "" {
			m = model.Media{ID: id}
		} else {
			b.warn(WarnUnsupported, "", "exportTemplate is set but the view has no template image")
			return nil
		}
	}
	src, err := b.media.get(ctx, m, "")
	if err != nil {
		return err
	}
	w, h := src.size()
	layer := Layer{
		Source: "template", Clip: b.scene.Box, Opacity: 1,
		Transform: svg.Scale(b.view.Width/w, b.view.Height/h).Mul(src.orient),
	}
	src.fill(&layer)
	b.scene.Layers = append(b.scene.Layers, layer)
	return nil
}

func (b *sceneBuilder) background(e *model.Element) error {
	clip, err := b.clip(e)
	if err != nil || clip.Empty() {
		return err
	}
	hasDefault := false
	for _, c := range e.Colors {
		hasDefault = hasDefault || c.Default
	}
	if !hasDefault && e.AllowTransparant != nil && *e.AllowTransparant {
		return nil
	}
	hex := e.ElementColor()
	if hex == "" || strings.EqualFold(hex, "transparent") {
		return nil
	}
	c, err := parseHexColor(hex)
	if err != nil {
		return inputErr(b.view.ID, e.ID, err, "background colour")
	}
	b.scene.Layers = append(b.scene.Layers, Layer{
		Kind: LayerFill, ElementID: e.ID, Source: e.Type, Transform: svg.Identity,
		Clip: clip, Opacity: 1, Fill: &FillLayer{Rect: clip, Color: c},
	})
	return nil
}

// picture places a picture or an illustration (hub-gaps.md "Rendering conventions").
func (b *sceneBuilder) picture(ctx context.Context, e *model.Element) error {
	if e.Value == nil || e.Value.IsNull() {
		return nil // an empty placeholder: nothing chosen, nothing to print
	}
	m, ok, err := e.Value.Media()
	if err != nil {
		return inputErr(b.view.ID, e.ID, err, "media value")
	}
	if !ok {
		id := e.Value.MediaID()
		if id == "" {
			return inputErr(b.view.ID, e.ID, nil, "value is neither a media object nor a media id")
		}
		m = model.Media{ID: id}
	}
	clip, err := b.clip(e)
	if err != nil {
		return err
	}
	if clip.Empty() {
		b.warn(WarnClipped, e.ID, "the %s lies entirely outside the export box and is not printed", e.Type)
		return nil
	}
	tint, err := b.recolour(e)
	if err != nil {
		return err
	}
	src, err := b.media.get(ctx, m, tint)
	if err != nil {
		return err
	}
	w, h := src.size()
	if !(w > 0 && h > 0) {
		return inputErr(b.view.ID, e.ID, nil, "media %s has no size", m.ID)
	}
	// Resize box: scaleArea, else the element's area, else the view.
	box := b.viewRect()
	if a, ok, err := b.areaRect(e.ScaleArea, e.ID); err != nil {
		return err
	} else if ok {
		box = a
	} else if a, ok, err := b.areaRect(e.Area, e.ID); err != nil {
		return err
	} else if ok {
		box = a
	}
	k := 1.0
	if e.AutoResize != nil {
		switch *e.AutoResize {
		case "fill":
			k = math.Max(box.W/w, box.H/h)
		case "fit":
			k = math.Min(box.W/w, box.H/h)
		}
	}
	if e.Scale != nil && *e.Scale > 0 {
		k *= *e.Scale
	}
	px, py := box.X+box.W/2, box.Y+box.H/2
	if e.PositionX != nil {
		px = *e.PositionX
	}
	if e.PositionY != nil {
		py = *e.PositionY
	}
	fx, fy := originFractions(e.Origin())
	rot := 0.0
	if e.Rotation != nil {
		rot = *e.Rotation
	}
	tr := svg.Translate(px, py).Mul(svg.Rotate(rot)).Mul(svg.Scale(k, k)).Mul(svg.Translate(-fx*w, -fy*h))
	layer := Layer{ElementID: e.ID, Source: e.Type, Transform: tr.Mul(src.orient), Clip: clip, Opacity: 1}
	src.fill(&layer)
	for _, u := range src.unsupported() {
		b.warn(WarnUnsupported, e.ID, "SVG %s", u)
	}
	if layer.Kind == LayerImage {
		// The meta may give the stored or the displayed size of a turned JPEG.
		mw, mh := m.Meta.Width, m.Meta.Height
		if mw > 0 && mh > 0 && (math.Abs(mw-w) >= 1 || math.Abs(mh-h) >= 1) && (math.Abs(mw-h) >= 1 || math.Abs(mh-w) >= 1) {
			b.warn(WarnMediaMismatch, e.ID, "media %s decodes to %gx%g px but its meta says %gx%g; the decoded size is used",
				m.ID, w, h, mw, mh)
		}
	}
	b.checkClipped(e, tr, Rect{0, 0, w, h})
	if layer.Kind == LayerImage {
		b.checkResolution(e, layer.Transform)
	}
	b.scene.Layers = append(b.scene.Layers, layer)
	return nil
}

// recolour returns the colour an illustration is recoloured with, "" for none:
// colorizeToColor when it is a colour, else (colorize true) the element's colour.
func (b *sceneBuilder) recolour(e *model.Element) (string, error) {
	if e.Type != model.ElementIllustration {
		return "", nil
	}
	hex := e.ColorizeColor()
	if hex != "" {
		if _, err := parseHexColor(hex); err == nil {
			return hex, nil
		}
	}
	if e.Colorize() {
		hex = e.ElementColor()
		if hex == "" {
			return "", nil
		}
		if _, err := parseHexColor(hex); err != nil {
			return "", inputErr(b.view.ID, e.ID, err, "colorize colour")
		}
		return hex, nil
	}
	return "", nil
}

// checkClipped warns when the element's visible bounds (its box, cut to its area when
// it has one: the area cutting is by design) leave the export box.
func (b *sceneBuilder) checkClipped(e *model.Element, tr Matrix, local Rect) {
	box := b.scene.Trim
	bb := bounds(tr, local)
	if a, ok, _ := b.areaRect(e.Area, e.ID); ok {
		bb = bb.Intersect(a)
	}
	// Half a unit of tolerance: anti-aliasing and rounding are not cuts.
	if box.Contains(bb, 0.5) {
		return
	}
	var sides []string
	if bb.X < box.X-0.5 {
		sides = append(sides, fmt.Sprintf("left by %.1f", box.X-bb.X))
	}
	if bb.Y < box.Y-0.5 {
		sides = append(sides, fmt.Sprintf("top by %.1f", box.Y-bb.Y))
	}
	if r := bb.X + bb.W - (box.X + box.W); r > 0.5 {
		sides = append(sides, fmt.Sprintf("right by %.1f", r))
	}
	if d := bb.Y + bb.H - (box.Y + box.H); d > 0.5 {
		sides = append(sides, fmt.Sprintf("bottom by %.1f", d))
	}
	b.warn(WarnClipped, e.ID, "the %s is cut by the export box (%s template px)", e.Type, strings.Join(sides, ", "))
}

// checkResolution warns when a picture prints at fewer pixels per inch than the export
// dpi: it is enlarged beyond its native pixels.
func (b *sceneBuilder) checkResolution(e *model.Element, tr Matrix) {
	s := b.scene
	m := s.ToPixel().Mul(tr)
	// Output pixels per source pixel along each source axis.
	ax := math.Hypot(m[0], m[1])
	ay := math.Hypot(m[2], m[3])
	scale := math.Max(ax, ay)
	if scale <= 0 {
		return
	}
	eff := s.DPI / scale
	if s.EffectiveDPI == 0 || eff < s.EffectiveDPI {
		s.EffectiveDPI = eff
	}
	if eff >= s.DPI*0.995 {
		return
	}
	b.warn(WarnLowResolution, e.ID, "effective resolution %.0f dpi is below the export %.0f dpi by %.0f%% (source pixels enlarged %.2fx)",
		eff, s.DPI, 100*(1-eff/s.DPI), scale)
}

// originFractions reads an origin keyword ("center", "top-left", "left top", "bottom",
// ...) as fractions of the box: 0 left/top, 0.5 centre, 1 right/bottom. Absent or
// unknown words mean centre, as hub-gaps.md says.
// DefaultLineHeight is fabric.js's line height factor, used when a text element gives
// none (or a non-positive one).
const DefaultLineHeight = 1.16

// LineHeight is the line height factor the renderer uses for a text element.
func LineHeight(e *model.Element) float64 {
	if v, ok := e.LineHeight(); ok {
		return v
	}
	return DefaultLineHeight
}

// originFractions reads an origin keyword as fractions of the box; "" (absent), "center"
// and unknown keywords mean the centre, as in fabric.js.
func originFractions(origin string) (fx, fy float64) {
	fx, fy = 0.5, 0.5
	o := strings.ToLower(origin)
	switch {
	case strings.Contains(o, "left"):
		fx = 0
	case strings.Contains(o, "right"):
		fx = 1
	}
	switch {
	case strings.Contains(o, "top"):
		fy = 0
	case strings.Contains(o, "bottom"):
		fy = 1
	}
	return fx, fy
}

// parseHexColor reads #rgb, #rgba, #rrggbb or #rrggbbaa (sRGB).
func parseHexColor(s string) (color.NRGBA, error) {
	h := strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(h) == 3 || len(h) == 4 {
		var sb strings.Builder
		for _, c := range h {
			sb.WriteRune(c)
			sb.WriteRune(c)
		}
		h = sb.String()
	}
	if len(h) != 6 && len(h) != 8 {
		return color.NRGBA{}, fmt.Errorf("colour %q is not a hex colour", s)
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return color.NRGBA{}, fmt.Errorf("colour %q is not a hex colour", s)
	}
	if len(h) == 6 {
		return color.NRGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}, nil
	}
	return color.NRGBA{uint8(v >> 24), uint8(v >> 16), uint8(v >> 8), uint8(v)}, nil
}

// fontFor resolves the element's font, warning (or failing in strict mode) when the
// family or style is not installed.
func (b *sceneBuilder) fontFor(e *model.Element) (*fonts.Font, error) {
	fam, st := elementFace(e)
	if fam == "" {
		f, _ := b.r.fonts.Lookup(fonts.DefaultFamily, st)
		return f, nil
	}
	f, m := b.r.fonts.Lookup(fam, st)
	switch m {
	case fonts.Fallback:
		if b.r.opts.Strict {
			return nil, inputErr(b.view.ID, e.ID, nil, "font family %q is not installed (strict mode)", fam)
		}
		b.warn(WarnMissingFont, e.ID, "font family %q is not installed; drawn with %s %s", fam, f.Family, f.Style)
	case fonts.OtherStyle:
		if b.r.opts.Strict {
			return nil, inputErr(b.view.ID, e.ID, nil, "font %q has no %s face (strict mode)", fam, st)
		}
		b.warn(WarnMissingFont, e.ID, "font %q has no %s face; drawn with its %s face", fam, st, f.Style)
	}
	return f, nil
}
