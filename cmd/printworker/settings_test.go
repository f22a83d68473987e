package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/printworker/printworker/internal/settingsfile"
)

// writeSettings writes a settings file into the test's folder.
func writeSettings(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "printworker.yaml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSettingsPrecedence: flag > environment > file > default, for a setting of the
// worker (concurrency), one the intake and the worker both have under different groups
// (shutdown-timeout), and a repeatable one (queue-weight).
func TestSettingsPrecedence(t *testing.T) {
	t.Parallel()
	file := writeSettings(t, `
jobs-and-workers:
  concurrency: 7
  shutdown-timeout: 2m
  queue-weight: [exports=4, orders=9]
intake:
  shutdown-timeout: 20s
`)
	cases := []struct {
		name, cmd, flag string
		args            []string
		env             map[string]string
		want            string
	}{
		{"default", "work", "concurrency", nil, nil, "10"},
		{"file over default", "work", "concurrency", []string{"--config", file}, nil, "7"},
		{"file by environment", "work", "concurrency", nil, map[string]string{"PRINTWORKER_CONFIG": file}, "7"},
		{"environment over file", "work", "concurrency", []string{"--config", file}, map[string]string{"PRINTWORKER_CONCURRENCY": "3"}, "3"},
		{"flag over environment and file", "work", "concurrency", []string{"--config", file, "--concurrency", "2"}, map[string]string{"PRINTWORKER_CONCURRENCY": "3"}, "2"},
		{"the worker's group", "work", "shutdown-timeout", []string{"--config", file}, nil, "2m0s"},
		{"the intake's group", "serve", "shutdown-timeout", []string{"--config", file}, nil, "20s"},
		{"a list", "work", "queue-weight", []string{"--config", file}, nil, "exports=4,orders=9"},
		{"flag over a list", "work", "queue-weight", []string{"--config", file, "--queue-weight", "sync=2"}, nil, "sync=2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fs := commandFlagSets(env{})[c.cmd]
			e := env{getenv: func(k string) string { return c.env[k] }}
			if err := parseFlags(fs, e, c.args); err != nil {
				t.Fatal(err)
			}
			got := fs.Lookup(c.flag).Value.String()
			if c.flag == "queue-weight" {
				got = strings.Trim(strings.ReplaceAll(strings.ReplaceAll(got, "map[", ""), " ", ","), "]")
				got = strings.ReplaceAll(got, ":", "=")
				parts := strings.Split(got, ",")
				slices.Sort(parts) // a map: printed in any order
				got = strings.Join(parts, ",")
			}
			if c.name == "default" {
				c.want = fs.Lookup(c.flag).DefValue
			}
			if got != c.want {
				t.Errorf("--%s = %q, want %q", c.flag, got, c.want)
			}
		})
	}
}

