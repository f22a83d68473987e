package settingsfile

import (
	"flag"
	"strings"
	"testing"
)

// flagSets are two commands: "a" with --x and --list under group "g", "b" with --x
// under group "h" (the same name, another concern), and --config, which no file holds.
func flagSets() map[string]*flag.FlagSet {
	a := flag.NewFlagSet("a", flag.ContinueOnError)
	a.Int("x", 1, "")
	a.Func("list", "", func(string) error { return nil })
	a.String("config", "", "")
	b := flag.NewFlagSet("b", flag.ContinueOnError)
	b.Duration("x", 0, "")
	return map[string]*flag.FlagSet{"a": a, "b": b}
}

func groupOf(cmd, name string) string {
	if cmd == "b" {
		return "h"
	}
	return "g"
}

func TestCheckAndApply(t *testing.T) {
	f, err := Parse("s.yaml", []byte("g:\n  x: 5\n  list: [p, q]\nh:\n  x: 2s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Check(flagSets(), groupOf, "config"); err != nil {
		t.Fatal(err)
	}
	var got []string
	a := flag.NewFlagSet("a", flag.ContinueOnError)
	x := a.Int("x", 1, "")
	a.Func("list", "", func(v string) error { got = append(got, v); return nil })
	if err := f.Apply(a, "a", groupOf, map[string]bool{}, "config"); err != nil {
		t.Fatal(err)
	}
	if *x != 5 || strings.Join(got, ",") != "p,q" {
		t.Errorf("x=%d list=%q, want 5 and p,q", *x, got)
	}
	*x = 9
	if err := f.Apply(a, "a", groupOf, map[string]bool{"x": true}, "config"); err != nil || *x != 9 {
		t.Errorf("a flag set before was overwritten: %d %v", *x, err)
	}
}

func TestCheckNamesEveryProblem(t *testing.T) {
	f, err := Parse("s.yaml", []byte("g:\n  y: 1\n  x: two\nh:\n  list: [p]\nz:\n  x: 1\ng2: ~\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = f.Check(flagSets(), groupOf, "config")
	for _, want := range []string{`s.yaml:2: unknown setting g.y`, `s.yaml:3: g.x "two" (a)`, `s.yaml:5: unknown setting h.list; it belongs in group g`, `s.yaml:6: unknown group "z"`, `s.yaml:8: unknown group "g2"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if f, err := Parse("s.yaml", []byte("g:\n  config: x\n")); err != nil || f.Check(flagSets(), groupOf, "config") == nil {
		t.Errorf("the skipped --config taken from the file (%v)", err)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, text := range []string{"- a\n", "g: [1]\n", "g:\n  x: {a: 1}\n", "g:\n  x: [[1]]\n", "g:\n  x: 1\n  x: 2\n", "g: {}\ng: {}\n", "g: [\n"} {
		if _, err := Parse("s.yaml", []byte(text)); err == nil {
			t.Errorf("%q taken", text)
		}
	}
	for _, text := range []string{"", "# nothing\n", "~\n", "g: ~\n"} {
		if _, err := Parse("s.yaml", []byte(text)); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
	if _, err := Parse("s.yaml", make([]byte, MaxBytes+1)); err == nil {
		t.Error("a file over MaxBytes taken")
	}
}

// FuzzParse: any file is parsed or refused with an error, never a panic, and what is
// parsed checks without a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "g:\n  x: 1\n", "a: [1, 2]\n", "- x\n", "g:\n  x: [{a: 1}]\n", "&a [*a]", "g: ~\n", "g:\n  list: [a, b]\nh:\n  x: 1s\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse("f.yaml", b)
		if err != nil {
			return
		}
		if s == nil {
			t.Fatal("nil settings without an error")
		}
		_ = s.Check(flagSets(), groupOf, "config")
	})
}
