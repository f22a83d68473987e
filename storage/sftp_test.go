package storage_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/printworker/printworker/internal/testsftp"
	"github.com/printworker/printworker/storage"
)

// TestConformanceSFTP runs the storage suite against a real OpenSSH sshd; what the
// backend stored is read from the folder the server writes to, without SFTP.
func TestConformanceSFTP(t *testing.T) {
	srv := testsftp.Start(t)
	runConformance(t, folderBackend("sftp", srv.Root, func(t *testing.T) Store {
		return openSFTP(t, srv.Config())
	}))
}

// The suite again against a server without OpenSSH's extensions (posix-rename,
// hardlink, fsync) and refusing to set modes: the backend falls back to SFTP v3's own
// rename and keeps every guarantee the suite checks.
func TestConformanceSFTPWithoutExtensions(t *testing.T) {
	srv := testsftp.Start(t, testsftp.Deny("posix-rename", "hardlink", "fsync", "fsetstat", "setstat"))
	runConformance(t, folderBackend("sftp-v3", srv.Root, func(t *testing.T) Store {
		return openSFTP(t, srv.Config())
	}))
}

func openSFTP(t *testing.T, cfg storage.SFTPConfig) *storage.SFTP {
	t.Helper()
	st, err := storage.NewSFTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// files lists every file under root, hidden ones included.
func files(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSFTPConnectionDroppedMidUpload(t *testing.T) {
	srv := testsftp.Start(t)
	proxy := testsftp.StartProxy(t, srv.Addr)
	st := openSFTP(t, srv.ConfigVia(t, proxy.Addr))
	ctx := context.Background()

	const size = 8 << 20
	key := "shop/2024-01-02/1001/big.pdf"
	put(t, st, "shop/2024-01-02/1001/first.png", []byte("connection is up"))
	body := newGenerator(size, 4)
	dropped := false
	final := filepath.Join(srv.Root, filepath.FromSlash(key))
	body.onRead = func(consumed int64) {
		if consumed >= 3<<20 && !dropped {
			dropped = true
			// Mid-upload, the bytes go to a hidden name; the final name is not there.
			if _, err := os.Stat(final); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("final name during the upload: %v, want absent", err)
			}
			if tmp, _ := filepath.Glob(filepath.Join(filepath.Dir(final), ".tmp-big.pdf-*.part")); len(tmp) != 1 {
				t.Errorf("temporary files during the upload: %q, want one", tmp)
			}
			proxy.Drop() // the network fails with most of the file still to send
		}
	}
	_, err := st.Put(ctx, storage.Object{Key: key, Size: size}, body)
	if err == nil {
		t.Fatal("Put succeeded over a dropped connection")
	}
	t.Logf("dropped upload: %v", err)
	if !retryable(err) {
		t.Errorf("a dropped connection should be retryable: %v", err)
	}
	if _, err := os.Stat(final); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("final name after a dropped upload: %v, want absent", err)
	}
	for _, f := range files(t, srv.Root) {
		if strings.Contains(f, ".tmp-") {
			t.Errorf("temporary file %s left behind (it is removed over a new connection)", f)
		}
	}

	// The job's retry: the same store dials again and succeeds.
	res, err := st.Put(ctx, storage.Object{Key: key, Size: size}, newGenerator(size, 4))
	if err != nil {
		t.Fatalf("retry after the drop: %v", err)
	}
	got, err := os.ReadFile(filepath.Join(srv.Root, filepath.FromSlash(key)))
	if err != nil || sha(got) != res.SHA256 || res.SHA256 != newGenerator(size, 4).sum(t) {
		t.Fatalf("stored after retry: %d bytes, %v", len(got), err)
	}
	if n := proxy.Connections(); n < 2 {
		t.Errorf("%d connections through the proxy, want a new one after the drop", n)
	}
}

