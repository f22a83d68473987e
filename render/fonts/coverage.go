package fonts

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/go-text/typesetting/font/opentype/tables"
)

// Fallback by coverage (docs/text.md "Font fallback"): a character neither the
// element's font nor the explicit chain has is taken from an installed font of the
// fallback folders whose coverage has it and whose script matches, as fontconfig and
// Chromium do. The folders hold hundreds of files (Debian's Noto packages: about 1,900
// files, 470 MB), so nothing is read until a character misses:
//
//  1. By script name. Debian names a Noto file after its family and style
//     (NotoSansBengali-Regular.ttf, NotoSerifTelugu-Bold.ttf): the character's script
//     gives the candidate families NotoSans<Script>, NotoSerif<Script>, Noto<Script>;
//     the first whose file's cmap has the character is taken. One file is read.
//  2. By coverage. Else the cmap of every regular-style file of the folders is read
//     once (the cmap table only, not the font) into an index of rune ranges, and the
//     first file covering the character is taken, a file named after the character's
//     script first, then a Noto Sans file, then in path order.
//
// Faces are loaded per family and style on first use and kept; a family lacking the
// style uses its closest face (the renderer synthesizes the missing slant or weight).

// coverage is the registry's coverage fallback state.
type coverage struct {
	// byKey maps a family key (lower-cased file stem before the style suffix,
	// "notosansbengali") to its files per style; built from file names only.
	byKey map[string]*[4]string

	mu      sync.Mutex
	faces   map[string]*[4]*Font // loaded faces by key; nil entries: not loaded or failed
	tried   map[string]*[4]bool
	index   []coverFile // nil until the first miss of step 2
	indexed bool
	memo    map[memoKey]string // rune and style -> family key ("" none)
	errs    []error
	bad     map[string]bool // files that failed to read, reported once
}

type memoKey struct {
	r  rune
	st Style
}

// maxMemo bounds the rune memo (hostile text of many distinct characters).
const maxMemo = 1 << 14

// coverFile is one indexed file: its family key and the rune ranges its cmap maps.
type coverFile struct {
	key    string
	ranges [][2]rune
}

// styleSuffixes are the Debian Noto file-name suffixes of the four styles.
var styleSuffixes = map[string]Style{
	"regular": Regular, "bold": Bold, "italic": Italic, "bolditalic": BoldItalic,
}

// splitFileName returns a font file's family key and style from its name
// ("NotoSansBengali-Bold.ttf" -> "notosansbengali", Bold), ok false for other
// weights and widths ("NotoSansBengali-Condensed.ttf"), which the coverage fallback
// does not use.
func splitFileName(path string) (key string, st Style, ok bool) {
	stem := strings.ToLower(filepath.Base(path))
	stem = strings.TrimSuffix(stem, filepath.Ext(stem))
	i := strings.LastIndexByte(stem, '-')
	if i < 0 {
		// "Symbola_hint": no style suffix, a regular face.
		if j := strings.IndexByte(stem, '_'); j > 0 {
			stem = stem[:j]
		}
		return stem, Regular, stem != ""
	}
	st, ok = styleSuffixes[stem[i+1:]]
	return stem[:i], st, ok && i > 0
}

func newCoverage(files []string) *coverage {
	c := &coverage{byKey: map[string]*[4]string{}, faces: map[string]*[4]*Font{}, tried: map[string]*[4]bool{}, memo: map[memoKey]string{}, bad: map[string]bool{}}
	for _, p := range files {
		key, st, ok := splitFileName(p)
		if !ok {
			continue
		}
		fs := c.byKey[key]
		if fs == nil {
			fs = &[4]string{}
			c.byKey[key] = fs
		}
		if fs[st] == "" {
			fs[st] = p
		}
	}
	return c
}

// CoverageFace returns a face of the fallback folders that has r, in style st or the
// closest style the family has, or nil when none has it. Errors report fallback files
// that could not be read (each once).
func (r *Registry) CoverageFace(ru rune, st Style) (*Font, []error) {
	c := r.coverage
	if c == nil || len(c.byKey) == 0 {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.errs)
	f := c.find(ru, st)
	return f, c.errs[n:len(c.errs):len(c.errs)]
}

func (c *coverage) find(ru rune, st Style) *Font {
	mk := memoKey{ru, st}
	if key, ok := c.memo[mk]; ok {
		if key == "" {
			return nil
		}
		return c.face(key, st)
	}
	key, f := c.lookup(ru, st)
	if len(c.memo) >= maxMemo {
		clear(c.memo)
	}
	c.memo[mk] = key
	return f
}

func (c *coverage) lookup(ru rune, st Style) (string, *Font) {
	script := scriptName(ru)
	if script != "" {
		for _, key := range []string{"notosans" + script, "notoserif" + script, "noto" + script} {
			if f := c.face(key, st); f != nil && hasRune(f, ru) {
				return key, f
			}
		}
	}
	c.buildIndex()
	var best string
	rank := 4
	for _, cf := range c.index {
		if !covers(cf.ranges, ru) {
			continue
		}
		rk := 3
		switch {
		case script != "" && strings.Contains(cf.key, script):
			rk = 0
		case strings.HasPrefix(cf.key, "notosans"):
			rk = 1
		case strings.HasPrefix(cf.key, "noto"):
			rk = 2
		}
		if rk < rank {
			best, rank = cf.key, rk
		}
	}
	if best == "" {
		return "", nil
	}
	if f := c.face(best, st); f != nil && hasRune(f, ru) {
		return best, f
	}
	return "", nil
}

