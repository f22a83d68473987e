// Package fixturegen writes the simulator's fixture folder (hubsim/testdata): the
// design details, their media files (PNG, JPEG, SVG), the stored exports (PNG and PDF
// previews of every view) and sample template payloads. Everything is generated here so
// sizes, dimensions and references stay consistent; the output is deterministic, and
// hubsim's TestFixturesUpToDate compares it with testdata (-update rewrites it).
package fixturegen

import (
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"os"
	"path/filepath"
	"strconv"

	"github.com/printworker/printworker/model"
)

// mediaSpec is one media document: its object (2.12), bytes and, for previews, the
// decoded picture or the vector shape.
type mediaSpec struct {
	ID, Token, Name, Mime string
	Data                  []byte
	W, H                  int
	Alpha                 bool
	Img                   image.Image
	Shape                 *shape
}

func (m *mediaSpec) media() model.Media {
	return model.Media{ID: m.ID, OriginalName: m.Name, Token: m.Token, MimeType: m.Mime, Size: int64(len(m.Data)),
		Meta: model.MediaMeta{HasAlpha: m.Alpha, Width: float64(m.W), Height: float64(m.H)}}
}

func (m *mediaSpec) ext() string { return filepath.Ext(m.Name) }

type mediaSet map[string]*mediaSpec

