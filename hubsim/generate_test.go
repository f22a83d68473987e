package hubsim

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/hubsim/internal/fixturegen"
)

var update = flag.Bool("update", false, "rewrite testdata from internal/fixturegen")

// TestFixturesUpToDate regenerates the fixtures and compares them with testdata byte
// for byte, so the generator and the committed files cannot drift. -update rewrites
// testdata instead.
func TestFixturesUpToDate(t *testing.T) {
	if *update {
		if err := fixturegen.Generate("testdata"); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if err := fixturegen.Generate(dir); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		want[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("testdata", p)
		rel = filepath.ToSlash(rel)
		if rel == "README.md" || strings.HasPrefix(rel, "fuzz/") { // hand-written, fuzz corpus
			return nil
		}
		got, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, ok := want[rel]
		switch {
		case !ok:
			t.Errorf("testdata/%s is not generated (remove it or generate it)", rel)
		case !bytes.Equal(got, w):
			t.Errorf("testdata/%s differs from the generator's output (go test ./hubsim -run FixturesUpToDate -update)", rel)
		}
		delete(want, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range want {
		t.Errorf("testdata/%s is missing (go test ./hubsim -run FixturesUpToDate -update)", rel)
	}
}
