package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/printworker/printworker/filenames"
)

// DefaultLayout is the key pattern used when Layout.Pattern is empty: print staff
// browse by store, then day, then order.
const DefaultLayout = "{store}/{date}/{order}/{filename}"

// ManifestName is the last segment of an order's manifest key.
const ManifestName = "manifest.json"

// MaxSegmentBytes is the longest key segment a layout builds: most filesystems (ext4,
// XFS, APFS, NTFS in UTF-16 units) hold at most 255 bytes per name, so a longer
// folder or file name could be stored on S3 but never copied to a hot folder.
const MaxSegmentBytes = 255

// Layout maps the identity of a print file to its object key. The pattern is a
// '/'-separated path of literal text and variables: {store} {date} (yyyy-mm-dd, UTC)
// {domain} {order} {design} {view} {product} {filename} {type}. {filename} must be in the last
// segment and {order} in a folder above it; the folders may not depend on {design},
// {view}, {filename} or {type}, because the order's manifest sits next to its files
// at the folder part + "manifest.json" and there must be exactly one per order.
//
// Every variable is cleaned before it is substituted, so a value can never add a '/',
// a ".." or a hidden segment; in folders by KeyValue, so two orders never share a
// folder (and a manifest). The hub identifies an order by store, order id and domain:
// in a pattern whose folders do not use {domain}, {order} in a folder stands for the
// order id and its domain, "<order>@<domain>" (OrderFolderValue), so two orders of one
// id from two domains never share a folder either. A variable the pattern uses that is
// empty after cleaning is an error, never a silently shorter key; so is a segment
// longer than MaxSegmentBytes.
type Layout struct {
	Pattern string
}

// KeyVars are the values a layout pattern refers to.
type KeyVars struct {
	Store, Domain, Order, Design, View, Product, Filename, Type string
	Date                                                        time.Time
}

var layoutVars = map[string]func(KeyVars) string{
	"store":    func(v KeyVars) string { return v.Store },
	"domain":   func(v KeyVars) string { return v.Domain },
	"order":    func(v KeyVars) string { return v.Order },
	"design":   func(v KeyVars) string { return v.Design },
	"view":     func(v KeyVars) string { return v.View },
	"product":  func(v KeyVars) string { return v.Product },
	"filename": func(v KeyVars) string { return v.Filename },
	"type":     func(v KeyVars) string { return v.Type },
	"date": func(v KeyVars) string {
		if v.Date.IsZero() {
			return ""
		}
		return v.Date.UTC().Format("2006-01-02")
	},
}

// perFile are variables that differ between files of one order.
var perFile = map[string]bool{"design": true, "view": true, "filename": true, "type": true}

func (l Layout) pattern() string {
	if l.Pattern == "" {
		return DefaultLayout
	}
	return l.Pattern
}

// segment is one '/'-separated part of a pattern: literal text and variable names
// alternate, starting with text.
type segment struct {
	parts []string // even indexes literal text, odd indexes variable names
}

func (s segment) uses(name string) bool {
	for i := 1; i < len(s.parts); i += 2 {
		if s.parts[i] == name {
			return true
		}
	}
	return false
}

func parseSegment(s string) (segment, error) {
	var seg segment
	for {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			if strings.IndexByte(s, '}') >= 0 {
				return seg, fmt.Errorf("unmatched '}' in %q", s)
			}
			seg.parts = append(seg.parts, s)
			return seg, nil
		}
		end := strings.IndexByte(s[open:], '}')
		if end < 0 {
			return seg, fmt.Errorf("unclosed '{' in %q", s)
		}
		name := s[open+1 : open+end]
		if _, ok := layoutVars[name]; !ok {
			return seg, fmt.Errorf("unknown variable {%s}", name)
		}
		if strings.IndexByte(s[:open], '}') >= 0 {
			return seg, fmt.Errorf("unmatched '}' in %q", s)
		}
		seg.parts = append(seg.parts, s[:open], name)
		s = s[open+end+1:]
	}
}

