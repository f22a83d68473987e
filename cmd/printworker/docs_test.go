package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// repoRoot is the repository, two levels above this package.
const repoRoot = "../.."

// docFiles are the documents whose flags and links are checked: README.md and
// docs/*.md.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(repoRoot, "README.md")}, files...)
}

// helpFlagLine is a flag in a command's help: newFlagSet's "  --name  [ENV]" or the
// flag package's own "  -name value"; a usage's wrapped lines, indented deeper, may
// start with a flag they name and are not entries.
var helpFlagLine = regexp.MustCompile(`^  --?([a-z0-9][a-z0-9-]*)\b`)

// actionLine is an action in the help of a command with actions ("  list   ...").
var actionLine = regexp.MustCompile(`^  ([a-z][a-z0-9-]*)(\s|$)`)

// allFlags collects the flags of every command and every action, from the help the
// real flag sets print (so a flag added anywhere is known without a list here).
func allFlags(t *testing.T) map[string][]string {
	t.Helper()
	flags := map[string][]string{} // flag -> commands that have it
	help := func(args ...string) string {
		var out, errb bytes.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // help must not start anything
		_ = run(ctx, append(args, "--help"), func(string) string { return "" }, &out, &errb)
		return out.String()
	}
	record := func(cmd, text string) int {
		n := 0
		for _, line := range strings.Split(text, "\n") {
			if m := helpFlagLine.FindStringSubmatch(line); m != nil {
				flags[m[1]] = append(flags[m[1]], cmd)
				n++
			}
		}
		return n
	}
	for _, c := range commands() {
		text := help(c.name)
		record(c.name, text)
		_, actions, ok := strings.Cut(text, "\nActions:\n")
		if !ok {
			continue
		}
		for _, line := range strings.Split(actions, "\n") {
			if line == "" {
				break
			}
			if m := actionLine.FindStringSubmatch(line); m != nil {
				if record(c.name+" "+m[1], help(c.name, m[1])) == 0 {
					t.Logf("%s %s --help lists no flags", c.name, m[1])
				}
			}
		}
	}
	if len(flags) < 20 {
		t.Fatalf("only %d flags found in the commands' help: has its format changed?", len(flags))
	}
	return flags
}

// docFlag is a flag-like word: "--name", not glued to a word before it, possibly a
// pattern ("--hub-{orders,templates}-url", "--error-*").
var docFlag = regexp.MustCompile(`(^|[^A-Za-z0-9_-])--([a-z][a-z0-9{},*]*(?:-[a-z0-9{},*]+)*)`)

// printworkerLine starts a printworker command line in a code block.
var printworkerLine = regexp.MustCompile(`^\s*(\$ )?(\./|go run \./cmd/)?printworker\b`)

// notFlags are "--x" words in the docs that are not printworker flags: --help, and
// the placeholders of the naming rules (--x-file, --some-name).
var notFlags = map[string]bool{"help": true, "x": true, "x-file": true, "some-name": true}

// docFlagMentions returns the flags a document names as printworker's, with their
// line numbers: flags in prose, in inline code that is a flag or a printworker
// command ("`--hub-url`", "`printworker work --mode render`"), and on printworker
// command lines of code blocks (continuations included). Flags of other programs
// ("`qpdf --check`", a curl line) and of diagrams are not printworker's.
func docFlagMentions(text string) map[int][]string {
	out := map[int][]string{}
	inFence, continued := false, false
	// An inline code span may run over a line end; spanOurs says whether the open
	// one is a flag or a printworker command.
	inSpan, spanOurs := false, false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence, continued, inSpan = !inFence, false, false
			continue
		}
		if strings.TrimSpace(line) == "" {
			inSpan = false
		}
		var spans []string
		if inFence {
			if printworkerLine.MatchString(line) || continued {
				spans = append(spans, line)
			}
			continued = (printworkerLine.MatchString(line) || continued) && strings.HasSuffix(strings.TrimSpace(line), "\\")
		} else {
			for j, part := range strings.Split(line, "`") {
				if j > 0 {
					inSpan = !inSpan
					code := strings.TrimSpace(part)
					spanOurs = strings.HasPrefix(code, "--") || printworkerLine.MatchString(code)
				}
				if !inSpan || spanOurs {
					spans = append(spans, part)
				}
			}
		}
		for _, sp := range spans {
			for _, m := range docFlag.FindAllStringSubmatch(sp, -1) {
				out[i+1] = append(out[i+1], strings.TrimRight(m[2], "-"))
			}
		}
	}
	return out
}

// expandFlag turns a pattern into the names it stands for: braces are expanded,
// and a "*" matches any run of characters (checked by knownFlag).
func expandFlag(name string) []string {
	open := strings.IndexByte(name, '{')
	end := strings.IndexByte(name, '}')
	if open < 0 || end < open {
		return []string{name}
	}
	var out []string
	for _, alt := range strings.Split(name[open+1:end], ",") {
		out = append(out, expandFlag(name[:open]+alt+name[end+1:])...)
	}
	return out
}

