package fonts_test

import (
	"os"
	"testing"

	"github.com/printworker/printworker/render/fonts"
)

// The default chain prints emoji as outlines: Debian's only Noto emoji font is colour
// bitmaps (which draw nothing), so Symbola (fonts-symbola) carries them.
func TestDefaultChainHasEmojiOutlines(t *testing.T) {
	const symbola = "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"
	if _, err := os.Stat(symbola); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing (apt-get install fonts-symbola)", symbola)
		}
		t.Skipf("%s missing (apt-get install fonts-symbola)", symbola)
	}
	reg, err := fonts.Open(fonts.Config{Fallback: fonts.DefaultFallback, FallbackDirs: fonts.DefaultFallbackDirs})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []rune{0x1F600, 0x2764, 0x1F44D} { // grinning face, heart, thumbs up
		found := ""
		for i := range reg.FallbackLen() {
			f, _ := reg.FallbackFace(i, fonts.StyleOf(false, false))
			if f == nil {
				continue
			}
			if _, ok := f.Face.NominalGlyph(r); ok {
				found = f.Family
				break
			}
		}
		if found == "" {
			t.Errorf("no font of the default chain has U+%04X", r)
		}
		t.Logf("U+%04X from %s", r, found)
	}
}