// parse splits and checks the pattern, reporting every problem at once.
func (l Layout) parse() ([]segment, error) {
	raw := strings.Split(l.pattern(), "/")
	segs := make([]segment, 0, len(raw))
	var errs []error
	for _, r := range raw {
		seg, err := parseSegment(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(seg.parts) == 1 {
			// A literal folder must itself be a valid key segment.
			if err := ValidateKey(r); err != nil {
				errs = append(errs, fmt.Errorf("literal folder %q: %w", r, err))
			}
		} else if r != "" && strings.HasPrefix(seg.parts[0], ".") {
			errs = append(errs, fmt.Errorf("segment %q starts with '.'", r))
		}
		segs = append(segs, seg)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	last := segs[len(segs)-1]
	if !last.uses("filename") {
		errs = append(errs, errors.New("{filename} must be in the last segment, or files of an order overwrite each other"))
	}
	order := false
	for _, s := range segs[:len(segs)-1] {
		for name := range perFile {
			if s.uses(name) {
				errs = append(errs, fmt.Errorf("folder %q uses {%s}: folders must be per order, since the manifest sits in them", strings.Join(s.parts, ""), name))
			}
		}
		order = order || s.uses("order")
	}
	if !order {
		errs = append(errs, errors.New("{order} must be in a folder, so each order has its own folder and manifest"))
	}
	return segs, errors.Join(errs...)
}

// Validate reports every problem of the pattern.
func (l Layout) Validate() error {
	if _, err := l.parse(); err != nil {
		return fmt.Errorf("storage layout %q: %w", l.pattern(), err)
	}
	return nil
}

// foldsDomain reports whether the pattern's folders lack {domain}, so that {order}
// in them carries the domain (OrderFolderValue).
func foldsDomain(segs []segment) bool {
	for _, s := range segs[:len(segs)-1] {
		if s.uses("domain") {
			return false
		}
	}
	return true
}

// expandSegment substitutes the variables of one segment. Folder values go through
// KeyValue, so an order's folder is its own, and {order} through OrderFolderValue when
// fold is set; the last segment (the file name) takes the filenames rules only, the
// file names of one order being kept apart by the worker's per-order name reservation.
func expandSegment(s segment, v KeyVars, folder, fold bool) (string, error) {
	var b strings.Builder
	for i, p := range s.parts {
		if i%2 == 0 {
			b.WriteString(p)
			continue
		}
		val := filenames.Clean(layoutVars[p](v))
		switch {
		case folder && fold && p == "order":
			val = OrderFolderValue(v.Order, v.Domain)
		case folder:
			val = KeyValue(layoutVars[p](v))
		}
		if val == "" {
			return "", fmt.Errorf("%w: layout variable {%s} is empty", ErrInvalidKey, p)
		}
		b.WriteString(val)
	}
	out := b.String()
	if len(out) > MaxSegmentBytes {
		what := "file name"
		if folder {
			what = "folder name"
		}
		return "", fmt.Errorf("%w: %s %.40q… is %d bytes, longer than the %d a filesystem holds (a variable's value is too long)",
			ErrInvalidKey, what, out, len(out), MaxSegmentBytes)
	}
	return out, nil
}

func (l Layout) expand(segs []segment, v KeyVars, last string) (string, error) {
	out := make([]string, 0, len(segs))
	fold := foldsDomain(segs)
	for _, s := range segs[:len(segs)-1] {
		e, err := expandSegment(s, v, true, fold)
		if err != nil {
			return "", err
		}
		out = append(out, e)
	}
	if last == "" {
		e, err := expandSegment(segs[len(segs)-1], v, false, fold)
		if err != nil {
			return "", err
		}
		last = e
	}
	key := strings.Join(append(out, last), "/")
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return key, nil
}

// KeyValue is a layout variable's value as it appears in a key. Characters a key
// segment or a file name cannot hold (/ \ : * ? " < > |) become '_', then the filenames
// rules apply (whitespace to '-', control characters dropped, runs collapsed, ends
// trimmed). A value those rules leave as it is stays readable and unchanged ("COL1");
// one they change gets '-' and the first 6 hex digits of the SHA-256 of the raw value
// appended ("COL/1" -> "COL_1-<6 hex>"), so two values that clean alike ("COL/1",
// "COL:1", "COL_1") still get keys of their own. A clean value that already ends in
// '-' and 6 hex digits gets the fingerprint too, so that no clean value can pose as
// another's fingerprinted one. "" means nothing is left.
func KeyValue(raw string) string {
	return keyValue(raw, false, raw)
}

// keyValue is KeyValue of shown, fingerprinted by identity (a string that tells the
// values apart) when cleaning changes shown, when shown looks fingerprinted, or when
// force is set.
func keyValue(shown string, force bool, identity string) string {
	mapped := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, shown)
	c := filenames.Clean(mapped)
	if c == "" || !force && c == shown && !looksFingerprinted(c) {
		return c
	}
	sum := sha256.Sum256([]byte(identity))
	return c + "-" + hex.EncodeToString(sum[:3])
}

// OrderFolderValue is {order}'s value in the folders of a layout that does not use
// {domain}: the order id and its domain as "<order>@<domain>" ("DOM-1001@shop.example.com"),
// the order id alone when the domain is empty, under KeyValue's rules. An '@' in the
// order id or the domain would make the split ambiguous ("A@b" of "c" and "A" of
// "b@c"), so such a value always gets KeyValue's fingerprint, of both parts.
func OrderFolderValue(order, domain string) string {
	if domain == "" {
		return keyValue(order, strings.Contains(order, "@"), order)
	}
	force := strings.Contains(order, "@") || strings.Contains(domain, "@")
	return keyValue(order+"@"+domain, force, strconv.Itoa(len(order))+":"+order+domain)
}

// looksFingerprinted reports whether s ends in '-' and 6 lowercase hex digits.
func looksFingerprinted(s string) bool {
	if len(s) < 7 || s[len(s)-7] != '-' {
		return false
	}
	for _, r := range s[len(s)-6:] {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// Key returns the object key of one file.
func (l Layout) Key(v KeyVars) (string, error) {
	segs, err := l.parse()
	if err != nil {
		return "", fmt.Errorf("storage layout %q: %w", l.pattern(), err)
	}
	return l.expand(segs, v, "")
}

// ManifestKey returns the key of the order's manifest: the folders of the pattern
// followed by "manifest.json". Only the order-level variables of v are used.
func (l Layout) ManifestKey(v KeyVars) (string, error) {
	segs, err := l.parse()
	if err != nil {
		return "", fmt.Errorf("storage layout %q: %w", l.pattern(), err)
	}
	return l.expand(segs, v, ManifestName)
}

// DayFolder returns the folder the order folders of one day sit in: the folders of the
// pattern above the first one that uses {order}, when one of them uses {date}
// ("{store}/{date}" for the default layout). The per-day staff page is written there
// (docs/shop-floor.md). ok is false when the pattern has no such folder (no {date}
// above the order's folder): orders are then not grouped by day and no day page is
// written. Only the order-level variables of v are used.
func (l Layout) DayFolder(v KeyVars) (folder string, ok bool, err error) {
	segs, err := l.parse()
	if err != nil {
		return "", false, fmt.Errorf("storage layout %q: %w", l.pattern(), err)
	}
	n := 0
	dated := false
	for n < len(segs)-1 && !segs[n].uses("order") {
		dated = dated || segs[n].uses("date")
		n++
	}
	if !dated {
		return "", false, nil
	}
	out := make([]string, 0, n)
	fold := foldsDomain(segs)
	for _, s := range segs[:n] {
		e, err := expandSegment(s, v, true, fold)
		if err != nil {
			return "", false, err
		}
		out = append(out, e)
	}
	folder = strings.Join(out, "/")
	if err := ValidateKey(folder); err != nil {
		return "", false, err
	}
	return folder, true, nil
}
