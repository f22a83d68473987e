package routing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodRules = `{"rules": [
  {"name": "rush", "match": {"rush": true}, "prefix": "rush/"},
  {"name": "dtf", "match": {"product": ["tee-1", "tee-2"], "type": "png"}, "prefix": "dtf/"},
  {"name": "bulk mugs", "match": {"product": "mug", "minQuantity": 10, "store": ["store-1"]}, "prefix": "sublimation/bulk", "bucket": "sublimation-prints"},
  {"match": {"product": "mug"}, "bucket": "sublimation-prints"},
  {"name": "legacy", "match": {"product": "poster"}, "prefix": "large", "layout": "nested", "ready": true},
  {"name": "cards", "match": {"product": "card"}, "prefix": "cards", "filename": "[store]-[order]-[line]-[title]"}
]}`

func TestRoute(t *testing.T) {
	r, err := Parse([]byte(goodRules))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    File
		want Target
		ok   bool
	}{
		{"rush wins first", File{Product: "tee-1", Type: "png", Rush: true}, Target{Rule: 0, Name: "rush", Prefix: "rush", Layout: LayoutFlat, Filename: DefaultMachinePattern}, true},
		{"dtf png", File{Product: "tee-2", Type: "png", Quantity: 1}, Target{Rule: 1, Name: "dtf", Prefix: "dtf", Layout: LayoutFlat, Filename: DefaultMachinePattern}, true},
		{"dtf needs png", File{Product: "tee-2", Type: "pdf"}, Target{}, false},
		{"bulk mug", File{Store: "store-1", Product: "mug", Quantity: 10}, Target{Rule: 2, Name: "bulk mugs", Prefix: "sublimation/bulk", Bucket: "sublimation-prints", Layout: LayoutFlat, Filename: DefaultMachinePattern}, true},
		{"few mugs", File{Store: "store-1", Product: "mug", Quantity: 9}, Target{Rule: 3, Bucket: "sublimation-prints", Layout: LayoutFlat, Filename: DefaultMachinePattern}, true},
		{"other store mugs", File{Store: "store-2", Product: "mug", Quantity: 50}, Target{Rule: 3, Bucket: "sublimation-prints", Layout: LayoutFlat, Filename: DefaultMachinePattern}, true},
		{"nested keeps the order folder's names", File{Product: "poster", Type: "pdf"}, Target{Rule: 4, Name: "legacy", Prefix: "large", Layout: LayoutNested, Ready: true}, true},
		{"own pattern", File{Product: "card"}, Target{Rule: 5, Name: "cards", Prefix: "cards", Layout: LayoutFlat, Filename: "[store]-[order]-[line]-[title]"}, true},
		{"unrouted", File{Product: "banner", Type: "pdf"}, Target{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := r.Route(tt.f)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Route(%+v) = %+v, %v; want %+v, %v", tt.f, got, ok, tt.want, tt.ok)
			}
		})
	}
	if b := r.Buckets(); len(b) != 1 || b[0] != "sublimation-prints" {
		t.Errorf("Buckets = %v", b)
	}
	if !r.UsesRush() {
		t.Error("UsesRush = false")
	}
	var none *Rules
	if _, ok := none.Route(File{}); ok || none.Len() != 0 || none.UsesRush() {
		t.Error("nil rules route")
	}
}

// TestParseListsEveryError: one bad file, every problem in one error, each with its
// rule index and field.
func TestParseListsEveryError(t *testing.T) {
	doc := `{"rules": [
  {"name": "dtf", "match": {"product": "tee", "colour": "red"}, "prefix": "../dtf"},
  {"match": {"type": ["png", "jpeg"], "minQuantity": 0, "rush": "yes"}, "prefix": "/abs", "bucket": "Bad_Bucket"},
  {"match": {"store": []}, "prefx": "x"},
  {"prefix": "a/.hidden/b"},
  {"prefix": "m", "layout": "tree", "filename": "[id]-[title]", "ready": "yes"},
  {"prefix": "m", "filename": "[order]/[id]"},
  {"gang": "g", "match": {"type": "png"}, "layout": "flat"}
], "gangs": {"g": {"width": "22in"}}, "extra": 1}`
	_, err := Parse([]byte(doc))
	if err == nil {
		t.Fatal("bad rules accepted")
	}
	want := []string{
		`unknown field "extra"`,
		`rule 0 ("dtf"): match: unknown field "colour"`,
		`rule 0 ("dtf"): prefix "../dtf": contains a '..' segment`,
		`rule 1: match.type: unknown export type "jpeg"`,
		`rule 1: match.minQuantity: 0, want at least 1`,
		`rule 1: match.rush: got a JSON string, want true or false`,
		`rule 1: prefix "/abs": starts with '/'`,
		`rule 1: bucket "Bad_Bucket"`,
		`rule 2: unknown field "prefx"`,
		`rule 2: match.store: empty list`,
		`rule 2: no action`,
		`rule 3: prefix "a/.hidden/b": folder ".hidden" is hidden`,
		`rule 4: layout "tree": want "flat" or "nested"`,
		`rule 4: filename "[id]-[title]": a flat machine folder holds every order's files: the pattern needs [order]`,
		`rule 4: ready: got a JSON string, want true or false`,
		`rule 5: filename "[order]/[id]": contains a folder separator`,
		`rule 6: layout: the rule has no machine folder`,
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q", w)
		}
	}
	if t.Failed() {
		t.Logf("error:\n%v", err)
	}
}

