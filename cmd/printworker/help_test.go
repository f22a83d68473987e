package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// updateHelp rewrites testdata/help-work.golden (go test ./cmd/printworker -run
// TestHelpGolden -update); the -update of docs/configuration.md, one flag.
var updateHelp = boolFlag("update", "rewrite generated files (docs/configuration.md, testdata/help-work.golden) instead of comparing")

// groupOrder is the order a command's help lists its groups in: its own flags first
// (a command outside the fleet), the groups it leads with, the others, then Other.
func groupOrder(top string) []string {
	var order []string
	if !slices.Contains(serviceCommands, top) {
		order = append(order, commandGroup)
	}
	for _, g := range flagGroups {
		if slices.Contains(g.lead, top) {
			order = append(order, g.title)
		}
	}
	for _, g := range flagGroups {
		if !slices.Contains(g.lead, top) {
			order = append(order, g.title)
		}
	}
	return append(order, otherGroup)
}

// synopsisFlags are the flags a help's first lines (the synopsis) name, in order.
func synopsisFlags(text string) []string {
	head, _, _ := strings.Cut(text, "\n\n")
	var out []string
	for _, m := range synopsisFlag.FindAllStringSubmatch(head, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// Every command's and action's help lists each of its flags once, under a named
// group in the groups' order; a fleet command's flags all belong to a concern; each
// group lists its most-needed flags first, in order, then the rest alphabetically;
// every line fits 100 columns.
func TestHelpGrouped(t *testing.T) {
	t.Parallel()
	texts := helpTexts(t)
	for _, c := range []string{"work", "serve", "queue-metrics", "render", "gang", "hubsim", "demo", "enqueue export", "queues list", "templates sync"} {
		if _, ok := texts[c]; !ok {
			t.Errorf("no help read for %q", c)
		}
	}
	for cmd, text := range texts {
		top, _, _ := strings.Cut(cmd, " ")
		for i, line := range strings.Split(text, "\n") {
			if n := utf8.RuneCountInString(line); n > helpWidth {
				t.Errorf("%s --help line %d is %d columns wide: %q", cmd, i+1, n, line)
			}
		}
		flags := parseHelp(text)
		if len(flags) == 0 {
			continue
		}
		seen := map[string]int{}
		var groups []string
		byGroup := map[string][]string{}
		for _, f := range flags {
			seen[f.name]++
			if f.group == "" {
				t.Errorf("%s --help: --%s is under no group", cmd, f.name)
				continue
			}
			if len(groups) == 0 || groups[len(groups)-1] != f.group {
				if slices.Contains(groups, f.group) {
					t.Errorf("%s --help: group %s appears twice", cmd, f.group)
				}
				groups = append(groups, f.group)
			}
			byGroup[f.group] = append(byGroup[f.group], f.name)
			if f.env != envName(f.name) {
				t.Errorf("%s --help: --%s shows %s, want %s", cmd, f.name, f.env, envName(f.name))
			}
		}
		for name, n := range seen {
			if n != 1 {
				t.Errorf("%s --help lists --%s %d times", cmd, name, n)
			}
		}
		order := groupOrder(top)
		rank := func(g string) int { return slices.Index(order, g) }
		for i, g := range groups {
			if rank(g) < 0 {
				t.Errorf("%s --help: unknown group %q", cmd, g)
			}
			if i > 0 && rank(groups[i-1]) >= rank(g) {
				t.Errorf("%s --help: group %s comes after %s, want the order %v", cmd, g, groups[i-1], order)
			}
		}
		service := slices.Contains(serviceCommands, top)
		for g, names := range byGroup {
			var first []string
			switch {
			case g == commandGroup:
				if service {
					t.Errorf("%s --help: a fleet command has a %q group: %v", cmd, commandGroup, names)
				}
				for _, n := range names {
					if concernOf(n, []string{top}) != otherGroup {
						t.Errorf("%s --help: --%s is under %s, but %s takes it", cmd, n, g, concernOf(n, []string{top}))
					}
				}
				first = synopsisFlags(text)
			case g == otherGroup:
				t.Errorf("%s --help: flags in no concern (add them to flagGroups in help.go): %v", cmd, names)
			default:
				first = flagGroups[slices.IndexFunc(flagGroups, func(fg flagGroup) bool { return fg.title == g })].first
			}
			var want, rest []string
			for _, n := range first {
				if slices.Contains(names, n) {
					want = append(want, n)
				}
			}
			for _, n := range names {
				if !slices.Contains(want, n) {
					rest = append(rest, n)
				}
			}
			slices.Sort(rest)
			if want = append(want, rest...); !slices.Equal(names, want) {
				t.Errorf("%s --help: group %s lists\n %v\nwant the most needed first, then alphabetically:\n %v", cmd, g, names, want)
			}
		}
	}
	// The fleet's help opens with what most people set first.
	for cmd, want := range map[string][]string{
		"work":          {"Hub", "hub-url", "hub-store", "hub-api-key", "hub-secret"},
		"serve":         {"Intake", "addr", "shopify-secret", "shopify-secret-file", "orders-secret"},
		"queue-metrics": {"Redis", "redis-url", "redis-url-file"},
		"render":        {commandGroup, "design", "media", "out", "view", "json"},
	} {
		flags := parseHelp(texts[cmd])
		if len(flags) < len(want)-1 {
			t.Errorf("%s --help: %d flags", cmd, len(flags))
			continue
		}
		got := []string{flags[0].group}
		for _, f := range flags[:len(want)-1] {
			got = append(got, f.name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s --help opens with %v, want %v", cmd, got, want)
		}
	}
}

// printHelp lists every flag of the set exactly once: a fleet command's flag in no
// concern under Other, another command's under Command, the synopsis's flags first.
func TestPrintHelpEveryFlag(t *testing.T) {
	t.Parallel()
	names := []string{"zeta-unknown", "alpha-unknown", "out", "design"}
	for _, g := range flagGroups {
		for _, n := range append(slices.Clone(g.takes), g.first...) {
			names = append(names, strings.TrimSuffix(n, "-")+"-x")
			names = append(names, n)
		}
	}
	for _, tt := range []struct {
		cmd, synopsis string
		firstGroup    string
		firstFlags    []string
		unknownIn     string
	}{
		{"work", "work [flags]", "Hub", []string{"hub-url", "hub-store"}, otherGroup},
		{"serve", "serve [flags]", "Intake", []string{"addr", "shopify-secret"}, otherGroup},
		{"tool x", "tool x --out DIR --design F", commandGroup, []string{"out", "design", "addr"}, commandGroup},
	} {
		t.Run(tt.cmd, func(t *testing.T) {
			fs := flag.NewFlagSet(tt.cmd, flag.ContinueOnError)
			for _, n := range names {
				if fs.Lookup(n) == nil {
					fs.String(n, "", "usage of "+n+" with words enough to wrap the line past one hundred columns of a terminal window")
				}
			}
			var b strings.Builder
			printHelp(&b, fs, tt.synopsis)
			got := parseHelp(b.String())
			count := map[string]int{}
			for _, f := range got {
				count[f.name]++
				if f.name == "zeta-unknown" && f.group != tt.unknownIn {
					t.Errorf("--zeta-unknown under %q, want %q", f.group, tt.unknownIn)
				}
				if f.usage != "usage of "+f.name+" with words enough to wrap the line past one hundred columns of a terminal window" {
					t.Errorf("--%s usage read back as %q", f.name, f.usage)
				}
			}
			fs.VisitAll(func(f *flag.Flag) {
				if count[f.Name] != 1 {
					t.Errorf("--%s listed %d times", f.Name, count[f.Name])
				}
			})
			if len(count) != countFlags(fs) {
				t.Errorf("help lists %d flags, the set has %d", len(count), countFlags(fs))
			}
			if got[0].group != tt.firstGroup {
				t.Errorf("first group %q, want %q", got[0].group, tt.firstGroup)
			}
			for i, n := range tt.firstFlags {
				if got[i].name != n {
					t.Errorf("flag %d is --%s, want --%s", i, got[i].name, n)
				}
			}
		})
	}
}

func countFlags(fs *flag.FlagSet) int {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n
}

// work --help, whole: a change to a flag, a group or the layout shows in review.
func TestHelpGolden(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // help must not start anything
	if err := run(ctx, []string{"work", "--help"}, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "help-work.golden")
	if updateHelp() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/printworker -run TestHelpGolden -update writes it)", err)
	}
	if got := out.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("work --help differs from %s (-update rewrites it) at line %d:\n got:  %q\n want: %q", path, i+1, g, w)
			}
		}
	}
}

