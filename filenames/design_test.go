package filenames

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/model"
)

func TestDesignFields(t *testing.T) {
	tests := []struct {
		name string
		d    model.DesignDetail
		want Fields
	}{
		{"configurationId wins over _id", model.DesignDetail{ID: "6561f0a0c0ffee", ConfigurationID: 1001, Name: "Shirt", ProductID: "tee",
			Created: "2024-03-05T23:30:00-02:00"},
			Fields{ID: "1001", Design: "1001", Title: "Shirt", Product: "tee", Date: time.Date(2024, 3, 6, 1, 30, 0, 0, time.UTC),
				Created: time.Date(2024, 3, 6, 1, 30, 0, 0, time.UTC)}},
		{"_id without configurationId", model.DesignDetail{ID: "abc", Updated: "2024-01-02T00:00:00Z"},
			Fields{ID: "abc", Design: "abc", Date: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), Created: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)}},
		{"no usable date", model.DesignDetail{ConfigurationID: 7, Created: "yesterday"}, Fields{ID: "7", Design: "7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DesignFields(&tt.d); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DesignFields = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func view(id, name, typ, pattern string) *model.View {
	var n model.Translations
	if name != "" {
		n = model.NewTranslations("en", name)
	}
	return &model.View{ID: id, Name: n, Export: model.ViewExport{Type: typ, Filename: pattern}}
}

func TestForDesign(t *testing.T) {
	f := Fields{ID: "1001", Title: "Team Shirt", Product: "tee", Date: time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)}
	tests := []struct {
		name  string
		opts  Options
		views []*model.View
		want  []string
	}{
		{"one view, its own pattern", Options{}, []*model.View{view("front", "Front", "png", "[product]-[id]")},
			[]string{"tee-1001.png"}},
		{"own patterns that differ need no suffix to stay apart, but get one", Options{}, []*model.View{
			view("front", "Front", "pdf", "[id]-[title]"), view("back", "Back", "pdf", "[product]-[date]-[id]")},
			[]string{"1001-Team-Shirt-Front.pdf", "tee-2024-03-05-1001-Back.pdf"}},
		{"a set pattern names every view", Options{Pattern: "[id]"}, []*model.View{
			view("front", "Front", "pdf", "[title]"), view("back", "Back", "png", "[product]")},
			[]string{"1001-Front.pdf", "1001-Back.png"}},
		{"own patterns colliding fall back to the default", Options{}, []*model.View{
			view("b-c", "", "pdf", "[title]"), view("c", "", "pdf", "[title]-b")},
			[]string{"1001-Team-Shirt-b-c.pdf", "1001-Team-Shirt-c.pdf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ForDesign(tt.opts, f, tt.views); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ForDesign = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPackageName(t *testing.T) {
	f := Fields{ID: "1002", Title: "Coffee Mug", ViewName: "ignored"}
	views := []*model.View{view("left", "Left", "png", "[title]"), view("right", "Right", "png", "")}
	if got := PackageName(Options{}, f, views, ".zip"); got != "Coffee-Mug.zip" {
		t.Errorf("PackageName = %q", got)
	}
	if got := PackageName(Options{Pattern: "[id]"}, f, views, ".pdf"); got != "1002.pdf" {
		t.Errorf("PackageName with pattern = %q", got)
	}
}

func TestWithExt(t *testing.T) {
	tests := []struct{ name, old, ext, want string }{
		{"1001-Team-Shirt-Front.pdf", ".pdf", ".png", "1001-Team-Shirt-Front.png"},
		{"1002-Mug.png", ".png", ".jpg", "1002-Mug.jpg"},
		{"noext", "", ".pdf", "noext.pdf"},
	}
	for _, tt := range tests {
		if got := WithExt(Options{}, tt.name, tt.old, tt.ext); got != tt.want {
			t.Errorf("WithExt(%q, %q) = %q, want %q", tt.name, tt.ext, got, tt.want)
		}
	}
	long := ForDesign(Options{MaxLen: 20}, Fields{ID: "1", Title: "a very long design title"}, []*model.View{view("v", "", "pdf", "")})[0]
	if got := WithExt(Options{MaxLen: 20}, long, ".pdf", ".webp"); len(got) > 20 || got[len(got)-5:] != ".webp" {
		t.Errorf("WithExt over the cap: %q from %q", got, long)
	}
}

func TestNumbered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, ext string
		n         int
		want      string
	}{
		{"Mug.png", ".png", 2, "Mug-2.png"},
		{"ticket.pdf", ".pdf", 2, "ticket-2.pdf"},
		{"Mug.PNG", ".png", 3, "Mug-3.PNG"},
		{"noext", "", 2, "noext-2"},
		{"1002-Coffee-Mug-Left.png", ".png", 12, "1002-Coffee-Mug-Left-12.png"},
	}
	for _, tt := range tests {
		if got := Numbered(Options{}, tt.name, tt.ext, tt.n); got != tt.want {
			t.Errorf("Numbered(%q, %d) = %q, want %q", tt.name, tt.n, got, tt.want)
		}
	}
	long := ForDesign(Options{MaxLen: 20}, Fields{ID: "1", Title: "a very long design title"}, []*model.View{view("v", "", "pdf", "")})[0]
	if got := Numbered(Options{MaxLen: 20}, long, ".pdf", 1234); len(got) > 20 || !strings.HasSuffix(got, "-1234.pdf") {
		t.Errorf("Numbered over the cap: %q from %q", got, long)
	}
}

func TestSuffixed(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, ext, suffix, want string }{
		{"Mug.png", ".png", "REPRINT-1", "Mug-REPRINT-1.png"},
		{"7-1-1002-Mug-Left.PNG", ".png", "REPRINT-12-2of3", "7-1-1002-Mug-Left-REPRINT-12-2of3.PNG"},
		{"noext", "", "REPRINT-2", "noext-REPRINT-2"},
	}
	for _, tt := range tests {
		if got := Suffixed(Options{}, tt.name, tt.ext, tt.suffix); got != tt.want {
			t.Errorf("Suffixed(%q, %q) = %q, want %q", tt.name, tt.suffix, got, tt.want)
		}
	}
	long := ForDesign(Options{MaxLen: 30}, Fields{ID: "1", Title: "a very long design title indeed"}, []*model.View{view("v", "", "pdf", "")})[0]
	if got := Suffixed(Options{MaxLen: 30}, long, ".pdf", "REPRINT-3"); len(got) > 30 || !strings.HasSuffix(got, "-REPRINT-3.pdf") {
		t.Errorf("Suffixed over the cap: %q from %q", got, long)
	}
}
