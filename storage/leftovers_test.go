package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/testsftp"
	"github.com/printworker/printworker/storage"
)

// leftoverStore is a backend that removes the temporary files of dead writers.
type leftoverStore interface {
	Store
	RemoveLeftovers(ctx context.Context, key string) (int, error)
	SweepLeftovers(ctx context.Context) (int, error)
}

// TestLeftovers: temporary files that dead writers left beside an object are removed
// by the retried write of that key (RemoveLeftovers) and by the start-up sweep
// (SweepLeftovers); files of live writers (holding their lock, or changed recently),
// other keys' files (for the retry) and names outside our temporary pattern stay.
func TestLeftovers(t *testing.T) {
	t.Parallel()
	type file struct {
		rel    string
		age    time.Duration
		locked bool // held by a live writer (Dir only: SFTP has no locks)
		// kept after the retry's removal, and after the sweep
		afterRetry, afterSweep bool
	}
	const folder = "demo-store/2024-06-01/1001@shop.example/"
	common := []file{
		{rel: folder + ".tmp-a.png-1234.part", age: 2 * time.Hour},
		{rel: folder + ".tmp-a.png-5678.part", age: 0, afterRetry: true, afterSweep: true},
		{rel: folder + ".tmp-b.png-1234.part", age: 2 * time.Hour, afterRetry: true},
		{rel: "other/folder/.tmp-c.pdf-99.part", age: 2 * time.Hour, afterRetry: true},
		{rel: folder + "a.png.part", age: 2 * time.Hour, afterRetry: true, afterSweep: true},
		{rel: folder + ".tmp-a.png.part", age: 2 * time.Hour, afterRetry: true, afterSweep: true},
		{rel: folder + "tmp-a.png-1.part", age: 2 * time.Hour, afterRetry: true, afterSweep: true},
	}
	cases := []struct {
		name  string
		open  func(t *testing.T) (leftoverStore, string)
		files []file
	}{
		{"dir", func(t *testing.T) (leftoverStore, string) {
			root := filepath.Join(t.TempDir(), "hot")
			d, err := storage.NewDir(root)
			if err != nil {
				t.Fatal(err)
			}
			return d, root
		}, append(slices.Clone(common),
			file{rel: folder + ".tmp-a.png-4242.part", age: 2 * time.Hour, locked: true, afterRetry: true, afterSweep: true},
			// Unlocked and past the grace: a dead writer's, however young.
			file{rel: folder + ".tmp-a.png-77.part", age: time.Minute},
			file{rel: ".printworker-meta/" + folder + ".tmp-a.png.json-31.part", age: 2 * time.Hour},
		)},
		{"sftp", func(t *testing.T) (leftoverStore, string) {
			if testsftp.Binary() == "" {
				t.Skip("no sshd")
			}
			srv := testsftp.Start(t)
			return openSFTP(t, srv.Config()), srv.Root
		}, append(slices.Clone(common),
			// Unchanged long enough for the retry of its key, too young for the sweep.
			file{rel: folder + ".tmp-a.png-abc1.part", age: 5 * time.Minute},
			file{rel: "x/.tmp-d.png-abc2.part", age: 5 * time.Minute, afterRetry: true, afterSweep: true},
		)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st, root := c.open(t)
			if _, err := st.Put(ctx, storage.Object{Key: folder + "a.png"}, strings.NewReader("png")); err != nil {
				t.Fatal(err)
			}
			for _, f := range c.files {
				p := filepath.Join(root, filepath.FromSlash(f.rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
					t.Fatal(err)
				}
				at := time.Now().Add(-f.age)
				if err := os.Chtimes(p, at, at); err != nil {
					t.Fatal(err)
				}
				if f.locked {
					h, err := os.Open(p)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { h.Close() })
					if err := syscall.Flock(int(h.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
						t.Skipf("no locks on this filesystem: %v", err)
					}
				}
			}
			check := func(step string, kept func(file) bool) {
				t.Helper()
				for _, f := range c.files {
					_, err := os.Stat(filepath.Join(root, filepath.FromSlash(f.rel)))
					if exists := err == nil; exists != kept(f) {
						t.Errorf("after %s: %s exists %v, want %v", step, f.rel, exists, kept(f))
					}
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(folder+"a.png"))); err != nil {
					t.Errorf("after %s: the object itself: %v", step, err)
				}
			}
			if _, err := st.RemoveLeftovers(ctx, folder+"a.png"); err != nil {
				t.Fatal(err)
			}
			check("the retried write", func(f file) bool { return f.afterRetry })
			if _, err := st.SweepLeftovers(ctx); err != nil {
				t.Fatal(err)
			}
			check("the sweep", func(f file) bool { return f.afterSweep })
			if _, err := st.RemoveLeftovers(ctx, "../escape"); err == nil {
				t.Error("an invalid key was accepted")
			}
		})
	}
}
