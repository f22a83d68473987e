package main

import (
	"bytes"
	"context"
	"github.com/printworker/printworker/internal/testnet"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// work refuses a bad routing rules file at start, before touching Redis or storage,
// naming every problem with its rule and field.
func TestWorkRefusesBadRoutingRules(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "rules.json")
	doc := `{"rules": [
  {"name": "dtf", "match": {"product": "tee", "colour": "red"}, "prefix": "../dtf"},
  {"match": {"type": "jpeg"}, "prefix": "/rush"},
  {"match": {"product": "mug"}, "bucket": "sublimation"}
]}`
	if err := os.WriteFile(rules, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"work", "--poll-idle", "100ms", "--poll-delayed", "100ms", "--storage-dir", out, "--metrics-addr", "", "--mode", "download",
		"--hub-url", "http://127.0.0.1:1", "--hub-store", "s", "--hub-api-key", "k", "--hub-secret", "x",
		"--redis-url", "redis://" + testnet.FreeAddr(t) + "/0", "--routing-rules", rules}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, &stdout, &stderr)
	if err == nil || exitCode(err) != 2 {
		t.Fatalf("error %v (exit %d), want a usage error", err, exitCode(err))
	}
	msg := oneLine(err)
	for _, want := range []string{`rule 0 ("dtf"): match: unknown field "colour"`, `rule 0 ("dtf"): prefix "../dtf": contains a '..' segment`,
		`rule 1: match.type: unknown export type "jpeg"`, `rule 1: prefix "/rush": starts with '/'`} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not name %s", msg, want)
		}
	}
	if strings.Contains(msg, "redis") {
		t.Errorf("%q: the rules must be refused before Redis is tried", msg)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused start created %s", out)
	}

	// Valid rules naming a bucket are refused with a hot folder.
	doc = `{"rules": [{"match": {"product": "mug"}, "bucket": "sublimation"}]}`
	if err := os.WriteFile(rules, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	err = run(context.Background(), args, func(string) string { return "" }, &stdout, &stderr)
	if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "need --storage s3") {
		t.Errorf("bucket with a hot folder: error %v (exit %d)", err, exitCode(err))
	}
}
