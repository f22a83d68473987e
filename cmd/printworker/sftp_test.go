package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/printworker/printworker/internal/testsftp"
	"github.com/printworker/printworker/worker"
)

// The demo's orders go to an SFTP server (a real sshd) as whole orders: every file
// its manifest lists arrives with its bytes, under the folder of --sftp-url, with no
// temporary file left; settings come from the environment as in a container.
func TestDemoSFTP(t *testing.T) {
	// The storage's connection and its goroutines end with the demo.
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	srv := testsftp.Start(t)
	env := map[string]string{
		"PRINTWORKER_STORAGE":          "sftp",
		"PRINTWORKER_SFTP_URL":         srv.URL(srv.Addr) + "/prints",
		"PRINTWORKER_SFTP_KEY_FILE":    srv.KeyFile,
		"PRINTWORKER_SFTP_KNOWN_HOSTS": srv.KnownHosts,
	}
	stdout, stderr, err := runCLI(t, env, "demo", "--timeout", "2m")
	if err != nil {
		t.Fatalf("demo: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stdout, "3 orders, 9 files") || !strings.Contains(stdout, "sftp://") {
		t.Errorf("demo output:\n%s", stdout)
	}
	root := filepath.Join(srv.Root, "prints")
	manifests, _ := filepath.Glob(filepath.Join(root, "demo-store", "*", "*", "manifest.json"))
	if len(manifests) != 3 {
		t.Fatalf("%d manifests on the SFTP server, want 3", len(manifests))
	}
	for _, mp := range manifests {
		b, err := os.ReadFile(mp)
		if err != nil {
			t.Fatal(err)
		}
		var m worker.Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", mp, err)
		}
		for _, f := range m.Files {
			body, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Key)))
			if err != nil {
				t.Errorf("%s lists %s: %v", mp, f.Key, err)
				continue
			}
			sum := sha256.Sum256(body)
			if int64(len(body)) != f.Bytes || hex.EncodeToString(sum[:]) != f.SHA256 {
				t.Errorf("%s: %d bytes on the server, the manifest says %d", f.Key, len(body), f.Bytes)
			}
			if !strings.HasPrefix(f.URL, "sftp://") {
				t.Errorf("%s: link %q, want an sftp:// URL", f.Key, f.URL)
			}
		}
	}
	_ = filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// A password in the SFTP URL is refused at start with a clear reason, and the
// password itself is never repeated.
func TestWorkRefusesSFTPPassword(t *testing.T) {
	dir := t.TempDir()
	args := []string{"work", "--poll-idle", "100ms", "--poll-delayed", "100ms", "--storage-dir", dir, "--metrics-addr", "", "--mode", "download",
		"--hub-url", "http://127.0.0.1:1", "--hub-store", "s", "--hub-api-key", "k", "--hub-secret", "x",
		"--storage", "sftp", "--sftp-url", "sftp://prints:hunter2@rip-pc/hot"}
	_, _, err := runCLI(t, nil, args...)
	if err == nil || exitCode(err) != 2 {
		t.Fatalf("error %v (exit %d), want a usage error", err, exitCode(err))
	}
	msg := oneLine(err)
	for _, want := range []string{"password", "--sftp-key-file", "--sftp-known-hosts"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not mention %s", msg, want)
		}
	}
	if strings.Contains(msg, "hunter2") {
		t.Errorf("%q repeats the password", msg)
	}
}
