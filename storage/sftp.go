package storage

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Defaults of SFTPConfig.
const (
	DefaultSFTPDialTimeout = 15 * time.Second
	DefaultSFTPKeepAlive   = 30 * time.Second
)

// ErrHostKey is wrapped when the SFTP server's host key is unknown, does not match
// the known_hosts file or the pinned fingerprint, or is revoked. It is permanent:
// nothing is sent to such a server.
var ErrHostKey = errors.New("sftp host key not accepted")

// ErrAuth is wrapped when the SFTP server refuses the user's key. It is permanent.
var ErrAuth = errors.New("sftp authentication failed")

// SFTPConfig configures the SFTP backend.
type SFTPConfig struct {
	// URL is sftp://user@host[:port]/path: the folder objects go under. The path is
	// absolute on the server ("/srv/prints"); "/~/prints" is relative to the user's
	// login folder. A password in the URL is refused: authentication is by key.
	URL string
	// KeyFile is the user's private key (OpenSSH or PEM format, unencrypted).
	KeyFile string
	// KnownHosts is a known_hosts file holding the server's host key (ssh-keyscan
	// output, or the client's ~/.ssh/known_hosts). A server whose key is not in it, or
	// differs from it, is refused.
	KnownHosts string
	// HostKey pins the server's host key by its SHA256 fingerprint, as ssh-keygen -l
	// prints it ("SHA256:..."), instead of a known_hosts file.
	HostKey string
	// DialTimeout bounds connecting, the SSH handshake and authentication;
	// DefaultSFTPDialTimeout when 0.
	DialTimeout time.Duration
	// KeepAlive is how often an idle connection is probed; a connection that does
	// not answer within the same interval is closed, which fails its pending
	// operations as retryable. DefaultSFTPKeepAlive when 0; negative disables it.
	KeepAlive time.Duration
}

// sftpTarget is a parsed SFTPConfig.URL.
type sftpTarget struct {
	user, host, port string
	root             string // absolute, or "~/..." for the login folder
}

func (t sftpTarget) addr() string { return net.JoinHostPort(t.host, t.port) }

// ParseSFTPURL checks an sftp:// URL and returns its user, host:port and folder.
func parseSFTPURL(raw string) (sftpTarget, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse quotes the whole URL, password included: say what is wrong only.
		return sftpTarget{}, errors.New("sftp URL is not a valid URL: want sftp://user@host[:port]/path")
	}
	if u.Scheme != "sftp" {
		return sftpTarget{}, fmt.Errorf("sftp URL: scheme %q: want sftp://user@host[:port]/path", u.Scheme)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return sftpTarget{}, errors.New("sftp URL carries a password: passwords are never accepted in a URL; authenticate with a key file (--sftp-key-file)")
		}
	}
	if u.User == nil || u.User.Username() == "" {
		return sftpTarget{}, errors.New("sftp URL names no user: want sftp://user@host[:port]/path")
	}
	if u.Hostname() == "" {
		return sftpTarget{}, errors.New("sftp URL names no host: want sftp://user@host[:port]/path")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return sftpTarget{}, errors.New("sftp URL: a query or fragment is not allowed: want sftp://user@host[:port]/path")
	}
	port := u.Port()
	if port == "" {
		port = "22"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return sftpTarget{}, fmt.Errorf("sftp URL: port %q is not a port number", port)
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	for _, seg := range strings.Split(strings.Trim(p, "/"), "/") {
		if seg == ".." || seg == "." {
			return sftpTarget{}, fmt.Errorf("sftp URL: path %q has a relative segment", p)
		}
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || r == '\\' {
			return sftpTarget{}, fmt.Errorf("sftp URL: path %q has a control character or backslash", p)
		}
	}
	root := path.Clean(p)
	if root == "/~" || strings.HasPrefix(root, "/~/") {
		root = root[1:] // relative to the login folder, resolved at connection
	}
	return sftpTarget{user: u.User.Username(), host: u.Hostname(), port: port, root: root}, nil
}

