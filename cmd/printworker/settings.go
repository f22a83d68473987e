package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/printworker/printworker/internal/settingsfile"
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
	s, err := settingsfile.Read(path)
	if err != nil {
		return fmt.Errorf("--%s: %w", configFlag, err)
	}
	if err := s.Check(commandFlagSets(e), fileGroupOf, configFlag); err != nil {
		return err
	}
	return s.Apply(fs, fs.Name(), fileGroupOf, done, configFlag)
}

// addConfigFlag registers --config on a command's flag set.
func addConfigFlag(fs *flag.FlagSet) {
	fs.String(configFlag, "", "settings file (YAML): every setting by its flag name, grouped as this help groups them; flags and environment override it (docs/configuration.md#settings-file)")
}
