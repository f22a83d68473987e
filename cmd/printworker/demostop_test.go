package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/internal/testsftp"
)

// TestDemoStopsWhenEveryTaskFailed: a demo writing to an SFTP server whose host key
// is not the one given fails every export for good (a wrong host key is no passing
// fault); with a --timeout of an hour it stops as soon as no task is left, naming the
// orders without a manifest and the archived task with its reason, rather than
// waiting out the hour. What is checked is the message, not how long it took: the
// test's own context (5 minutes) would end a demo that waited.
func TestDemoStopsWhenEveryTaskFailed(t *testing.T) {
	t.Parallel()
	srv := testsftp.Start(t)
	wrong := testsftp.Start(t) // another server's host key: not srv's
	_, _, err := runCLI(t, nil, "demo", "--out", filepath.Join(t.TempDir(), "o"), "--timeout", "1h",
		"--storage", "sftp", "--sftp-url", "sftp://"+srv.User+"@"+srv.Addr+"/demo", "--sftp-key-file", srv.KeyFile,
		"--sftp-host-key", wrong.Fingerprint, "--retry-base", "10ms", "--retry-max", "50ms")
	if err == nil {
		t.Fatal("the demo succeeded against a server with another host key")
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{"demo: stopped: no manifest for ", "#2001", "no task is left to make one", "failed for good: task ", "host key"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "no manifest after 1h") {
		t.Errorf("the demo waited out its timeout: %q", msg)
	}
}