// Validate reports every bad value at once.
func (c SFTPConfig) Validate() error {
	var errs []error
	if c.URL == "" {
		errs = append(errs, errors.New("sftp URL is required: sftp://user@host[:port]/path"))
	} else if _, err := parseSFTPURL(c.URL); err != nil {
		errs = append(errs, err)
	}
	if c.KeyFile == "" {
		errs = append(errs, errors.New("sftp key file is required (--sftp-key-file): the user's private key"))
	}
	switch {
	case c.KnownHosts == "" && c.HostKey == "":
		errs = append(errs, errors.New("sftp needs the server's host key: a known_hosts file (--sftp-known-hosts, e.g. from ssh-keyscan) or its SHA256 fingerprint (--sftp-host-key)"))
	case c.KnownHosts != "" && c.HostKey != "":
		errs = append(errs, errors.New("sftp: give a known_hosts file or a pinned host key fingerprint, not both"))
	case c.HostKey != "" && !validFingerprint(c.HostKey):
		errs = append(errs, fmt.Errorf("sftp host key %q: want a SHA256 fingerprint as ssh-keygen -l prints it (SHA256:...)", c.HostKey))
	}
	if c.DialTimeout < 0 {
		errs = append(errs, fmt.Errorf("sftp dial timeout %s is negative", c.DialTimeout))
	}
	return errors.Join(errs...)
}

func validFingerprint(f string) bool {
	rest, ok := strings.CutPrefix(f, "SHA256:")
	return ok && len(rest) == 43 && !strings.ContainsAny(rest, " =")
}

// SFTP stores objects as files on an SFTP server, below the folder of its URL.
//
// It keeps the guarantees of Dir: Put streams the body to a hidden temporary file
// (".tmp-<name>-<random>.part") in the destination folder, syncs it (fsync@openssh.com
// where offered) and renames it over the final name with posix-rename@openssh.com,
// so the final name holds the previous complete file or the new complete file, never
// a partial one. A create-only Put links the temporary file to the final name
// (hardlink@openssh.com, else the plain SFTP rename, which refuses an existing
// target). Metadata lives in JSON sidecars under "<root>/.printworker-meta", exactly
// as in Dir, so a folder written by either backend reads the same.
//
// One SSH connection is shared by all calls and redialled when it fails. NewSFTP does
// not contact the server: a worker starts while the server is down and its jobs
// retry.
type SFTP struct {
	cfg    SFTPConfig
	target sftpTarget
	signer ssh.Signer
	hostCB ssh.HostKeyCallback
	algos  []string // host key algorithms the known_hosts file has for the server

	mu   sync.Mutex
	conn *sftpConn // nil until the first call, or after a failure
	// dialCtx is the SFTP's own lifetime: Close ends it.
	closed bool
}

// sftpConn is one SSH connection and its SFTP session.
type sftpConn struct {
	ssh  *ssh.Client
	c    *sftp.Client
	root string        // the absolute root folder
	dead chan struct{} // closed when the connection ends, whoever ends it
	once sync.Once
	// why the connection was ended from this side, for the errors of the calls it
	// fails (nil: the peer or the network ended it)
	why atomic.Pointer[string]
}

// closeFor ends the connection and says why.
func (c *sftpConn) closeFor(why string) {
	c.why.CompareAndSwap(nil, &why)
	c.close()
}

func (c *sftpConn) close() {
	c.once.Do(func() {
		close(c.dead)
		// The SSH connection first: closing the SFTP session waits for its reader,
		// which only a closed connection releases when the peer is silent.
		c.ssh.Close()
		c.c.Close()
	})
}

func (c *sftpConn) alive() bool {
	select {
	case <-c.dead:
		return false
	default:
		return true
	}
}

