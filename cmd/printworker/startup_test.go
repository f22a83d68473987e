package main

import (
	"bytes"
	"context"
	"github.com/printworker/printworker/internal/testnet"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// work lists every bad setting at once, not only the first (issue 11.6).
func TestWorkReportsEveryBadSetting(t *testing.T) {
	args := []string{"work", "--storage-dir", t.TempDir(), "--metrics-addr", "", "--hub-url", "http://127.0.0.1:1",
		"--mode", "bogus", "--storage", "nfs", "--storage-layout", "{nope}/{filename}"}
	var out, errb bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, &out, &errb)
	if err == nil || exitCode(err) != 2 {
		t.Fatalf("error %v (exit %d), want a usage error", err, exitCode(err))
	}
	msg := oneLine(err)
	for _, want := range []string{`"bogus"`, `"nfs"`, "{nope}", "no hub store"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not name %s", msg, want)
		}
	}
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "; ") {
		t.Errorf("%q: want the problems on one line, apart", msg)
	}
}

// A work that fails at start leaves no empty output folder; a folder that existed
// stays (issue 11.6).
func TestWorkFailedStartLeavesNoFolder(t *testing.T) {
	base := t.TempDir()
	existing := filepath.Join(base, "existing")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(base, "new", "deeper", "out"), existing} {
		args := []string{"work", "--poll-idle", "100ms", "--poll-delayed", "100ms", "--storage-dir", dir, "--metrics-addr", "", "--mode", "download",
			"--hub-url", "http://127.0.0.1:1", "--hub-store", "s", "--hub-api-key", "k", "--hub-secret", "x",
			"--redis-url", "redis://" + testnet.FreeAddr(t) + "/0"}
		err := run(context.Background(), args, func(string) string { return "" }, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "redis") {
			t.Fatalf("%s: error %v, want the Redis failure", dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "new")); !os.IsNotExist(err) {
		t.Errorf("work left %s behind (%v)", filepath.Join(base, "new"), err)
	}
	if _, err := os.Stat(existing); err != nil {
		t.Errorf("work removed a folder it did not create: %v", err)
	}
}

// Help shows each default once, sizes in units people write (issue 11.6).
func TestHelpDefaults(t *testing.T) {
	raw := regexp.MustCompile(`\(default \d{5,}\)`)
	flagLine := regexp.MustCompile(`^  --([a-z0-9-]+)  \[`)
	sizeFlag := regexp.MustCompile(`bytes|budget|size|body`)
	for _, c := range commands() {
		var out bytes.Buffer
		if err := run(context.Background(), []string{c.name, "--help"}, func(string) string { return "" }, &out, io.Discard); err != nil {
			continue // a command with actions prints its own help
		}
		flagName := ""
		for _, line := range strings.Split(out.String(), "\n") {
			if m := flagLine.FindStringSubmatch(line); m != nil {
				flagName = m[1]
				continue
			}
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%s --help: default shown twice: %q", c.name, strings.TrimSpace(line))
			}
			if sizeFlag.MatchString(flagName) && raw.MatchString(line) {
				t.Errorf("%s --help --%s: raw byte count: %q", c.name, flagName, strings.TrimSpace(line))
			}
		}
		if c.name == "work" {
			for _, want := range []string{"(default 1GiB)", "(default 8MiB)", "(default: CPUs)"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("work --help does not show %s", want)
				}
			}
		}
	}
	for _, c := range []struct {
		n    byteSize
		want string
	}{{0, "0"}, {1000, "1000"}, {2 << 20, "2MiB"}, {1 << 30, "1GiB"}, {1536, "1536"}, {5 << 10, "5KiB"}} {
		if got := c.n.String(); got != c.want {
			t.Errorf("byteSize(%d) = %q, want %q", int64(c.n), got, c.want)
		}
		var back byteSize
		if err := back.Set(c.n.String()); err != nil || back != c.n {
			t.Errorf("%q reads back as %d (%v)", c.n.String(), int64(back), err)
		}
	}
}
