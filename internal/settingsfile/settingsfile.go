// Package settingsfile reads a settings file: YAML groups of settings named as a
// program's flags, each a value or a list of values (a repeatable flag), and checks
// and applies it to flag sets. Which group a flag belongs to is the caller's
// (GroupOf); a group or setting that no flag set has there is refused by name and
// line, so a typo fails at start-up instead of being ignored.
package settingsfile

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// File is a parsed settings file, in the file's order.
type File struct {
	Path   string
	Groups []Group
}

// Group is one group of settings.
type Group struct {
	Key      string
	Line     int
	Settings []Setting
}

// Setting is one setting: one value, or a list for a repeatable flag.
type Setting struct {
	Name   string
	Line   int
	Values []string
}

// GroupOf names the file group of flag name in command cmd.
type GroupOf func(cmd, name string) string

// Read parses a settings file: a mapping of groups, each a mapping of
// settings to a scalar or a list of scalars.
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// MaxBytes bounds a settings file: it is a page of settings, not data.
const MaxBytes = 1 << 20

// Parse parses the settings file text b read from path.
func Parse(path string, b []byte) (*File, error) {
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than a settings file's %d", path, len(b), MaxBytes)
	}
	s := &File{Path: path}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return s, nil // an empty file sets nothing
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return s, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: want a mapping of groups (hub:, redis:, storage:, ...)", path, root.Line)
	}
	seenGroup := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seenGroup[k.Value] {
			return nil, fmt.Errorf("%s:%d: group %q given twice", path, k.Line, k.Value)
		}
		seenGroup[k.Value] = true
		g := Group{Key: k.Value, Line: k.Line}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			s.Groups = append(s.Groups, g)
			continue
		}
		if v.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: group %s: want a mapping of settings", path, v.Line, k.Value)
		}
		seen := map[string]bool{}
		for j := 0; j+1 < len(v.Content); j += 2 {
			sk, sv := v.Content[j], v.Content[j+1]
			if seen[sk.Value] {
				return nil, fmt.Errorf("%s:%d: %s.%s given twice", path, sk.Line, k.Value, sk.Value)
			}
			seen[sk.Value] = true
			st := Setting{Name: sk.Value, Line: sk.Line}
			switch sv.Kind {
			case yaml.ScalarNode:
				if sv.Tag == "!!null" {
					st.Values = []string{""}
				} else {
					st.Values = []string{sv.Value}
				}
			case yaml.SequenceNode:
				for _, item := range sv.Content {
					if item.Kind != yaml.ScalarNode {
						return nil, fmt.Errorf("%s:%d: %s.%s: a list of plain values, not nested ones", path, item.Line, k.Value, sk.Value)
					}
					st.Values = append(st.Values, item.Value)
				}
			default:
				return nil, fmt.Errorf("%s:%d: %s.%s: want a value or a list of values", path, sv.Line, k.Value, sk.Value)
			}
			g.Settings = append(g.Settings, st)
		}
		s.Groups = append(s.Groups, g)
	}
	return s, nil
}

// Keys are the settings each group of a file may hold, from every command's flag set
// (sets, by command): group -> name -> the commands that take it there. Flags named
// in skip (the --config flag itself) are none.
func Keys(sets map[string]*flag.FlagSet, groupOf GroupOf, skip ...string) map[string]map[string][]string {
	keys := map[string]map[string][]string{}
	for cmd, fs := range sets {
		fs.VisitAll(func(f *flag.Flag) {
			if slices.Contains(skip, f.Name) {
				return
			}
			g := groupOf(cmd, f.Name)
			if keys[g] == nil {
				keys[g] = map[string][]string{}
			}
			keys[g][f.Name] = append(keys[g][f.Name], cmd)
		})
	}
	return keys
}

// Check refuses every group and setting no command has, naming each with its line,
// and every value a command that takes it refuses. It sets the flags of sets.
func (s *File) Check(sets map[string]*flag.FlagSet, groupOf GroupOf, skip ...string) error {
	keys := Keys(sets, groupOf, skip...)
	var errs []error
	for _, g := range s.Groups {
		names, ok := keys[g.Key]
		if !ok {
			errs = append(errs, fmt.Errorf("%s:%d: unknown group %q (groups: %s)", s.Path, g.Line, g.Key, strings.Join(SortedKeys(keys), ", ")))
			continue
		}
		for _, st := range g.Settings {
			cmds, ok := names[st.Name]
			if !ok {
				hint := ""
				if other := groupHaving(keys, st.Name); other != "" {
					hint = fmt.Sprintf("; it belongs in group %s", other)
				}
				errs = append(errs, fmt.Errorf("%s:%d: unknown setting %s.%s%s", s.Path, st.Line, g.Key, st.Name, hint))
				continue
			}
			slices.Sort(cmds)
			for _, cmd := range cmds {
				if err := setValues(sets[cmd].Lookup(st.Name), st.Values); err != nil {
					errs = append(errs, fmt.Errorf("%s:%d: %s.%s %q (%s): %w", s.Path, st.Line, g.Key, st.Name, strings.Join(st.Values, ","), cmd, err))
					break
				}
			}
		}
	}
	return errors.Join(errs...)
}

// groupHaving names the group a setting belongs in, for the error of one filed
// under another.
func groupHaving(keys map[string]map[string][]string, name string) string {
	var gs []string
	for g, names := range keys {
		if _, ok := names[name]; ok {
			gs = append(gs, g)
		}
	}
	slices.Sort(gs)
	return strings.Join(gs, " or ")
}

// SortedKeys are m's keys in order.
func SortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// setValues sets a flag from the file: each value of a list in turn (a repeatable
// flag collects them).
func setValues(f *flag.Flag, values []string) error {
	for _, v := range values {
		if err := f.Value.Set(v); err != nil {
			return err
		}
	}
	return nil
}

// Apply sets every flag of fs (command cmd) not in done (the command line's and the
// environment's) and not in skip from the file's group for it.
func (s *File) Apply(fs *flag.FlagSet, cmd string, groupOf GroupOf, done map[string]bool, skip ...string) error {
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if done[f.Name] || slices.Contains(skip, f.Name) {
			return
		}
		g := groupOf(cmd, f.Name)
		for _, grp := range s.Groups {
			if grp.Key != g {
				continue
			}
			for _, st := range grp.Settings {
				if st.Name == f.Name {
					if err := setValues(f, st.Values); err != nil {
						errs = append(errs, fmt.Errorf("%s:%d: %s.%s %q: %w", s.Path, st.Line, g, st.Name, strings.Join(st.Values, ","), err))
					}
				}
			}
		}
	})
	return errors.Join(errs...)
}