// NewSFTP checks cfg and loads the key and known_hosts files; it does not connect.
func NewSFTP(cfg SFTPConfig) (*SFTP, error) {
	if err := cfg.Validate(); err != nil {
		return nil, permanent("open", "", err)
	}
	if cfg.DialTimeout == 0 {
		cfg.DialTimeout = DefaultSFTPDialTimeout
	}
	if cfg.KeepAlive == 0 {
		cfg.KeepAlive = DefaultSFTPKeepAlive
	}
	t, _ := parseSFTPURL(cfg.URL)
	s := &SFTP{cfg: cfg, target: t}
	raw, err := os.ReadFile(cfg.KeyFile)
	if err != nil {
		return nil, permanent("open", "", fmt.Errorf("sftp key file: %w", err))
	}
	s.signer, err = ssh.ParsePrivateKey(raw)
	if err != nil {
		var pm *ssh.PassphraseMissingError
		if errors.As(err, &pm) {
			return nil, permanent("open", "", fmt.Errorf("sftp key file %s is protected by a passphrase: give printworker a key without one (readable by its user only)", cfg.KeyFile))
		}
		return nil, permanent("open", "", fmt.Errorf("sftp key file %s: %w", cfg.KeyFile, err))
	}
	if cfg.HostKey != "" {
		want := cfg.HostKey
		s.hostCB = func(_ string, _ net.Addr, key ssh.PublicKey) error {
			if got := ssh.FingerprintSHA256(key); got != want {
				return fmt.Errorf("%w: the server's %s key is %s, not the pinned %s", ErrHostKey, key.Type(), got, want)
			}
			return nil
		}
		return s, nil
	}
	cb, err := knownhosts.New(cfg.KnownHosts)
	if err != nil {
		return nil, permanent("open", "", fmt.Errorf("sftp known_hosts: %w", err))
	}
	addr := t.addr()
	s.algos = hostKeyAlgorithms(cb, addr)
	s.hostCB = func(host string, remote net.Addr, key ssh.PublicKey) error {
		err := cb(host, remote, key)
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ke) && len(ke.Want) == 0:
			return fmt.Errorf("%w: %s is not in %s (add its key, e.g. ssh-keyscan -p %s %s >> %s, after checking it)",
				ErrHostKey, knownhosts.Normalize(addr), cfg.KnownHosts, t.port, t.host, cfg.KnownHosts)
		case errors.As(err, &ke):
			return fmt.Errorf("%w: the %s key of %s (%s) differs from the one in %s: the server was replaced or someone is in between",
				ErrHostKey, key.Type(), knownhosts.Normalize(addr), ssh.FingerprintSHA256(key), cfg.KnownHosts)
		case errors.As(err, &re):
			return fmt.Errorf("%w: the key of %s is revoked in %s", ErrHostKey, knownhosts.Normalize(addr), cfg.KnownHosts)
		}
		return fmt.Errorf("%w: %w", ErrHostKey, err)
	}
	return s, nil
}

