package render

import (
	"context"
	"fmt"
	"image"
	"strings"
	"testing"
)

// TestWarningsSummarised: a view of 60,000 enlarged pictures (a design under the
// 16 MiB cap) carries one low-resolution warning that counts them, not 60,000.
func TestWarningsSummarised(t *testing.T) {
	t.Parallel()
	const n = 60000
	d := onePicture(t, "m", 4, 4)
	v := &d.Views[0]
	e := v.Elements[0]
	ten := 10.0
	e.Scale = &ten
	v.Elements = v.Elements[:0]
	for i := range n {
		e.ID = fmt.Sprintf("p%d", i)
		v.Elements = append(v.Elements, e)
	}
	r := newRenderer(t, Options{})
	s, err := r.BuildScene(context.Background(), d, "main", memSource{"m": encodePNG(t, image.NewNRGBA(image.Rect(0, 0, 4, 4)))})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 {
		t.Fatalf("%d warnings, want the one summary: %v", len(s.Warnings[:min(5, len(s.Warnings))]), s.Warnings[:min(5, len(s.Warnings))])
	}
	w := s.Warnings[0]
	if w.Code != WarnLowResolution || w.ViewID != "main" || !strings.Contains(w.Message, "60,000 pictures print below the export 72 dpi, the lowest at 7 dpi") {
		t.Errorf("summary %+v", w)
	}
}

// TestSummarizeWarnings: up to MaxWarningsPerCode warnings of a code stay as they
// are; more become one summary in place of the first, the other codes in order.
func TestSummarizeWarnings(t *testing.T) {
	t.Parallel()
	w := func(code, id string) Warning {
		return Warning{Code: code, ViewID: "v", ElementID: id, Message: "m " + id}
	}
	many := []Warning{w(WarnClipped, "c0")}
	for i := range MaxWarningsPerCode + 1 {
		many = append(many, w(WarnMissingFont, fmt.Sprint("f", i)))
	}
	many = append(many, w(WarnClipped, "c1"))
	for _, tc := range []struct {
		name string
		in   []Warning
		want []string
	}{
		{"none", nil, nil},
		{"a few of a code", []Warning{w(WarnClipped, "a"), w(WarnClipped, "b"), w(WarnClipped, "c")},
			[]string{"clipped view v element a: m a", "clipped view v element b: m b", "clipped view v element c: m c"}},
		{"as many as listed", func() []Warning {
			var ws []Warning
			for i := range MaxWarningsPerCode {
				ws = append(ws, w(WarnClipped, fmt.Sprint(i)))
			}
			return ws
		}(), func() []string {
			var s []string
			for i := range MaxWarningsPerCode {
				s = append(s, fmt.Sprintf("clipped view v element %d: m %d", i, i))
			}
			return s
		}()},
		{"five of a code", many, []string{"clipped view v element c0: m c0",
			"missing-font view v: 21 warnings of this kind, the first for element f0: m f0", "clipped view v element c1: m c1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, w := range summarizeWarnings(tc.in, nil) {
				got = append(got, w.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 60000: "60,000", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
