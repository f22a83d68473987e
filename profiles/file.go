package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// File is a profiles file (docs/profiles.md "The profiles file"): user profiles, the
// rules choosing a profile per store and product, first match wins, and the
// default profile.
type File struct {
	Profiles []Profile `json:"profiles,omitempty"`
	Rules    []Rule    `json:"rules,omitempty"`
	// Default is the profile of a file no rule chooses; empty: web-png.
	Default string `json:"default,omitempty"`
}

// Rule chooses a profile for the files of some stores and products.
type Rule struct {
	Match Match `json:"match"`
	// Profile names a built-in or a profile of the file.
	Profile string `json:"profile"`
}

// Match is a rule's condition; empty fields match everything, all must hold.
type Match struct {
	// Product lists template productIds.
	Product Strings `json:"product,omitempty"`
	// Store lists hub store ids.
	Store Strings `json:"store,omitempty"`
	// View lists view ids (the T-shirt's "front").
	View Strings `json:"view,omitempty"`
}

// Strings is one string or a list of them.
type Strings []string

// UnmarshalJSON reads one string or a list.
func (s *Strings) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*s = Strings{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return errors.New("want a string or a list of strings")
	}
	*s = list
	return nil
}

// Limits of a profiles file.
const (
	MaxFileBytes = 1 << 20
	MaxProfiles  = 200
	MaxRules     = 1000
)

// ReadFile reads and checks a profiles file; every error names the file and the
// field.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("profiles file: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("profiles file %s: %w", path, err)
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("profiles file %s: %w", path, err)
	}
	return f, nil
}

// Parse decodes and checks a profiles document, reporting every problem at once.
// Unknown fields are refused: a misspelt "bleed" must not print without bleed.
func Parse(data []byte) (*File, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxFileBytes)
	}
	var top struct {
		Profiles []json.RawMessage `json:"profiles"`
		Rules    []json.RawMessage `json:"rules"`
		Default  string            `json:"default"`
	}
	if err := decodeStrict(data, &top); err != nil {
		return nil, fmt.Errorf(`want {"profiles": [...], "rules": [...], "default": "NAME"}: %w`, err)
	}
	if len(top.Profiles) > MaxProfiles {
		return nil, fmt.Errorf("profiles: %d, at most %d", len(top.Profiles), MaxProfiles)
	}
	if len(top.Rules) > MaxRules {
		return nil, fmt.Errorf("rules: %d, at most %d", len(top.Rules), MaxRules)
	}
	f := &File{Default: top.Default}
	var errs []error
	names := map[string]bool{}
	for i, raw := range top.Profiles {
		var p Profile
		where := fmt.Sprintf("profiles[%d]", i)
		if err := decodeStrict(raw, &p); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		if p.Name != "" {
			where += fmt.Sprintf(" (%q)", p.Name)
		}
		if err := p.Validate(); err != nil {
			for _, e := range unjoin(err) {
				errs = append(errs, fmt.Errorf("%s: %w", where, e))
			}
		}
		if _, ok := Builtin(p.Name); ok {
			errs = append(errs, fmt.Errorf("%s: name: %q is a built-in profile (choose another name)", where, p.Name))
		}
		if names[p.Name] {
			errs = append(errs, fmt.Errorf("%s: name: %q is defined twice", where, p.Name))
		}
		names[p.Name] = true
		f.Profiles = append(f.Profiles, p)
	}
	known := func(n string) bool {
		_, ok := Builtin(n)
		return ok || names[n]
	}
	for i, raw := range top.Rules {
		var r Rule
		if err := decodeStrict(raw, &r); err != nil {
			errs = append(errs, fmt.Errorf("rules[%d]: %w", i, err))
			continue
		}
		switch {
		case r.Profile == "":
			errs = append(errs, fmt.Errorf("rules[%d]: profile: missing", i))
		case !known(r.Profile):
			errs = append(errs, fmt.Errorf("rules[%d]: profile: %q is neither a built-in nor a profile of the file", i, r.Profile))
		}
		for _, v := range slices.Concat(r.Match.Product, r.Match.Store, r.Match.View) {
			if v == "" {
				errs = append(errs, fmt.Errorf("rules[%d]: match: an empty product or store", i))
				break
			}
		}
		f.Rules = append(f.Rules, r)
	}
	if f.Default != "" && !known(f.Default) {
		errs = append(errs, fmt.Errorf("default: %q is neither a built-in nor a profile of the file", f.Default))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return f, nil
}

// decodeStrict decodes exactly one JSON value, refusing unknown fields, with the
// field named in type errors.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("%s: got a JSON %s, want %s", te.Field, te.Value, te.Type)
		}
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return errors.New("data after the JSON value")
	}
	return nil
}

// unjoin splits an errors.Join into its errors.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// Profile returns the profile of that name: one of the file's (f may be nil), else a
// built-in.
func (f *File) Profile(name string) (Profile, bool) {
	if f != nil {
		for _, p := range f.Profiles {
			if p.Name == name {
				return p, true
			}
		}
	}
	return Builtin(name)
}

// Set is a loaded profiles choice: every profile a rule or the default names,
// resolved at start-up, so a bad or missing ICC profile stops the process rather
// than failing (or printing sRGB) job by job.
type Set struct {
	rules    []Rule
	def      *Resolved
	resolved map[string]*Resolved
}

// Load resolves the profiles f chooses, with def (when not empty) overriding the
// file's default. f may be nil: then def alone is chosen for every file. also names
// more profiles to resolve now, built-ins or the file's: those the routing rules
// name (docs/routing.md "Profiles"), which Named returns.
func Load(f *File, def string, o Options, also ...string) (*Set, error) {
	if def == "" && f != nil {
		def = f.Default
	}
	if def == "" {
		def = WebPNG
	}
	s := &Set{resolved: map[string]*Resolved{}}
	var errs []error
	use := func(name, where string) *Resolved {
		if r, ok := s.resolved[name]; ok {
			return r
		}
		p, ok := f.Profile(name)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: no profile %q (built-ins: %s)", where, name, strings.Join(BuiltinNames(), ", ")))
			return nil
		}
		r, err := Resolve(p, o)
		if err != nil {
			for _, e := range unjoin(err) {
				errs = append(errs, fmt.Errorf("profile %q: %w", name, e))
			}
			return nil
		}
		s.resolved[name] = r
		return r
	}
	s.def = use(def, "default")
	if f != nil {
		s.rules = f.Rules
		for i, r := range f.Rules {
			use(r.Profile, fmt.Sprintf("rules[%d]", i))
		}
	}
	for _, name := range also {
		use(name, "routing rules")
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// BuiltinNames lists the built-ins' names.
func BuiltinNames() []string {
	var out []string
	for _, p := range Builtins() {
		out = append(out, p.Name)
	}
	return out
}

// For returns the profile of a view of a store's product: the first rule that
// matches, else the default.
func (s *Set) For(store, product, view string) *Resolved {
	if s == nil {
		return nil
	}
	for _, r := range s.rules {
		if matches(r.Match.Store, store) && matches(r.Match.Product, product) && matches(r.Match.View, view) {
			return s.resolved[r.Profile]
		}
	}
	return s.def
}

// Named returns the loaded profile of that name: the default, one a rule chooses or
// one Load was also asked for; ok is false for any other name.
func (s *Set) Named(name string) (r *Resolved, ok bool) {
	if s == nil {
		return nil, false
	}
	r, ok = s.resolved[name]
	return r, ok
}

func matches(list Strings, v string) bool {
	return len(list) == 0 || slices.Contains(list, v)
}