// hostKeyAlgorithms lists the algorithms of the keys known_hosts holds for addr, so
// the server is asked for a key that can be checked (a server with RSA, ECDSA and
// Ed25519 keys would otherwise offer the first the client prefers, which known_hosts
// may not list). Nil (the library's default order) when none are known.
func hostKeyAlgorithms(cb ssh.HostKeyCallback, addr string) []string {
	// Asking about a key no file holds makes the callback list the known ones.
	probe, err := ssh.NewPublicKey(make([]byte, 32)) // ed25519, all zero
	if err != nil {
		return nil
	}
	var ke *knownhosts.KeyError
	if err := cb(addr, &net.TCPAddr{IP: net.IPv4zero}, probe); !errors.As(err, &ke) {
		return nil
	}
	var out []string
	add := func(a ...string) {
		for _, x := range a {
			if !containsString(out, x) {
				out = append(out, x)
			}
		}
	}
	for _, k := range ke.Want {
		switch t := k.Key.Type(); t {
		case ssh.KeyAlgoRSA:
			add(ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
		default:
			add(t)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Describe names the backend for logs (no secrets: the URL holds none).
func (s *SFTP) Describe() string {
	return "sftp://" + s.target.user + "@" + s.target.addr() + s.displayRoot()
}

func (s *SFTP) displayRoot() string {
	if strings.HasPrefix(s.target.root, "~") {
		return "/" + s.target.root
	}
	return s.target.root
}

// URL returns the sftp:// URL of key, which file-transfer programs (WinSCP,
// FileZilla, Cyberduck) open.
func (s *SFTP) URL(key string) string {
	return (&url.URL{Scheme: "sftp", User: url.User(s.target.user), Host: s.target.addr(),
		Path: path.Join(s.displayRoot(), key)}).String()
}

// Link returns the sftp:// URL of key.
func (s *SFTP) Link(_ context.Context, key string) (string, error) { return s.URL(key), nil }

// Close ends the shared connection; later calls fail.
func (s *SFTP) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.conn != nil {
		s.conn.close()
		s.conn = nil
	}
	return nil
}

// client returns the shared connection, dialling when there is none or it died.
func (s *SFTP) client(ctx context.Context, op, key string) (*sftpConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, permanent(op, key, errors.New("sftp storage is closed"))
	}
	if s.conn != nil && s.conn.alive() {
		return s.conn, nil
	}
	if s.conn != nil {
		s.conn.close()
		s.conn = nil
	}
	c, err := s.dial(ctx)
	if err != nil {
		return nil, sftpError(op, key, err)
	}
	s.conn = c
	return c, nil
}

// dialError is a failure to connect, log in or start the SFTP session.
type dialError struct {
	addr string
	err  error
}

func (e *dialError) Error() string { return fmt.Sprintf("sftp connect %s: %v", e.addr, e.err) }
func (e *dialError) Unwrap() error { return e.err }

func (s *SFTP) dial(ctx context.Context) (*sftpConn, error) {
	addr := s.target.addr()
	fail := func(err error) (*sftpConn, error) { return nil, &dialError{addr: addr, err: err} }
	dctx, cancel := context.WithTimeout(ctx, s.cfg.DialTimeout)
	defer cancel()
	nc, err := (&net.Dialer{KeepAlive: s.cfg.KeepAlive}).DialContext(dctx, "tcp", addr)
	if err != nil {
		return fail(err)
	}
	// The handshake and login run under the same deadline, and stop when ctx ends.
	deadline, _ := dctx.Deadline()
	_ = nc.SetDeadline(deadline)
	stop := context.AfterFunc(dctx, func() { nc.Close() })
	var hostKeyOK atomic.Bool
	cfg := &ssh.ClientConfig{
		User: s.target.user,
		Auth: []ssh.AuthMethod{ssh.PublicKeys(s.signer)},
		HostKeyCallback: func(host string, remote net.Addr, key ssh.PublicKey) error {
			if err := s.hostCB(host, remote, key); err != nil {
				return err
			}
			hostKeyOK.Store(true)
			return nil
		},
		HostKeyAlgorithms: s.algos,
	}
	cc, chans, reqs, err := ssh.NewClientConn(nc, addr, cfg)
	if err != nil {
		stop()
		nc.Close()
		if ctx.Err() == nil && (dctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded)) {
			// Our own dial timeout, not the caller's: a slow or silent server.
			return fail(fmt.Errorf("no SSH handshake and login within %s: %w", s.cfg.DialTimeout, err))
		}
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		if hostKeyOK.Load() && !isNetworkError(err) {
			// The server was who it should be and then refused the key.
			return fail(fmt.Errorf("%w: user %q with key %s: %v", ErrAuth, s.target.user, ssh.FingerprintSHA256(s.signer.PublicKey()), err))
		}
		return fail(err)
	}
	sc := ssh.NewClient(cc, chans, reqs)
	client, err := sftp.NewClient(sc, sftp.UseConcurrentWrites(true))
	if err != nil {
		stop()
		sc.Close()
		return fail(fmt.Errorf("starting the SFTP subsystem: %w", err))
	}
	root := s.target.root
	if strings.HasPrefix(root, "~") {
		home, err := client.Getwd()
		if err != nil {
			stop()
			client.Close()
			sc.Close()
			return fail(fmt.Errorf("resolving the login folder: %w", err))
		}
		root = path.Join(home, strings.TrimPrefix(strings.TrimPrefix(root, "~"), "/"))
	}
	if !stop() {
		// ctx ended as the session came up and closed the connection.
		client.Close()
		sc.Close()
		return fail(context.Cause(dctx))
	}
	_ = nc.SetDeadline(time.Time{})
	c := &sftpConn{ssh: sc, c: client, root: root, dead: make(chan struct{})}
	go func() {
		_ = sc.Wait()
		c.close()
	}()
	if s.cfg.KeepAlive > 0 {
		go keepAlive(c, s.cfg.KeepAlive)
	}
	return c, nil
}

// keepAlive probes the connection every interval and closes it when a probe gets no
// answer within the interval: a silently dead peer then fails the calls waiting on
// it (retryable) instead of holding them forever.
func keepAlive(c *sftpConn, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.dead:
			return
		case <-t.C:
		}
		answered := make(chan struct{})
		go func() {
			_, _, _ = c.ssh.SendRequest("keepalive@openssh.com", true, nil)
			close(answered)
		}()
		select {
		case <-answered:
		case <-c.dead:
			return
		case <-time.After(every):
			c.closeFor(fmt.Sprintf("the server did not answer a keep-alive within %s", every))
			return
		}
	}
}

