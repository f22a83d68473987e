// Package fonts is the renderer's font registry: font family name -> regular, bold,
// italic and bold-italic faces.
//
// The hub publishes no font catalogue, so a fresh machine must still render text: the
// registry embeds DejaVu Sans and DejaVu Serif (Bitstream Vera licence, see
// dejavu/LICENSE) and the Go fonts (Go, Go Mono; BSD licence, from
// golang.org/x/image/font/gofont), and reads more from font folders, since each shop's
// hub offers its own fonts. Families are matched case-insensitively by the name the
// font file declares (typographic family, else family), never by file name.
package fonts

import (
	"bytes"
	_ "embed" // the DejaVu files
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/gomonoitalic"
	"golang.org/x/image/font/gofont/goregular"
)

// The DejaVu files, one variable each rather than an embed.FS: a []byte variable is
// the binary's own data, while embed.FS.ReadFile copies every file (4 MB) at start.
var (
	//go:embed dejavu/DejaVuSans.ttf
	dejavuSans []byte
	//go:embed dejavu/DejaVuSans-Bold.ttf
	dejavuSansBold []byte
	//go:embed dejavu/DejaVuSans-Oblique.ttf
	dejavuSansOblique []byte
	//go:embed dejavu/DejaVuSans-BoldOblique.ttf
	dejavuSansBoldOblique []byte
	//go:embed dejavu/DejaVuSerif.ttf
	dejavuSerif []byte
	//go:embed dejavu/DejaVuSerif-Bold.ttf
	dejavuSerifBold []byte
	//go:embed dejavu/DejaVuSerif-Italic.ttf
	dejavuSerifItalic []byte
	//go:embed dejavu/DejaVuSerif-BoldItalic.ttf
	dejavuSerifBoldItalic []byte
)

// embedded are the fonts every registry has, by name for messages.
var embedded = []struct {
	name string
	data []byte
}{
	{"goregular", goregular.TTF}, {"gobold", gobold.TTF}, {"goitalic", goitalic.TTF},
	{"gobolditalic", gobolditalic.TTF}, {"gomono", gomono.TTF}, {"gomonobold", gomonobold.TTF},
	{"gomonoitalic", gomonoitalic.TTF}, {"gomonobolditalic", gomonobolditalic.TTF},
	{"dejavu/DejaVuSans-Bold.ttf", dejavuSansBold}, {"dejavu/DejaVuSans-BoldOblique.ttf", dejavuSansBoldOblique},
	{"dejavu/DejaVuSans-Oblique.ttf", dejavuSansOblique}, {"dejavu/DejaVuSans.ttf", dejavuSans},
	{"dejavu/DejaVuSerif-Bold.ttf", dejavuSerifBold}, {"dejavu/DejaVuSerif-BoldItalic.ttf", dejavuSerifBoldItalic},
	{"dejavu/DejaVuSerif-Italic.ttf", dejavuSerifItalic}, {"dejavu/DejaVuSerif.ttf", dejavuSerif},
}

// DefaultFamily is the family used when an element names none or an unknown one.
const DefaultFamily = "DejaVu Sans"

// Style is one of the four faces of a family.
type Style int

// The four faces the designer offers (bold, italic, both).
const (
	Regular Style = iota
	Bold
	Italic
	BoldItalic
)

// StyleOf returns the style for the bold and italic flags of a text element.
func StyleOf(bold, italic bool) Style {
	switch {
	case bold && italic:
		return BoldItalic
	case bold:
		return Bold
	case italic:
		return Italic
	}
	return Regular
}

func (s Style) String() string {
	return [...]string{"regular", "bold", "italic", "bold-italic"}[s]
}

// Font is one face: its family and style, the file bytes and the parsed font (for
// shaping, layout and outlines). A Font is read-only once registered and safe for
// concurrent use: shapers bring their own state (see render's shaper pool).
type Font struct {
	Family string
	Style  Style
	// Name is where the face came from (embedded file name or path, with "#n" for the
	// n-th face of a collection), for messages.
	Name string
	// Data is the font file's bytes. For a face of a collection (.ttc) it is the whole
	// collection.
	Data []byte
	// Face is the parsed font, shared by every shaper. Lookup and FallbackFace
	// return fonts whose Face is set.
	Face *font.Font
	// Embeddable reports whether Data is a standalone TrueType-outline font that the
	// PDF writer can embed as a subset (not a collection, not CFF outlines).
	Embeddable bool

	// aspect is the face's weight, width and slant as its OS/2 table declares them:
	// when a family has several faces of one style, the nearest to the style wins
	// (fonts-noto-extra files "Noto Sans" thin to black, condensed to normal).
	aspect font.Aspect

	// lazy parses an embedded face on its first lookup (nil for faces parsed when
	// registered): parsing all 16 embedded faces took 40 ms at every process start,
	// and a design uses one or two of them.
	lazy *lazyFace
}

