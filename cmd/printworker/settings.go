package main

import (
	"bytes"
	"context"
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

// The settings file (--config FILE, docs/configuration.md#settings-file) holds every
// setting of every command under the names the flags have, grouped as --help groups
// them: a group's key is its title in lower case with dashes ("Jobs and workers" ->
// jobs-and-workers), and a command's own flags (render's --design, demo's --timeout)
// sit under the command's name. One file serves the whole fleet: each command takes
// the settings it has, and a key that no command has in that group is refused by name,
// so a typo fails at start-up instead of being ignored. The command line wins over
// the environment, the environment over the file, the file over the defaults.

// configFlag is the flag every command takes to read a settings file.
const configFlag = "config"

// settings is a parsed settings file: group key -> setting -> values (one, or a
// list for a repeatable flag), in the file's order.
type settings struct {
	path   string
	groups []settingsGroup
}

type settingsGroup struct {
	key  string
	line int
	keys []setting
}

type setting struct {
	name   string
	line   int
	values []string
}

// groupKey is a help group's key in the settings file.
func groupKey(title string) string {
	return strings.ReplaceAll(strings.ToLower(title), " ", "-")
}

// fileGroupOf is the settings file group of flag name in command cmd ("queues list"
// takes its own flags from "queues").
func fileGroupOf(cmd, name string) string {
	top, _, _ := strings.Cut(cmd, " ")
	g := concernOf(name, []string{top})
	if g == otherGroup && !slices.Contains(serviceCommands, top) {
		return top
	}
	return groupKey(g)
}

// readSettings parses a settings file: a mapping of groups, each a mapping of
// settings to a scalar or a list of scalars.
func readSettings(path string) (*settings, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseSettings(path, b)
}

// maxSettingsBytes bounds a settings file: it is a page of settings, not data.
const maxSettingsBytes = 1 << 20

func parseSettings(path string, b []byte) (*settings, error) {
	if len(b) > maxSettingsBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than a settings file's %d", path, len(b), maxSettingsBytes)
	}
	s := &settings{path: path}
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
		g := settingsGroup{key: k.Value, line: k.Line}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			s.groups = append(s.groups, g)
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
			st := setting{name: sk.Value, line: sk.Line}
			switch sv.Kind {
			case yaml.ScalarNode:
				if sv.Tag == "!!null" {
					st.values = []string{""}
				} else {
					st.values = []string{sv.Value}
				}
			case yaml.SequenceNode:
				for _, item := range sv.Content {
					if item.Kind != yaml.ScalarNode {
						return nil, fmt.Errorf("%s:%d: %s.%s: a list of plain values, not nested ones", path, item.Line, k.Value, sk.Value)
					}
					st.values = append(st.values, item.Value)
				}
			default:
				return nil, fmt.Errorf("%s:%d: %s.%s: want a value or a list of values", path, sv.Line, k.Value, sk.Value)
			}
			g.keys = append(g.keys, st)
		}
		s.groups = append(s.groups, g)
	}
	return s, nil
}

// errCollected ends a command's run once its flag set is built: commandFlagSets
// collects them without running anything.
var errCollected = errors.New("flag set collected")

// commandFlagSets builds every command's flag set (subcommands' too), with their
// defaults, keyed by the command as its help names it ("queues list").
func commandFlagSets(e env) map[string]*flag.FlagSet {
	sets := map[string]*flag.FlagSet{}
	e.stdout, e.stderr = io.Discard, io.Discard
	e.getenv = func(string) string { return "" }
	e.collect = func(fs *flag.FlagSet) { sets[fs.Name()] = fs }
	for _, c := range commands() {
		_ = c.run(context.Background(), e, nil)
	}
	return sets
}

// fileKeys are the settings each group of the file may hold: group -> name -> the
// commands that take it there.
func fileKeys(sets map[string]*flag.FlagSet) map[string]map[string][]string {
	keys := map[string]map[string][]string{}
	for cmd, fs := range sets {
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name == configFlag {
				return
			}
			g := fileGroupOf(cmd, f.Name)
			if keys[g] == nil {
				keys[g] = map[string][]string{}
			}
			keys[g][f.Name] = append(keys[g][f.Name], cmd)
		})
	}
	return keys
}

// check refuses every group and setting no command has, naming each, and every value
// a command that takes it refuses.
func (s *settings) check(sets map[string]*flag.FlagSet) error {
	keys := fileKeys(sets)
	var errs []error
	for _, g := range s.groups {
		names, ok := keys[g.key]
		if !ok {
			errs = append(errs, fmt.Errorf("%s:%d: unknown group %q (groups: %s)", s.path, g.line, g.key, strings.Join(sortedKeys(keys), ", ")))
			continue
		}
		for _, st := range g.keys {
			cmds, ok := names[st.name]
			if !ok {
				hint := ""
				if other := groupHaving(keys, st.name); other != "" {
					hint = fmt.Sprintf("; it belongs in group %s", other)
				}
				errs = append(errs, fmt.Errorf("%s:%d: unknown setting %s.%s%s", s.path, st.line, g.key, st.name, hint))
				continue
			}
			slices.Sort(cmds)
			for _, cmd := range cmds {
				if err := setValues(sets[cmd].Lookup(st.name), st.values); err != nil {
					errs = append(errs, fmt.Errorf("%s:%d: %s.%s %q (%s): %w", s.path, st.line, g.key, st.name, strings.Join(st.values, ","), cmd, err))
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

func sortedKeys[V any](m map[string]V) []string {
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

// apply sets every flag of fs that neither the command line nor the environment set
// (done) from the file's group for it.
func (s *settings) apply(fs *flag.FlagSet, done map[string]bool) error {
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if done[f.Name] || f.Name == configFlag {
			return
		}
		g := fileGroupOf(fs.Name(), f.Name)
		for _, grp := range s.groups {
			if grp.key != g {
				continue
			}
			for _, st := range grp.keys {
				if st.name == f.Name {
					if err := setValues(f, st.values); err != nil {
						errs = append(errs, fmt.Errorf("%s:%d: %s.%s %q: %w", s.path, st.line, g, st.name, strings.Join(st.values, ","), err))
					}
				}
			}
		}
	})
	return errors.Join(errs...)
}

// loadSettings reads the file --config (or PRINTWORKER_CONFIG) names, checks it
// against every command's flags, and sets fs's flags not set already (done).
func loadSettings(fs *flag.FlagSet, e env, done map[string]bool) error {
	f := fs.Lookup(configFlag)
	if f == nil {
		return nil
	}
	path := f.Value.String() // the command line's, else the environment's
	if path == "" {
		return nil
	}
	s, err := readSettings(path)
	if err != nil {
		return fmt.Errorf("--%s: %w", configFlag, err)
	}
	if err := s.check(commandFlagSets(e)); err != nil {
		return err
	}
	return s.apply(fs, done)
}

// addConfigFlag registers --config on a command's flag set.
func addConfigFlag(fs *flag.FlagSet) {
	fs.String(configFlag, "", "settings file (YAML): every setting by its flag name, grouped as this help groups them; flags and environment override it (docs/configuration.md#settings-file)")
}