func TestWrapWords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		words  string
		width  int
		indent string
		want   []string
	}{
		{"", 10, "", nil},
		{"one", 10, "", []string{"one"}},
		{"one two three", 7, "", []string{"one two", "three"}},
		{"one two three", 8, "  ", []string{"one two", "  three"}},
		{"a verylongword b", 4, "", []string{"a", "verylongword", "b"}},
		{"a verylongword b", 4, "  ", []string{"a", "  verylongword", "  b"}},
		{"é é é", 3, "", []string{"é é", "é"}}, // characters, not bytes
	} {
		if got := wrapWords(strings.Fields(tt.words), tt.width, tt.indent); !slices.Equal(got, tt.want) {
			t.Errorf("wrapWords(%q, %d, %q) = %q, want %q", tt.words, tt.width, tt.indent, got, tt.want)
		}
	}
}

// Wrapping keeps every word in order, fits the width unless a word alone is wider,
// and never makes an empty line, whatever the text.
func FuzzWrapWords(f *testing.F) {
	f.Add("bound of one hub call (headers only for downloads) (default 30s)", 94, "")
	f.Add("Usage: printworker enqueue export --store S [--ref ...] [--quantity N]", 100, "    ")
	f.Add(strings.Repeat("x", 500)+" y", 10, "  ")
	f.Add("\t\n  \u00a0 \u2028 a", 1, "")
	f.Add(strings.Repeat("é ", 2000), 3, "   ")
	f.Add("a b", 0, "      ")
	f.Fuzz(func(t *testing.T, text string, width int, indent string) {
		if width < 0 || width > 1000 || len(indent) > 20 || strings.ContainsFunc(indent, func(r rune) bool { return r != ' ' }) {
			return
		}
		words := strings.Fields(text)
		lines := wrapWords(words, width, indent)
		var back []string
		for i, line := range lines {
			body := line
			if i > 0 {
				var ok bool
				if body, ok = strings.CutPrefix(line, indent); !ok {
					t.Fatalf("line %d lacks the indent: %q", i, line)
				}
			}
			ws := strings.Split(body, " ")
			if body == "" || slices.Contains(ws, "") {
				t.Fatalf("line %d is empty or holds an empty word: %q", i, line)
			}
			if utf8.RuneCountInString(line) > width && len(ws) > 1 {
				t.Fatalf("line %d is %d wide, over %d, with %d words: %q", i, utf8.RuneCountInString(line), width, len(ws), line)
			}
			back = append(back, ws...)
		}
		if !slices.Equal(back, words) {
			t.Fatalf("words %q came back as %q", words, back)
		}
	})
}