// face returns the family key's face for st, else its closest loaded style.
func (c *coverage) face(key string, st Style) *Font {
	files := c.byKey[key]
	if files == nil {
		return nil
	}
	faces, tried := c.faces[key], c.tried[key]
	if faces == nil {
		faces, tried = &[4]*Font{}, &[4]bool{}
		c.faces[key], c.tried[key] = faces, tried
	}
	load := func(s Style) *Font {
		if !tried[s] && files[s] != "" && !c.bad[files[s]] {
			tried[s] = true
			f, err := loadFirstFace(files[s])
			if err != nil {
				c.bad[files[s]] = true
				c.errs = append(c.errs, err)
			}
			faces[s] = f
		}
		return faces[s]
	}
	if f := load(st); f != nil {
		return f
	}
	for _, alt := range closerStyles(st) {
		if f := load(alt); f != nil {
			return f
		}
	}
	return nil
}

// loadFirstFace reads and parses the first face of a font file.
func loadFirstFace(path string) (*Font, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	all, err := describeFaces(path, data)
	if err != nil {
		return nil, fmt.Errorf("fonts: %s: %w", path, err)
	}
	f := all[0]
	if ld := f.lazy.ld; !ld.HasTable(tagGlyf) && !ld.HasTable(tagCFF) && !ld.HasTable(tagCFF2) {
		return nil, nil // a bitmap-only font (colour emoji): it prints nothing
	}
	ft, err := parseFace(f.lazy.ld)
	if err != nil {
		return nil, fmt.Errorf("fonts: %s: %w", path, err)
	}
	f.Face, f.lazy = ft, nil
	return f, nil
}

func hasRune(f *Font, r rune) bool {
	_, ok := f.Face.NominalGlyph(r)
	return ok
}

// buildIndex reads the cmap of every regular-style file once.
func (c *coverage) buildIndex() {
	if c.indexed {
		return
	}
	c.indexed = true
	keys := make([]string, 0, len(c.byKey))
	for k := range c.byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf []byte
	for _, key := range keys {
		path := c.byKey[key][Regular]
		if path == "" || c.bad[path] {
			continue
		}
		ranges, b, err := cmapRanges(path, buf)
		buf = b
		if err != nil {
			c.bad[path] = true
			c.errs = append(c.errs, fmt.Errorf("fonts: %s: %w", path, err))
			continue
		}
		if len(ranges) > 0 {
			c.index = append(c.index, coverFile{key: key, ranges: ranges})
		}
	}
}

var (
	tagCmap = ot.MustNewTag("cmap")
	tagGlyf = ot.MustNewTag("glyf")
	tagCFF  = ot.MustNewTag("CFF ")
	tagCFF2 = ot.MustNewTag("CFF2")
)

// cmapRanges reads the table directory and the cmap of a file's first face (nothing
// else) and returns the rune ranges it maps, merged; nil for a font without outlines.
func cmapRanges(path string, buf []byte) ([][2]rune, []byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, buf, err
	}
	defer fh.Close()
	lds, err := ot.NewLoaders(fh)
	if err != nil {
		return nil, buf, err
	}
	ld := lds[0]
	if !ld.HasTable(tagGlyf) && !ld.HasTable(tagCFF) && !ld.HasTable(tagCFF2) {
		return nil, buf, nil
	}
	buf, err = ld.RawTableTo(tagCmap, buf)
	if err != nil {
		return nil, buf, err
	}
	tb, _, err := tables.ParseCmap(buf)
	if err != nil {
		return nil, buf, err
	}
	cm, _, err := font.ProcessCmap(tb, tables.FPNone)
	if err != nil {
		return nil, buf, err
	}
	var ranges [][2]rune
	if rr, ok := cm.(font.CmapRuneRanger); ok {
		ranges = rr.RuneRanges(nil)
	} else {
		it := cm.Iter()
		for it.Next() {
			r, _ := it.Char()
			if n := len(ranges); n > 0 && ranges[n-1][1]+1 == r {
				ranges[n-1][1] = r
			} else {
				ranges = append(ranges, [2]rune{r, r})
			}
		}
	}
	sort.Slice(ranges, func(i, j int) bool { return ranges[i][0] < ranges[j][0] })
	return ranges, buf, nil
}

// covers reports whether sorted ranges hold r.
func covers(ranges [][2]rune, r rune) bool {
	i := sort.Search(len(ranges), func(i int) bool { return ranges[i][1] >= r })
	return i < len(ranges) && ranges[i][0] <= r
}

// scriptName is the lower-cased Unicode script name of r without underscores
// ("bengali", "oldItalic" -> "olditalic"), "" for Common and Inherited characters
// (digits, punctuation, marks), which belong to no script's font.
func scriptName(r rune) string {
	for name, tab := range unicode.Scripts {
		if name == "Common" || name == "Inherited" {
			continue
		}
		if unicode.Is(tab, r) {
			return strings.ToLower(strings.ReplaceAll(name, "_", ""))
		}
	}
	return ""
}
