// Package testsftp gives tests a real, private OpenSSH SFTP server.
//
// Start runs the system's sshd (Debian openssh-server) on a free loopback port with
// throwaway host and user keys, serving SFTP (internal-sftp) to the current user. The
// storage suite runs the SFTP backend against it and reads what it stored straight
// from the local folder the server writes to. Without sshd the tests are skipped,
// except under CI (CI=true), where they fail: CI must test the real thing.
// PRINTWORKER_TEST_SSHD names another sshd binary.
package testsftp

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/printworker/printworker/internal/testnet"
	"github.com/printworker/printworker/storage"
)

// Server is a running sshd for one test.
type Server struct {
	// Addr is the server's 127.0.0.1:port.
	Addr string
	// Root is the folder the backend stores under, on this machine: tests read what
	// the server wrote without SFTP.
	Root string
	// User is the login (the current user); KeyFile its private key, authorized on
	// the server.
	User, KeyFile string
	// KnownHosts is a known_hosts file holding the server's host key for Addr.
	KnownHosts string
	// HostKey is the server's host key; Fingerprint its SHA256 fingerprint.
	HostKey     ssh.PublicKey
	Fingerprint string

	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
	stderr *syncBuffer
}

// Option configures Start.
type Option func(*options)

type options struct {
	readOnly bool
	deny     []string
}

// Deny makes the server refuse these SFTP requests (internal-sftp -P; the list is
// sftp-server -Q requests) and stop advertising the matching extensions, as a server
// that lacks them: Deny("posix-rename", "hardlink", "fsync", "fsetstat") is a plain
// SFTP v3 server.
func Deny(requests ...string) Option {
	return func(o *options) { o.deny = append(o.deny, requests...) }
}

// ReadOnly serves SFTP read-only (internal-sftp -R): every write is refused with
// "permission denied", as on a partner's server where the user may not write.
func ReadOnly() Option { return func(o *options) { o.readOnly = true } }

// URL is the sftp:// URL of Root through addr (Addr, or a proxy in front of it).
func (s *Server) URL(addr string) string {
	return "sftp://" + s.User + "@" + addr + s.Root
}

// Config is a ready backend configuration for Root, checked with KnownHosts.
func (s *Server) Config() storage.SFTPConfig {
	return storage.SFTPConfig{URL: s.URL(s.Addr), KeyFile: s.KeyFile, KnownHosts: s.KnownHosts}
}

// ConfigVia is Config reaching the server through addr (a Proxy in front of it),
// with a known_hosts file listing the server's key for addr.
func (s *Server) ConfigVia(t testing.TB, addr string) storage.SFTPConfig {
	return storage.SFTPConfig{URL: s.URL(addr), KeyFile: s.KeyFile, KnownHosts: s.WriteKnownHosts(t, addr, s.HostKey)}
}

// Log is what sshd wrote to its stderr so far.
func (s *Server) Log() string { return s.stderr.String() }

// Binary returns the sshd to run, or "" when none is installed.
func Binary() string {
	if b := os.Getenv("PRINTWORKER_TEST_SSHD"); b != "" {
		return b
	}
	for _, b := range []string{"/usr/sbin/sshd", "/usr/local/sbin/sshd"} {
		if st, err := os.Stat(b); err == nil && !st.IsDir() {
			return b
		}
	}
	if b, err := exec.LookPath("sshd"); err == nil {
		return b
	}
	return ""
}