// TestSettingsRefusesUnknown: a setting no command has in its group, a group no
// command has and a value the flag refuses all fail the command's start, each named
// with its line; a setting filed under the wrong group says where it belongs.
func TestSettingsRefusesUnknown(t *testing.T) {
	t.Parallel()
	file := writeSettings(t, `hub:
  hub-urll: https://hub.example.com
redis:
  concurrency: 2
storag:
  s3-bucket: x
jobs-and-workers:
  concurrency: many
`)
	_, _, err := runCLI(t, nil, "work", "--config", file)
	if err == nil {
		t.Fatal("a bad settings file was taken")
	}
	for _, want := range []string{
		":2: unknown setting hub.hub-urll",
		":4: unknown setting redis.concurrency; it belongs in group jobs-and-workers",
		`:5: unknown group "storag"`,
		`:8: jobs-and-workers.concurrency "many"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if exitCode(err) != 2 {
		t.Errorf("exit code %d, want 2 (usage)", exitCode(err))
	}
	for _, text := range []string{"- a list\n", "hub: [1, 2]\n", "hub:\n  hub-url: {a: 1}\n", "hub:\n  hub-url: x\n  hub-url: y\n"} {
		if _, _, err := runCLI(t, nil, "config", "check", writeSettings(t, text)); err == nil {
			t.Errorf("%q: taken", text)
		}
	}
	if _, _, err := runCLI(t, nil, "work", "--config", filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestConfigCheckMasksSecrets: config check prints the effective settings, the
// environment's over the file's, and no secret of either.
func TestConfigCheckMasksSecrets(t *testing.T) {
	t.Parallel()
	file := writeSettings(t, `hub:
  hub-url: https://hub.example.com
  hub-secret: file-hub-secret-value
storage:
  storage: s3
  s3-secret-key: file-s3-secret-value
redis:
  redis-url: redis://user:file-redis-password@redis:6379/0
events:
  events-secret: whsec_ZmlsZS1ldmVudHMtc2VjcmV0LXZhbHVlLWxvbmc=
jobs-and-workers:
  concurrency: 7
`)
	stdout, _, err := runCLI(t, map[string]string{"PRINTWORKER_SHOPIFY_SECRET": "env-shopify-secret-value", "PRINTWORKER_CONCURRENCY": "3"}, "config", "check", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"file-hub-secret-value", "file-s3-secret-value", "file-redis-password", "ZmlsZS1ldmVudHMtc2VjcmV0", "env-shopify-secret-value"} {
		if strings.Contains(stdout, secret) {
			t.Errorf("a secret is printed (%s):\n%s", secret, stdout)
		}
	}
	for _, want := range []string{"hub:\n", `  hub-url: "https://hub.example.com"`, `  hub-secret: "***"`, `  s3-secret-key: "***"`, `  redis-url: "redis://***@redis:6379/0"`,
		`  shopify-secret: "***"  # from PRINTWORKER_SHOPIFY_SECRET`, "  concurrency: 3  # from PRINTWORKER_CONCURRENCY", "  storage: s3"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// What config check prints is itself a valid settings file.
	if _, _, err := runCLI(t, nil, "config", "check", writeSettings(t, stdout)); err != nil {
		t.Errorf("config check's output is no valid settings file: %v", err)
	}
}

// recorder is a flag value that records what the settings file sets.
type recorder struct {
	flag.Value
	got []string
}

func (r *recorder) Set(v string) error { r.got = append(r.got, v); return r.Value.Set(v) }

// TestEverySettingFromFile: every flag of every command is settable from the file,
// under its help group (or its command's name), and the file check takes them all.
func TestEverySettingFromFile(t *testing.T) {
	t.Parallel()
	sets := commandFlagSets(env{})
	keys := settingsfile.Keys(sets, fileGroupOf, configFlag)
	var b strings.Builder
	value := map[string]string{}
	for _, g := range fileGroupOrder(keys) {
		if len(keys[g]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s:\n", g)
		for _, name := range settingsfile.SortedKeys(keys[g]) {
			f := sets[keys[g][name][0]].Lookup(name)
			v := f.DefValue
			if v == "[]" || v == "map[]" {
				v = ""
			}
			value[g+"."+name] = v
			fmt.Fprintf(&b, "  %s: %s\n", name, yamlScalar(v))
		}
	}
	s, err := settingsfile.Parse("all.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(commandFlagSets(env{}), fileGroupOf, configFlag); err != nil {
		t.Fatalf("a file of every setting at its default is refused: %v\n%s", err, b.String())
	}
	n := 0
	for cmd, fs := range sets {
		recs := map[string]*recorder{}
		fs.VisitAll(func(f *flag.Flag) {
			r := &recorder{Value: f.Value}
			f.Value, recs[f.Name] = r, r
		})
		if err := s.Apply(fs, cmd, fileGroupOf, map[string]bool{}, configFlag); err != nil {
			t.Errorf("%s: %v", cmd, err)
		}
		for name, r := range recs {
			if name == configFlag {
				continue
			}
			n++
			// demo's --out is a second name of --storage-dir: both set the one value.
			want := value[fileGroupOf(cmd, name)+"."+name]
			if len(r.got) == 0 || r.got[len(r.got)-1] != want && !(name == "storage-dir" && slices.Contains(r.got, want)) {
				t.Errorf("%s --%s (group %s): the file set %q, want %q", cmd, name, fileGroupOf(cmd, name), r.got, want)
			}
		}
	}
	if n < 300 {
		t.Errorf("only %d command flags seen", n)
	}
}