func buildMedia() mediaSet {
	ms := mediaSet{}
	add := func(key string, m *mediaSpec) { ms[key] = m }
	raster := func(key, id, tok, name string, img image.Image, alpha bool) {
		var data []byte
		mime := "image/png"
		if filepath.Ext(name) == ".jpg" {
			data, mime = encodeJPEG(img, 82), "image/jpeg"
		} else {
			data = encodePNG(img, 0)
		}
		b := img.Bounds()
		add(key, &mediaSpec{ID: id, Token: tok, Name: name, Mime: mime, Data: data, W: b.Dx(), H: b.Dy(), Alpha: alpha, Img: img})
	}
	vec := func(key, id, tok, name string, s shape) {
		add(key, &mediaSpec{ID: id, Token: tok, Name: name, Mime: "image/svg+xml", Data: s.svg(), W: int(s.W), H: int(s.H), Alpha: true, Shape: &s})
	}
	raster("shirt-front", "6561f0a0c0ffee000000a001", "3f1c2b7e-8d4a-4f60-9c1e-5a7b2d9e0f11", "tshirt-front.png",
		garment(500, 600, shirtBody(500, 600), "#ffffff", image.Rect(100, 120, 400, 520)), false)
	raster("shirt-back", "6561f0a0c0ffee000000a002", "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d", "tshirt-back.png",
		garment(500, 600, shirtBody(500, 600), "#d9dde3", image.Rect(90, 100, 410, 520)), false)
	raster("sleeve", "6561f0a0c0ffee000000a003", "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9", "sleeve.png",
		garment(200, 150, []pt{{20, 20}, {180, 10}, {190, 140}, {10, 130}}, "#ffffff", image.Rect(40, 30, 160, 110)), false)
	raster("mug-left", "6561f0a0c0ffee000000a004", "0c1d2e3f-4a5b-4c6d-8e7f-90a1b2c3d4e5", "mug-left.png",
		garment(600, 250, []pt{{10, 10}, {590, 10}, {590, 240}, {10, 240}}, "#fbfbf8", image.Rect(20, 15, 580, 235)), false)
	raster("mug-right", "6561f0a0c0ffee000000a005", "f0e1d2c3-b4a5-4968-8776-655443322110", "mug-right.png",
		garment(600, 250, []pt{{10, 10}, {590, 10}, {590, 240}, {10, 240}}, "#fbfbf8", image.Rect(320, 30, 560, 220)), false)
	// The card's template is its printed background (exportTemplate true), so it is
	// print art at 300 dpi for the 420 x 298 pt card, with no guide lines.
	raster("card", "6561f0a0c0ffee000000a006", "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d", "card-template.jpg",
		cardArt(1750, 1242), false)
	// Customer media at print resolution: the photo fills the shirt's chest (240 pt
	// wide at 300 dpi needs 1000 px) and the mug's photo window; the logo is 600 px.
	raster("photo", "6561f0a0c0ffee000000b001", "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "holiday-photo.jpg", photo(1600, 1200), false)
	raster("logo", "6561f0a0c0ffee000000b002", "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e", "club-logo.png", badge(600), true)
	vec("star", "6561f0a0c0ffee000000c001", "3c4d5e6f-7a8b-4c9d-8e1f-2a3b4c5d6e7f", "star.svg", star())
	vec("heart", "6561f0a0c0ffee000000c002", "4d5e6f7a-8b9c-4d0e-9f2a-3b4c5d6e7f80", "heart.svg", heart())
	return ms
}

// Generate writes the fixture folder under out (designs/ and templates/).
func Generate(out string) error {
	ms := buildMedia()
	designs := buildDesigns(ms, func(m *mediaSpec) model.Value { return model.MediaValue(m.media()) })
	dd := filepath.Join(out, "designs")
	for _, sub := range []string{dd, filepath.Join(dd, "media"), filepath.Join(dd, "exports"), filepath.Join(out, "templates")} {
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
	}
	for _, m := range ms {
		if err := os.WriteFile(filepath.Join(dd, "media", m.ID+m.ext()), m.Data, 0o644); err != nil {
			return err
		}
	}
	for _, d := range designs {
		if err := writeJSON(filepath.Join(dd, strconv.FormatInt(d.ConfigurationID, 10)+".json"), d); err != nil {
			return err
		}
		ed := filepath.Join(dd, "exports", strconv.FormatInt(d.ConfigurationID, 10))
		if err := os.MkdirAll(ed, 0o755); err != nil {
			return err
		}
		for i := range d.Views {
			v := &d.Views[i]
			data, ext, err := preview(d, v, ms)
			if err != nil {
				return fmt.Errorf("design %d view %s: %w", d.ConfigurationID, v.ID, err)
			}
			if err := os.WriteFile(filepath.Join(ed, v.ID+ext), data, 0o644); err != nil {
				return err
			}
		}
	}
	// Template payloads (2.5): the same products with media given by id.
	tpls := buildDesigns(ms, func(m *mediaSpec) model.Value { return model.MediaIDValue(m.ID) })
	for _, d := range tpls {
		for i := range d.Views {
			d.Views[i].Export.ExportCutOutMask = json.RawMessage("null")
		}
		t := model.Template{Name: d.Name, ProductID: d.ProductID, Shop: d.Shop, Shopify: json.RawMessage("null"),
			Synchronization: json.RawMessage("[]"), Views: d.Views}
		if err := writeJSON(filepath.Join(out, "templates", d.ProductID+".json"), t); err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Helpers for optional fields.
func pb(b bool) *bool                       { return &b }
func pf(f float64) *float64                 { return &f }
func ps(s string) *string                   { return &s }
func pi(i int) *int                         { return &i }
func raw(s string) json.RawMessage          { return json.RawMessage(s) }
func tr(pairs ...string) model.Translations { return model.NewTranslations(pairs...) }
func tv(pairs ...string) *model.Value {
	v := model.TextValue(tr(pairs...))
	return &v
}

func col(name, hex string, def bool) model.Color {
	de := map[string]string{"Black": "Schwarz", "Red": "Rot", "Gold": "Gold", "Silver": "Silber", "Grey": "Grau",
		"Navy": "Marine", "Cream": "Creme", "Sky": "Himmelblau", "Green": "Grün", "Plum": "Pflaume",
		"White": "Weiß", "Blush": "Rosé"}[name]
	if de == "" {
		de = name
	}
	return model.Color{Name: tr("en", name, "de", de), Color: hex, Default: def}
}

// blankCanvas is used by the previews.
func blankCanvas(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.Transparent, image.Point{}, draw.Src)
	return img
}