// Start returns a private sshd that lives until the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var o options
	for _, f := range opts {
		f(&o)
	}
	bin := Binary()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("testsftp: sshd not installed (Debian openssh-server); CI must run the SFTP tests")
		}
		t.Skip("testsftp: sshd not installed (Debian openssh-server, or set PRINTWORKER_TEST_SSHD)")
	}
	u, err := user.Current()
	if err != nil {
		t.Fatalf("testsftp: current user: %v", err)
	}
	dir := t.TempDir()
	s := &Server{dir: dir, Root: filepath.Join(dir, "root"), User: u.Username, stderr: &syncBuffer{}}
	if err := os.MkdirAll(s.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	hostPub := writeKey(t, filepath.Join(dir, "host_ed25519"))
	s.HostKey = hostPub
	s.Fingerprint = ssh.FingerprintSHA256(hostPub)
	s.KeyFile = filepath.Join(dir, "user_ed25519")
	userPub := writeKey(t, s.KeyFile)
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), ssh.MarshalAuthorizedKey(userPub), 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// sshd's privilege separation needs its folder; a Debian install makes it at
		// boot, a fresh container may not have it yet.
		_ = os.MkdirAll("/run/sshd", 0o755)
	}
	subsystem := "internal-sftp"
	if o.readOnly {
		subsystem += " -R"
	}
	if len(o.deny) > 0 {
		subsystem += " -P " + strings.Join(o.deny, ",")
	}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := testnet.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		cfg := strings.Join([]string{
			"Port " + strconv.Itoa(port),
			"ListenAddress 127.0.0.1",
			"HostKey " + filepath.Join(dir, "host_ed25519"),
			"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
			"PidFile " + filepath.Join(dir, "sshd.pid"),
			"Subsystem sftp " + subsystem,
			"PermitRootLogin prohibit-password", // tests may run as root
			"PubkeyAuthentication yes",
			"PasswordAuthentication no",
			"KbdInteractiveAuthentication no",
			"UsePAM no",
			"StrictModes no", // the temp folder's modes are not sshd's business here
			"UseDNS no",
			"MaxStartups 100",
			"LogLevel ERROR",
		}, "\n") + "\n"
		cfgPath := filepath.Join(dir, "sshd_config")
		if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-D", "-e", "-f", cfgPath)
		cmd.Stderr = s.stderr
		// A killed sshd leaves its per-connection processes until their clients hang
		// up, and they hold its stderr: do not wait for them.
		cmd.WaitDelay = 2 * time.Second
		if err := cmd.Start(); err != nil {
			t.Fatalf("testsftp: %s: %v", bin, err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		if waitBanner(s.Addr, exited, 10*time.Second) {
			s.cmd, s.exited = cmd, exited
			break
		}
		_ = cmd.Process.Kill()
		<-exited
		lastErr = fmt.Errorf("sshd on %s did not become ready: %s", s.Addr, s.Log())
	}
	if s.cmd == nil {
		t.Fatalf("testsftp: %v", lastErr)
	}
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-s.exited
		if t.Failed() && s.Log() != "" {
			t.Logf("sshd log:\n%s", s.Log())
		}
	})
	s.KnownHosts = s.WriteKnownHosts(t, s.Addr, s.HostKey)
	return s
}

// WriteKnownHosts writes a known_hosts file listing key for addr and returns its path.
func (s *Server) WriteKnownHosts(t testing.TB, addr string, key ssh.PublicKey) string {
	t.Helper()
	f, err := os.CreateTemp(s.dir, "known_hosts-*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, knownhosts.Line([]string{knownhosts.Normalize(addr)}, key)); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// NewKey writes a fresh ed25519 private key (OpenSSH format) the server does not know
// and returns its path and public key.
func (s *Server) NewKey(t testing.TB) (string, ssh.PublicKey) {
	t.Helper()
	f, err := os.CreateTemp(s.dir, "key-*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	return f.Name(), writeKey(t, f.Name())
}

// writeKey writes a new ed25519 private key in OpenSSH format (0600) to p.
func writeKey(t testing.TB, p string) ssh.PublicKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "printworker test")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// waitBanner waits until addr sends an SSH version line, or the server exits.
func waitBanner(addr string, exited <-chan struct{}, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			_ = c.SetDeadline(time.Now().Add(2 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "SSH-2.0-") {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// syncBuffer collects sshd's stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Proxy is a TCP relay in front of a server whose connections a test can cut, as a
// network failure would.
type Proxy struct {
	Addr string
	ln   net.Listener
	to   string

	mu    sync.Mutex
	cond  *sync.Cond // signalled when held ends
	held  bool
	conns []net.Conn
	n     int
}

// StartProxy relays 127.0.0.1:<free port> to addr until the test ends.
func StartProxy(t testing.TB, addr string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), ln: ln, to: addr}
	p.cond = sync.NewCond(&p.mu)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.relay(c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		p.Release()
		p.Drop()
	})
	return p
}

func (p *Proxy) relay(c net.Conn) {
	up, err := net.Dial("tcp", p.to)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, c, up)
	p.n++
	p.mu.Unlock()
	go func() { p.pipe(up, c); up.Close() }()
	p.pipe(c, up)
	c.Close()
}

// pipe copies src to dst, holding each chunk while the proxy is held.
func (p *Proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			for p.held {
				p.cond.Wait()
			}
			p.mu.Unlock()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Hold stops relaying without closing anything, as a network that silently loses
// every packet: both ends wait. Release (or Drop) ends it.
func (p *Proxy) Hold() {
	p.mu.Lock()
	p.held = true
	p.mu.Unlock()
}

// Release relays again what Hold held.
func (p *Proxy) Release() {
	p.mu.Lock()
	p.held = false
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Drop cuts every connection open through the proxy (and ends a Hold); new ones are
// still accepted.
func (p *Proxy) Drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held = false
	p.cond.Broadcast()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Connections is how many connections the proxy has relayed.
func (p *Proxy) Connections() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}