// lazyFace is the deferred parse of an embedded face.
type lazyFace struct {
	once sync.Once
	ld   *ot.Loader
}

// parsed returns f with its Face parsed. An embedded face that fails to parse is a
// defect of the build (TestEmbeddedFacesParse parses them all), hence the panic.
func (f *Font) parsed() *Font {
	if f == nil || f.lazy == nil {
		return f
	}
	f.lazy.once.Do(func() {
		ft, err := parseFace(f.lazy.ld)
		if err != nil {
			panic(fmt.Sprintf("fonts: embedded %s: %v", f.Name, err))
		}
		f.Face = ft
		f.lazy.ld = nil
	})
	return f
}

// Registry maps families to faces. It is built once; faces of the fallback folders are
// loaded on first use (see fallback.go), everything else is only read.
type Registry struct {
	families map[string]*family // by lower-cased family name
	fallback *fallbackSet
	coverage *coverage
}

type family struct {
	name  string
	faces [4]*Font
	// fromDir marks the slots a font folder's face holds (register).
	fromDir [4]bool
}

// New returns a registry holding the embedded fonts plus every .ttf / .otf / .ttc file
// found (recursively) in dirs. A font folder's face replaces an embedded face of the
// same family and style, so a shop can pin its own version. It has no fallback chain;
// see Open.
func New(dirs ...string) (*Registry, error) {
	return Open(Config{Dirs: dirs})
}

// Open builds a registry from cfg: the embedded fonts, cfg.Dirs, and the fallback chain
// cfg.Fallback whose faces come from those or from cfg.FallbackDirs.
func Open(cfg Config) (*Registry, error) {
	r := &Registry{families: map[string]*family{}}
	for _, e := range embedded {
		// Only the name and OS/2 tables are read here; the face is parsed on its first
		// lookup.
		faces, err := describeFaces(e.name, e.data)
		if err != nil {
			return nil, fmt.Errorf("fonts: embedded %s: %w", e.name, err)
		}
		r.register(faces, false)
	}
	for _, dir := range cfg.Dirs {
		if err := r.addDir(dir); err != nil {
			return nil, err
		}
	}
	fb, err := newFallbackSet(cfg)
	if err != nil {
		return nil, err
	}
	r.fallback = fb
	if !cfg.NoCoverage {
		r.coverage = newCoverage(fb.files)
	}
	return r, nil
}

func isFontFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ttf", ".otf", ".ttc", ".otc":
		return true
	}
	return false
}

func (r *Registry) addDir(dir string) error {
	var errs []error
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !isFontFile(path) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if err := r.add(path, b); err != nil {
			// One broken file should not hide the rest of a shop's folder, but it must
			// be reported: the caller decides whether that is fatal.
			errs = append(errs, fmt.Errorf("fonts: %s: %w", path, err))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("fonts: folder %s: %w", dir, err)
	}
	return errors.Join(errs...)
}

// add registers every face of a font file or collection.
func (r *Registry) add(name string, data []byte) error {
	faces, err := parseFaces(name, data, nil)
	if err != nil {
		return err
	}
	r.register(faces, true)
	return nil
}

// register files the faces under their families. A font folder's face (fromDir)
// replaces an embedded one of the same family and style; of several folder faces of
// one family and style the nearest to the plain face (styleDistance: normal width,
// weight 400 or 700) is kept, whatever order the files come in. A full Noto folder
// holds Thin to Black and ExtraCondensed to normal widths under one family name: the
// last file by name (Thin) took the regular slot before.
func (r *Registry) register(faces []*Font, fromDir bool) {
	for _, f := range faces {
		key := strings.ToLower(strings.TrimSpace(f.Family))
		fm := r.families[key]
		if fm == nil {
			fm = &family{name: f.Family}
			r.families[key] = fm
		}
		if fromDir && fm.fromDir[f.Style] && !nearer(f, fm.faces[f.Style]) {
			continue
		}
		fm.faces[f.Style], fm.fromDir[f.Style] = f, fromDir
	}
}

// styleDistance is how far a face is from the plain face of its style (weight 400 or
// 700, normal width), as fontconfig and CSS font matching rank faces: width first,
// then weight. Of several faces of one family and style the nearest is used.
func styleDistance(f *Font) float64 {
	target := float64(font.WeightNormal)
	if f.Style == Bold || f.Style == BoldItalic {
		target = float64(font.WeightBold)
	}
	stretch := float64(f.aspect.Stretch)
	if stretch == 0 {
		stretch = float64(font.StretchNormal)
	}
	return 10000*math.Abs(stretch-float64(font.StretchNormal)) + math.Abs(float64(f.aspect.Weight)-target)
}

// nearer reports whether f should take the slot held by cur.
func nearer(f, cur *Font) bool {
	return cur == nil || styleDistance(f) < styleDistance(cur)
}

