package render

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/model"
)

func TestDirSource(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"abc.jpg": "jpeg", "bare": "bare", "twice.png": "a", "twice.jpg": "b", "star[1].svg": "svg",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ id, want, err string }{
		{id: "abc", want: "jpeg"},
		{id: "bare", want: "bare"},
		{id: "star[1]", want: "svg"},
		{id: "missing", err: "no file missing.*"},
		{id: "twice", err: "several files match"},
		{id: "../etc/passwd", err: "cannot name a file"},
		{id: "", err: "cannot name a file"},
	}
	for _, tc := range tests {
		rc, err := DirSource(dir).OpenMedia(context.Background(), model.Media{ID: tc.id})
		if tc.err != "" {
			var ie *InputError
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ie) {
				t.Errorf("%q: err = %v, want an InputError with %q", tc.id, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.id, err)
			continue
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != tc.want {
			t.Errorf("%q: read %q, want %q", tc.id, b, tc.want)
		}
	}
}
