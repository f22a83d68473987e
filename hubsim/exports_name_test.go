package hubsim

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/printworker/printworker/model"
)

func TestExportName(t *testing.T) {
	d := &model.DesignDetail{ConfigurationID: 7, Name: "Mama's  Tasse / rot", ProductID: "mug:11oz", Created: "2024-06-01T10:00:00.000Z"}
	cases := []struct{ pattern, want string }{
		{"", "7-Mama's-Tasse-rot.png"},
		{"[id]-[title]", "7-Mama's-Tasse-rot.png"},
		{"[product]_[date]_[id]", "mug11oz_2024-06-01_7.png"},
		{"[title]", "Mama's-Tasse-rot.png"},
		{"  ..  ", "design.png"},
		{"a\x00b\tc", "ab-c.png"},
	}
	for _, c := range cases {
		v := &model.View{Export: model.ViewExport{Filename: c.pattern, Type: model.ExportPNG}}
		if got := viewFileName(d, v); got != c.want {
			t.Errorf("%q: %q, want %q", c.pattern, got, c.want)
		}
	}
	long := &model.DesignDetail{ConfigurationID: 1, Name: strings.Repeat("Grüße ", 50)}
	got := viewFileName(long, &model.View{Export: model.ViewExport{Filename: "[title]"}})
	if !utf8.ValidString(got) || utf8.RuneCountInString(got) > 120 {
		t.Fatalf("long name %q", got)
	}
	if cd := contentDisposition("Grüße.pdf"); !strings.HasPrefix(cd, "attachment; filename*=") {
		t.Fatalf("non-ASCII disposition %q", cd)
	}
	if cd := contentDisposition("a.pdf"); cd != `attachment; filename="a.pdf"` {
		t.Fatalf("disposition %q", cd)
	}
}
