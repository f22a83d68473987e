package storage_test

import (
	"mime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/printworker/printworker/storage"
)

// FuzzLayoutKey: whatever the values, a key is valid and has exactly the pattern's
// folders: data can never add, remove or escape a folder.
func FuzzLayoutKey(f *testing.F) {
	f.Add("shop", "1001", "123.4f2a-Front.png", "front", int64(1704153600))
	f.Add("../..", "a/b", "..", "\x00", int64(0))
	f.Add(".", "//", ".hidden", "con", int64(-1))
	// Issue 32: an order id over 255 bytes, names of the order's own files, '@'.
	f.Add("shop", strings.Repeat("9", 300), "a.png", "front", int64(0))
	f.Add("shop", "DOM-1001@other.example.com", "manifest.json", "", int64(0))
	f.Add("shop", "DOM-1001", "ticket.pdf", "index.html", int64(0))
	f.Add("shop", "A", strings.Repeat("é", 200)+".png", "v", int64(0))
	l := storage.Layout{Pattern: "{store}/{date}/{order}/{view}-{filename}"}
	f.Fuzz(func(t *testing.T, store, order, filename, view string, unix int64) {
		v := storage.KeyVars{Store: store, Domain: view, Order: order, Filename: filename, View: view, Date: time.Unix(unix, 0)}
		for _, get := range []func(storage.KeyVars) (string, error){l.Key, l.ManifestKey} {
			key, err := get(v)
			if err != nil {
				continue
			}
			if err := storage.ValidateKey(key); err != nil {
				t.Fatalf("invalid key %q: %v", key, err)
			}
			if n := strings.Count(key, "/"); n != 3 {
				t.Fatalf("key %q has %d folders, want 3", key, n)
			}
			for _, seg := range strings.Split(key, "/") {
				if len(seg) > storage.MaxSegmentBytes {
					t.Fatalf("key %q has a %d-byte segment", key, len(seg))
				}
			}
		}
	})
}

// FuzzContentDisposition: the header is printable ASCII (no header injection) and a
// standard parser reads the exact file name back.
func FuzzContentDisposition(f *testing.F) {
	for _, s := range []string{"a.png", "Café Crème.png", "a\"b\\c", "100%", "x\r\nSet-Cookie: y", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !utf8.ValidString(name) || name == "" {
			t.Skip()
		}
		h := storage.ContentDisposition(name)
		for i := 0; i < len(h); i++ {
			if h[i] < 0x20 || h[i] >= 0x7f {
				t.Fatalf("header %q holds byte %#x", h, h[i])
			}
		}
		_, params, err := mime.ParseMediaType(h)
		if err != nil {
			t.Fatalf("ParseMediaType(%q): %v", h, err)
		}
		if params["filename"] != name {
			t.Fatalf("parsed %q, want %q from %s", params["filename"], name, h)
		}
	})
}
