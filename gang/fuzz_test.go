package gang

import (
	"encoding/binary"
	"errors"
	"image"
	"testing"
	"testing/fstest"
)

// FuzzPlan feeds the packer arbitrary geometry: settings from the first bytes, then
// designs of 6 bytes each. Every result must be a clear error or a valid layout.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{0x02, 0x00, 0x04, 0x00, 10, 5, 1, 0, 40, 0, 30, 2, 2, 1})
	f.Add([]byte{0xff, 0xff, 0x01, 0x00, 0, 0, 3, 7, 0xff, 0x01, 0x10, 0x00, 3, 0})
	f.Add([]byte{0x00, 0x01, 0x00, 0x01, 200, 0, 0, 0, 1, 0, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 8 {
			return
		}
		u16 := func(b []byte) int { return int(binary.LittleEndian.Uint16(b)) }
		c := Config{
			DPI: 100, Width: u16(data[0:]) % 2048, MaxLength: u16(data[2:]) % 4096,
			Gap: int(data[4]), Margin: int(data[5]), Rotate: data[6]&1 != 0, Sheets: data[6]&2 != 0,
			CutMarks: data[6]&4 != 0, Label: int(data[7] % 32),
		}
		var ds []Design
		for rest := data[8:]; len(rest) >= 6 && len(ds) < 64; rest = rest[6:] {
			w, h := u16(rest)%1024, u16(rest[2:])%1024
			q := int(int8(rest[4])) % 8
			x := int(rest[5] % 8)
			ds = append(ds, Design{Key: string(rune('a' + len(ds)%26)), Quantity: q, Width: w + x, Height: h + x, Trim: image.Rect(x, x, x+w, x+h)})
		}
		l, err := Plan(ds, c)
		var ie *InputError
		switch {
		case errors.As(err, &ie), errors.Is(err, ErrNothingPlaced):
			return
		case err != nil:
			t.Fatalf("unclassified error %v", err)
		}
		checkLayout(t, ds, l)
	})
}

// FuzzParseLength: any string is a length with a unit or an error, never a panic or a
// negative or absurd pixel count.
func FuzzParseLength(f *testing.F) {
	for _, s := range []string{"22in", "56cm", "5mm", "1.5m", "300px", "", "22", "-1in", "1e400mm", "NaNmm", "0.5 in"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLength(s)
		if err != nil {
			return
		}
		if px := l.Pixels(1200); px < 0 || px > maxPixels {
			t.Fatalf("%q: %d px", s, px)
		}
	})
}

// FuzzReadFolder: an order manifest of any content is read or reported as a
// problem, never a panic, and never names a file outside its folder.
func FuzzReadFolder(f *testing.F) {
	f.Add([]byte(`{"orderId":"1","lineItems":[{"quantity":2,"files":["k/a.png"]}],"files":[{"key":"k/a.png","filename":"a.png"}]}`))
	f.Add([]byte(`{"orderId":"1","lineItems":[{"quantity":1,"files":["x"]}],"files":[{"key":"x","filename":"../../etc/passwd.png"}]}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, manifest []byte) {
		fsys := fstest.MapFS{"o/manifest.json": {Data: manifest}, "o/a.png": {Data: []byte("\x89PNG\r\n\x1a\nbad")}}
		ds, _, err := ReadFolder(t.Context(), fsys)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if _, ok := fsys[d.Key]; !ok {
				t.Fatalf("design %q is no file of the folder", d.Key)
			}
		}
	})
}
