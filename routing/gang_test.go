package routing

import (
	"strings"
	"testing"
	"time"
)

const gangRules = `{"gangs": {
  "dtf-22in": {"width": "22in", "dpi": 300, "gap": "5mm", "margin": "5mm", "maxLength": "10m",
               "labels": true, "codes": true, "cutMarks": true, "pdf": true, "cutoff": "0 14 * * *", "prefix": "dtf/sheets"},
  "stickers": {"width": "30cm", "maxLength": "50cm", "sheets": true, "rotate": false, "cutoff": "every 2h", "previewWidth": 0}
},
"rules": [
  {"name": "dtf", "match": {"product": ["tee-1"], "type": "png"}, "gang": "dtf-22in"},
  {"name": "stickers", "match": {"product": "sticker", "type": ["png"]}, "gang": "stickers", "prefix": "stickers/"}
]}`

func TestGangGroups(t *testing.T) {
	r, err := Parse([]byte(gangRules))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := r.Route(File{Product: "tee-1", Type: "png"})
	if !ok || got.Gang != "dtf-22in" || got.Prefix != "" {
		t.Errorf("tee-1 png routed to %+v, %v", got, ok)
	}
	if got, _ := r.Route(File{Product: "sticker", Type: "png"}); got.Gang != "stickers" || got.Prefix != "stickers" {
		t.Errorf("sticker routed to %+v", got)
	}
	if _, ok := r.Route(File{Product: "tee-1", Type: "pdf"}); ok {
		t.Error("a PDF matched a gang rule")
	}
	g, ok := r.Gang("dtf-22in")
	if !ok {
		t.Fatal("group dtf-22in missing")
	}
	c := g.Sheet
	if c.DPI != 300 || c.Width != 6600 || c.MaxLength != 118110 || c.Gap != 59 || c.Margin != 59 || !c.Rotate || c.Label != 35 || c.Code != 47 || !c.CutMarks || c.Sheets {
		t.Errorf("dtf-22in sheet %+v", c)
	}
	if !g.PDF || g.Prefix != "dtf/sheets" || g.PreviewWidth != 800 {
		t.Errorf("dtf-22in %+v", g)
	}
	at := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
	if n := g.Schedule.Next(at); !n.Equal(time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC)) {
		t.Errorf("cron cut-off after %s: %s", at, n)
	}
	s, _ := r.Gang("stickers")
	if !s.Sheet.Sheets || s.Sheet.Rotate || s.Sheet.Width != 3543 || s.PreviewWidth != 0 || s.Sheet.Label != 0 {
		t.Errorf("stickers %+v", s)
	}
	if n := s.Schedule.Next(at); !n.Equal(at.Add(2 * time.Hour)) {
		t.Errorf("every 2h after %s: %s", at, n)
	}
	if names := r.Gangs(); len(names) != 2 || names[0].Name != "dtf-22in" || names[1].Name != "stickers" {
		t.Errorf("Gangs = %v", names)
	}
	var none *Rules
	if _, ok := none.Gang("x"); ok || none.Gangs() != nil {
		t.Error("nil rules have groups")
	}
}

// TestGangErrorsListed: every problem of the groups and the gang rules at once.
func TestGangErrorsListed(t *testing.T) {
	doc := `{"gangs": {
  "Bad Name": {"width": "22in"},
  "nowidth": {"dpi": 5, "colour": "red", "cutoff": "at noon", "gap": "22"},
  "narrow": {"width": "1cm", "margin": "5mm"},
  "fine": {"width": "22in", "cutoff": "every 10s"}
},
"rules": [
  {"name": "pdfs", "match": {"product": "tee"}, "gang": "fine"},
  {"name": "ghost", "match": {"type": "png"}, "gang": "nope"},
  {"name": "mixed", "match": {"type": ["png", "pdf"]}, "gang": "fine"},
  {"name": "empty", "match": {"type": "png"}, "gang": ""}
]}`
	_, err := Parse([]byte(doc))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`gang "Bad Name": name: character 'B'`,
		`gang "nowidth": unknown field "colour"`,
		`gang "nowidth": width: required`,
		`gang "nowidth": dpi: 5, want 10 to 2400`,
		`gang "nowidth": cutoff "at noon": want a cron spec`,
		`gang "nowidth": gap: length "22": missing unit`,
		`gang "narrow": gang: margins 2 x 59 px leave nothing of the width 118 px`,
		`gang "fine": cutoff "every 10s": "every" wants a duration from 1m`,
		`rule 0 ("pdfs"): gang "fine": only PNG exports can be ganged`,
		`rule 1 ("ghost"): gang "nope": no such group`,
		`rule 2 ("mixed"): gang "fine": only PNG exports can be ganged`,
		`rule 3 ("empty"): gang: empty`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