func TestSFTPHostKeyRefused(t *testing.T) {
	srv := testsftp.Start(t)
	_, otherKey := srv.NewKey(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		cfg  func() storage.SFTPConfig
		want string
	}{
		{"mismatch in known_hosts", func() storage.SFTPConfig {
			c := srv.Config()
			c.KnownHosts = srv.WriteKnownHosts(t, srv.Addr, otherKey)
			return c
		}, "differs"},
		{"host not in known_hosts", func() storage.SFTPConfig {
			c := srv.Config()
			c.KnownHosts = srv.WriteKnownHosts(t, "127.0.0.2:22", srv.HostKey)
			return c
		}, "is not in"},
		{"wrong pinned fingerprint", func() storage.SFTPConfig {
			c := srv.Config()
			c.KnownHosts = ""
			c.HostKey = "SHA256:" + strings.Repeat("A", 43)
			return c
		}, "not the pinned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openSFTP(t, tc.cfg())
			_, err := st.Put(ctx, storage.Object{Key: "refused/x.png"}, strings.NewReader("secret print"))
			if !errors.Is(err, storage.ErrHostKey) || retryable(err) {
				t.Fatalf("Put = %v, want a permanent ErrHostKey", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if _, err := st.Stat(ctx, "refused/x.png"); !errors.Is(err, storage.ErrHostKey) {
				t.Errorf("Stat = %v, want ErrHostKey", err)
			}
			if f := files(t, srv.Root); len(f) != 0 {
				t.Errorf("files on the refused server: %q", f)
			}
		})
	}
	t.Run("right pinned fingerprint", func(t *testing.T) {
		c := srv.Config()
		c.KnownHosts, c.HostKey = "", srv.Fingerprint
		put(t, openSFTP(t, c), "pinned/x.png", []byte("ok"))
	})
}

func TestSFTPErrorClasses(t *testing.T) {
	srv := testsftp.Start(t)
	ctx := context.Background()
	closedPort := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return addr
	}()
	// A server that accepts and never speaks: the dial timeout ends the wait.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	wrongKey, _ := srv.NewKey(t)

	for _, tc := range []struct {
		name  string
		cfg   func(c *storage.SFTPConfig)
		retry bool
		is    error
	}{
		{"unknown user key", func(c *storage.SFTPConfig) { c.KeyFile = wrongKey }, false, storage.ErrAuth},
		{"connection refused", func(c *storage.SFTPConfig) { *c = srv.ConfigVia(t, closedPort) }, true, nil},
		{"silent server", func(c *storage.SFTPConfig) {
			*c = srv.ConfigVia(t, silent.Addr().String())
			c.DialTimeout = 300 * time.Millisecond
		}, true, nil},
		{"folder cannot be created (a file is in the way)", func(c *storage.SFTPConfig) {
			c.URL = "sftp://" + srv.User + "@" + srv.Addr + file + "/prints"
		}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := srv.Config()
			tc.cfg(&cfg)
			st := openSFTP(t, cfg)
			_, err := st.Put(ctx, storage.Object{Key: "k/x.png"}, strings.NewReader("x"))
			if err == nil {
				t.Fatal("Put succeeded")
			}
			t.Logf("Put: %v", err)
			if retryable(err) != tc.retry {
				t.Errorf("Retryable = %v, want %v: %v", retryable(err), tc.retry, err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("Put = %v, want %v", err, tc.is)
			}
		})
	}

	t.Run("read-only server: permission denied", func(t *testing.T) {
		ro := testsftp.Start(t, testsftp.ReadOnly())
		st := openSFTP(t, ro.Config())
		_, err := st.Put(ctx, storage.Object{Key: "k/x.png"}, strings.NewReader("x"))
		if err == nil || retryable(err) || !errors.Is(err, os.ErrPermission) {
			t.Errorf("Put = %v, want a permanent permission error", err)
		}
		if f := files(t, ro.Root); len(f) != 0 {
			t.Errorf("files on the read-only server: %q", f)
		}
	})

	t.Run("server restarted between calls", func(t *testing.T) {
		proxy := testsftp.StartProxy(t, srv.Addr)
		st := openSFTP(t, srv.ConfigVia(t, proxy.Addr))
		put(t, st, "restart/a.png", []byte("a"))
		proxy.Drop() // an idle connection dies
		rc, _, err := st.Get(ctx, "restart/a.png")
		if err == nil {
			// The first call may still see the dead connection; it must then say so
			// as retryable, and the next one reconnect.
			rc.Close()
		} else if !retryable(err) {
			t.Fatalf("Get over a dead connection = %v, want retryable", err)
		}
		rc, _, err = st.Get(ctx, "restart/a.png")
		if err != nil {
			t.Fatalf("Get after reconnect: %v", err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		if string(got) != "a" {
			t.Errorf("got %q", got)
		}
	})
}

// A connection that stops answering without closing (a cable pulled, a NAT that
// forgot it) does not hold a call forever: the keep-alive, or the call's context,
// ends it as retryable, and the next call connects again.
func TestSFTPSilentConnection(t *testing.T) {
	srv := testsftp.Start(t)
	ctx := context.Background()
	const key = "silent/a.png"
	for _, tc := range []struct {
		name      string
		keepAlive time.Duration
		timeout   time.Duration
		is        error
	}{
		{"keep-alive unanswered", 100 * time.Millisecond, 0, nil},
		{"context ends", -1, 100 * time.Millisecond, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := testsftp.StartProxy(t, srv.Addr)
			cfg := srv.ConfigVia(t, proxy.Addr)
			cfg.KeepAlive = tc.keepAlive
			st := openSFTP(t, cfg)
			put(t, st, key, []byte("a"))
			proxy.Hold()
			cctx := ctx
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				cctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			_, err := st.Stat(cctx, key)
			t.Logf("Stat over a silent connection: %v", err)
			if err == nil || !retryable(err) {
				t.Errorf("Stat = %v, want a retryable error", err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("Stat = %v, want %v", err, tc.is)
			}
			proxy.Release()
			if _, err := st.Stat(ctx, key); err != nil {
				t.Errorf("Stat after the network came back: %v", err)
			}
			if n := proxy.Connections(); n != 2 {
				t.Errorf("%d connections, want 2 (the silent one, then a new one)", n)
			}
		})
	}
}

// Concurrent calls share one SSH connection, opened once.
func TestSFTPConcurrentPutsShareOneConnection(t *testing.T) {
	srv := testsftp.Start(t)
	proxy := testsftp.StartProxy(t, srv.Addr)
	st := openSFTP(t, srv.ConfigVia(t, proxy.Addr))
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			size := int64(1<<20 + i)
			key := fmt.Sprintf("many/%d.bin", i)
			res, err := st.Put(ctx, storage.Object{Key: key, Size: size}, newGenerator(size, byte(i)))
			if err != nil {
				t.Errorf("Put %s: %v", key, err)
				return
			}
			got, err := os.ReadFile(filepath.Join(srv.Root, "many", fmt.Sprintf("%d.bin", i)))
			if err != nil || sha(got) != res.SHA256 || int64(len(got)) != size {
				t.Errorf("%s on the server: %d bytes, %v", key, len(got), err)
			}
		})
	}
	wg.Wait()
	if n := proxy.Connections(); n != 1 {
		t.Errorf("%d SSH connections for 8 concurrent uploads, want 1", n)
	}
}

