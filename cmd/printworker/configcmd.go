package main

import (
	"context"
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/printworker/printworker/internal/settingsfile"
)

func configCommand() command {
	return command{
		name:    "config",
		summary: "check a settings file and print the effective settings, secrets masked",
		run: func(ctx context.Context, e env, args []string) error {
			if e.collect != nil {
				return errCollected // a command of no settings of its own
			}
			return subcommand(ctx, e, "config", args, map[string]func(context.Context, env, []string) error{
				"check": configCheck,
			}, "Usage: printworker config check FILE\n\nChecks the settings file (YAML; docs/configuration.md#settings-file) against every command's\nflags and prints the settings it and the environment give, by group, secrets masked.\n")
		},
	}
}

// configCheck validates FILE: unknown groups and settings are refused by name, and
// every value must be one the commands taking it accept. It prints the effective
// settings (the environment's over the file's) as a settings file, secrets masked.
func configCheck(ctx context.Context, e env, args []string) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usageError("config check: want one settings file: printworker config check FILE")
	}
	s, err := settingsfile.Read(args[0])
	if err != nil {
		return usageError("config check: " + err.Error())
	}
	sets := commandFlagSets(e)
	if err := s.Check(sets, fileGroupOf, configFlag); err != nil {
		return usageError(err.Error())
	}
	keys := settingsfile.Keys(sets, fileGroupOf, configFlag)
	type entry struct {
		values []string
		env    string
	}
	eff := map[string]map[string]entry{}
	put := func(g, name string, en entry) {
		if eff[g] == nil {
			eff[g] = map[string]entry{}
		}
		eff[g][name] = en
	}
	for _, g := range s.Groups {
		for _, st := range g.Settings {
			put(g.Key, st.Name, entry{values: st.Values})
		}
	}
	for g, names := range keys {
		for name := range names {
			if v := e.getenv(envName(name)); v != "" {
				put(g, name, entry{values: []string{v}, env: envName(name)})
			}
		}
	}
	secrets := secretFlags(sets)
	fmt.Fprintf(e.stdout, "# %s: valid; the effective settings (environment over file), secrets masked\n", args[0])
	for _, g := range fileGroupOrder(keys) {
		names := eff[g]
		if len(names) == 0 {
			continue
		}
		fmt.Fprintf(e.stdout, "%s:\n", g)
		for _, name := range settingsfile.SortedKeys(names) {
			en := names[name]
			vals := make([]string, len(en.values))
			for i, v := range en.values {
				vals[i] = yamlScalar(maskSetting(name, v, secrets[name]))
			}
			line := fmt.Sprintf("  %s: %s", name, strings.Join(vals, ""))
			if len(vals) > 1 {
				line = fmt.Sprintf("  %s: [%s]", name, strings.Join(vals, ", "))
			}
			if en.env != "" {
				line += "  # from " + en.env
			}
			fmt.Fprintln(e.stdout, line)
		}
	}
	return nil
}

// fileGroupOrder is the order --help lists the groups in, then the commands' own.
func fileGroupOrder(keys map[string]map[string][]string) []string {
	var order []string
	for _, g := range flagGroups {
		order = append(order, groupKey(g.title))
	}
	order = append(order, groupKey(otherGroup))
	for _, g := range settingsfile.SortedKeys(keys) {
		if !slices.Contains(order, g) {
			order = append(order, g)
		}
	}
	return order
}

// secretName matches the settings that hold credentials.
var secretName = regexp.MustCompile(`(secret|token|password|passphrase|api-key|access-key|consumer-key|private-key)$`)

// secretFlags are the flags whose values are secrets: those with a companion
// "-file" flag (docs/configuration.md: secrets can come from files) and those named
// as credentials.
func secretFlags(sets map[string]*flag.FlagSet) map[string]bool {
	out := map[string]bool{}
	for _, fs := range sets {
		fs.VisitAll(func(f *flag.Flag) {
			if fs.Lookup(f.Name+"-file") != nil || secretName.MatchString(f.Name) {
				out[f.Name] = true
			}
		})
	}
	return out
}

// maskSetting hides a secret's value (an empty one stays visible: it sets nothing)
// and the credentials of a URL.
func maskSetting(name, v string, secret bool) string {
	// A URL (--redis-url has a -file companion for its password) shows all but the
	// password: which Redis a fleet uses is what a check is for.
	if strings.HasSuffix(name, "-url") {
		return redactRedisURL(v)
	}
	if secret && v != "" {
		return "***"
	}
	return v
}

// yamlScalar quotes a value when YAML would read it as something else.
func yamlScalar(v string) string {
	if v == "" || strings.ContainsAny(v, ":#{}[],&*!|>'\"%@`") || strings.TrimSpace(v) != v {
		return strconv.Quote(v)
	}
	return v
}
