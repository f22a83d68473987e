package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// readRepoFile reads a file of the repository by its slash path.
func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// walkRepo calls f for every file of the main module (slash path from the root),
// skipping hidden folders, testdata, node_modules and nested modules (deploy,
// bench/vipspeer).
func walkRepo(t *testing.T, f func(rel string)) {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		f(rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mdHeadings returns the headings of a Markdown document, without the #s.
func mdHeadings(text string) []string {
	var hs []string
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if !inFence && strings.HasPrefix(line, "#") {
			hs = append(hs, strings.TrimSpace(strings.TrimLeft(line, "#")))
		}
	}
	return hs
}

// The README's docs index links every page of docs/ (each link resolving is
// TestDocsLinksResolve's), so a new page is found from the README.
func TestReadmeIndexesEveryDoc(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no docs/*.md found")
	}
	for _, p := range pages {
		link := "](docs/" + filepath.Base(p) + ")"
		if !strings.Contains(readme, link) {
			t.Errorf("README.md does not link docs/%s in its docs index", filepath.Base(p))
		}
	}
}

// docs/architecture.md's package table names every package of the module: every
// folder with Go files, as `path` in the table's first column.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	doc := readRepoFile(t, "docs/architecture.md")
	named := map[string]bool{}
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "| `") {
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "| `"), "`")
			named[name] = true
		}
	}
	pkgs := map[string]bool{}
	walkRepo(t, func(rel string) {
		if strings.HasSuffix(rel, ".go") {
			if dir := filepath.ToSlash(filepath.Dir(rel)); dir != "." {
				pkgs[dir] = true
			}
		}
	})
	if len(pkgs) < 20 {
		t.Fatalf("found only %d packages: has the layout changed?", len(pkgs))
	}
	var missing []string
	for p := range pkgs {
		if !named[p] {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	for _, p := range missing {
		t.Errorf("docs/architecture.md's package table does not name package %s", p)
	}
	for n := range named {
		if !pkgs[n] {
			t.Errorf("docs/architecture.md names package %s, which has no Go files", n)
		}
	}
}

// docSection is a document named in code with a section of it in quotes:
// docs/benchmarks.md, "Rotated pictures" (the quote may run over comment lines).
var docSection = regexp.MustCompile(`docs/([a-z0-9-]+\.md)(?:,? (?:section )?)"([^"]+)"`)

// roundRef is a reference to a round of work, which describes history, not code.
var roundRef = regexp.MustCompile(`(?i)\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth)( speed)? round\b|\bround two\b`)

// commentText joins a source file's comment text into one line per file, so that a
// quoted section name broken over two comment lines reads whole.
func commentText(src string) string {
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "//"):
			l = strings.TrimPrefix(l, "//")
		case strings.HasPrefix(l, "#"):
			l = strings.TrimPrefix(l, "#")
		default:
			if i := strings.Index(l, "// "); i >= 0 {
				l = l[i+2:]
			} else {
				continue
			}
		}
		b.WriteString(strings.TrimSpace(l))
		b.WriteByte(' ')
	}
	return b.String()
}

// Code that points at a section of a document names one that exists (a heading, or
// the start of one: "Sheet jobs" for "Sheet jobs: ganging ..."), and no code
// comment points at a round of work: comments say why directly.
func TestCodeNamesRealDocSections(t *testing.T) {
	headings := map[string][]string{}
	checked := 0
	walkRepo(t, func(rel string) {
		if !strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, ".s") && !strings.HasSuffix(rel, ".sh") {
			return
		}
		text := commentText(readRepoFile(t, rel))
		for _, m := range docSection.FindAllStringSubmatch(text, -1) {
			doc := m[1]
			if headings[doc] == nil {
				b, err := os.ReadFile(filepath.Join(repoRoot, "docs", doc))
				if err != nil {
					t.Errorf("%s names docs/%s, which does not exist", rel, doc)
					headings[doc] = []string{}
					continue
				}
				headings[doc] = mdHeadings(string(b))
			}
			checked++
			name := m[2]
			if !slices.ContainsFunc(headings[doc], func(h string) bool {
				return h == name || strings.HasPrefix(h, name+" ") || strings.HasPrefix(h, name+":")
			}) {
				t.Errorf("%s names section %q of docs/%s, which has no such heading", rel, m[2], doc)
			}
		}
		if m := roundRef.FindString(text); m != "" {
			t.Errorf("%s: a comment names %q: say why directly, or point at a section of docs/benchmarks.md", rel, m)
		}
	})
	if checked == 0 {
		t.Fatal("no docs/x.md \"section\" reference found in the code: has the form changed?")
	}
}

// benchName is a benchmark function of the repository's tests.
var benchFunc = regexp.MustCompile(`(?m)^func (Benchmark[A-Za-z0-9_]+)\(`)

// benchPattern is the -bench / -test.bench pattern of a command.
var benchPattern = regexp.MustCompile(`-(?:test\.)?bench[ =]'?"?([^'" ]+)`)

// topLevel is the part of a -bench pattern that names the benchmark function: up to
// the first slash outside parentheses.
func topLevel(pattern string) string {
	depth := 0
	for i, r := range pattern {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case '/':
			if depth == 0 {
				return pattern[:i]
			}
		}
	}
	return pattern
}

// goPackagePath is a package path on a go test or go build line.
var goPackagePath = regexp.MustCompile(`(?:^|\s)\./((?:[a-z0-9_-]+/)*[a-z0-9_-]+)/?(?:\s|$)`)

// docs/benchmarks.md stays a reference (at most 500 lines), and the commands it keeps
// still work against the code: every benchmark a -bench pattern or the text names
// exists, and every package path of a go command exists.
func TestBenchmarksDocCommandsExist(t *testing.T) {
	doc := readRepoFile(t, "docs/benchmarks.md")
	if n := strings.Count(doc, "\n"); n > 500 {
		t.Errorf("docs/benchmarks.md has %d lines: the reference keeps at most 500 (history belongs in git)", n)
	}
	var benches []string
	walkRepo(t, func(rel string) {
		if strings.HasSuffix(rel, "_test.go") {
			for _, m := range benchFunc.FindAllStringSubmatch(readRepoFile(t, rel), -1) {
				benches = append(benches, m[1])
			}
		}
	})
	if len(benches) < 10 {
		t.Fatalf("found only %d benchmarks: has the layout changed?", len(benches))
	}
	for _, m := range regexp.MustCompile(`\b(Benchmark[A-Z][A-Za-z0-9]*)\b`).FindAllStringSubmatch(doc, -1) {
		if !slices.Contains(benches, m[1]) {
			t.Errorf("docs/benchmarks.md names %s, which no test file defines", m[1])
		}
	}
	for i, line := range strings.Split(doc, "\n") {
		for _, m := range benchPattern.FindAllStringSubmatch(line, -1) {
			for _, top := range strings.Split(topLevel(m[1]), "|") {
				re, err := regexp.Compile(top)
				if err != nil {
					t.Errorf("docs/benchmarks.md:%d: -bench pattern %q: %v", i+1, m[1], err)
					continue
				}
				if !slices.ContainsFunc(benches, re.MatchString) {
					t.Errorf("docs/benchmarks.md:%d: -bench %q: no benchmark matches %q", i+1, m[1], top)
				}
			}
		}
		if strings.Contains(line, "go test") || strings.Contains(line, "go build") || strings.Contains(line, "go run") {
			for _, m := range goPackagePath.FindAllStringSubmatch(line, -1) {
				if st, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(m[1]))); err != nil || !st.IsDir() {
					t.Errorf("docs/benchmarks.md:%d: package ./%s does not exist", i+1, m[1])
				}
			}
		}
	}
}

// mdSlug is the anchor GitHub gives a heading: lower case, punctuation dropped (letters,
// digits, spaces, hyphens and underscores kept), spaces turned into hyphens.
func mdSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// htmlAnchor is an explicit anchor: <a id="name"></a>.
var htmlAnchor = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)

// mdAnchors returns the anchors a document offers: its headings' slugs (a repeated
// slug gets -1, -2, ...) and its explicit anchors.
func mdAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, h := range mdHeadings(text) {
		s := mdSlug(h)
		if n := seen[s]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	}
	for _, m := range htmlAnchor.FindAllStringSubmatch(text, -1) {
		anchors[m[1]] = true
	}
	return anchors
}

// Every link to a section of a document (page.md#anchor, or #anchor in the same
// page) names a heading or anchor that page has, so links do not silently land at
// the top of a page after a heading changes.
func TestDocsAnchorsResolve(t *testing.T) {
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, err := os.ReadFile(path)
		if err != nil {
			anchors[path] = nil
			return nil // a missing page is TestDocsLinksResolve's to report
		}
		anchors[path] = mdAnchors(string(b))
		return anchors[path]
	}
	checked := 0
	for _, f := range docFiles(t) {
		text := readRepoFile(t, strings.TrimPrefix(filepath.ToSlash(f), repoRoot+"/"))
		rel, _ := filepath.Rel(repoRoot, f)
		for i, line := range strings.Split(text, "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				page, anchor, ok := strings.Cut(target, "#")
				if !ok || strings.Contains(page, "://") || !(page == "" || strings.HasSuffix(page, ".md")) {
					continue
				}
				path := f
				if page != "" {
					path = filepath.Join(filepath.Dir(f), filepath.FromSlash(page))
				}
				a := anchorsOf(path)
				if a == nil {
					continue
				}
				checked++
				if !a[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading or anchor %q", rel, i+1, target, filepath.Base(path), anchor)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no link to a section found in the docs: has the link form changed?")
	}
}

// The slug of a heading is GitHub's.
func TestMDSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Pipeline (render mode)":                            "pipeline-render-mode",
		"Sheet jobs: ganging a shop's orders as they come":  "sheet-jobs-ganging-a-shops-orders-as-they-come",
		"Which sheet holds an order's designs: `gang.json`": "which-sheet-holds-an-orders-designs-gangjson",
		"Day page (`{store}/{date}/index.html`)":            "day-page-storedateindexhtml",
	} {
		if got := mdSlug(h); got != want {
			t.Errorf("mdSlug(%q) = %q, want %q", h, got, want)
		}
	}
}
