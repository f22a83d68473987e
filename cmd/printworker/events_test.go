package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad event and link settings are reported at start, all at once, and the secret
// given never appears in the message or the logs.
func TestWorkRejectsBadEventSettings(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	dir := t.TempDir()
	file := filepath.Join(dir, "events.json")
	if err := os.WriteFile(file, []byte(`{"stores": {"s1": [{"url": "https://erp.example/hooks", "secret": "`+secret+`", "retries": 3}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"invalid url", []string{"--events-url", "erp.example/hooks", "--events-secret-file", secretFile}, []string{"default endpoint 1", "want an absolute http(s) URL"}},
		{"secret not whsec", []string{"--events-url", "https://erp.example/h", "--events-secret", "plain-password"}, []string{`start with "whsec_"`}},
		{"secret without url", []string{"--events-secret-file", secretFile}, []string{"--events-secret is set without --events-url"}},
		{"unknown setting", []string{"--events-file", file}, []string{"--events-file", `unknown field "retries"`}},
		{"link expiry zero", []string{"--s3-link-expiry", "0s"}, []string{"--s3-link-expiry 0s: want a duration above 0"}},
		{"link expiry in the past", []string{"--s3-link-expiry", "-1h"}, []string{"--s3-link-expiry -1h0m0s"}},
		{"link expiry too long", []string{"--s3-link-expiry", "200h"}, []string{"at most 168h"}},
		{"timeouts", []string{"--events-timeout", "0s", "--events-retry-for", "-1m"}, []string{"--events-timeout 0s", "--events-retry-for -1m0s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"work", "--storage-dir", t.TempDir(), "--metrics-addr", "", "--mode", "download",
				"--hub-url", "http://127.0.0.1:1", "--hub-store", "s", "--hub-api-key", "k", "--hub-secret", "x"}, tt.args...)
			var out, errb bytes.Buffer
			err := run(context.Background(), args, func(string) string { return "" }, &out, &errb)
			if err == nil || exitCode(err) != 2 {
				t.Fatalf("error %v (exit %d), want a usage error", err, exitCode(err))
			}
			msg := oneLine(err)
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not say %q", msg, w)
				}
			}
			all := msg + out.String() + errb.String()
			if strings.Contains(all, "MfKQ9r8G") || strings.Contains(all, "plain-password") {
				t.Errorf("a secret appears in the output: %s", all)
			}
		})
	}
}