// do runs fn on the shared connection. When ctx ends first, the connection is closed
// (the SFTP library has no per-call cancellation), failing fn; the next call dials
// again.
func (s *SFTP) do(ctx context.Context, op, key string, fn func(c *sftpConn) error) error {
	if err := ctx.Err(); err != nil {
		return sftpError(op, key, err)
	}
	c, err := s.client(ctx, op, key)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { c.closeFor("the call's context ended") })
	err = fn(c)
	stop()
	if err == nil {
		return nil
	}
	var be *bodyError
	if !errors.As(err, &be) && (errors.Is(err, sftp.ErrSSHFxConnectionLost) || isNetworkError(err)) {
		// Whatever broke the connection, the next call starts a new one. (A body's
		// own failure, a download cut off, says nothing about this connection.)
		c.close()
		if why := c.why.Load(); why != nil {
			err = fmt.Errorf("%w: %s", err, *why)
		}
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		err = fmt.Errorf("%w (%w)", ctxErr, err)
	}
	return err
}

func (c *sftpConn) path(key string) string { return path.Join(c.root, key) }

func (c *sftpConn) metaPath(key string) string { return path.Join(c.root, metaDir, key+".json") }

// noLinks refuses a key whose path under the root holds a symbolic link (an order
// folder, the sidecar folder .printworker-meta or the file itself linked elsewhere):
// it Lstats every component of rel (relative to the root) at once, in parallel on
// the one connection, so the check costs about one round trip. Components that do
// not exist yet are what a Put creates. SFTP has no equivalent of os.Root: a link
// swapped in between this check and the write is the server's to stop (chroot the
// SFTP user into the folder: docs/storage.md, "Links in the folder").
func (c *sftpConn) noLinks(rel string) error {
	parts := strings.Split(rel, "/")
	type res struct {
		fi  fs.FileInfo
		err error
	}
	out := make([]res, len(parts))
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() {
			fi, err := c.c.Lstat(path.Join(c.root, path.Join(parts[:i+1]...)))
			out[i] = res{fi, err}
		})
	}
	wg.Wait()
	for i, r := range out {
		switch {
		case errors.Is(r.err, fs.ErrNotExist):
			return nil
		case r.err != nil:
			return r.err
		case r.fi.Mode()&fs.ModeSymlink != 0:
			return &fs.PathError{Op: "lstat", Path: path.Join(parts[:i+1]...), Err: ErrLinkInPath}
		}
	}
	return nil
}

