package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

func TestWorkRejectsBadSettings(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no store", []string{"--mode", "download"}, "no hub store"},
		{"bad mode", []string{"--hub-store", "s", "--mode", "fax"}, "fax"},
		{"bad store mode", []string{"--hub-store", "s", "--store-mode", "s=print"}, "print"},
		{"bad layout", []string{"--hub-store", "s", "--mode", "download", "--storage-layout", "{nope}/{filename}"}, "unknown variable {nope}"},
		{"bad storage", []string{"--hub-store", "s", "--mode", "download", "--storage", "ftp"}, "ftp"},
		{"bad redis url", []string{"--hub-store", "s", "--mode", "download", "--redis-url", "http://x"}, "--redis-url"},
		{"bad review hold", []string{"--hub-store", "s", "--mode", "download", "--review-hold", "missing-font,blurry"}, `--review-hold: "blurry"`},
		{"none among kinds", []string{"--hub-store", "s", "--mode", "download", "--review-hold", "none,missing-font"}, "none stands alone"},
		{"bad store review hold", []string{"--hub-store", "s", "--mode", "download", "--store-review-hold", "s=missing-font;t=blurry"}, `"blurry"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"work", "--poll-idle", "100ms", "--poll-delayed", "100ms", "--storage-dir", dir, "--metrics-addr", "",
				"--hub-url", "http://127.0.0.1:1", "--hub-api-key", "k", "--hub-secret", "x"}, c.args...)
			var out, errb bytes.Buffer
			err := run(context.Background(), args, func(string) string { return "" }, &out, &errb)
			if err == nil || !strings.Contains(err.Error(), c.want) || exitCode(err) != 2 {
				t.Errorf("error %v (exit %d), want a usage error naming %q", err, exitCode(err), c.want)
			}
		})
	}
	// The environment fills what the command line leaves out.
	env := map[string]string{"PRINTWORKER_MODE": "fax", "PRINTWORKER_HUB_STORE": "s"}
	err := run(context.Background(), []string{"work"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "fax") {
		t.Errorf("PRINTWORKER_MODE not read: %v", err)
	}
}
