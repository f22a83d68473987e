package demo

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrepareDirRefusesForeignFolder: the demo empties only a folder it made (its
// marker file), and keeps the manifests when its Redis outlives the run.
func TestPrepareDirRefusesForeignFolder(t *testing.T) {
	t.Parallel()
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "thesis.pdf"), []byte("%PDF"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := prepareDemoDir(foreign, false)
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "not made by the demo") {
		t.Fatalf("foreign folder: %v, want a usage error", err)
	}
	if _, err := os.Stat(filepath.Join(foreign, "thesis.pdf")); err != nil {
		t.Fatalf("the foreign file is gone: %v", err)
	}

	own := filepath.Join(t.TempDir(), "out")
	if err := prepareDemoDir(own, false); err != nil {
		t.Fatal(err)
	}
	order := filepath.Join(own, "store", "2024-07-01", "1001")
	if err := os.MkdirAll(order, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"manifest.json", "front.png"} {
		if err := os.WriteFile(filepath.Join(order, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := prepareDemoDir(own, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(order, "manifest.json")); err != nil {
		t.Errorf("shared Redis: the manifest went: %v", err)
	}
	if _, err := os.Stat(filepath.Join(order, "front.png")); err == nil {
		t.Error("shared Redis: a print file stayed")
	}
	if err := prepareDemoDir(own, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(own, "store")); err == nil {
		t.Error("a re-run kept the earlier run's folders")
	}
}

// TestWriteFixtures: the demo's designs lie over the simulator's samples, and every
// sample order names only designs the fixtures hold.
func TestWriteFixtures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := WriteFixtures(dir); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"1001", "1002", "1003", "1004"} {
		if _, err := os.Stat(filepath.Join(dir, id+".json")); err != nil {
			t.Errorf("design %s: %v", id, err)
		}
	}
	own, err := demoDesigns.ReadFile("demodata/designs/1004.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "1004.json"))
	if err != nil || string(got) != string(own) {
		t.Errorf("the demo's own 1004 is not the one written (%v)", err)
	}
	files, err := Orders.ReadDir("demodata")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		b, err := Orders.ReadFile("demodata/" + f.Name())
		if err != nil {
			t.Fatal(err)
		}
		var o struct {
			LineItems []struct {
				Properties []struct{ Name, Value string } `json:"properties"`
			} `json:"line_items"`
		}
		if err := json.Unmarshal(b, &o); err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
		for _, li := range o.LineItems {
			for _, p := range li.Properties {
				if id, _, ok := strings.Cut(p.Value, "."); ok && strings.HasPrefix(id, "10") {
					n++
					if _, err := os.Stat(filepath.Join(dir, id+".json")); err != nil {
						t.Errorf("%s names design %s, not in the fixtures", f.Name(), id)
					}
				}
			}
		}
	}
	if n == 0 {
		t.Error("no sample order names a design")
	}
}