func TestSFTPConfigValidate(t *testing.T) {
	t.Parallel()
	ok := storage.SFTPConfig{URL: "sftp://prints@rip-pc.local:2222/srv/hot", KeyFile: "/k", KnownHosts: "/kh"}
	for _, tc := range []struct {
		name   string
		mutate func(c *storage.SFTPConfig)
		want   string // "" valid
	}{
		{"valid", func(*storage.SFTPConfig) {}, ""},
		{"default port", func(c *storage.SFTPConfig) { c.URL = "sftp://prints@rip-pc/hot" }, ""},
		{"login folder", func(c *storage.SFTPConfig) { c.URL = "sftp://prints@rip-pc/~/hot" }, ""},
		{"ipv6", func(c *storage.SFTPConfig) { c.URL = "sftp://prints@[::1]:22/hot" }, ""},
		{"pinned key", func(c *storage.SFTPConfig) {
			c.KnownHosts, c.HostKey = "", "SHA256:"+strings.Repeat("x", 43)
		}, ""},
		{"password in URL", func(c *storage.SFTPConfig) { c.URL = "sftp://prints:hunter2@rip-pc/hot" }, "password"},
		{"empty password in URL", func(c *storage.SFTPConfig) { c.URL = "sftp://prints:@rip-pc/hot" }, "password"},
		{"no user", func(c *storage.SFTPConfig) { c.URL = "sftp://rip-pc/hot" }, "no user"},
		{"no host", func(c *storage.SFTPConfig) { c.URL = "sftp://prints@/hot" }, "no host"},
		{"other scheme", func(c *storage.SFTPConfig) { c.URL = "ftp://prints@rip-pc/hot" }, "scheme"},
		{"bad port", func(c *storage.SFTPConfig) { c.URL = "sftp://prints@rip-pc:99999/hot" }, "port"},
		{"query", func(c *storage.SFTPConfig) { c.URL = "sftp://prints@rip-pc/hot?x=1" }, "query"},
		{"dot-dot", func(c *storage.SFTPConfig) { c.URL = "sftp://prints@rip-pc/hot/../etc" }, "relative"},
		{"no URL", func(c *storage.SFTPConfig) { c.URL = "" }, "required"},
		{"no key file", func(c *storage.SFTPConfig) { c.KeyFile = "" }, "key file"},
		{"no host key", func(c *storage.SFTPConfig) { c.KnownHosts = "" }, "known_hosts"},
		{"both host keys", func(c *storage.SFTPConfig) { c.HostKey = "SHA256:" + strings.Repeat("x", 43) }, "not both"},
		{"bad fingerprint", func(c *storage.SFTPConfig) { c.KnownHosts, c.HostKey = "", "MD5:aa:bb" }, "fingerprint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.mutate(&c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate = %v, want an error about %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
	// Every problem at once.
	err := storage.SFTPConfig{URL: "sftp://a:b@h/x"}.Validate()
	for _, want := range []string{"password", "key file", "known_hosts"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate of a bad config = %v, want %q among the problems", err, want)
		}
	}
}

func TestNewSFTPKeyFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	kh := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(kh, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, key, kh string }{
		{"missing key file", filepath.Join(dir, "none"), kh},
		{"not a key", garbage, kh},
	} {
		_, err := storage.NewSFTP(storage.SFTPConfig{URL: "sftp://u@h/x", KeyFile: tc.key, KnownHosts: tc.kh})
		if err == nil || retryable(err) {
			t.Errorf("%s: NewSFTP = %v, want a permanent error", tc.name, err)
		}
	}
}

func TestSFTPDescribeAndURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	kh := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(kh, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	srvKey := writeTestKey(t, dir)
	st, err := storage.NewSFTP(storage.SFTPConfig{URL: "sftp://prints@rip-pc:2222/srv/hot", KeyFile: srvKey, KnownHosts: kh})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := st.Describe(), "sftp://prints@rip-pc:2222/srv/hot"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if got, want := st.URL("a/Café 1.png"), "sftp://prints@rip-pc:2222/srv/hot/a/Caf%C3%A9%201.png"; got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}
}

// writeTestKey writes a fresh unencrypted ed25519 key (OpenSSH format) for NewSFTP.
func writeTestKey(t *testing.T, dir string) string {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(p, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func FuzzSFTPConfigValidate(f *testing.F) {
	for _, s := range []string{
		"sftp://prints@rip-pc:2222/srv/hot", "sftp://a:b@h/x", "sftp://u@h/~/x", "sftp://u@[::1]/x",
		"sftp://u@h:0/x", "sftp://u@h/%2e%2e/x", "sftp://u@h/a\x00b", "sftp://%zz@h/x", "sftp:opaque",
		"sftp://u@h/" + strings.Repeat("a/", 500), "sftp://u@h:22:22/x", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c := storage.SFTPConfig{URL: raw, KeyFile: "/k", KnownHosts: "/kh"}
		err := c.Validate()
		if err == nil {
			// A valid URL names a user and a host, and no password.
			u, perr := url.Parse(raw)
			if perr != nil || u.User == nil || u.User.Username() == "" || u.Hostname() == "" {
				t.Errorf("accepted %q without a user and host", raw)
			} else if _, has := u.User.Password(); has {
				t.Errorf("accepted %q with a password", raw)
			}
			st, err := storage.NewSFTP(c)
			if err == nil {
				t.Errorf("NewSFTP(%q) without key files succeeded", raw)
				st.Close()
			}
		}
	})
}