func metaRelSlash(key string) string { return path.Join(metaDir, key+".json") }

// isNetworkError reports a failure of the connection itself.
func isNetworkError(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) ||
		errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne)
}

// sftpError classifies an SFTP failure: a lost connection, a timeout or a server
// failure that may clear up is retryable; a refused host key or login, a denied
// permission, a file in the way or an unsupported operation is not.
func sftpError(op, key string, err error) error {
	var se *Error
	if errors.As(err, &se) {
		return err
	}
	if e := contextError(op, key, err); e != nil {
		return e
	}
	var st *sftp.StatusError
	switch {
	case errors.Is(err, ErrHostKey), errors.Is(err, ErrAuth), errors.Is(err, ErrInvalidKey), errors.Is(err, ErrExists), errors.Is(err, ErrLinkInPath):
		return permanent(op, key, err)
	case errors.Is(err, fs.ErrNotExist):
		return permanent(op, key, fmt.Errorf("%w: %w", ErrNotFound, err))
	case errors.Is(err, fs.ErrPermission):
		return permanent(op, key, fmt.Errorf("%w (the SFTP user may not write or read here)", err))
	case errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.EISDIR):
		return permanent(op, key, err)
	case errors.Is(err, sftp.ErrSSHFxConnectionLost), errors.Is(err, sftp.ErrSSHFxNoConnection):
		return transient(op, key, err)
	case errors.As(err, &st):
		switch st.FxCode() {
		case sftp.ErrSSHFxBadMessage, sftp.ErrSSHFxOpUnsupported, sftp.ErrSSHFxPermissionDenied, sftp.ErrSSHFxNoSuchFile:
			return permanent(op, key, err)
		}
		// SSH_FX_FAILURE: OpenSSH reports a full disk or an I/O error so.
		return transient(op, key, err)
	}
	// Connection failures, timeouts, and anything unknown: a retry may meet a
	// working server.
	return transient(op, key, err)
}

// Put writes body to key atomically; see SFTP.
func (s *SFTP) Put(ctx context.Context, obj Object, body io.Reader) (PutResult, error) {
	if err := checkObject(obj); err != nil {
		return PutResult{}, err
	}
	cr := newCheckedReader(&ctxReader{ctx: ctx, r: body}, obj)
	var tmp string
	err := s.do(ctx, "put", obj.Key, func(c *sftpConn) error {
		final := c.path(obj.Key)
		if err := c.noLinks(obj.Key); err != nil {
			return err
		}
		if err := c.c.MkdirAll(path.Dir(final)); err != nil {
			return fmt.Errorf("creating folder %s: %w", path.Dir(final), err)
		}
		var err error
		tmp, err = c.writeTemp(final, func(f *sftp.File) error {
			_, err := f.ReadFromWithConcurrency(cr, 0)
			return err
		})
		if err != nil {
			return err
		}
		return c.place(tmp, final, obj.IfAbsent)
	})
	if err != nil {
		if tmp != "" {
			s.removeLeftover(tmp)
		}
		var be *bodyError
		if errors.As(err, &be) {
			return PutResult{}, putError(obj.Key, err, sftpError)
		}
		return PutResult{}, sftpError("put", obj.Key, err)
	}
	res := PutResult{Key: obj.Key, Bytes: cr.n, SHA256: cr.sum()}
	meta, err := json.MarshalIndent(sidecar{
		ContentType: contentTypeOf(obj), Filename: filenameOf(obj),
		Metadata: obj.Metadata, SHA256: res.SHA256, Size: res.Bytes,
	}, "", "  ")
	if err != nil {
		return PutResult{}, permanent("put", obj.Key, err)
	}
	// The sidecar follows the data, as in Dir.
	tmp = ""
	err = s.do(ctx, "put", obj.Key, func(c *sftpConn) error {
		mp := c.metaPath(obj.Key)
		if err := c.noLinks(metaRelSlash(obj.Key)); err != nil {
			return err
		}
		if err := c.c.MkdirAll(path.Dir(mp)); err != nil {
			return fmt.Errorf("creating folder %s: %w", path.Dir(mp), err)
		}
		var err error
		tmp, err = c.writeTemp(mp, func(f *sftp.File) error {
			_, err := f.Write(meta)
			return err
		})
		if err != nil {
			return err
		}
		return c.place(tmp, mp, false)
	})
	if err != nil {
		if tmp != "" {
			s.removeLeftover(tmp)
		}
		return PutResult{}, sftpError("put", obj.Key, err)
	}
	return res, nil
}

