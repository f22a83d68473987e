package worker_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// TestStartSweepsLeftovers: a worker that starts on a hot folder removes the partial
// temporary files a killed writer left there, and nothing else.
func TestStartSweepsLeftovers(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir, err := storage.NewDir(root)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	write := func(rel string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		return p
	}
	leftover := write(store + "/2024-06-01/1001@shop.example/.tmp-1001-1002-Mug.png-81723.part")
	print := write(store + "/2024-06-01/1001@shop.example/1001-1002-Mug.png")
	e := newEnv(t, func(_ *worker.Config, d *worker.Deps) { d.Storage = dir })
	e.start()
	deadline := time.Now().Add(waitBound)
	for {
		if _, err := os.Stat(leftover); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the leftover temporary file is still there")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(print); err != nil {
		t.Errorf("the print file: %v", err)
	}
}
