package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeDesignPNG writes a w x h PNG with an opaque w-2b x h-2b block in the middle
// (transparent surroundings of b px).
func writeDesignPNG(t *testing.T, path string, w, h, b int, c color.NRGBA) {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := b; y < h-b; y++ {
		for x := b; x < w-b; x++ {
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gangFolder is a worker output folder: order 1001 with two lines (quantities 3 and
// 2), a loose PNG, and a PNG wider than a 4 in roll either way.
func gangFolder(t *testing.T) string {
	dir := t.TempDir()
	od := filepath.Join(dir, "shop", "2026-11-23", "1001")
	writeDesignPNG(t, filepath.Join(od, "mug-front.png"), 120, 80, 10, color.NRGBA{200, 30, 30, 255})
	writeDesignPNG(t, filepath.Join(od, "tee-back.png"), 90, 150, 0, color.NRGBA{30, 30, 200, 255})
	m := map[string]any{
		"version": 1, "orderId": "1001",
		"lineItems": []map[string]any{
			{"designId": 7, "quantity": 3, "files": []string{"shop/2026-11-23/1001/mug-front.png"}},
			{"designId": 8, "quantity": 2, "files": []string{"shop/2026-11-23/1001/tee-back.png"}},
		},
		"files": []map[string]any{
			{"key": "shop/2026-11-23/1001/mug-front.png", "filename": "mug-front.png", "designId": 7, "viewId": "front", "type": "png", "dpi": 100},
			{"key": "shop/2026-11-23/1001/tee-back.png", "filename": "tee-back.png", "designId": 8, "viewId": "back", "type": "png", "dpi": 100},
		},
	}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(od, "manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	writeDesignPNG(t, filepath.Join(dir, "loose", "sticker.png"), 60, 60, 5, color.NRGBA{30, 160, 30, 255})
	writeDesignPNG(t, filepath.Join(dir, "loose", "banner.png"), 600, 500, 0, color.NRGBA{0, 0, 0, 255})
	return dir
}

func TestGangCommand(t *testing.T) {
	dir := gangFolder(t)
	build := func(out string) (string, string, error) {
		var so, se bytes.Buffer
		err := run(context.Background(), []string{"gang", "--dir", dir, "--out", out, "--width", "4in", "--dpi", "100",
			"--gap", "2mm", "--margin", "2mm", "--labels", "--cut-marks", "--pdf"}, func(string) string { return "" }, &so, &se)
		return so.String(), se.String(), err
	}
	out := t.TempDir()
	so, se, err := build(out)
	// The banner is wider than the roll either way: reported, the rest is written.
	if err == nil || !strings.Contains(err.Error(), "1 design file(s) left off") {
		t.Fatalf("error %v", err)
	}
	if !strings.Contains(se, "left off loose/banner.png: artwork 600x500 px fits neither way") {
		t.Fatalf("stderr %q", se)
	}
	if !strings.Contains(so, "sheet-001.png  6 copies") {
		t.Fatalf("stdout %q", so)
	}
	var m struct {
		Copies []struct {
			OrderID  string `json:"orderId"`
			Line     int    `json:"lineItem"`
			View     string `json:"viewId"`
			File     string `json:"file"`
			Copy, Of int
			WPx, HPx int
		} `json:"copies"`
		Rejected []struct{ File string } `json:"rejected"`
	}
	mb, err := os.ReadFile(filepath.Join(out, "sheet-001.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mb, &m); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, c := range m.Copies {
		count[c.File]++
		if c.File == "shop/2026-11-23/1001/mug-front.png" && (c.OrderID != "1001" || c.Line != 1 || c.View != "front" || c.WPx*c.HPx != 100*60) {
			t.Fatalf("mug copy %+v (want order 1001 line 1, trimmed to 100x60)", c)
		}
	}
	if count["shop/2026-11-23/1001/mug-front.png"] != 3 || count["shop/2026-11-23/1001/tee-back.png"] != 2 || count["loose/sticker.png"] != 1 {
		t.Fatalf("copies %v", count)
	}
	if len(m.Rejected) != 1 || m.Rejected[0].File != "loose/banner.png" {
		t.Fatalf("rejected %+v", m.Rejected)
	}
	sheet, err := os.ReadFile(filepath.Join(out, "sheet-001.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(sheet))
	if err != nil || img.Bounds().Dx() != 400 {
		t.Fatalf("sheet: %v %v", err, img.Bounds())
	}
	if _, err := os.Stat(filepath.Join(out, "sheet-001-preview.png")); err != nil {
		t.Fatal(err)
	}
	// Re-building gives byte-identical files.
	out2 := t.TempDir()
	build(out2)
	for _, name := range []string{"sheet-001.png", "sheet-001.json", "sheet-001-preview.png", "sheet-001.pdf"} {
		a, _ := os.ReadFile(filepath.Join(out, name))
		b, _ := os.ReadFile(filepath.Join(out2, name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Fatalf("%s differs between two builds", name)
		}
	}
}

func TestGangCommandDryRunAndErrors(t *testing.T) {
	dir := gangFolder(t)
	os.RemoveAll(filepath.Join(dir, "loose", "banner.png"))
	tests := []struct {
		name    string
		args    []string
		wantOut string
		wantErr string
	}{
		{"dry run", []string{"--dir", dir, "--width", "4in", "--dpi", "100", "--dry-run"}, "order 1001 line 2", ""},
		{"gap larger than the roll", []string{"--dir", dir, "--out", t.TempDir(), "--width", "4in", "--dpi", "100", "--gap", "5in"}, "", "gap 500 px is not smaller than the sheet width 400 px"},
		{"no unit", []string{"--dir", dir, "--out", t.TempDir(), "--width", "22"}, "", "missing unit"},
		{"empty folder", []string{"--dir", t.TempDir(), "--out", t.TempDir()}, "", "no designs to place"},
		{"wrong dpi", []string{"--dir", dir, "--out", t.TempDir(), "--width", "4in", "--dpi", "300"}, "", "2 design file(s) left off"},
		{"no dir", []string{"--out", t.TempDir()}, "", "--dir and --out are required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var so, se bytes.Buffer
			err := run(context.Background(), append([]string{"gang"}, tt.args...), func(string) string { return "" }, &so, &se)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("%v\n%s", err, se.String())
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if !strings.Contains(so.String(), tt.wantOut) {
				t.Fatalf("stdout %q, want %q", so.String(), tt.wantOut)
			}
		})
	}
}
