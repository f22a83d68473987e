package worker

import (
	"slices"
	"testing"

	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
)

// TestHoldKinds: a file's profile with its own review list decides, else its
// store's entry, else the default; reviewActive follows.
func TestHoldKinds(t *testing.T) {
	t.Parallel()
	f, err := profiles.Parse([]byte(`{"profiles": [
  {"name": "cards", "output": "png", "review": ["below-profile-dpi"]},
  {"name": "mugs", "output": "png", "review": "none"}],
 "rules": [{"match": {"product": "card"}, "profile": "cards"}, {"match": {"product": "mug"}, "profile": "mugs"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := profiles.Load(f, profiles.WebPNG, profiles.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := &Worker{cfg: Config{Review: ReviewPolicy{Hold: profiles.DefaultReview, Stores: map[string][]string{"quiet": {}}}, Profiles: set}}
	for _, c := range []struct {
		store, product string
		want           []string
	}{
		{"shop", "poster", profiles.DefaultReview},
		{"quiet", "poster", []string{}},
		{"quiet", "card", []string{profiles.WarnBelowProfileDPI}},
		{"shop", "mug", []string{}},
	} {
		if got := w.holdKinds(c.store, c.product, "front"); !slices.Equal(got, c.want) {
			t.Errorf("%s/%s: %q, want %q", c.store, c.product, got, c.want)
		}
	}
	if !w.reviewActive("quiet") {
		t.Error("a store without a policy of its own is active when a profile holds")
	}
	w.cfg.Profiles = nil
	if w.reviewActive("quiet") || !w.reviewActive("shop") {
		t.Error("reviewActive without profiles follows the store's policy")
	}

	m := &Manifest{Store: "shop", LineItems: []ManifestLine{{ProductID: "poster", Files: []string{"a.png", "b.png"}}},
		Files: []FileRecord{
			{Key: "a.png", ViewID: "front", SHA256: "aa", Warnings: []render.Warning{{Code: render.WarnMissingGlyph}, {Code: render.WarnLowResolution}}},
			{Key: "b.png", ViewID: "front", SHA256: "bb", Warnings: []render.Warning{{Code: render.WarnBleed}}},
		}}
	got := w.reviewFindings(m)
	if len(got) != 1 || got[0].Key != "a.png" || got[0].Code != render.WarnMissingGlyph {
		t.Fatalf("findings %+v, want the missing glyph of a.png", got)
	}
	released := &Manifest{Review: &ReviewRecord{Status: ReviewReleased}, Files: []FileRecord{{Key: "a.png", SHA256: "aa"}}}
	if !approved(released, m, got) {
		t.Error("the released file is not approved")
	}
	released.Files[0].SHA256 = "other"
	if approved(released, m, got) {
		t.Error("changed bytes are approved")
	}
	if approved(nil, m, got) {
		t.Error("approved without a manifest in place")
	}
	// Completed before the policy held such files: those bytes were delivered.
	if !approved(&Manifest{Files: m.Files}, m, got) {
		t.Error("the files of a completed order are held on its update")
	}
}

func TestRekeyedRoundTrip(t *testing.T) {
	t.Parallel()
	m := &Manifest{OrderID: "o", Ticket: "s/o/ticket.pdf",
		LineItems: []ManifestLine{{Files: []string{"s/o/a.png"}}},
		Files:     []FileRecord{{Key: "s/o/a.png", Thumbnail: "s/o/a.thumb.jpg", Sidecars: []SidecarRecord{{Key: "s/o/a-white.png"}}}},
		Warnings:  []ManifestWarning{{Key: "s/o/a.png"}}}
	h := rekeyed(m, toReview)
	if h.Files[0].Key != "review/s/o/a.png" || h.Files[0].Thumbnail != "review/s/o/a.thumb.jpg" || h.Files[0].Sidecars[0].Key != "review/s/o/a-white.png" ||
		h.LineItems[0].Files[0] != "review/s/o/a.png" || h.Warnings[0].Key != "review/s/o/a.png" || h.Ticket != "review/s/o/ticket.pdf" {
		t.Errorf("held keys %+v", h)
	}
	if m.Files[0].Key != "s/o/a.png" || m.Files[0].Sidecars[0].Key != "s/o/a-white.png" || m.LineItems[0].Files[0] != "s/o/a.png" {
		t.Error("rekeyed changed its input")
	}
	back := rekeyed(h, fromReview)
	if back.Files[0].Key != m.Files[0].Key || back.Files[0].Thumbnail != m.Files[0].Thumbnail || back.LineItems[0].Files[0] != "s/o/a.png" {
		t.Errorf("round trip %+v", back)
	}
	if n := len(moves(m, toReview)); n != 3 {
		t.Errorf("%d objects to move, want 3 (file, thumbnail, sidecar)", n)
	}
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"RV-1":            "RV-1",
		"shop.example":    "shop.example",
		"R 1":             "'R 1'",
		"it's":            `'it'\''s'`,
		"":                "''",
		"$(rm -rf /)":     "'$(rm -rf /)'",
		"#1001@x.example": "'#1001@x.example'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
