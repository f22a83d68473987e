package hub_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/printworker/printworker/model"
)

// jsonEqual compares two JSON documents semantically (key order and number spelling
// aside).
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("left is not JSON: %v", err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("right is not JSON: %v", err)
	}
	return reflect.DeepEqual(x, y)
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRoundTripKeepsEverything(t *testing.T) {
	cases := []struct {
		file string
		dst  func() any
	}{
		{"design.json", func() any { return new(model.DesignDetail) }},
		{"template.json", func() any { return new(model.Template) }},
		{"order.json", func() any { return new(model.Order) }},
		{"templates-page.json", func() any { return new(model.TemplateList) }},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			in := readTestdata(t, tc.file)
			v := tc.dst()
			if err := json.Unmarshal(in, v); err != nil {
				t.Fatalf("decode: %v", err)
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if !jsonEqual(t, in, out) {
				t.Errorf("round trip changed the document\n in: %s\nout: %s", compact(in), out)
			}
		})
	}
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	_ = json.Compact(&buf, b)
	return buf.Bytes()
}

func TestDesignDecodesTypedFields(t *testing.T) {
	var d model.DesignDetail
	if err := json.Unmarshal(readTestdata(t, "design.json"), &d); err != nil {
		t.Fatal(err)
	}
	if d.ConfigurationID != 1042 || d.Token != "3fa85f64-5717-4562-b3fc-2c963f66afa6" || len(d.Views) != 2 {
		t.Fatalf("top level: id %d token %q views %d", d.ConfigurationID, d.Token, len(d.Views))
	}
	front, ok := d.ViewByID("front")
	if !ok {
		t.Fatal("no front view")
	}
	tm, ok, err := front.Template.Media()
	if err != nil || !ok || tm.ID != "65a1f0c2e4b0a1d2c3f4a5ff" || tm.Meta.Width != 1000 {
		t.Errorf("front template media = %+v ok=%v err=%v", tm, ok, err)
	}
	if front.Export.Area == nil || *front.Export.Area != "area-print" || front.Export.Type != model.ExportPDF {
		t.Errorf("front export = %+v", front.Export)
	}
	text := front.Elements[2]
	if lh, ok := text.LineHeight(); text.Type != model.ElementText || text.CharSpacing() != 50 || !ok || lh != 1.2 ||
		text.DefaultFont() != "DejaVu Sans" || text.ElementColor() != "#c81e1e" {
		t.Errorf("text element accessors: spacing %v lineHeight %v,%v font %q color %q",
			text.CharSpacing(), lh, ok, text.DefaultFont(), text.ElementColor())
	}
	if got := text.Fonts(); !reflect.DeepEqual(got, []string{"DejaVu Sans", "DejaVu Serif"}) {
		t.Errorf("fonts = %q", got)
	}
	tr, err := text.Value.Translations()
	if err != nil || !reflect.DeepEqual(tr.Langs(), []string{"en", "de", "fr"}) || tr.Pick("") != "Anna\n2024" {
		t.Errorf("text value = %v %v", tr.Langs(), err)
	}
	logo := front.Elements[3]
	if logo.Exported() || !logo.Colorize() || logo.ColorizeColor() != "" {
		t.Errorf("logo: exported %v colorize %v to %q", logo.Exported(), logo.Colorize(), logo.ColorizeColor())
	}
	pm, ok, err := front.Elements[1].Value.Media()
	if err != nil || !ok || pm.Size != 2483112 || pm.Meta.Height != 3024 {
		t.Errorf("picture media = %+v ok=%v err=%v", pm, ok, err)
	}
}

