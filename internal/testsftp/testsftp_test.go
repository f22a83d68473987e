package testsftp

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func dial(t *testing.T, s *Server, addr string, auth ssh.AuthMethod) (*ssh.Client, error) {
	t.Helper()
	cb, err := knownhosts.New(s.KnownHosts)
	if addr != s.Addr {
		cb, err = knownhosts.New(s.WriteKnownHosts(t, addr, s.HostKey))
	}
	if err != nil {
		t.Fatal(err)
	}
	return ssh.Dial("tcp", addr, &ssh.ClientConfig{User: s.User, Auth: []ssh.AuthMethod{auth}, HostKeyCallback: cb})
}

func userKey(t *testing.T, s *Server) ssh.AuthMethod {
	t.Helper()
	raw, err := os.ReadFile(s.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	return ssh.PublicKeys(signer)
}

// The server takes the user's key, serves SFTP under Root, and refuses passwords.
func TestStartServesSFTP(t *testing.T) {
	s := Start(t)
	c, err := dial(t, s, s.Addr, userKey(t, s))
	if err != nil {
		t.Fatalf("login with the user key: %v", err)
	}
	defer c.Close()
	sc, err := sftp.NewClient(c)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	f, err := sc.Create(filepath.Join(s.Root, "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, "hello"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if b, err := os.ReadFile(filepath.Join(s.Root, "hello.txt")); err != nil || string(b) != "hello" {
		t.Errorf("on disk: %q, %v", b, err)
	}
	if _, ok := sc.HasExtension("posix-rename@openssh.com"); !ok {
		t.Error("no posix-rename@openssh.com: the backend's atomic replace is not tested")
	}

	if c, err := dial(t, s, s.Addr, ssh.Password("anything")); err == nil {
		c.Close()
		t.Error("password login accepted")
	}
}

// A read-only server refuses writes.
func TestReadOnly(t *testing.T) {
	s := Start(t, ReadOnly())
	c, err := dial(t, s, s.Addr, userKey(t, s))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc, err := sftp.NewClient(c)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if _, err := sc.Create(filepath.Join(s.Root, "x")); !os.IsPermission(err) {
		t.Errorf("Create on a read-only server = %v, want permission denied", err)
	}
}

// The proxy relays, and Drop cuts what it relays.
func TestProxyDrop(t *testing.T) {
	s := Start(t)
	p := StartProxy(t, s.Addr)
	c, err := dial(t, s, p.Addr, userKey(t, s))
	if err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	defer c.Close()
	if p.Connections() != 1 {
		t.Errorf("%d connections relayed, want 1", p.Connections())
	}
	p.Drop()
	if err := c.Wait(); err == nil {
		t.Error("connection still up after Drop")
	}
}

// A server with denied requests does not advertise their extensions.
func TestDenyHidesExtensions(t *testing.T) {
	s := Start(t, Deny("posix-rename", "hardlink", "fsync"))
	c, err := dial(t, s, s.Addr, userKey(t, s))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc, err := sftp.NewClient(c)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for _, ext := range []string{"posix-rename@openssh.com", "hardlink@openssh.com", "fsync@openssh.com"} {
		if _, ok := sc.HasExtension(ext); ok {
			t.Errorf("%s still advertised", ext)
		}
	}
}