// describeFaces reads the family and style of every face of a font file or collection
// without parsing the faces: each comes back with its parse deferred (Font.parsed).
func describeFaces(name string, data []byte) ([]*Font, error) {
	lds, err := ot.NewLoaders(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	out := make([]*Font, 0, len(lds))
	for i, ld := range lds {
		desc, _ := font.Describe(ld, nil)
		fam := strings.TrimSpace(desc.Family)
		if fam == "" {
			return nil, fmt.Errorf("face %d: no family name", i)
		}
		out = append(out, &Font{
			Family: fam, Style: styleOfAspect(desc.Aspect), aspect: desc.Aspect, Name: faceName(name, i, len(lds)), Data: data,
			Embeddable: len(lds) == 1 && hasTable(data, "glyf"), lazy: &lazyFace{ld: ld},
		})
	}
	return out, nil
}

// faceName is where face i of a file of n faces came from, for messages.
func faceName(name string, i, n int) string {
	if n > 1 {
		return fmt.Sprintf("%s#%d", name, i)
	}
	return name
}

// parseFaces parses the faces of a font file or collection; when want is not nil, only
// the faces whose family it accepts are fully parsed (a CJK collection holds ten large
// faces, a fallback chain needs one or two).
func parseFaces(name string, data []byte, want func(family string) bool) ([]*Font, error) {
	all, err := describeFaces(name, data)
	if err != nil {
		return nil, err
	}
	var out []*Font
	for i, f := range all {
		if want != nil && !want(f.Family) {
			continue
		}
		ft, err := parseFace(f.lazy.ld)
		if err != nil {
			return nil, fmt.Errorf("face %d: %w", i, err)
		}
		f.Face, f.lazy = ft, nil
		out = append(out, f)
	}
	return out, nil
}

// parseFace parses one face for shaping, layout and outlines.
func parseFace(ld *ot.Loader) (*font.Font, error) {
	ft, err := font.NewFont(ld)
	if err == nil && ft.Upem() == 0 {
		err = errors.New("zero units per em")
	}
	return ft, err
}

// styleOfAspect maps a face's OS/2 weight and italic flag to one of the four styles:
// semibold and heavier count as bold, oblique as italic.
func styleOfAspect(a font.Aspect) Style {
	return StyleOf(a.Weight >= 600, a.Style == font.StyleItalic)
}

// hasTable reports whether a single (non-collection) font file has the table tag.
func hasTable(data []byte, tag string) bool {
	if len(data) < 12 {
		return false
	}
	n := int(data[4])<<8 | int(data[5])
	for i := range n {
		off := 12 + 16*i
		if off+4 > len(data) {
			return false
		}
		if string(data[off:off+4]) == tag {
			return true
		}
	}
	return false
}

// Match is the outcome of a lookup.
type Match int

const (
	// Exact: the family has the requested style.
	Exact Match = iota
	// OtherStyle: the family exists but lacks the style; another face of it is used.
	OtherStyle
	// Fallback: the family is unknown; the default family is used.
	Fallback
)

// Lookup returns the face for family and style. The family is matched
// case-insensitively. A family lacking the style falls back to the closest face of the
// same family (bold-italic -> bold -> italic -> regular); an unknown family to the
// default family. The returned Match says which happened, so the caller can warn.
func (r *Registry) Lookup(familyName string, st Style) (*Font, Match) {
	fm := r.families[strings.ToLower(strings.TrimSpace(familyName))]
	m := Exact
	if fm == nil {
		fm = r.families[strings.ToLower(DefaultFamily)]
		m = Fallback
	}
	f := fm.closest(st).parsed()
	if f.Style != st && m == Exact {
		m = OtherStyle
	}
	return f, m
}

// closerStyles lists the faces to try, nearest first, when a family lacks style st
// (bold-italic -> bold -> italic -> regular).
func closerStyles(st Style) []Style {
	switch st {
	case Bold:
		return []Style{Regular, BoldItalic, Italic}
	case Italic:
		return []Style{Regular, BoldItalic, Bold}
	case BoldItalic:
		return []Style{Bold, Italic, Regular}
	default:
		return []Style{Bold, Italic, BoldItalic}
	}
}

// closest returns the family's face for st, else the closest one
// (bold-italic -> bold -> italic -> regular).
func (fm *family) closest(st Style) *Font {
	if f := fm.faces[st]; f != nil {
		return f
	}
	for _, alt := range closerStyles(st) {
		if f := fm.faces[alt]; f != nil {
			return f
		}
	}
	// Unreachable: a family exists only once a face was added.
	return nil
}

// Families lists the registered family names, sorted.
func (r *Registry) Families() []string {
	out := make([]string, 0, len(r.families))
	for _, f := range r.families {
		out = append(out, f.name)
	}
	sort.Strings(out)
	return out
}
