// Package routing sends print files to the hot folder of the machine that prints
// them: an ordered list of rules, read from a JSON file at start, maps a file's
// product, export type, quantity, rush flag and store to a machine folder (a key
// prefix "dtf/" and/or a separate S3 bucket) and/or a gang group. The first rule that
// matches wins; a file no rule matches stays in its order folder only. A machine
// folder receives print files only, flat by default, under names unique across
// orders (the rule's "layout", "filename" and "ready").
//
// The file is decoded strictly and checked whole before the worker starts: an unknown
// field, a wrong type, a prefix that could leave its folder ("..", a leading "/") or
// a malformed bucket name are all reported at once, each with its rule and field.
package routing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/printworker/printworker/gang"
)

// Limits keep a hostile rules file in bounded memory and CPU.
const (
	MaxFileBytes = 1 << 20
	MaxRules     = 1000
	maxValues    = 1000 // values of one list field
	maxPrefix    = 512
)

// Types are the export types a rule can match.
var Types = []string{"png", "pdf", "pdf-simple", "tiff"}

// File is what a rule matches against: one print file of an order.
type File struct {
	Store    string
	Product  string // the design's template productId
	Type     string // export type: png, pdf, pdf-simple, tiff
	Quantity int    // copies of the design in the order
	Rush     bool   // the order is a rush order (see docs/routing.md)
}

// Layouts of a machine folder (docs/routing.md "Machine folders").
const (
	// LayoutFlat puts every print file at the top of the machine folder, named by
	// the rule's filename pattern (DefaultMachinePattern): a RIP watching one folder
	// sees every file.
	LayoutFlat = "flat"
	// LayoutNested keeps the order folders of the storage layout under the prefix
	// ("dtf/{store}/{date}/{order}/name"), with the order folder's file names.
	LayoutNested = "nested"
)

// DefaultMachinePattern names files in a flat machine folder: order number, line
// and design id keep the names of different orders and lines apart, the title keeps
// them readable; a multi-view design's files get the view's name appended.
const DefaultMachinePattern = "[order]-[line]-[id]-[title]"

// Target is where a routed file goes.
type Target struct {
	Rule   int    // index of the rule that matched
	Name   string // the rule's name, for logs
	Prefix string // cleaned, no leading or trailing '/'; "" keeps the default folder
	Bucket string // "" keeps the default bucket
	// Gang names the gang group the file is also nested on ("" none); only PNG
	// files are ganged (docs/gang.md).
	Gang string
	// Layout is LayoutFlat or LayoutNested ("" when the rule has no machine folder).
	Layout string
	// Filename is the name pattern of a file in the machine folder (filenames
	// tokens); "" in a nested folder keeps the order folder's name.
	Filename string
	// Ready asks for an empty "<name>.ready" marker beside each file once it is
	// complete, for RIPs that wait for one.
	Ready bool
	// Profile names the production profile the file is made with ("" keeps the
	// one the profiles file or --profile chooses; docs/routing.md "Profiles").
	Profile string
}

// Machine reports whether the target is a machine folder: the rule gives a prefix
// or a bucket. A gang-only rule has none.
func (t Target) Machine() bool { return t.Prefix != "" || t.Bucket != "" }

// Rules is a checked, ordered rule list. The zero value and nil route nothing.
type Rules struct {
	rules []rule
	gangs map[string]*gang.Group
}

type rule struct {
	name     string
	products []string
	types    []string
	stores   []string
	minQty   int
	rush     *bool
	prefix   string
	bucket   string
	gang     string
	profile  string
	layout   string
	filename string
	ready    bool
}

// Route returns the target of the first rule matching f; ok is false when none does.
func (r *Rules) Route(f File) (t Target, ok bool) {
	if r == nil {
		return Target{}, false
	}
	for i, ru := range r.rules {
		if ru.matches(f) {
			return Target{Rule: i, Name: ru.name, Prefix: ru.prefix, Bucket: ru.bucket, Gang: ru.gang,
				Layout: ru.layout, Filename: ru.filename, Ready: ru.ready, Profile: ru.profile}, true
		}
	}
	return Target{}, false
}

