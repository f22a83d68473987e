package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// A command's --help lists its flags by concern (Hub, Redis, Storage, ...), each group
// with the settings most people set first, then the rest alphabetically. The same
// groups order docs/configuration.md, which is generated from the help output.

// serviceCommands run as the fleet. Each of their flags belongs to a concern; one that
// fits none is listed under "Other" (and fails the help and configuration tests).
var serviceCommands = []string{"work", "serve", "queue-metrics"}

// flagGroup is one concern: the flags it takes and the ones most people set first.
type flagGroup struct {
	title string
	// takes: a name ending in "-" takes every flag starting with it, another name
	// takes that flag only.
	takes []string
	// first are the settings most people need, in that order; the group's other
	// flags follow alphabetically.
	first []string
	// lead are the commands whose help prints this group before the others.
	lead []string
	// only, when set, are the commands whose flags the group takes.
	only []string
}

// flagGroups are the concerns, in the order help and docs list them.
var flagGroups = []flagGroup{
	{title: "Hub", takes: []string{"hub-", "fetch-allow"},
		first: []string{"hub-url", "hub-store", "hub-api-key", "hub-secret", "hub-secret-file", "hub-stores-file", "hub-rate-per-minute", "hub-rate-burst", "hub-tries", "hub-timeout"}},
	{title: "Redis", takes: []string{"redis-", "state-retention", "task-retention"},
		first: []string{"redis-url", "redis-url-file", "redis-sentinel-master", "redis-sentinel-addrs", "redis-cluster-addrs"}},
	{title: "Jobs and workers", takes: []string{"mode", "store-mode", "store-max-share", "concurrency", "memory-budget", "queue-weight", "export-queue-shards", "strict-priority", "shutdown-timeout", "export-retry-window", "export-timeout", "push-timeout", "retry-base", "retry-max", "poll-", "max-quantity"},
		first: []string{"mode", "concurrency", "memory-budget", "queue-weight", "export-queue-shards", "shutdown-timeout", "export-retry-window"}},
	{title: "Storage", takes: []string{"storage", "storage-", "s3-", "sftp-", "filename-"},
		first: []string{"storage", "storage-dir", "s3-bucket", "s3-endpoint", "s3-region", "s3-path-style", "s3-access-key", "s3-secret-key", "s3-secret-key-file", "s3-checksum", "storage-layout", "filename-pattern"}},
	{title: "Render", takes: []string{"render-", "font-", "png-speed", "text-direction"},
		first: []string{"render-basis", "render-strict", "font-dir", "font-fallback", "render-max-pixels", "png-speed"}},
	{title: "Production profiles", takes: []string{"profile", "profiles"},
		first: []string{"profile", "profiles"}},
	{title: "Colour", takes: []string{"color-", "bleed", "crop-marks", "ink-limit", "rich-black"},
		first: []string{"color-profile", "color-intent", "bleed", "color-config", "color-raster", "crop-marks"}},
	{title: "Cut and white plates", takes: []string{"cut-", "white-"},
		first: []string{"cut-contour", "cut-offset", "white-plate", "white-choke", "white-spot"}},
	{title: "Shop floor", takes: []string{"thumbnails", "ticket-", "staff-pages", "day-page-delay", "review-hold", "store-review-hold", "preflight", "preflight-max-bytes"},
		first: []string{"thumbnails", "ticket-size", "staff-pages", "review-hold"}},
	{title: "Events", takes: []string{"events-"},
		first: []string{"events-url", "events-secret", "events-secret-file", "events-file"}},
	{title: "Intake", takes: []string{"addr", "shopify-", "orders-", "production-topic", "delivery-ttl", "enqueue-timeout", "max-body", "max-lines", "max-quantity", "print-test-orders", "stores-file"},
		first: []string{"addr", "shopify-secret", "shopify-secret-file", "orders-secret", "orders-secret-file", "production-topic"},
		lead:  []string{"serve"},
		// --addr of hubsim is the simulator's own address; --stores-file of hubsim
		// its hub stores.
		only: []string{"serve", "demo", "work", "reconcile"}},
	{title: "BigCommerce", takes: []string{"bigcommerce-"},
		first: []string{"bigcommerce-secret", "bigcommerce-secret-file", "bigcommerce-store-hash", "bigcommerce-store", "bigcommerce-token", "bigcommerce-token-file"}},
	{title: "Etsy", takes: []string{"etsy-"},
		first: []string{"etsy-secret", "etsy-secret-file", "etsy-shop-id", "etsy-store", "etsy-api-key", "etsy-token", "etsy-token-file", "etsy-poll-interval"}},
	{title: "WooCommerce", takes: []string{"woocommerce-"},
		first: []string{"woocommerce-secret", "woocommerce-secret-file", "woocommerce-store", "woocommerce-design-meta", "woocommerce-url", "woocommerce-consumer-key", "woocommerce-consumer-secret"},
		only:  []string{"serve", "work", "reconcile"}},
	{title: "Wix", takes: []string{"wix-"},
		first: []string{"wix-public-key", "wix-public-key-file", "wix-store", "wix-design-field"},
		only:  []string{"serve", "work", "reconcile"}},
	{title: "Reconciliation", takes: []string{"reconcile-"},
		first: []string{"reconcile-interval", "reconcile-margin", "reconcile-settle"}},
	{title: "Telemetry", takes: []string{"log-", "metrics-addr"},
		first: []string{"log-level", "log-format", "metrics-addr"}},
	{title: "Gang sheets", takes: []string{"gang-"},
		first: []string{"gang-tick", "gang-lease"}},
	{title: "Routing", takes: []string{"routing-rules"}},
	{title: "Settings file", takes: []string{"config"}},
}