// Nulls, unknown keys and element fields whose meaning is "not shown" must survive an
// edit of a typed field (templates are read, edited and written back).
func TestEditKeepsNullsAndUnknownFields(t *testing.T) {
	var tpl model.Template
	if err := json.Unmarshal(readTestdata(t, "template.json"), &tpl); err != nil {
		t.Fatal(err)
	}
	tpl.Name = "Renamed"
	tpl.Views[0].Elements[1].Fontsize = ptr(44.0)
	out, err := json.Marshal(tpl)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if m["name"] != "Renamed" {
		t.Errorf("name = %v", m["name"])
	}
	if v, ok := m["shopify"]; !ok || v != nil {
		t.Errorf("shopify = %v present=%v, want null", v, ok)
	}
	if !reflect.DeepEqual(m["vendorExtra"], map[string]any{"rev": 3.0}) {
		t.Errorf("unknown key vendorExtra = %v", m["vendorExtra"])
	}
	view := m["views"].([]any)[0].(map[string]any)
	for _, k := range []string{"addPicture", "cutOutMask"} {
		if v, ok := view[k]; !ok || v != nil {
			t.Errorf("view %s = %v present=%v, want null", k, v, ok)
		}
	}
	els := view["elements"].([]any)
	photo, text := els[0].(map[string]any), els[1].(map[string]any)
	for _, k := range []string{"value", "scaleArea"} {
		if v, ok := photo[k]; !ok || v != nil {
			t.Errorf("picture %s = %v present=%v, want null", k, v, ok)
		}
	}
	if v, ok := text["lineHeight"]; !ok || v != nil {
		t.Errorf("text lineHeight = %v present=%v, want null", v, ok)
	}
	if text["fontsize"] != 44.0 || text["area"] != nil {
		t.Errorf("text fontsize %v area %v", text["fontsize"], text["area"])
	}
	if !reflect.DeepEqual(photo["allowedExtensions"], []any{"jpg", "png"}) {
		t.Errorf("allowedExtensions = %v", photo["allowedExtensions"])
	}
}

func ptr[T any](v T) *T { return &v }

func TestTranslationsKeepOrder(t *testing.T) {
	cases := []struct {
		in    string
		langs []string
		pick  string // Pick("xx")
	}{
		{`{"en":"Front","de":"Vorne"}`, []string{"en", "de"}, "Front"},
		{`{"de":"Vorne","en":"Front"}`, []string{"de", "en"}, "Vorne"},
		{`{"zh":"前","fr":"Avant","de":"Vorne","en":"Front"}`, []string{"zh", "fr", "de", "en"}, "前"},
		{`{}`, nil, ""},
		{`null`, nil, ""},
	}
	for _, tc := range cases {
		var tr model.Translations
		if err := json.Unmarshal([]byte(tc.in), &tr); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if !reflect.DeepEqual(tr.Langs(), tc.langs) || tr.Pick("xx") != tc.pick {
			t.Errorf("%s: langs %v pick %q", tc.in, tr.Langs(), tr.Pick("xx"))
		}
		out, _ := json.Marshal(tr)
		want := tc.in
		if want == "null" {
			want = "{}"
		}
		if string(out) != want {
			t.Errorf("%s: encoded %s", tc.in, out)
		}
	}
	for _, bad := range []string{`[]`, `{"en":1}`, `"x"`} {
		var tr model.Translations
		if err := json.Unmarshal([]byte(bad), &tr); err == nil {
			t.Errorf("%s: decoded without error", bad)
		}
	}
}

func TestOrderHas(t *testing.T) {
	var o model.Order
	in := `{"orderId":"1","email":"","domain":null,"billingDetails":{"zip":"","city":null}}`
	if err := json.Unmarshal([]byte(in), &o); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{"orderId": true, "email": true, "domain": false, "status": false, "billingDetails": true} {
		if got := o.Has(key); got != want {
			t.Errorf("Has(%q) = %v, want %v", key, got, want)
		}
	}
	for key, want := range map[string]bool{"zip": true, "city": false, "phone": false} {
		if got := o.BillingDetails.Has(key); got != want {
			t.Errorf("billing Has(%q) = %v, want %v", key, got, want)
		}
	}
	built := model.Order{OrderID: "2"}
	if !built.Has("status") || built.Decoded() {
		t.Error("an order built in Go has every property")
	}
}

