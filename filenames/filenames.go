// Package filenames builds the names of exported print files from a pattern.
//
// A pattern mixes literal text with tokens: [id] (the design id a file is exported
// by), [date] (the order's date, yyyy-mm-dd, UTC), [created] (the design's creation
// date), [title] (design name), [product] (template productId), [order] (the order
// number), [line] (the 1-based order line), [qty] (the quantity ordered), [design]
// (the design id) and [store] (the store id); the default is "[id]-[title]". A token
// with no value expands to nothing. Any other bracketed word is kept literally. Names are deterministic:
// the same fields always yield the same name, so a retried export overwrites its own
// file instead of adding a second one.
//
// Every name passes through Sanitize, whose rules make it safe on any filesystem a
// print shop may use (Linux, a Windows share, a macOS hot folder) and as one segment
// of an object key:
//
//   - invalid UTF-8 bytes, the characters / \ : * ? " < > | and control or invisible
//     format characters (bidi overrides can disguise an extension) are dropped;
//   - each run of whitespace becomes a single "-";
//   - a run of "-" or "_" collapses to one character, so a separator left dangling by
//     an empty token ("123--front" from an empty [title]) disappears; a run of dots
//     becomes one dot, so ".." never occurs;
//   - leading and trailing separators and dots are trimmed (no hidden files, no
//     trailing dot Windows would strip);
//   - Windows' reserved device names (CON, NUL, COM1, ...) get a "_" appended;
//   - the length is capped in bytes (default 120), never inside a UTF-8 sequence;
//   - an empty result becomes "design".
//
// Sanitize is idempotent: a sanitized name sanitizes to itself.
package filenames

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// DefaultPattern is the pattern used when Options.Pattern is empty.
const DefaultPattern = "[id]-[title]"

// DefaultMaxLen caps a file name, extension included, in bytes. 120 leaves room under
// the 255-byte limit of common filesystems for the folders of a key layout and for a
// view suffix, and keeps names readable in a file browser.
const DefaultMaxLen = 120

// minMaxLen is the smallest cap honoured; a smaller setting could not hold a
// fallback name, a view suffix and an extension.
const minMaxLen = 16

// fallback replaces a name that sanitizes to nothing.
const fallback = "design"

// Fields are the values tokens expand to.
type Fields struct {
	ID      string
	Date    time.Time // [date] as yyyy-mm-dd in UTC: the order's date; zero expands to nothing
	Title   string
	Product string
	// Created is [created]: the design's creation date, yyyy-mm-dd in UTC.
	Created time.Time
	// Order, Line, Quantity, Design and Store are [order], [line], [qty], [design] and
	// [store]: the order number, the 1-based index of the order line, the quantity
	// ordered, the design id and the store; zero values expand to nothing.
	Order    string
	Line     int
	Quantity int
	Design   string
	Store    string
	// ViewID and ViewName, when set, name one view of a multi-view design: Build
	// appends the view name (the id when the name is empty), as ForViews does when
	// view names are distinct. Prefer ForViews for a design's views: it also keeps
	// colliding view names apart.
	ViewID   string
	ViewName string
}

// Options configure names.
type Options struct {
	// Pattern with the tokens of the package comment; DefaultPattern when empty.
	Pattern string
	// MaxLen caps each name in bytes, extension included; DefaultMaxLen when <= 0.
	MaxLen int
}

func (o Options) pattern() string {
	if o.Pattern == "" {
		return DefaultPattern
	}
	return o.Pattern
}

func (o Options) maxLen() int {
	switch {
	case o.MaxLen <= 0:
		return DefaultMaxLen
	case o.MaxLen < minMaxLen:
		return minMaxLen
	}
	return o.MaxLen
}

// View identifies one view of a design for ForViews.
type View struct {
	ID, Name, Type string
}

// Ext returns the file extension, with its dot, for a hub export type: ".png" for
// png, ".pdf" for pdf and pdf-simple, ".zip" for zip, ".tif" for tiff; also for the
// other file kinds a hub may send instead (jpeg, gif, webp, svg). An unknown type
// gets "".
func Ext(exportType string) string {
	switch strings.ToLower(strings.TrimSpace(exportType)) {
	case "png":
		return ".png"
	case "pdf", "pdf-simple":
		return ".pdf"
	case "zip":
		return ".zip"
	case "tiff":
		return ".tif"
	case "jpeg", "jpg":
		return ".jpg"
	case "gif", "webp", "svg":
		return "." + strings.ToLower(strings.TrimSpace(exportType))
	}
	return ""
}

// Build returns the name of one file: the pattern expanded with f, plus the view
// suffix when f names a view, sanitized, capped to Options.MaxLen with ext (for
// example ".png") included.
func Build(opts Options, f Fields, ext string) string {
	view := clean(f.ViewName)
	if view == "" {
		view = f.ViewID
	}
	return compose(expand(opts.pattern(), f), view, "", ext, opts.maxLen())
}

