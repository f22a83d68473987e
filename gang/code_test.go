package gang

import (
	"bytes"
	"context"
	"fmt"
	"github.com/printworker/printworker/render"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/printworker/printworker/internal/imgcheck"
)

func TestCodeText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		d    Design
		copy int
		want string
	}{
		{Design{Key: "o/1001/front.png", OrderID: "1001", Line: 2}, 3, "1001-2-3"},
		{Design{Key: "loose/logo.png"}, 1, "logo-1"},
		{Design{Key: "x.png", OrderID: "Bestellung-ü", Line: 1}, 1, "Bestellung-_-1-1"},
	} {
		if got := codeText(tt.d, tt.copy); got != tt.want {
			t.Errorf("codeText(%+v, %d) = %q, want %q", tt.d, tt.copy, got, tt.want)
		}
	}
}

// TestCodesDecode: every copy on a gang sheet with codes carries a Code 128 of its
// order, line and copy that zbarimg reads, and the codes take their own band (no
// copy's artwork is touched: the pixel check of TestRenderPixels holds here too).
func TestCodesDecode(t *testing.T) {
	t.Parallel()
	zbar := imgcheck.Tool(t, "zbarimg", "zbar-tools")
	ds := synthSet{name: "codes", seed: 11, designs: 4, minIn: 1.2, maxIn: 1.6, minQty: 1, maxQty: 2}.build(300)
	for i := range ds {
		ds[i].OrderID, ds[i].Line = fmt.Sprint(5000+i), i+1
	}
	c := Config{DPI: 300, Width: 2400, MaxLength: 3000, Gap: 60, Margin: 30, Rotate: false, Label: LabelPx(300), Code: CodePx(300), CutMarks: true}
	l, err := Plan(ds, c)
	if err != nil {
		t.Fatal(err)
	}
	checkLayout(t, ds, l)
	var want []string
	for _, s := range l.Sheets {
		for _, p := range s.Placements {
			d := ds[p.Design]
			want = append(want, fmt.Sprintf("%s-%d-%d", d.OrderID, d.Line, p.Copy))
		}
	}
	var got []string
	for i := range l.Sheets {
		var buf bytes.Buffer
		if err := Render(context.Background(), &buf, l, i, newSynthLoader(ds), render.PNGOptions{}); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		// On white, as printed.
		flat := image.NewRGBA(img.Bounds())
		draw.Draw(flat, flat.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
		draw.Draw(flat, flat.Bounds(), img, img.Bounds().Min, draw.Over)
		p := filepath.Join(t.TempDir(), "sheet.png")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, flat); err != nil {
			t.Fatal(err)
		}
		f.Close()
		out, _ := exec.Command(zbar, "-q", "--raw", p).Output()
		got = append(got, strings.Fields(string(out))...)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("decoded %v, want %v", got, want)
	}
}
