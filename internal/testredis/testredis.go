// Package testredis gives tests a real, private Redis server.
//
// Tests must not touch the shared Redis a developer machine runs, and must still pass
// where none runs. So each call starts its own redis-server on a free loopback port when
// the binary is installed (the real thing), and falls back to an embedded miniredis
// otherwise. PRINTWORKER_TEST_REDIS=embedded forces the fallback;
// PRINTWORKER_TEST_REDIS_ADDR points tests at an existing server (they then use DB 15 and
// flush it, so give them one no one else uses).
package testredis

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/internal/testnet"
)

// Server is a running Redis for one test.
type Server struct {
	Addr string
	DB   int
	// Kind is "redis-server", "external" or "miniredis".
	Kind string
	// mini is set for the embedded server (tests can fast-forward its clock).
	mini *miniredis.Miniredis
	cmd  *exec.Cmd
	// args start the redis-server again (Restart), on the same port and folder.
	args []string
}

// Option configures a redis-server started by Start.
type Option func(*options)

type options struct{ aof bool }

// AOF runs the server with append-only persistence as production does (appendonly
// yes, appendfsync everysec), so that Kill then Restart shows what a crash loses.
func AOF() Option { return func(o *options) { o.aof = true } }

// URL returns a redis:// URL for the server.
func (s *Server) URL() string { return fmt.Sprintf("redis://%s/%d", s.Addr, s.DB) }

// Client returns a go-redis client for the server, closed at test end.
func (s *Server) Client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr, DB: s.DB})
	t.Cleanup(func() { c.Close() })
	return c
}

// Kill stops the server abruptly (SIGKILL for redis-server), for outage tests. It is
// a no-op for an external server.
func (s *Server) Kill() {
	switch {
	case s.cmd != nil:
		_ = s.cmd.Process.Kill()
		_, _ = s.cmd.Process.Wait()
		s.cmd = nil
	case s.mini != nil:
		s.mini.Close()
	}
}

// Start returns a private Redis that lives until the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var o options
	for _, f := range opts {
		f(&o)
	}
	if addr := os.Getenv("PRINTWORKER_TEST_REDIS_ADDR"); addr != "" {
		s := &Server{Addr: addr, DB: 15, Kind: "external"}
		c := redis.NewClient(&redis.Options{Addr: addr, DB: 15})
		defer c.Close()
		if err := c.FlushDB(context.Background()).Err(); err != nil {
			t.Fatalf("testredis: external redis %s: %v", addr, err)
		}
		t.Cleanup(func() {
			c := redis.NewClient(&redis.Options{Addr: addr, DB: 15})
			c.FlushDB(context.Background())
			c.Close()
		})
		return s
	}
	if os.Getenv("PRINTWORKER_TEST_REDIS") != "embedded" {
		if bin, err := exec.LookPath("redis-server"); err == nil {
			if s, err := startServer(t, bin, o); err == nil {
				return s
			} else {
				t.Logf("testredis: redis-server failed (%v); using miniredis", err)
			}
		}
	}
	m := miniredis.RunT(t)
	return &Server{Addr: m.Addr(), Kind: "miniredis", mini: m}
}

// Describe says which Redis the tests of this machine use; .ci/run prints it.
func Describe() string {
	if addr := os.Getenv("PRINTWORKER_TEST_REDIS_ADDR"); addr != "" {
		return "external redis at " + addr + " (DB 15)"
	}
	if os.Getenv("PRINTWORKER_TEST_REDIS") != "embedded" {
		if bin, err := exec.LookPath("redis-server"); err == nil {
			return "real redis-server (" + bin + "), one private instance per test"
		}
	}
	return "embedded miniredis (no redis-server installed)"
}

func startServer(t testing.TB, bin string, o options) (*Server, error) {
	dir := t.TempDir()
	persist := []string{"--save", "", "--appendonly", "no"}
	if o.aof {
		persist = []string{"--save", "", "--appendonly", "yes", "--appendfsync", "everysec"}
	}
	for attempt := 0; attempt < 5; attempt++ {
		port, err := testnet.FreePort()
		if err != nil {
			return nil, err
		}
		args := append([]string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port)}, persist...)
		args = append(args, "--dir", dir, "--daemonize", "no",
			"--protected-mode", "no", "--loglevel", "warning",
			"--logfile", filepath.Join(dir, "redis.log"))
		s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Kind: "redis-server", args: append([]string{bin}, args...)}
		if err := s.run(); err == nil {
			t.Cleanup(s.Kill)
			return s, nil
		}
	}
	return nil, fmt.Errorf("redis-server did not become ready")
}

// run starts the server process and waits until it answers.
func (s *Server) run() error {
	cmd := exec.Command(s.args[0], s.args[1:]...)
	if err := cmd.Start(); err != nil {
		return err
	}
	if !waitReady(s.Addr, 10*time.Second) {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		return fmt.Errorf("redis-server on %s did not become ready", s.Addr)
	}
	s.cmd = cmd
	return nil
}

// Restart starts a killed redis-server again on its port and folder; with AOF it
// loads what was persisted. Only for a redis-server this package started.
func (s *Server) Restart() error {
	if s.args == nil {
		return fmt.Errorf("testredis: %s server cannot be restarted", s.Kind)
	}
	s.Kill()
	return s.run()
}

func waitReady(addr string, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			_ = c.SetDeadline(time.Now().Add(time.Second))
			fmt.Fprint(c, "PING\r\n")
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if line == "+PONG\r\n" {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
