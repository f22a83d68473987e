package fonts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Config are the registry's settings.
type Config struct {
	// Dirs are font folders loaded whole at start (a shop's own fonts).
	Dirs []string
	// Fallback is the fallback chain: families tried in order for characters the
	// element's font lacks. Each family is looked up among the embedded fonts and Dirs
	// first, then in FallbackDirs.
	Fallback []string
	// FallbackDirs are system font folders searched for the fallback families only.
	// A folder that does not exist is skipped: the chain is a best effort on machines
	// without the Noto packages, and every character no face covers is reported.
	FallbackDirs []string
	// NoCoverage turns off the fallback by coverage (coverage.go): characters the
	// element's font and the chain lack are then drawn as missing-glyph boxes.
	NoCoverage bool
}

// DefaultFallback is the default fallback chain: Noto families per script (Debian's
// fonts-noto-core and fonts-noto-cjk), then monochrome emoji outlines (Noto Emoji where a
// shop installs it; Symbola from Debian's fonts-symbola, since Debian packages Noto's
// emoji only as colour bitmaps, which print nothing), then DejaVu Sans.
var DefaultFallback = []string{
	"Noto Sans", "Noto Sans Arabic", "Noto Sans Hebrew", "Noto Sans Devanagari",
	"Noto Sans Thai", "Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Emoji", "Symbola", "DejaVu Sans",
}

// DefaultFallbackDirs are the folders Debian's fonts-noto-* and fonts-symbola packages
// install to.
var DefaultFallbackDirs = []string{"/usr/share/fonts/truetype/noto", "/usr/share/fonts/opentype/noto", "/usr/share/fonts/truetype/ancient-scripts"}

// fallbackSet resolves the fallback chain lazily: a CJK collection is tens of MB, so
// a family is read only when a text first needs it.
type fallbackSet struct {
	families []string
	files    []string // candidate files in the fallback folders

	mu     sync.Mutex
	loaded map[string]*family // by lower-cased family; nil entry: looked, not found
	errs   map[string]error
}

func newFallbackSet(cfg Config) (*fallbackSet, error) {
	fb := &fallbackSet{families: cfg.Fallback, loaded: map[string]*family{}, errs: map[string]error{}}
	for _, dir := range cfg.FallbackDirs {
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && isFontFile(path) {
				fb.files = append(fb.files, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("fonts: fallback folder %s: %w", dir, err)
		}
	}
	return fb, nil
}

// FallbackLen is the number of families in the fallback chain.
func (r *Registry) FallbackLen() int { return len(r.fallback.families) }

// FallbackFamily is the name of the i-th family of the fallback chain.
func (r *Registry) FallbackFamily(i int) string { return r.fallback.families[i] }

// FallbackFace returns the face of the i-th fallback family closest to st, or nil
// when the family is not installed. The error reports a fallback font file that could
// not be read (the family is then treated as not installed).
func (r *Registry) FallbackFace(i int, st Style) (*Font, error) {
	name := r.fallback.families[i]
	key := strings.ToLower(strings.TrimSpace(name))
	if fm := r.families[key]; fm != nil {
		return fm.closest(st).parsed(), nil
	}
	fb := r.fallback
	fb.mu.Lock()
	defer fb.mu.Unlock()
	fm, seen := fb.loaded[key]
	if !seen {
		fm, fb.errs[key] = fb.load(name)
		fb.loaded[key] = fm
	}
	if fm == nil {
		return nil, fb.errs[key]
	}
	return fm.closest(st), nil
}

// load reads the faces of family from the fallback folders. Files are preselected by
// name (Debian names Noto files after the family without spaces, a collection after
// the common prefix: NotoSansCJK-Regular.ttc holds "Noto Sans CJK SC") and then
// matched by the family their name table declares.
func (fb *fallbackSet) load(name string) (*family, error) {
	want := strings.ToLower(strings.ReplaceAll(name, " ", ""))
	var fm *family
	var errs []error
	for _, path := range fb.files {
		stem := strings.ToLower(filepath.Base(path))
		stem = strings.TrimSuffix(stem, filepath.Ext(stem))
		// "NotoSans-Bold", "Symbola_hint": the family part ends at the first - or _.
		if i := strings.IndexAny(stem, "-_"); i >= 0 {
			stem = stem[:i]
		}
		if stem == "" || !strings.HasPrefix(want, stem) {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		faces, err := parseFaces(path, data, func(fam string) bool { return strings.EqualFold(fam, name) })
		if err != nil {
			errs = append(errs, fmt.Errorf("fonts: %s: %w", path, err))
			continue
		}
		for _, f := range faces {
			if fm == nil {
				fm = &family{name: f.Family}
			}
			if nearer(f, fm.faces[f.Style]) {
				fm.faces[f.Style] = f
			}
		}
	}
	if fm == nil && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return fm, nil
}