// writeTemp writes a hidden temporary file beside final and returns its path; on an
// error the path is still returned when the file may exist, for the caller to remove.
func (c *sftpConn) writeTemp(final string, write func(*sftp.File) error) (string, error) {
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	tmp := path.Join(path.Dir(final), tempPrefix+path.Base(final)+"-"+hex.EncodeToString(rnd[:])+tempSuffix)
	f, err := c.c.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return "", err
	}
	if err := write(f); err != nil {
		f.Close()
		return tmp, err
	}
	if _, ok := c.c.HasExtension("fsync@openssh.com"); ok {
		if err := f.Sync(); err != nil {
			f.Close()
			return tmp, err
		}
	}
	// Staff and other programs on the server must read the file (the server's umask
	// decides otherwise). Some servers (cloud SFTP gateways) refuse to set modes; the
	// file is complete all the same.
	_ = f.Chmod(0o644)
	if err := f.Close(); err != nil {
		return tmp, err
	}
	return tmp, nil
}

// place puts the finished tmp at final: an atomic replacing rename, or for a create
// a link (or plain SFTP rename) that fails when final exists.
func (c *sftpConn) place(tmp, final string, ifAbsent bool) error {
	if !ifAbsent {
		if _, ok := c.c.HasExtension("posix-rename@openssh.com"); ok {
			return c.c.PosixRename(tmp, final)
		}
		// Without posix-rename, SFTP v3's rename refuses an existing target: remove it
		// first. The final name is briefly absent, never partial.
		if err := c.c.Remove(final); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return c.c.Rename(tmp, final)
	}
	exists := func() bool { _, err := c.c.Lstat(final); return err == nil }
	if _, ok := c.c.HasExtension("hardlink@openssh.com"); ok {
		err := c.c.Link(tmp, final)
		if err == nil {
			// The temporary name goes; a failure here leaves a hidden file only.
			_ = c.c.Remove(tmp)
			return nil
		}
		if exists() {
			return fmt.Errorf("%w: %s", ErrExists, final)
		}
		// A filesystem without hard links (a FAT or SMB mount): SFTP's own rename.
	}
	err := c.c.Rename(tmp, final)
	if err != nil && exists() {
		return fmt.Errorf("%w: %s", ErrExists, final)
	}
	return err
}