// Titles of the groups outside flagGroups: a service flag in no concern, and the
// flags of another command that are its own (render's --design, hubsim's --seed).
const (
	otherGroup   = "Other"
	commandGroup = "Command"
)

// match says whether the group takes the flag name of one of cmds.
func (g flagGroup) match(name string, cmds []string) bool {
	if g.only != nil && !slices.ContainsFunc(cmds, func(c string) bool { return slices.Contains(g.only, c) }) {
		return false
	}
	for _, p := range g.takes {
		if strings.HasSuffix(p, "-") && strings.HasPrefix(name, p) || name == p {
			return true
		}
	}
	return false
}

// concernOf names the group of a flag the commands cmds have with one meaning;
// "Other" when no group takes it. The intake's shutdown bound is the intake's.
func concernOf(name string, cmds []string) string {
	if name == "shutdown-timeout" && slices.Equal(cmds, []string{"serve"}) {
		return "Intake"
	}
	for _, g := range flagGroups {
		if g.match(name, cmds) {
			return g.title
		}
	}
	return otherGroup
}

// helpWidth is the width help fits: flag usages wrap at word boundaries.
const helpWidth = 100

// synopsisFlag is a flag the synopsis names ("render --design FILE.json ...").
var synopsisFlag = regexp.MustCompile(`--([a-z0-9][a-z0-9-]*)`)

// printHelp writes the help of the command fs parses: the synopsis, then the flags by
// group. A group lists the flags most people set first, then the rest alphabetically;
// each flag shows its environment variable, usage and default. A command outside the
// fleet lists its own flags first, under "Command", those its synopsis names leading.
func printHelp(w io.Writer, fs *flag.FlagSet, synopsis string) {
	// The synopsis's first line wraps before a flag ("--op create|update|delete"
	// stays whole); its description is wrapped by hand.
	head, rest, _ := strings.Cut(synopsis, "\n")
	var parts []string
	for _, word := range strings.Fields("Usage: printworker " + head) {
		if len(parts) > 0 && !strings.HasPrefix(word, "-") && !strings.HasPrefix(word, "[") {
			parts[len(parts)-1] += " " + word
			continue
		}
		parts = append(parts, word)
	}
	for _, line := range wrapWords(parts, helpWidth, "    ") {
		fmt.Fprintln(w, line)
	}
	if rest != "" {
		fmt.Fprintln(w, rest)
	}
	cmd := fs.Name()
	top, _, _ := strings.Cut(cmd, " ")
	service := slices.Contains(serviceCommands, top)
	var own []string
	lines, _, _ := strings.Cut(synopsis, "\n\n") // the usage lines, not the description
	for _, m := range synopsisFlag.FindAllStringSubmatch(lines, -1) {
		if !slices.Contains(own, m[1]) {
			own = append(own, m[1])
		}
	}

	groups := map[string][]*flag.Flag{}
	fs.VisitAll(func(f *flag.Flag) {
		g := concernOf(f.Name, []string{top})
		if g == otherGroup && !service {
			g = commandGroup
		}
		groups[g] = append(groups[g], f)
	})

	type section struct {
		title string
		first []string
	}
	var order []section
	if !service {
		order = append(order, section{commandGroup, own})
	}
	for _, g := range flagGroups {
		if slices.Contains(g.lead, top) {
			order = append(order, section{g.title, g.first})
		}
	}
	for _, g := range flagGroups {
		if !slices.Contains(g.lead, top) {
			order = append(order, section{g.title, g.first})
		}
	}
	order = append(order, section{otherGroup, nil})

	for _, s := range order {
		fs := groups[s.title]
		if len(fs) == 0 {
			continue
		}
		// VisitAll gave them alphabetically; the most needed move ahead, stably.
		rank := func(f *flag.Flag) int {
			if i := slices.Index(s.first, f.Name); i >= 0 {
				return i
			}
			return len(s.first)
		}
		slices.SortStableFunc(fs, func(a, b *flag.Flag) int { return rank(a) - rank(b) })
		fmt.Fprintf(w, "\n%s:\n", s.title)
		for _, f := range fs {
			printFlag(w, f)
		}
	}
}

// printFlag writes one flag: "  --name  [ENV]", then its usage and default indented,
// wrapped to helpWidth.
func printFlag(w io.Writer, f *flag.Flag) {
	fmt.Fprintf(w, "  --%s  [%s]\n", f.Name, envName(f.Name))
	words := strings.Fields(f.Usage)
	// A usage that names its own default ("(default: CPUs)") says it better than
	// the zero value standing for it.
	if f.DefValue != "" && f.DefValue != "[]" && !strings.Contains(f.Usage, "(default") {
		def := "(default " + f.DefValue + ")"
		if strings.ContainsAny(f.DefValue, " \t\n") {
			words = append(words, strings.Fields(def)...)
		} else {
			words = append(words, def) // kept whole on one line
		}
	}
	for _, line := range wrapWords(words, helpWidth-6, "") {
		fmt.Fprintf(w, "      %s\n", line)
	}
}

// wrapWords joins words with single spaces into lines of at most width characters,
// the lines after the first starting with indent; a word too long for a line stands
// alone on its line.
func wrapWords(words []string, width int, indent string) []string {
	var lines []string
	var line strings.Builder
	n, empty := 0, true // characters in line, whether it holds no word yet
	for _, word := range words {
		wn := utf8.RuneCountInString(word)
		if !empty && n+1+wn > width {
			lines = append(lines, line.String())
			line.Reset()
			line.WriteString(indent)
			n, empty = utf8.RuneCountInString(indent), true
		}
		if !empty {
			line.WriteByte(' ')
			n++
		}
		line.WriteString(word)
		n += wn
		empty = false
	}
	if !empty {
		lines = append(lines, line.String())
	}
	return lines
}
