package render

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/printworker/printworker/model"
)

// DirSource reads media from a folder holding one file per media object, named by the
// media `_id` with any extension (photo id "abc" -> "abc.jpg", "abc.png" or "abc").
// It serves the offline render command and tests.
type DirSource string

// OpenMedia opens the file of m's id.
func (d DirSource) OpenMedia(ctx context.Context, m model.Media) (io.ReadCloser, error) {
	if m.ID == "" || strings.ContainsAny(m.ID, `/\`) || m.ID == "." || m.ID == ".." {
		return nil, inputErr("", "", nil, "media id %q cannot name a file", m.ID)
	}
	dir := string(d)
	if f, err := os.Open(filepath.Join(dir, m.ID)); err == nil {
		return f, nil
	}
	matches, err := filepath.Glob(filepath.Join(dir, globEscape(m.ID)+".*"))
	if err != nil {
		return nil, err
	}
	if len(matches) == 0 {
		return nil, inputErr("", "", nil, "media %s: no file %s.* in %s", m.ID, m.ID, dir)
	}
	if len(matches) > 1 {
		return nil, inputErr("", "", nil, "media %s: several files match in %s: %s", m.ID, dir, strings.Join(matches, ", "))
	}
	f, err := os.Open(matches[0])
	if err != nil {
		return nil, fmt.Errorf("render: media %s: %w", m.ID, err)
	}
	return f, nil
}

func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)
	return r.Replace(s)
}
