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
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/gomonoitalic"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
)

//go:embed dejavu/*.ttf
var dejavu embed.FS

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

// Font is one face: its family and style, the file bytes (for embedding in a PDF) and
// the parsed font (for layout and rasterizing). A Font is read-only once registered
// and safe for concurrent use as long as each goroutine brings its own sfnt.Buffer.
type Font struct {
	Family string
	Style  Style
	// Name is where the face came from (embedded file name or path), for messages.
	Name string
	Data []byte
	SFNT *sfnt.Font
}

// Registry maps families to faces. It is built once and then only read.
type Registry struct {
	families map[string]*family // by lower-cased family name
}

type family struct {
	name  string
	faces [4]*Font
}

// New returns a registry holding the embedded fonts plus every .ttf / .otf file found
// (recursively) in dirs. A font folder's face replaces an embedded face of the same
// family and style, so a shop can pin its own version.
func New(dirs ...string) (*Registry, error) {
	r := &Registry{families: map[string]*family{}}
	embedded := []struct {
		name string
		data []byte
	}{
		{"goregular", goregular.TTF}, {"gobold", gobold.TTF}, {"goitalic", goitalic.TTF},
		{"gobolditalic", gobolditalic.TTF}, {"gomono", gomono.TTF}, {"gomonobold", gomonobold.TTF},
		{"gomonoitalic", gomonoitalic.TTF}, {"gomonobolditalic", gomonobolditalic.TTF},
	}
	files, err := fs.Glob(dejavu, "dejavu/*.ttf")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := dejavu.ReadFile(f)
		if err != nil {
			return nil, err
		}
		embedded = append(embedded, struct {
			name string
			data []byte
		}{f, b})
	}
	for _, e := range embedded {
		if err := r.add(e.name, e.data); err != nil {
			return nil, fmt.Errorf("fonts: embedded %s: %w", e.name, err)
		}
	}
	for _, dir := range dirs {
		if err := r.addDir(dir); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *Registry) addDir(dir string) error {
	var errs []error
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := strings.ToLower(filepath.Ext(path))
		if d.IsDir() || (ext != ".ttf" && ext != ".otf") {
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

func (r *Registry) add(name string, data []byte) error {
	f, err := sfnt.Parse(data)
	if err != nil {
		return err
	}
	var buf sfnt.Buffer
	fam, err := f.Name(&buf, sfnt.NameIDTypographicFamily)
	if err != nil || fam == "" {
		fam, err = f.Name(&buf, sfnt.NameIDFamily)
		if err != nil {
			return fmt.Errorf("no family name: %w", err)
		}
	}
	sub, err := f.Name(&buf, sfnt.NameIDTypographicSubfamily)
	if err != nil || sub == "" {
		sub, _ = f.Name(&buf, sfnt.NameIDSubfamily)
	}
	st := styleFromSubfamily(sub)
	key := strings.ToLower(strings.TrimSpace(fam))
	fm := r.families[key]
	if fm == nil {
		fm = &family{name: fam}
		r.families[key] = fm
	}
	fm.faces[st] = &Font{Family: fam, Style: st, Name: name, Data: data, SFNT: f}
	return nil
}

// styleFromSubfamily reads the style from a subfamily name such as "Bold Oblique".
// Weights other than bold (Light, Medium, ...) count as regular.
func styleFromSubfamily(sub string) Style {
	s := strings.ToLower(sub)
	bold := strings.Contains(s, "bold") || strings.Contains(s, "black") || strings.Contains(s, "heavy")
	italic := strings.Contains(s, "italic") || strings.Contains(s, "oblique")
	return StyleOf(bold, italic)
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
	if f := fm.faces[st]; f != nil {
		return f, m
	}
	order := map[Style][]Style{
		Regular:    {Bold, Italic, BoldItalic},
		Bold:       {Regular, BoldItalic, Italic},
		Italic:     {Regular, BoldItalic, Bold},
		BoldItalic: {Bold, Italic, Regular},
	}[st]
	for _, alt := range order {
		if f := fm.faces[alt]; f != nil {
			if m == Exact {
				m = OtherStyle
			}
			return f, m
		}
	}
	// Unreachable: a family exists only once a face was added.
	return nil, Fallback
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