func TestValueShapes(t *testing.T) {
	cases := []struct {
		in      string
		null    bool
		mediaID string
		isMedia bool
	}{
		{`null`, true, "", false},
		{`"65a1"`, false, "65a1", false},
		{`{"_id":"m1","token":"t"}`, false, "m1", true},
		{`{"en":"Hello"}`, false, "", false},
	}
	for _, tc := range cases {
		var v model.Value
		if err := json.Unmarshal([]byte(tc.in), &v); err != nil {
			t.Fatal(err)
		}
		_, isMedia, err := v.Media()
		if v.IsNull() != tc.null || v.MediaID() != tc.mediaID || isMedia != tc.isMedia || err != nil {
			t.Errorf("%s: null %v id %q media %v err %v", tc.in, v.IsNull(), v.MediaID(), isMedia, err)
		}
		out, _ := json.Marshal(v)
		if string(out) != tc.in {
			t.Errorf("%s: re-encoded as %s", tc.in, out)
		}
	}
	if !strings.Contains(string(must(json.Marshal(model.MediaIDValue("x")))), `"x"`) {
		t.Error("MediaIDValue")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestBuildersAndAccessors covers values built in Go (templates created by code) and
// the accessors the renderer relies on.
func TestBuildersAndAccessors(t *testing.T) {
	tr := model.NewTranslations("de", "Vorne", "en", "Front", "de", "Vorderseite")
	if tr.Len() != 2 || !reflect.DeepEqual(tr.Langs(), []string{"de", "en"}) {
		t.Errorf("translations %v", tr.Langs())
	}
	if s, ok := tr.Get("de"); !ok || s != "Vorderseite" || tr.Pick("en") != "Front" {
		t.Errorf("Get(de) = %q %v", s, ok)
	}
	if got := string(must(json.Marshal(model.TextValue(tr)))); got != `{"de":"Vorderseite","en":"Front"}` {
		t.Errorf("TextValue = %s", got)
	}
	m := model.Media{ID: "m1", Token: "t1", MimeType: "image/png", Size: 10, Meta: model.MediaMeta{Width: 2, Height: 3}}
	v := model.MediaValue(m)
	back, ok, err := v.Media()
	if err != nil || !ok || back.ID != "m1" || back.Meta.Height != 3 || v.MediaID() != "m1" || len(v.Raw()) == 0 {
		t.Errorf("MediaValue round trip: %+v %v %v", back, ok, err)
	}
	if tv, err := model.MediaIDValue("plain").Translations(); err != nil || tv.Pick("") != "plain" {
		t.Errorf("a bare string as translations: %v %v", tv.Langs(), err)
	}

	var d model.DesignDetail
	if err := json.Unmarshal(readTestdata(t, "design.json"), &d); err != nil {
		t.Fatal(err)
	}
	front, _ := d.ViewByID("front")
	if a, ok := front.AreaByID("area-logo"); !ok || a.Width != 120 {
		t.Errorf("AreaByID = %+v %v", a, ok)
	}
	if _, ok := front.AreaByID("nope"); ok {
		t.Error("unknown area found")
	}
	if _, ok := d.ViewByID("nope"); ok {
		t.Error("unknown view found")
	}
	text := front.Elements[2]
	if text.Origin() != "center" {
		t.Errorf("origin %q", text.Origin())
	}
	cases := []struct {
		raw                 string
		spacing, lineHeight float64
		lineHeightOK        bool
	}{
		{`"75"`, 75, 75, true},
		{`null`, 0, 0, false},
		{`"x"`, 0, 0, false},
		{`-3`, -3, -3, false},
	}
	for _, tc := range cases {
		e := model.Element{CharSpacingRaw: json.RawMessage(tc.raw), LineHeightRaw: json.RawMessage(tc.raw)}
		lh, ok := e.LineHeight()
		if e.CharSpacing() != tc.spacing || lh != tc.lineHeight || ok != tc.lineHeightOK {
			t.Errorf("%s: spacing %v lineHeight %v,%v", tc.raw, e.CharSpacing(), lh, ok)
		}
	}
	noDefault := model.Element{Colors: []model.Color{{Color: "#111111"}, {Color: "#222222"}}}
	if noDefault.ElementColor() != "#111111" || (&model.Element{}).ElementColor() != "" {
		t.Error("ElementColor fallback")
	}
}
