package testredis

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/internal/testnet"
)

// Cluster is a private Redis Cluster for one test: three redis-server nodes with
// cluster mode on, the 16384 slots split between them, no replicas.
type Cluster struct {
	Addrs []string
	nodes []*Server
}

// URL returns the redis-cluster:// URL of the cluster, as printworker takes it.
func (c *Cluster) URL() string { return "redis-cluster://" + strings.Join(c.Addrs, ",") }

// Client returns a go-redis cluster client, closed at test end.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs})
	t.Cleanup(func() { cc.Close() })
	return cc
}

// StartCluster starts a three-node cluster that lives until the test ends. It needs
// redis-server and redis-cli: without them it skips the test, or fails it under
// CI=true.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	var bins [2]string
	for i, name := range []string{"redis-server", "redis-cli"} {
		bin, err := exec.LookPath(name)
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("testredis: a Redis Cluster needs %s: %v", name, err)
			}
			t.Skipf("testredis: a Redis Cluster needs %s (not installed)", name)
		}
		bins[i] = bin
	}
	c := &Cluster{}
	for i := 0; i < 3; i++ {
		n, err := startClusterNode(t, bins[0])
		if err != nil {
			t.Fatalf("testredis: cluster node %d: %v", i, err)
		}
		c.nodes = append(c.nodes, n)
		c.Addrs = append(c.Addrs, n.Addr)
	}
	args := append([]string{"--cluster", "create"}, c.Addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(bins[1], args...).CombinedOutput(); err != nil {
		t.Fatalf("testredis: redis-cli --cluster create: %v\n%s", err, out)
	}
	// The nodes agree on the slots a moment after create returns.
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for _, a := range c.Addrs {
		nc := redis.NewClient(&redis.Options{Addr: a})
		for {
			info, err := nc.ClusterInfo(ctx).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				nc.Close()
				t.Fatalf("testredis: cluster node %s not ready: %v %s", a, err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
		nc.Close()
	}
	return c
}

func startClusterNode(t testing.TB, bin string) (*Server, error) {
	dir := t.TempDir()
	for attempt := 0; attempt < 5; attempt++ {
		port, err := testnet.FreePort()
		if err != nil {
			return nil, err
		}
		// The cluster bus listens on port+10000: that one must be free too.
		if port+10000 > 65535 {
			continue
		}
		if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+10000))); err != nil {
			continue
		} else {
			l.Close()
		}
		args := []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port),
			"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"),
			"--cluster-node-timeout", "5000",
			"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no",
			"--protected-mode", "no", "--loglevel", "warning", "--logfile", filepath.Join(dir, "redis.log")}
		s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Kind: "redis-server", args: append([]string{bin}, args...)}
		if err := s.run(); err == nil {
			t.Cleanup(s.Kill)
			return s, nil
		}
	}
	return nil, fmt.Errorf("redis-server (cluster mode) did not become ready")
}
