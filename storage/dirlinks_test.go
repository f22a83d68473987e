package storage_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/internal/testsftp"
	"github.com/printworker/printworker/storage"
)

// TestDirRefusesLinks plants directory symlinks to a folder outside the hot folder
// (as an order folder, a date folder, the sidecar folder .printworker-meta, a file)
// and puts, reads, lists and deletes through them: nothing lands outside or is read
// or removed there, and each error is permanent and names the link.
func TestDirRefusesLinks(t *testing.T) {
	t.Parallel()
	testRefusesLinks(t, func(t *testing.T) (Store, string) {
		hot := filepath.Join(t.TempDir(), "hot")
		d, err := storage.NewDir(hot)
		if err != nil {
			t.Fatal(err)
		}
		return d, hot
	})
}

// TestSFTPRefusesLinks is TestDirRefusesLinks against a real sshd: the links are
// planted in the SFTP root on the server's disk.
func TestSFTPRefusesLinks(t *testing.T) {
	t.Parallel()
	testRefusesLinks(t, func(t *testing.T) (Store, string) {
		srv := testsftp.Start(t)
		return openSFTP(t, srv.Config()), srv.Root
	})
}

// testRefusesLinks runs the link cases against a store made by open, which returns
// it and the folder it stores under on this machine.
func testRefusesLinks(t *testing.T, open func(t *testing.T) (Store, string)) {
	ctx := context.Background()
	cases := []struct {
		name, link, key string
	}{
		{"order folder", "s/2024-01-02/1", "s/2024-01-02/1/a.png"},
		{"date folder", "s/2024-01-02", "s/2024-01-02/1/a.png"},
		{"store folder", "s", "s/2024-01-02/1/a.png"},
		{"sidecar folder", ".printworker-meta", "s/2024-01-02/1/a.png"},
		{"sidecar order folder", ".printworker-meta/s/2024-01-02/1", "s/2024-01-02/1/a.png"},
		{"file", "s/2024-01-02/1/a.png", "s/2024-01-02/1/a.png"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d, hot := open(t)
			outside := t.TempDir()
			// A file outside that a followed link would overwrite, read or delete.
			victim := filepath.Join(outside, "a.png")
			if err := os.WriteFile(victim, []byte("outside"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(outside, "a.png.json"), []byte(`{"contentType":"x/outside"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(hot, filepath.FromSlash(c.link))
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			target := outside
			if c.name == "file" {
				target = victim
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			refused := func(op string, err error) {
				t.Helper()
				var se *storage.Error
				if !errors.Is(err, storage.ErrLinkInPath) || !errors.As(err, &se) || se.Retryable() {
					t.Errorf("%s: %v, want a permanent refusal of the link", op, err)
				}
			}
			_, err := d.Put(ctx, storage.Object{Key: c.key, ContentType: "image/png"}, strings.NewReader("inside"))
			refused("put", err)
			if c.name != "sidecar folder" && c.name != "sidecar order folder" {
				_, _, err = d.Get(ctx, c.key)
				refused("get", err)
				_, err = d.Stat(ctx, c.key)
				refused("stat", err)
			}
			refused("delete", d.Delete(ctx, c.key))
			list, err := d.List(ctx, "")
			if err != nil {
				t.Errorf("list: %v", err)
			}
			for _, o := range list {
				t.Errorf("listed %s through the link", o.Key)
			}
			// Outside: exactly what was there.
			ents, err := os.ReadDir(outside)
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != 2 {
				names := []string{}
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("outside holds %v, want a.png and a.png.json only", names)
			}
			if b, err := os.ReadFile(victim); err != nil || !bytes.Equal(b, []byte("outside")) {
				t.Errorf("the file outside: %q, %v", b, err)
			}
			// Nothing left half-written in the hot folder either.
			_ = filepath.WalkDir(hot, func(p string, e fs.DirEntry, err error) error {
				if err == nil && strings.HasSuffix(p, ".part") {
					t.Errorf("temporary file left: %s", p)
				}
				return nil
			})
		})
	}
}

// TestDirLinkInsideRootAlsoRefused: a link that stays inside the hot folder is not
// followed either.
func TestDirLinkInsideRootAlsoRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hot := filepath.Join(t.TempDir(), "hot")
	d, err := storage.NewDir(hot)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Put(ctx, storage.Object{Key: "s/2024-01-02/2/a.png"}, strings.NewReader("two")); err != nil {
		t.Fatal(err)
	}
	// A link that stays inside the folder is refused too: no link is followed.
	if err := os.Symlink(filepath.Join(hot, "s", "2024-01-02", "2"), filepath.Join(hot, "s", "2024-01-02", "1")); err != nil {
		t.Fatal(err)
	}
	_, err = d.Put(ctx, storage.Object{Key: "s/2024-01-02/1/a.png"}, strings.NewReader("one"))
	if !errors.Is(err, storage.ErrLinkInPath) || !strings.Contains(err.Error(), "s/2024-01-02/1") {
		t.Errorf("put through an inside link: %v", err)
	}
	rc, _, err := d.Get(ctx, "s/2024-01-02/2/a.png")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if b, _ := io.ReadAll(rc); string(b) != "two" {
		t.Errorf("the linked-to file holds %q", b)
	}
}
