package render

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/printworker/printworker/model"
)

// FuzzPrintSettings feeds arbitrary lengths and colour config files: never a panic;
// a length either parses to a finite non-negative number of points or is refused, a
// config file either loads or is refused with an error, and a vector PDF rendered
// with settings that load is well-formed or refused with an InputError.
func FuzzPrintSettings(f *testing.F) {
	f.Add("3mm", `{"default": {"bleed": "0.125in", "intent": "perceptual"}}`)
	f.Add("1e400in", `{"stores": {"s": {"products": {"p": {"inkLimit": 300, "raster": "tiff"}}}}}`)
	f.Add("-0pt", `{"default": {"profile": "srgb"}, "unknown": 1}`)
	f.Add("0pt", `{"default": {"bleed": "1e308pt"}, "stores": {"s": {"products": {"p": {"bleed": "72in"}}}}}`)
	f.Add("0pt", `{"default": {"bleed": "0.0000001mm", "cropMarks": true}}`)
	dir := f.TempDir()
	r := newRenderer(f, Options{})
	f.Fuzz(func(t *testing.T, length, config string) {
		if v, err := ParseLength(length); err == nil && (math.IsNaN(v) || math.IsInf(v, 0) || v < 0) {
			t.Fatalf("ParseLength(%q) = %v", length, v)
		}
		p := filepath.Join(dir, "c.json")
		if err := os.WriteFile(p, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		var c PrintConfig
		if err := ReadPrintConfig(p, &c); err != nil {
			return
		}
		// Profiles are files; only settings without one are loaded here.
		c.Default.Profile = ""
		for k, v := range c.Products {
			v.Profile = ""
			c.Products[k] = v
		}
		for k, s := range c.Stores {
			s.Profile = ""
			for pk, pv := range s.Products {
				pv.Profile = ""
				s.Products[pk] = pv
			}
			c.Stores[k] = s
		}
		if set, err := c.Load(); err == nil {
			pr := set.For("s", "p")
			if pr != nil && !(pr.BleedPt >= 0 && pr.BleedPt <= MaxBleedPt) {
				t.Fatalf("bleed %v loaded", pr.BleedPt)
			}
			// The settings drive the page (bleed, boxes): a vector PDF made with
			// them holds only numbers a reader takes.
			d := loadDesign(t, "text.json")
			d.Views[0].Export.Type = model.ExportPDF
			var buf bytes.Buffer
			_, err := r.WithPrint(pr).RenderView(context.Background(), d, "words", DirSource(mediaDir), &buf)
			checkOutcome(t, model.ExportPDF, buf.Bytes(), err)
		}
	})
}