// ForViews returns one name per view, in the order of views. With one view it is
// Build's name. With several, each name gets a suffix so views never overwrite each
// other: the view names when every view has one and they differ (compared
// case-insensitively, as macOS and Windows filesystems do), else the view ids; a name
// still equal to an earlier one gets a number appended, starting at its 1-based
// position. ext gives each view's extension; nil means none.
func ForViews(opts Options, f Fields, views []View, ext func(View) string) []string {
	max := opts.maxLen()
	base := expand(opts.pattern(), f)
	extOf := func(v View) string {
		if ext == nil {
			return ""
		}
		return ext(v)
	}
	out := make([]string, len(views))
	if len(views) == 1 {
		out[0] = compose(base, "", "", extOf(views[0]), max)
		return out
	}
	suffixes := viewSuffixes(views)
	seen := make(map[string]bool, len(views))
	for i, v := range views {
		name := compose(base, suffixes[i], "", extOf(v), max)
		// compose keeps the number whatever the cap, so this ends.
		for n := i + 1; seen[strings.ToLower(name)]; n++ {
			name = compose(base, suffixes[i], strconv.Itoa(n), extOf(v), max)
		}
		seen[strings.ToLower(name)] = true
		out[i] = name
	}
	return out
}

// viewSuffixes picks names when they identify views unambiguously, else ids.
func viewSuffixes(views []View) []string {
	pick := func(get func(View) string) []string {
		s := make([]string, len(views))
		seen := make(map[string]bool, len(views))
		for i, v := range views {
			c := clean(get(v))
			if c == "" || seen[strings.ToLower(c)] {
				return nil
			}
			seen[strings.ToLower(c)] = true
			s[i] = c
		}
		return s
	}
	if s := pick(func(v View) string { return v.Name }); s != nil {
		return s
	}
	if s := pick(func(v View) string { return v.ID }); s != nil {
		return s
	}
	// Neither identifies every view: ids where present, positions make them unique.
	s := make([]string, len(views))
	for i, v := range views {
		s[i] = clean(v.ID)
	}
	return s
}

// expand replaces the known tokens of pattern with the fields' values. Each value is
// cleaned first so a value can never smuggle in a separator.
func expand(pattern string, f Fields) string {
	return strings.NewReplacer(f.tokens(clean)...).Replace(pattern)
}

// Text replaces the tokens of pattern with the fields' values as they are, for text
// printed on a page rather than a file name (a production profile's slug line); extra
// are more token and value pairs ("[view]", "Front").
func Text(pattern string, f Fields, extra ...string) string {
	same := func(s string) string { return s }
	return strings.NewReplacer(append(f.tokens(same), extra...)...).Replace(pattern)
}

// tokens are the pairs of every token and its value, each text value passed through
// value; dates are days in UTC, numbers only when set.
func (f Fields) tokens(value func(string) string) []string {
	day := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.DateOnly)
	}
	num := func(n int) string {
		if n <= 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	return []string{
		"[id]", value(f.ID),
		"[date]", day(f.Date),
		"[created]", day(f.Created),
		"[title]", value(f.Title),
		"[product]", value(f.Product),
		"[order]", value(f.Order),
		"[line]", num(f.Line),
		"[qty]", num(f.Quantity),
		"[design]", value(f.Design),
		"[store]", value(f.Store),
	}
}

// compose joins base, a view suffix, a disambiguating number and ext into a sanitized
// name of at most max bytes. Under the cap the parts that keep names apart win: the
// extension (itself capped to a quarter of max) and the number are kept whole, the
// suffix gets at most half of what remains, and the base is cut first.
func compose(base, suffix, num, ext string, max int) string {
	ext = cleanExt(cut(ext, max/4))
	ext = strings.TrimSuffix(ext, ".")
	tail := ext
	if num != "" {
		tail = "-" + num + tail
	}
	room := max - len(tail)
	if s := clean(cut(clean(suffix), room/2)); s != "" {
		tail = "-" + s + tail
	}
	b := clean(cut(clean(base), max-len(tail)))
	if b == "" {
		b = fallback
	}
	return sanitize(b+tail, max)
}

// cleanExt keeps an extension's leading dot and sanitizes the rest.
func cleanExt(ext string) string {
	e := clean(strings.TrimLeft(ext, "."))
	if e == "" {
		return ""
	}
	return "." + e
}

// Sanitize makes s safe as a file name under the rules in the package comment, capped
// to DefaultMaxLen bytes.
func Sanitize(s string) string {
	return sanitize(s, DefaultMaxLen)
}

func sanitize(s string, max int) string {
	c := clean(cut(clean(s), max))
	if c == "" {
		return fallback
	}
	return c
}

// Clean applies Sanitize's rules except the length cap and the fallback: it returns
// "" when nothing usable is left, for callers (such as a key layout) that must treat
// an empty value as an error rather than name it "design".
func Clean(s string) string { return clean(s) }

// clean applies every rule but the cap and the fallback: it may return "".
func clean(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	var last rune = -1
	for _, r := range strings.ToValidUTF8(s, "") {
		switch {
		case unicode.IsSpace(r): // before IsControl: a tab or newline separates words
			r = '-'
		case strings.ContainsRune(`/\:*?"<>|`, r), unicode.IsControl(r),
			unicode.Is(unicode.Cf, r), r == utf8.RuneError:
			continue
		}
		if (r == '-' || r == '_' || r == '.') && r == last {
			continue
		}
		b.WriteRune(r)
		last = r
	}
	out := strings.Trim(b.String(), "-_.")
	if stem, rest, _ := strings.Cut(out, "."); isReserved(stem) {
		// "nul.png" opens the null device on Windows; "nul_.png" is a file.
		out = stem + "_"
		if rest != "" {
			out += "." + rest
		}
	}
	return out
}

// cut shortens s to at most max bytes without splitting a UTF-8 sequence.
func cut(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

// isReserved reports Windows device names, which cannot be files even with an
// extension.
func isReserved(stem string) bool {
	switch strings.ToUpper(stem) {
	case "CON", "PRN", "AUX", "NUL",
		"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9":
		return true
	}
	return false
}
