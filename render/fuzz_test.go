package render

import (
	"context"
	"errors"
	"io"
	"strconv"
	"testing"
)

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// FuzzGeometry renders the pictures and text designs with fuzzed positions, scales,
// rotations, font sizes and charSpacing: never a panic, and a refusal is always an
// InputError.
func FuzzGeometry(f *testing.F) {
	f.Add(160.0, 50.0, 0.5, 30.0, 16.0, 0.0)
	f.Add(-1e6, 1e6, 1e6, 1e9, 1e6, -1e6)
	f.Add(1e300, -1e300, 1e-300, 360.0, 1e-300, 1e300)
	r := newRenderer(f, Options{})
	f.Fuzz(func(t *testing.T, x, y, scale, rot, size, spacing float64) {
		pd := loadDesign(t, "pictures.json")
		for i := range pd.Views[0].Elements {
			e := &pd.Views[0].Elements[i]
			if e.Type == "picture" {
				e.PositionX, e.PositionY, e.Scale, e.Rotation = &x, &y, &scale, &rot
			}
		}
		td := loadDesign(t, "text.json")
		for i := range td.Views[0].Elements {
			e := &td.Views[0].Elements[i]
			e.PositionX, e.PositionY, e.Rotation, e.Fontsize = &x, &y, &rot, &size
			e.CharSpacingRaw = []byte(formatFloat(spacing))
		}
		for _, run := range []func() error{
			func() error {
				_, err := r.RenderView(context.Background(), pd, "main", DirSource(mediaDir), io.Discard)
				return err
			},
			func() error {
				_, err := r.RenderView(context.Background(), td, "words", DirSource(mediaDir), io.Discard)
				return err
			},
		} {
			if err := run(); err != nil {
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Fatalf("error %v (%T) is not an InputError", err, err)
				}
			}
		}
	})
}
