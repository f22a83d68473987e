package storage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestDirEscapeClassified: a link swapped in after noLinks checked is stopped by
// os.Root; its error (recognised by its text, which this pins) is a permanent
// ErrLinkInPath.
func TestDirEscapeClassified(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	hot, outside := filepath.Join(base, "hot"), filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := NewDir(hot)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(hot, "s")); err != nil {
		t.Fatal(err)
	}
	// What a Put does after its check, had the link appeared in between.
	_, err = d.r.OpenFile(filepath.Join("s", "x.png"), os.O_CREATE|os.O_WRONLY, 0o644)
	if !escapes(err) {
		t.Fatalf("os.Root's error %v is not recognised as an escape", err)
	}
	cerr := dirError("put", "s/x.png", err)
	var se *Error
	if !errors.Is(cerr, ErrLinkInPath) || !errors.As(cerr, &se) || se.Retryable() {
		t.Errorf("classified %v, want a permanent ErrLinkInPath", cerr)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.png")); err == nil {
		t.Error("a file was created outside")
	}
}