// removeLeftover removes a temporary file after a failed Put, on the shared
// connection or a new one (the failure may have been the connection), within the
// dial timeout. A file it cannot remove stays hidden, as in Dir.
func (s *SFTP) removeLeftover(tmp string) {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.DialTimeout)
	defer cancel()
	_ = s.do(ctx, "put", "", func(c *sftpConn) error {
		err := c.c.Remove(tmp)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
}

// Get opens key for reading.
func (s *SFTP) Get(ctx context.Context, key string) (io.ReadCloser, Info, error) {
	if err := ValidateKey(key); err != nil {
		return nil, Info{}, permanent("get", key, err)
	}
	var f *sftp.File
	var info Info
	err := s.do(ctx, "get", key, func(c *sftpConn) error {
		if err := c.noLinks(key); err != nil {
			return err
		}
		var err error
		f, err = c.c.Open(c.path(key))
		if err != nil {
			return err
		}
		info, err = c.info(f, key)
		if err != nil {
			f.Close()
		}
		return err
	})
	if err != nil {
		return nil, Info{}, sftpError("get", key, err)
	}
	return f, info, nil
}

// Stat describes key.
func (s *SFTP) Stat(ctx context.Context, key string) (Info, error) {
	if err := ValidateKey(key); err != nil {
		return Info{}, permanent("stat", key, err)
	}
	var info Info
	err := s.do(ctx, "stat", key, func(c *sftpConn) error {
		if err := c.noLinks(key); err != nil {
			return err
		}
		f, err := c.c.Open(c.path(key))
		if err != nil {
			return err
		}
		defer f.Close()
		info, err = c.info(f, key)
		return err
	})
	if err != nil {
		return Info{}, sftpError("stat", key, err)
	}
	return info, nil
}

// maxSidecar bounds the sidecar read: a hostile or broken server cannot make Stat
// read without end.
const maxSidecar = 1 << 20

func (c *sftpConn) info(f *sftp.File, key string) (Info, error) {
	st, err := f.Stat()
	if err != nil {
		return Info{}, err
	}
	if st.IsDir() {
		return Info{}, fmt.Errorf("%w: %s is a folder", fs.ErrNotExist, key)
	}
	info := Info{Key: key, Size: st.Size(), ModTime: st.ModTime(), ContentType: "application/octet-stream"}
	if err := c.noLinks(metaRelSlash(key)); err != nil {
		return Info{}, err
	}
	mf, err := c.c.Open(c.metaPath(key))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return info, nil // a file put there by other means has no sidecar
	case err != nil:
		return Info{}, err
	}
	defer mf.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(mf, maxSidecar+1)); err != nil {
		return Info{}, err
	}
	if buf.Len() > maxSidecar {
		return Info{}, fmt.Errorf("metadata sidecar of %s is larger than %d bytes", key, maxSidecar)
	}
	return withSidecar(info, buf.Bytes())
}

// List returns the objects whose key starts with prefix, sorted by key. Hidden
// files and folders (temporary files, sidecars) are skipped, as are symbolic links.
func (s *SFTP) List(ctx context.Context, prefix string) ([]Info, error) {
	var out []Info
	err := s.do(ctx, "list", prefix, func(c *sftpConn) error {
		out = out[:0]
		return c.walk(ctx, "", prefix, &out)
	})
	if err != nil {
		return nil, sftpError("list", prefix, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

func (c *sftpConn) walk(ctx context.Context, rel, prefix string, out *[]Info) error {
	entries, err := c.c.ReadDirContext(ctx, path.Join(c.root, rel))
	if err != nil {
		if rel == "" && errors.Is(err, fs.ErrNotExist) {
			return nil // nothing stored yet
		}
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		key := name
		if rel != "" {
			key = rel + "/" + name
		}
		switch {
		case e.IsDir():
			if strings.HasPrefix(key+"/", prefix) || strings.HasPrefix(prefix, key+"/") {
				if err := c.walk(ctx, key, prefix, out); err != nil {
					return err
				}
			}
		case e.Mode().IsRegular() && strings.HasPrefix(key, prefix):
			*out = append(*out, Info{Key: key, Size: e.Size(), ModTime: e.ModTime()})
		}
	}
	return nil
}

// Delete removes key and its metadata. Deleting a missing key succeeds, as on S3.
func (s *SFTP) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return permanent("delete", key, err)
	}
	err := s.do(ctx, "delete", key, func(c *sftpConn) error {
		for _, rel := range []string{key, metaRelSlash(key)} {
			if err := c.noLinks(rel); err != nil {
				return err
			}
			if err := c.c.Remove(path.Join(c.root, rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return sftpError("delete", key, err)
	}
	return nil
}