func TestParseRefusesMalformed(t *testing.T) {
	for _, doc := range []string{``, `[]`, `null`, `{}`, `{"rules": {}}`, `{"rules": [1]}`, `{"rules": []} {}`,
		`{"rules": [{"prefix": "a"}]} x`, strings.Repeat(" ", MaxFileBytes+1)} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("Parse(%.40q) accepted", doc)
		}
	}
	if r, err := Parse([]byte(`{"rules": []}`)); err != nil || r.Len() != 0 {
		t.Errorf("empty rule list: %v", err)
	}
}

func TestCleanPrefix(t *testing.T) {
	good := map[string]string{"dtf/": "dtf", "dtf": "dtf", "a/b/": "a/b", "rush-2026": "rush-2026", "ü/x": "ü/x"}
	for in, want := range good {
		if got, err := CleanPrefix(in); err != nil || got != want {
			t.Errorf("CleanPrefix(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "..", "../x", "a/../b", "a/..", "/a", ".", "./a", "a//b", `a\b`, ".git", "a/\x00", "\xff"} {
		if got, err := CleanPrefix(bad); err == nil {
			t.Errorf("CleanPrefix(%q) = %q, accepted", bad, got)
		}
	}
}

func TestLoad(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rules.json")
	if err := os.WriteFile(p, []byte(goodRules), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Load(p)
	if err != nil || r.Len() != 6 {
		t.Fatalf("Load: %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file accepted")
	}
}

// TestRouteProfile: a rule may name a production profile, alone (the file stays in
// its order folder, made by that profile) or with a machine folder; Profiles lists
// the names once each, in rule order; a badly spelt name is refused at parse time.
func TestRouteProfile(t *testing.T) {
	r, err := Parse([]byte(`{"rules": [
  {"name": "roland", "match": {"product": "sticker"}, "prefix": "roland", "profile": "roland-cut"},
  {"match": {"product": "card"}, "profile": "press-pdfx4"},
  {"match": {"product": "label"}, "prefix": "labels", "profile": "roland-cut"}
]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    File
		want Target
	}{
		{"profile and folder", File{Product: "sticker", Type: "png"},
			Target{Rule: 0, Name: "roland", Prefix: "roland", Layout: LayoutFlat, Filename: DefaultMachinePattern, Profile: "roland-cut"}},
		{"profile alone", File{Product: "card", Type: "pdf"}, Target{Rule: 1, Profile: "press-pdfx4"}},
	}
	for _, tt := range tests {
		got, ok := r.Route(tt.f)
		if !ok || got != tt.want {
			t.Errorf("%s: Route = %+v, %v; want %+v", tt.name, got, ok, tt.want)
		}
		if ok && got.Machine() != (tt.want.Prefix != "") {
			t.Errorf("%s: Machine() = %v", tt.name, got.Machine())
		}
	}
	if got := r.Profiles(); strings.Join(got, ",") != "roland-cut,press-pdfx4" {
		t.Errorf("Profiles = %v", got)
	}
	_, err = Parse([]byte(`{"rules": [{"prefix": "a", "profile": "Roland Cut"}, {"profile": ""}, {"profile": 3}]}`))
	for _, w := range []string{`rule 0: profile "Roland Cut": want lower-case`, `rule 1: profile "": empty`, `rule 2: profile: got a JSON number, want string`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
}
