package fixturegen

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"sort"
	"strings"
	"time"

	gofpdf "codeberg.org/go-pdf/fpdf"
	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/f64"
	"golang.org/x/image/math/fixed"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
)

// preview renders a stored export of one view: an approximation of what the hub
// exports, following hub-gaps.md's conventions (export box, 1 template px = 1 pt,
// layers by weight, area clipping, exportTemplate, export:false) but with Go fonts and
// no character spacing. PNG views get their full print pixel size and a pHYs chunk;
// PDF views get one page of the box size in points holding a JPEG raster at up to
// 150 dpi (these files are stand-ins until the renderer plugs in, kept small).
func preview(d model.DesignDetail, v *model.View, ms mediaSet) ([]byte, string, error) {
	box := exportBox(v)
	dpi := v.Export.DPI
	if v.Export.Type != model.ExportPNG {
		dpi = math.Min(dpi, 150)
	}
	k := dpi / 72
	img, err := paint(v, ms, box, k)
	if err != nil {
		return nil, "", err
	}
	if v.Export.Type == model.ExportPNG {
		return encodePNG(img, v.Export.DPI), ".png", nil
	}
	flat := image.NewRGBA(img.Bounds())
	draw.Draw(flat, flat.Bounds(), image.White, image.Point{}, draw.Src)
	draw.Draw(flat, flat.Bounds(), img, image.Point{}, draw.Over)
	pdf := gofpdf.NewCustom(&gofpdf.InitType{UnitStr: "pt", Size: gofpdf.SizeType{Wd: box.Dx(), Ht: box.Dy()}})
	pdf.SetCreationDate(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	pdf.SetModificationDate(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	pdf.SetCatalogSort(true)
	pdf.SetTitle(fmt.Sprintf("%s - %s", d.Name, v.Name.Pick("en")), true)
	pdf.SetProducer("printworker hubsim fixturegen", true)
	pdf.SetAutoPageBreak(false, 0)
	pdf.AddPage()
	name := "view-" + v.ID
	pdf.RegisterImageOptionsReader(name, gofpdf.ImageOptions{ImageType: "JPG"}, bytes.NewReader(encodeJPEG(flat, 80)))
	pdf.ImageOptions(name, 0, 0, box.Dx(), box.Dy(), false, gofpdf.ImageOptions{ImageType: "JPG"}, 0, "")
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), ".pdf", nil
}

type rect struct{ X, Y, W, H float64 }

func (r rect) Dx() float64 { return r.W }
func (r rect) Dy() float64 { return r.H }

// exportBox is the export rectangle in template pixels (hub-gaps.md).
func exportBox(v *model.View) rect {
	switch v.Export.AreaType {
	case model.AreaTypeArea:
		if a, ok := v.AreaByID(*v.Export.Area); ok {
			return rect{a.X, a.Y, a.Width, a.Height}
		}
	case model.AreaTypeCustom:
		return rect{v.Export.X, v.Export.Y, v.Export.Width, v.Export.Height}
	}
	return rect{0, 0, v.Width, v.Height}
}

func paint(v *model.View, ms mediaSet, box rect, k float64) (*image.RGBA, error) {
	W, H := int(math.Round(box.W*k)), int(math.Round(box.H*k))
	canvas := blankCanvas(W, H)
	byID := map[string]*mediaSpec{}
	for _, m := range ms {
		byID[m.ID] = m
	}
	// toCanvas maps a template rectangle to canvas pixels.
	toCanvas := func(r rect) image.Rectangle {
		return image.Rect(int(math.Round((r.X-box.X)*k)), int(math.Round((r.Y-box.Y)*k)),
			int(math.Round((r.X+r.W-box.X)*k)), int(math.Round((r.Y+r.H-box.Y)*k)))
	}
	// place draws src with its centre at template point (cx, cy), sized tw x th
	// template pixels, rotated deg clockwise, clipped to clip.
	place := func(src image.Image, cx, cy, tw, th, deg float64, clip image.Rectangle) {
		layer := blankCanvas(W, H)
		sb := src.Bounds()
		sx, sy := tw*k/float64(sb.Dx()), th*k/float64(sb.Dy())
		s, c := math.Sincos(deg * math.Pi / 180)
		px, py := (cx-box.X)*k, (cy-box.Y)*k
		hw, hh := float64(sb.Dx())/2, float64(sb.Dy())/2
		m := f64.Aff3{
			c * sx, -s * sy, px - c*sx*(hw+float64(sb.Min.X)) + s*sy*(hh+float64(sb.Min.Y)),
			s * sx, c * sy, py - s*sx*(hw+float64(sb.Min.X)) - c*sy*(hh+float64(sb.Min.Y)),
		}
		xdraw.BiLinear.Transform(layer, m, src, sb, xdraw.Over, nil)
		draw.Draw(canvas, clip.Intersect(canvas.Bounds()), layer, clip.Intersect(canvas.Bounds()).Min, draw.Over)
	}
	whole := canvas.Bounds()
	if v.Export.ExportTemplate {
		m := byID[v.Template.MediaID()]
		if m == nil || m.Img == nil {
			return nil, fmt.Errorf("template media %q missing", v.Template.MediaID())
		}
		place(m.Img, v.Width/2, v.Height/2, v.Width, v.Height, 0, whole)
	}
	els := make([]*model.Element, 0, len(v.Elements))
	for i := range v.Elements {
		if v.Elements[i].Exported() {
			els = append(els, &v.Elements[i])
		}
	}
	sort.SliceStable(els, func(i, j int) bool { return els[i].Weight < els[j].Weight })
	for _, e := range els {
		clip := whole
		var areaRect *rect
		if e.Area != nil && *e.Area != "" {
			a, _ := v.AreaByID(*e.Area)
			areaRect = &rect{a.X, a.Y, a.Width, a.Height}
			clip = toCanvas(*areaRect)
		}
		rot := 0.0
		if e.Rotation != nil {
			rot = *e.Rotation
		}
		switch e.Type {
		case model.ElementBackground:
			hex := ""
			for _, c := range e.Colors {
				if c.Default {
					hex = c.Color
				}
			}
			if hex == "" && (e.AllowTransparant == nil || !*e.AllowTransparant) {
				hex = e.ElementColor()
			}
			if hex != "" {
				draw.Draw(canvas, clip.Intersect(whole), image.NewUniform(hexColor(hex)), image.Point{}, draw.Over)
			}
		case model.ElementPicture, model.ElementIllustration:
			mo, ok, _ := e.Value.Media()
			m := byID[mo.ID]
			if !ok || m == nil {
				return nil, fmt.Errorf("element %s: media missing", e.ID)
			}
			rb := rect{0, 0, v.Width, v.Height}
			if e.ScaleArea != nil {
				a, _ := v.AreaByID(*e.ScaleArea)
				rb = rect{a.X, a.Y, a.Width, a.Height}
			} else if areaRect != nil {
				rb = *areaRect
			}
			f := 1.0
			switch *e.AutoResize {
			case "fill":
				f = math.Max(rb.W/float64(m.W), rb.H/float64(m.H))
			case "fit":
				f = math.Min(rb.W/float64(m.W), rb.H/float64(m.H))
			}
			if e.Scale != nil && *e.Scale > 0 {
				f *= *e.Scale
			}
			tw, th := float64(m.W)*f, float64(m.H)*f
			src := m.Img
			if m.Shape != nil {
				var c color.Color
				if cc := e.ColorizeColor(); cc != "" {
					c = hexColor(cc)
				} else if e.Colorize() && e.ElementColor() != "" {
					c = hexColor(e.ElementColor())
				}
				src = m.Shape.raster(int(math.Ceil(tw*k)), int(math.Ceil(th*k)), c)
			}
			place(src, *e.PositionX, *e.PositionY, tw, th, rot, clip)
		case model.ElementText:
			img, tw, th, err := textImage(e, k)
			if err != nil {
				return nil, err
			}
			place(img, *e.PositionX, *e.PositionY, tw, th, rot, clip)
		}
	}
	return canvas, nil
}

// textImage lays out a text element as fabric.js does (hub-gaps.md) at scale k and
// returns it with its box size in template pixels.
func textImage(e *model.Element, k float64) (image.Image, float64, float64, error) {
	tr, err := e.Value.Translations()
	if err != nil {
		return nil, 0, 0, err
	}
	lines := strings.Split(tr.Pick(""), "\n")
	ttf := goregular.TTF
	switch {
	case e.Bold != nil && *e.Bold:
		ttf = gobold.TTF
	case e.Italic != nil && *e.Italic:
		ttf = goitalic.TTF
	}
	fnt, err := opentype.Parse(ttf)
	if err != nil {
		return nil, 0, 0, err
	}
	fs := *e.Fontsize
	face, err := opentype.NewFace(fnt, &opentype.FaceOptions{Size: fs * k, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, 0, 0, err
	}
	defer face.Close()
	lh := render.LineHeight(e)
	u := 1.13 * fs
	widths := make([]float64, len(lines))
	maxW := 1.0
	for i, l := range lines {
		widths[i] = float64(font.MeasureString(face, l)) / 64 / k
		maxW = math.Max(maxW, widths[i])
	}
	th := u * (lh*float64(len(lines)-1) + 1)
	img := blankCanvas(int(math.Ceil(maxW*k)), int(math.Ceil(th*k)))
	c := color.Color(color.Black)
	if hex := e.ElementColor(); hex != "" {
		c = hexColor(hex)
	}
	align := "center"
	if e.Align != nil {
		align = *e.Align
	}
	for i, l := range lines {
		x := (maxW - widths[i]) / 2
		switch align {
		case "left":
			x = 0
		case "right":
			x = maxW - widths[i]
		}
		base := u*lh*float64(i) + 0.879*fs
		d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face,
			Dot: fixed.P(int(math.Round(x*k)), int(math.Round(base*k)))}
		d.DrawString(l)
	}
	return img, maxW, th, nil
}
