package refdesign

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/printworker/printworker/model"
)

// The peers and printworker must render the same bytes on every machine: the photo
// may not depend on how rows are split over goroutines.
func TestPhotoDeterministic(t *testing.T) {
	a := Photo(97, 61, 1, photoNoise)
	prev := runtime.GOMAXPROCS(1)
	b := Photo(97, 61, 1, photoNoise)
	runtime.GOMAXPROCS(prev)
	if !bytes.Equal(a.Pix, b.Pix) {
		t.Fatal("Photo differs between GOMAXPROCS settings")
	}
	if c := Photo(97, 61, 2, photoNoise); bytes.Equal(a.Pix, c.Pix) {
		t.Fatal("Photo ignores its seed")
	}
}

// TestWriteMatchesCommitted regenerates the small references and compares them with
// the committed files, so a change to the generator cannot silently leave stale
// designs behind (the committed photo included: same Go release, same JPEG bytes).
func TestWriteMatchesCommitted(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, TShirtFront, TShirtTwoViews, NameLabel); err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join("..", "..", "testdata", "bench")
	for _, f := range []string{
		"designs/tshirt-front.json", "designs/tshirt-two-views.json", "designs/name-label.json",
		"media/" + PhotoID + ".jpg", "media/" + BadgeID + ".svg", "media/" + ShirtTemplateID + ".png", "media/" + LabelTemplateID + ".png",
	} {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(committed, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator's output: run go run ./bench/gen", f)
		}
	}
	// Every design decodes as a hub design detail and names only media that exist.
	for _, n := range []string{TShirtFront, TShirtTwoViews, NameLabel} {
		b, _ := os.ReadFile(filepath.Join(dir, "designs", n+".json"))
		var d model.DesignDetail
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		for _, v := range d.Views {
			ids := []string{v.Template.MediaID()}
			for _, e := range v.Elements {
				if e.Value != nil && e.Type != model.ElementText {
					ids = append(ids, e.Value.MediaID())
				}
			}
			for _, id := range ids {
				if m, _ := filepath.Glob(filepath.Join(dir, "media", id+".*")); len(m) != 1 {
					t.Errorf("%s view %s: media %s has %d files", n, v.ID, id, len(m))
				}
			}
		}
	}
}
