package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	gofpdf "codeberg.org/go-pdf/fpdf"
	"github.com/printworker/printworker/internal/printcheck"
)

// imposeItem writes a one- or two-page item PDF (a 50 x 30 mm trim with 2 mm bleed).
func imposeItem(t *testing.T, path string, pages int) {
	t.Helper()
	pdf := gofpdf.NewCustom(&gofpdf.InitType{UnitStr: "mm", Size: gofpdf.SizeType{Wd: 54, Ht: 34}})
	for p := range pages {
		pdf.AddPage()
		pdf.SetPageBox("trim", 2, 2, 50, 30)
		pdf.SetPageBox("bleed", 0, 0, 54, 34)
		pdf.SetFillColor(40*p, 120, 200)
		pdf.Rect(0, 0, 54, 34, "F")
	}
	var b bytes.Buffer
	if err := pdf.Output(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestImposeCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tpl := filepath.Join(dir, "a4.json")
	if err := os.WriteFile(tpl, []byte(`{"sheet": {"width_mm": 210, "height_mm": 297}, "margin_mm": 10, "gutter_mm": 4, "duplex": "tumble", "order": "cut-stack"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.pdf"), filepath.Join(dir, "b.pdf")
	imposeItem(t, a, 2)
	imposeItem(t, b, 2)
	out := filepath.Join(dir, "out")
	var so, se bytes.Buffer
	args := []string{"impose", "--template", tpl, "--out", out, a, b, a}
	if err := run(context.Background(), args, func(string) string { return "" }, &so, &se); err != nil {
		t.Fatalf("impose: %v\n%s", err, se.String())
	}
	doc, err := os.ReadFile(filepath.Join(out, "impose.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The keys are the issue's, no more.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(doc, &raw); err != nil {
		t.Fatal(err)
	}
	if keys := slices.Sorted(maps.Keys(raw)); !reflect.DeepEqual(keys, []string{"placements", "sheets"}) {
		t.Errorf("impose.json keys %v", keys)
	}
	var ps []map[string]any
	if err := json.Unmarshal(raw["placements"], &ps); err != nil {
		t.Fatal(err)
	}
	want := []string{"copy", "height_mm", "item", "rotated", "sheet", "width_mm", "x_mm", "y_mm"}
	if len(ps) != 3 {
		t.Fatalf("%d placements, want 3", len(ps))
	}
	for i, p := range ps {
		if keys := slices.Sorted(maps.Keys(p)); !reflect.DeepEqual(keys, want) {
			t.Errorf("placement keys %v, want %v", keys, want)
		}
		// Item names as given, copies counted per name.
		wantItem, wantCopy := []string{a, b, a}[i], []float64{1, 1, 2}[i]
		if p["item"] != wantItem || p["copy"] != wantCopy {
			t.Errorf("placement %d: item %v copy %v, want %s copy %v", i, p["item"], p["copy"], wantItem, wantCopy)
		}
	}
	pdf, err := os.ReadFile(filepath.Join(out, "sheets.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	printcheck.PDF(t, "sheets.pdf", pdf)
	// One sheet, front and back.
	if n := bytes.Count(pdf, []byte("/Type /Page\n")); n != 2 {
		t.Errorf("%d pages, want 2 (front and back)", n)
	}

	// Bad input: a usage error before anything is written.
	for _, bad := range [][]string{
		{"impose", "--out", out, a},
		{"impose", "--template", tpl, "--out", out},
		{"impose", "--template", filepath.Join(dir, "missing.json"), "--out", out, a},
	} {
		err := run(context.Background(), bad, func(string) string { return "" }, &so, &se)
		if err == nil || exitCode(err) != 2 {
			t.Errorf("%s: err %v, want a usage error", strings.Join(bad, " "), err)
		}
	}
}
