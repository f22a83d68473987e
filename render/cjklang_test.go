package render

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/printworker/printworker/model"

	"github.com/printworker/printworker/render/fonts"
)

// TestCJKFormsByLanguage: CJK text takes its fallback face by the language the
// design gives it: Japanese (ja) the JP collection face, Simplified Chinese (zh,
// zh-CN) the SC face, whichever the chain lists first; with no CJK language, the
// default chain's first, JP, which Chromium's default fallback takes for this text
// (issue 36: printworker drew Simplified Chinese forms). Traditional Chinese keeps
// the chain's order. The chain SC-first (a shop's --font-fallback) is followed
// without a language.
func TestCJKFormsByLanguage(t *testing.T) {
	t.Parallel()
	needFile(t, "Debian fonts-noto-cjk", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
	const text = "日本語、「テスト」。中文，标点：对吗？"
	def := newRenderer(t, Options{})
	scFirst := newRenderer(t, Options{FontFallback: []string{"Noto Sans CJK SC", "Noto Sans CJK JP"}})
	for _, tc := range []struct {
		name string
		r    *Renderer
		lang string
		want string
	}{
		{"default chain, no language", def, "", "Noto Sans CJK JP"},
		{"default chain, en", def, "en", "Noto Sans CJK JP"},
		{"default chain, ja", def, "ja", "Noto Sans CJK JP"},
		{"default chain, zh", def, "zh", "Noto Sans CJK SC"},
		{"default chain, zh-CN", def, "zh-CN", "Noto Sans CJK SC"},
		{"default chain, zh-TW", def, "zh-TW", "Noto Sans CJK JP"},
		{"SC first, no language", scFirst, "", "Noto Sans CJK SC"},
		{"SC first, ja", scFirst, "ja-JP", "Noto Sans CJK JP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prim, _ := tc.r.Fonts().Lookup(fonts.DefaultFamily, fonts.Regular)
			tl, _, err := tc.r.shapers.layoutText(text, textRequest{primary: prim, style: fonts.Regular, reg: tc.r.Fonts(),
				size: 40, lineHeight: 1.16, align: "left", textLang: tc.lang})
			must(t, err)
			for _, g := range tl.Lines[0].Glyphs {
				if g.Font.Family != tc.want {
					t.Errorf("%q drawn from %s, want %s", g.Text, g.Font.Family, tc.want)
				}
			}
		})
	}
}

// TestCJKLanguageFromDesign: the scene takes the text's language from the key of the
// translation it draws (--render-lang when the value has it, else its first).
func TestCJKLanguageFromDesign(t *testing.T) {
	t.Parallel()
	needFile(t, "Debian fonts-noto-cjk", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
	for _, tc := range []struct {
		value, lang, want string
	}{
		{`{"zh":"标点。"}`, "", "Noto Sans CJK SC"},
		{`{"ja":"標点。"}`, "", "Noto Sans CJK JP"},
		{`{"ja":"標点。","zh":"标点。"}`, "zh", "Noto Sans CJK SC"},
		{`{"ja":"標点。","zh":"标点。"}`, "fr", "Noto Sans CJK JP"},
	} {
		src := `{"_id":"c1","name":"CJK","_created":"2024-03-01T10:00:00.000Z","views":[{"id":"v","name":{"en":"v"},"active":true,
	"width":200,"height":100,"export":{"areaType":"template","dpi":72,"type":"png","filename":"[id]"},
	"elements":[{"id":"t","type":"text","weight":0,"positionX":100,"positionY":50,"fontsize":20,"value":` + tc.value + `}]}]}`
		var d model.DesignDetail
		must(t, json.Unmarshal([]byte(src), &d))
		s, err := newRenderer(t, Options{Lang: tc.lang}).BuildScene(context.Background(), &d, "v", DirSource(t.TempDir()))
		must(t, err)
		var got []string
		for _, l := range s.Layers {
			if l.Text != nil {
				for _, g := range l.Text.Lines[0].Glyphs {
					got = append(got, g.Font.Family)
				}
			}
		}
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("value %s, --render-lang %q: faces %v, want %s", tc.value, tc.lang, got, tc.want)
		}
	}
}
