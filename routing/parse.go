package routing

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/printworker/printworker/gang"
)

// ruleFields are the fields of a rule; matchFields those of its "match".
var (
	ruleFields  = []string{"name", "match", "prefix", "bucket", "gang", "profile", "layout", "filename", "ready"}
	matchFields = []string{"product", "type", "minQuantity", "rush", "store"}
)

// parseRule decodes one rule field by field, so one bad field does not hide the
// problems of the others.
func parseRule(raw json.RawMessage) (rule, []error) {
	var ru rule
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return ru, []error{errors.New("want an object with match and prefix and/or bucket")}
	}
	var errs []error
	field := func(name string, v any) bool {
		b, ok := fields[name]
		if !ok {
			return false
		}
		if err := json.Unmarshal(b, v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", name, jsonMsg(err)))
			return false
		}
		return true
	}
	field("name", &ru.name)
	for _, k := range sortedKeys(fields) {
		if !slices.Contains(ruleFields, k) {
			errs = append(errs, fmt.Errorf("unknown field %q (want one of %s)", k, strings.Join(ruleFields, ", ")))
		}
	}
	if b, ok := fields["match"]; ok {
		errs = append(errs, ru.parseMatch(b)...)
	}
	if field("prefix", &ru.prefix) {
		p, err := CleanPrefix(ru.prefix)
		if err != nil {
			errs = append(errs, fmt.Errorf("prefix %q: %w", ru.prefix, err))
		}
		ru.prefix = p
	}
	if field("bucket", &ru.bucket) {
		if err := ValidateBucket(ru.bucket); err != nil {
			errs = append(errs, fmt.Errorf("bucket %q: %w", ru.bucket, err))
		}
	}
	_, hasPrefix := fields["prefix"]
	_, hasBucket := fields["bucket"]
	hasGang := field("gang", &ru.gang)
	if hasGang && ru.gang == "" {
		errs = append(errs, errors.New("gang: empty (name a group of \"gangs\")"))
	}
	hasProfile := field("profile", &ru.profile)
	if hasProfile {
		if err := checkProfileName(ru.profile); err != nil {
			errs = append(errs, fmt.Errorf("profile %q: %w", ru.profile, err))
		}
	}
	if !hasPrefix && !hasBucket && !hasGang && !hasProfile {
		errs = append(errs, errors.New("no action: give a prefix, a bucket, a gang and/or a profile"))
	}
	errs = append(errs, ru.parseMachine(fields, hasPrefix || hasBucket, field)...)
	return ru, errs
}

// checkProfileName checks the spelling of a production profile's name (lower-case
// letters, digits, '-', '_', '.'); whether the profile exists is checked where the
// profiles are loaded (package profiles imports this one, not the reverse).
func checkProfileName(n string) error {
	switch {
	case n == "":
		return errors.New("empty (leave profile out to keep the view's own profile)")
	case len(n) > 64:
		return errors.New("longer than 64 bytes")
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return errors.New("want lower-case letters, digits, '-', '_' and '.'")
		}
	}
	return nil
}

// maxPattern caps a machine folder's filename pattern.
const maxPattern = 256

// parseMachine reads how the rule's machine folder is laid out: "layout" (flat, the
// default, or nested), "filename" (a name pattern) and "ready" (a marker file).
func (ru *rule) parseMachine(fields map[string]json.RawMessage, machine bool, field func(string, any) bool) []error {
	var errs []error
	if !machine {
		for _, k := range []string{"layout", "filename", "ready"} {
			if _, ok := fields[k]; ok {
				errs = append(errs, fmt.Errorf("%s: the rule has no machine folder (give a prefix or a bucket)", k))
			}
		}
		return errs
	}
	ru.layout = LayoutFlat
	if field("layout", &ru.layout) && ru.layout != LayoutFlat && ru.layout != LayoutNested {
		errs = append(errs, fmt.Errorf("layout %q: want %q or %q", ru.layout, LayoutFlat, LayoutNested))
	}
	if field("filename", &ru.filename) {
		if err := checkPattern(ru.filename, ru.layout); err != nil {
			errs = append(errs, fmt.Errorf("filename %q: %w", ru.filename, err))
		}
	} else if ru.layout == LayoutFlat {
		ru.filename = DefaultMachinePattern
	}
	field("ready", &ru.ready)
	return errs
}

