package storage_test

import (
	"errors"
	"mime"
	"strings"
	"testing"

	"github.com/printworker/printworker/storage"
)

func TestContentDisposition(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"123-shirt.png", `attachment; filename="123-shirt.png"`},
		{"Café.pdf", `attachment; filename="Caf_.pdf"; filename*=UTF-8''Caf%C3%A9.pdf`},
		{`a"b\c.png`, `attachment; filename="a_b_c.png"; filename*=UTF-8''a%22b%5Cc.png`},
		{"100%.png", `attachment; filename="100_.png"; filename*=UTF-8''100%25.png`},
		{"a b.png", `attachment; filename="a b.png"`},
		{"日本.png", `attachment; filename="__.png"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.png`},
	} {
		got := storage.ContentDisposition(tc.in)
		if got != tc.want {
			t.Errorf("ContentDisposition(%q) = %s, want %s", tc.in, got, tc.want)
		}
		// A standard parser must read the original name back.
		_, params, err := mime.ParseMediaType(got)
		if err != nil || params["filename"] != tc.in {
			t.Errorf("ParseMediaType(%s) = %q, %v", got, params["filename"], err)
		}
	}
}

func TestValidateKey(t *testing.T) {
	for _, ok := range []string{"a", "shop/2024-01-02/1001/123.abc-Front.png", "a/b c/Ünïcode #1.pdf", "x..y/z"} {
		if err := storage.ValidateKey(ok); err != nil {
			t.Errorf("ValidateKey(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "/a", "a/", "a//b", ".", "..", "a/./b", "a/../b", ".a", "a/.b", `a\b`, "a\tb", "a\x7f", "\xc3", strings.Repeat("a", 1025)} {
		if err := storage.ValidateKey(bad); !errors.Is(err, storage.ErrInvalidKey) {
			t.Errorf("ValidateKey(%q) = %v, want ErrInvalidKey", bad, err)
		}
	}
}