// Len is the number of rules.
func (r *Rules) Len() int {
	if r == nil {
		return 0
	}
	return len(r.rules)
}

// Buckets lists the distinct buckets the rules route to, sorted.
func (r *Rules) Buckets() []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, ru := range r.rules {
		if ru.bucket != "" && !slices.Contains(out, ru.bucket) {
			out = append(out, ru.bucket)
		}
	}
	sort.Strings(out)
	return out
}

// Profiles lists the distinct production profiles the rules name, in rule order, so
// the caller can load and check them at start.
func (r *Rules) Profiles() []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, ru := range r.rules {
		if ru.profile != "" && !slices.Contains(out, ru.profile) {
			out = append(out, ru.profile)
		}
	}
	return out
}

// UsesRush reports whether any rule looks at the rush flag, so a caller can skip
// reading the order when none does.
func (r *Rules) UsesRush() bool {
	if r == nil {
		return false
	}
	for _, ru := range r.rules {
		if ru.rush != nil {
			return true
		}
	}
	return false
}

func (ru rule) matches(f File) bool {
	switch {
	case len(ru.products) > 0 && !slices.Contains(ru.products, f.Product):
		return false
	case len(ru.types) > 0 && !slices.Contains(ru.types, f.Type):
		return false
	case len(ru.stores) > 0 && !slices.Contains(ru.stores, f.Store):
		return false
	case f.Quantity < ru.minQty:
		return false
	case ru.rush != nil && *ru.rush != f.Rush:
		return false
	}
	return true
}

// Load reads and checks a rules file.
func Load(path string) (*Rules, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("routing rules: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("routing rules %s: %w", path, err)
	}
	r, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("routing rules %s: %w", path, err)
	}
	return r, nil
}

// Parse decodes and checks a rules document, reporting every problem at once.
func Parse(data []byte) (*Rules, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxFileBytes)
	}
	var top map[string]json.RawMessage
	if err := decodeOne(data, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if top == nil {
		return nil, errors.New(`not a JSON object: want {"rules": [...]}`)
	}
	var errs []error
	for _, k := range sortedKeys(top) {
		if k != "rules" && k != "gangs" {
			errs = append(errs, fmt.Errorf("unknown field %q (want \"rules\" and optionally \"gangs\")", k))
		}
	}
	var gangs map[string]*gang.Group
	if raw, ok := top["gangs"]; ok {
		var gerrs []error
		gangs, gerrs = parseGangs(raw)
		errs = append(errs, gerrs...)
	}
	raw, ok := top["rules"]
	if !ok {
		errs = append(errs, errors.New(`missing "rules"`))
		return nil, errors.Join(errs...)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		errs = append(errs, fmt.Errorf("rules: want a list of rules: %v", jsonMsg(err)))
		return nil, errors.Join(errs...)
	}
	if len(list) > MaxRules {
		errs = append(errs, fmt.Errorf("rules: %d rules, at most %d", len(list), MaxRules))
		return nil, errors.Join(errs...)
	}
	out := &Rules{rules: make([]rule, 0, len(list)), gangs: gangs}
	for i, rr := range list {
		ru, rerrs := parseRule(rr)
		rerrs = append(rerrs, ru.checkGang(gangs)...)
		for _, e := range rerrs {
			errs = append(errs, fmt.Errorf("rule %d%s: %w", i, ru.label(), e))
		}
		out.rules = append(out.rules, ru)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func (ru rule) label() string {
	if ru.name == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", ru.name)
}

// decodeOne decodes exactly one JSON value: trailing data is an error.
func decodeOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return jsonMsg(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// jsonMsg shortens encoding/json's type errors to what a person editing the file needs.
func jsonMsg(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("got a JSON %s, want %s", te.Value, goType(te.Type.String()))
	}
	return err
}

func goType(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list of " + goType(t[2:]) + "s"
	case t == "string":
		return "string"
	case t == "int":
		return "an integer"
	case t == "bool":
		return "true or false"
	}
	return "an object"
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