// checkPattern refuses a filename pattern that could not name files of a flat
// folder apart: one without the order number, or one naming a subfolder.
func checkPattern(p, layout string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return errors.New("empty (leave it out for the default " + DefaultMachinePattern + ")")
	case len(p) > maxPattern:
		return fmt.Errorf("longer than %d bytes", maxPattern)
	case !utf8.ValidString(p):
		return errors.New("not UTF-8")
	case strings.ContainsAny(p, `/\`):
		return errors.New("contains a folder separator: a pattern names a file")
	case layout != LayoutNested && !strings.Contains(p, "[order]"):
		return errors.New("a flat machine folder holds every order's files: the pattern needs [order] to keep them apart")
	}
	return nil
}

// checkGang refuses a gang action naming no defined group, and one that could gang a
// file other than a PNG: sheets are PNGs placed pixel for pixel, so the rule must
// match "type": "png" only.
func (ru rule) checkGang(gangs map[string]*gang.Group) []error {
	if ru.gang == "" {
		return nil
	}
	var errs []error
	if _, ok := gangs[ru.gang]; !ok {
		errs = append(errs, fmt.Errorf("gang %q: no such group in \"gangs\"", ru.gang))
	}
	if len(ru.types) != 1 || ru.types[0] != "png" {
		errs = append(errs, fmt.Errorf("gang %q: only PNG exports can be ganged: the rule needs \"match\": {\"type\": \"png\"}", ru.gang))
	}
	return errs
}

func (ru *rule) parseMatch(raw json.RawMessage) []error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return []error{errors.New("match: want an object")}
	}
	var errs []error
	for _, k := range sortedKeys(fields) {
		if !slices.Contains(matchFields, k) {
			errs = append(errs, fmt.Errorf("match: unknown field %q (want one of %s)", k, strings.Join(matchFields, ", ")))
		}
	}
	list := func(name string) []string {
		b, ok := fields[name]
		if !ok {
			return nil
		}
		vals, err := stringList(b)
		if err != nil {
			errs = append(errs, fmt.Errorf("match.%s: %w", name, err))
		}
		return vals
	}
	ru.products = list("product")
	ru.stores = list("store")
	ru.types = list("type")
	for _, t := range ru.types {
		if !slices.Contains(Types, t) {
			errs = append(errs, fmt.Errorf("match.type: unknown export type %q (want %s)", t, strings.Join(Types, ", ")))
		}
	}
	if b, ok := fields["minQuantity"]; ok {
		if err := json.Unmarshal(b, &ru.minQty); err != nil {
			errs = append(errs, fmt.Errorf("match.minQuantity: %v", jsonMsg(err)))
		} else if ru.minQty < 1 {
			errs = append(errs, fmt.Errorf("match.minQuantity: %d, want at least 1", ru.minQty))
		}
	}
	if b, ok := fields["rush"]; ok {
		var v bool
		if err := json.Unmarshal(b, &v); err != nil {
			errs = append(errs, fmt.Errorf("match.rush: %v", jsonMsg(err)))
		} else {
			ru.rush = &v
		}
	}
	return errs
}

// stringList reads one string or a list of non-empty strings.
func stringList(b json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(b, &one) == nil {
		b = json.RawMessage(fmt.Sprintf("[%q]", one))
	}
	var vals []string
	if err := json.Unmarshal(b, &vals); err != nil {
		return nil, fmt.Errorf("want a string or a list of strings: %v", jsonMsg(err))
	}
	switch {
	case len(vals) == 0:
		return nil, errors.New("empty list matches nothing; leave the field out to match everything")
	case len(vals) > maxValues:
		return nil, fmt.Errorf("%d values, at most %d", len(vals), maxValues)
	}
	for _, v := range vals {
		if v == "" {
			return nil, errors.New("empty value")
		}
	}
	return vals, nil
}

// CleanPrefix checks a key prefix and returns it cleaned: relative, '/'-separated,
// no "." or ".." segment, no hidden ('.'-led) folder, no backslash or control
// character, trailing '/' dropped ("dtf/" -> "dtf"). A prefix must never lead a key
// out of the bucket or hot folder, nor hide it from the people browsing it.
func CleanPrefix(p string) (string, error) {
	var errs []error
	switch {
	case p == "":
		return "", errors.New("empty (leave prefix out to keep the default folder)")
	case len(p) > maxPrefix:
		return "", fmt.Errorf("longer than %d bytes", maxPrefix)
	case !utf8.ValidString(p):
		return "", errors.New("not UTF-8")
	}
	if strings.HasPrefix(p, "/") {
		errs = append(errs, errors.New("starts with '/': a prefix is relative to the bucket or hot folder"))
	}
	if strings.ContainsAny(p, "\\") {
		errs = append(errs, errors.New("contains '\\': use '/' between folders"))
	}
	if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		errs = append(errs, errors.New("contains a control character"))
	}
	for _, seg := range strings.Split(strings.TrimSuffix(p, "/"), "/") {
		switch {
		case seg == "..":
			errs = append(errs, errors.New("contains a '..' segment: a prefix may not leave its folder"))
		case seg == ".":
			errs = append(errs, errors.New("contains a '.' segment"))
		case seg == "" && !strings.HasPrefix(p, "/"):
			errs = append(errs, errors.New("contains an empty segment ('//')"))
		case strings.HasPrefix(seg, "."):
			errs = append(errs, fmt.Errorf("folder %q is hidden (starts with '.')", seg))
		}
	}
	if len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	return path.Clean(p), nil
}

// ValidateBucket checks an S3 bucket name: 3 to 63 lowercase letters, digits, '.'
// and '-', starting and ending with a letter or digit.
func ValidateBucket(b string) error {
	if len(b) < 3 || len(b) > 63 {
		return fmt.Errorf("%d characters, want 3 to 63", len(b))
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || (c == '.' || c == '-') && i > 0 && i < len(b)-1
		if !ok {
			return fmt.Errorf("character %q at %d: want lowercase letters, digits, '.' and '-' (not first or last)", c, i)
		}
	}
	if strings.Contains(b, "..") {
		return errors.New("contains '..'")
	}
	return nil
}