// knownFlag reports whether name (a pattern with "*" allowed) is a flag of some
// command, or the file companion --x-file of a flag --x.
func knownFlag(flags map[string][]string, name string) bool {
	if notFlags[name] || len(flags[name]) > 0 {
		return true
	}
	if base, ok := strings.CutSuffix(name, "-file"); ok && len(flags[base]) > 0 {
		return true
	}
	if strings.Contains(name, "*") {
		re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(name), `\*`, "[a-z0-9-]+") + "$")
		for f := range flags {
			if re.MatchString(f) {
				return true
			}
		}
	}
	return false
}

// Every --flag named in README.md and docs/*.md is a flag of some command (issue
// 11.7: docs/architecture.md named a --hub-base-url that never existed). Other
// documents may add flags as commands gain them; a failure names the document, the
// line and the flag.
func TestDocsNameRealFlags(t *testing.T) {
	flags := allFlags(t)
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repoRoot, f)
		mentions := docFlagMentions(string(b))
		lines := make([]int, 0, len(mentions))
		for n := range mentions {
			lines = append(lines, n)
		}
		sort.Ints(lines)
		for _, n := range lines {
			for _, pattern := range mentions[n] {
				for _, name := range expandFlag(pattern) {
					if !knownFlag(flags, name) {
						t.Errorf("%s:%d names --%s, which no printworker command has", rel, n, name)
					}
				}
			}
		}
	}
}

// The scanner finds printworker's flags and only those.
func TestDocFlagMentions(t *testing.T) {
	text := "Set `--hub-url` and --hub-store.\n" +
		"Run `qpdf --check` or `printworker work --mode render`.\n" +
		"```sh\n" +
		"go run ./cmd/printworker enqueue export --store s \\\n" +
		"    --order 1\n" +
		"curl -sS x \\\n" +
		"  --data-binary @f\n" +
		"```\n" +
		"| `--hub-{orders,designs}-url` | `--error-*` |\n" +
		"a `vips text\n--rgba` span and `printworker render\n--basis pixel`\n"
	got := fmt.Sprint(docFlagMentions(text))
	want := "map[1:[hub-url hub-store] 2:[mode] 4:[store] 5:[order] 9:[hub-{orders,designs}-url error-*] 12:[basis]]"
	if got != want {
		t.Errorf("mentions\n got %s\nwant %s", got, want)
	}
	if got := expandFlag("hub-{orders,designs}-url"); fmt.Sprint(got) != "[hub-orders-url hub-designs-url]" {
		t.Errorf("expand: %v", got)
	}
}

// mdLink is a Markdown link or image: [text](target) or ![alt](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// Every relative link in README.md and docs/*.md resolves to a file or folder of the
// repository, and none leaves it (issue 11.7). A failure names the document, the line
// and the link.
func TestDocsLinksResolve(t *testing.T) {
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repoRoot, f)
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				if msg := checkLink(root, filepath.Dir(f), m[1]); msg != "" {
					t.Errorf("%s:%d: link %s %s", rel, i+1, m[1], msg)
				}
			}
			// A document named in the text is a link too, for a reader.
			for _, m := range mdName.FindAllStringSubmatch(line, -1) {
				msg := checkLink(root, filepath.Dir(f), m[1])
				if msg != "" && checkLink(root, root, m[1]) != "" {
					t.Errorf("%s:%d: %s %s", rel, i+1, m[1], msg)
				}
			}
		}
	}
}

// mdName is a Markdown document named in the text ("docs/demo.md",
// "../shared/x.md"), resolved from the document's folder or the repository root.
var mdName = regexp.MustCompile("(?:^|[\\s(`'\"])((?:\\.{1,2}/)*[A-Za-z0-9_][A-Za-z0-9_./-]*\\.md)\\b")

// checkLink returns why target, linked from a document in dir, is broken ("" when
// it is not). Web links are not fetched (tests run offline); file:// and absolute
// paths are refused, they point outside the repository.
func checkLink(root, dir, target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return "is not a URL: " + err.Error()
	}
	switch {
	case u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "mailto":
		return ""
	case u.Scheme != "":
		return fmt.Sprintf("uses scheme %s: docs link only inside the repository or to the web", u.Scheme)
	case u.Path == "":
		return "" // an anchor in the same document
	case strings.HasPrefix(u.Path, "/"):
		return "is an absolute path: outside the repository"
	}
	abs, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(u.Path)))
	if err != nil {
		return err.Error()
	}
	if r, err := filepath.Rel(root, abs); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "points outside the repository"
	}
	if _, err := os.Stat(abs); err != nil {
		return "does not resolve to a file of the repository"
	}
	return ""
}
