package storage_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/storage"
)

// TestDirHotFolder checks what a program watching the folder sees: finished print
// files with readable permissions, nothing else outside hidden names.
func TestDirHotFolder(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	d, err := storage.NewDir(filepath.Join(root, "hot"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Describe(), "dir:"+filepath.Join(root, "hot"); got != want {
		t.Errorf("Describe = %s, want %s", got, want)
	}
	put(t, d, "s/2024-01-02/1/a.png", []byte("png"))

	st, err := os.Stat(filepath.Join(root, "hot", "s", "2024-01-02", "1", "a.png"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("file mode %v, want 0644 so staff and other programs can read it", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Join(root, "hot", "s", "2024-01-02", "1"))
	for _, e := range entries {
		if e.Name() != "a.png" {
			t.Errorf("unexpected file %s beside the print file", e.Name())
		}
	}

	// A crash leaves a temporary file; a file dropped in by hand has no sidecar.
	dir := filepath.Join(root, "hot", "s", "2024-01-02", "1")
	if err := os.WriteFile(filepath.Join(dir, ".tmp-b.png-123.part"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "by-hand.pdf"), []byte("%PDF-"), 0o644); err != nil {
		t.Fatal(err)
	}
	infos, err := d.List(ctx, "s/")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, in := range infos {
		keys = append(keys, in.Key)
	}
	if strings.Join(keys, ",") != "s/2024-01-02/1/a.png,s/2024-01-02/1/by-hand.pdf" {
		t.Errorf("List = %q", keys)
	}
	info, err := d.Stat(ctx, "s/2024-01-02/1/by-hand.pdf")
	if err != nil || info.Size != 5 || info.ContentType != "application/octet-stream" {
		t.Errorf("Stat of a hand-dropped file = %+v, %v", info, err)
	}

	// A folder is not an object.
	if _, err := d.Stat(ctx, "s/2024-01-02"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Stat of a folder = %v, want ErrNotFound", err)
	}
	// A file where a folder should be: a retry meets it again.
	_, err = d.Put(ctx, storage.Object{Key: "s/2024-01-02/1/a.png/x.png"}, strings.NewReader("x"))
	var se *storage.Error
	if !errors.As(err, &se) || se.Retryable() {
		t.Errorf("Put under a file = %v, want a permanent *storage.Error", err)
	}
}

func TestDirUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores permissions")
	}
	root := t.TempDir()
	d, err := storage.NewDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(root, 0o755) })
	_, err = d.Put(context.Background(), storage.Object{Key: "a/b.png"}, strings.NewReader("x"))
	var se *storage.Error
	if !errors.As(err, &se) || se.Retryable() {
		t.Errorf("Put into a read-only folder = %v, want a permanent *storage.Error", err)
	}
}

// A name longer than the filesystem holds fails permanently (issue 32 item 7: it was
// retried for hours); nothing is left behind.
func TestDirNameTooLongIsPermanent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	d, err := storage.NewDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"s/" + strings.Repeat("o", 300) + "/a.png", "s/o/" + strings.Repeat("a", 300) + ".png"} {
		_, err = d.Put(context.Background(), storage.Object{Key: key}, strings.NewReader("x"))
		var se *storage.Error
		if !errors.As(err, &se) || se.Retryable() || !strings.Contains(err.Error(), "name too long") {
			t.Errorf("Put of a %d-byte key = %v, want a permanent *storage.Error naming the cause", len(key), err)
		}
	}
	var left []string
	filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// watchedBody reports, halfway through a Put, the names in its folder: what a RIP
// watching the folder could see while the file is written.
type watchedBody struct {
	dir  string
	left []byte
	seen []string
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if len(b.left) == 0 {
		return 0, io.EOF
	}
	if b.seen == nil {
		entries, _ := os.ReadDir(b.dir)
		b.seen = []string{}
		for _, e := range entries {
			b.seen = append(b.seen, e.Name())
		}
	}
	n := copy(p[:min(len(p), 1)], b.left)
	b.left = b.left[n:]
	return n, nil
}

// TestDirPartialNameOutsideRIPFilter: while a print file is written, its folder holds
// only a hidden ".part" name, which neither a dot-file-ignoring watcher nor a filter
// by extension ("*.pdf") picks up.
func TestDirPartialNameOutsideRIPFilter(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	d, err := storage.NewDir(root)
	if err != nil {
		t.Fatal(err)
	}
	body := &watchedBody{dir: filepath.Join(root, "dtf"), left: []byte("%PDF-1.7 body")}
	if _, err := d.Put(context.Background(), storage.Object{Key: "dtf/1001-1-7-Mug.pdf"}, body); err != nil {
		t.Fatal(err)
	}
	if len(body.seen) != 1 {
		t.Fatalf("names during the write: %q, want one temporary name", body.seen)
	}
	name := body.seen[0]
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".part") {
		t.Errorf("temporary name %q: want a hidden name ending in .part", name)
	}
	if m, _ := filepath.Match("*.pdf", name); m {
		t.Errorf("temporary name %q matches a RIP's *.pdf filter", name)
	}
}
