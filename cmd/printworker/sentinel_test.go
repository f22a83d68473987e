package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/internal/testnet"
	"github.com/printworker/printworker/internal/testredis"
)

func TestParseSentinelURL(t *testing.T) {
	cases := []struct {
		url     string
		want    *redis.FailoverOptions
		wantErr bool
	}{
		{"redis-sentinel://s1:26379,s2:26380/2?master=pw", &redis.FailoverOptions{MasterName: "pw", SentinelAddrs: []string{"s1:26379", "s2:26380"}, DB: 2}, false},
		{"redis-sentinel://:secret@s1,s2?master=pw&sentinel_password=sp", &redis.FailoverOptions{MasterName: "pw", SentinelAddrs: []string{"s1:26379", "s2:26379"}, Password: "secret", SentinelPassword: "sp"}, false},
		{"redis-sentinel://s1:26379", nil, true},             // no master
		{"redis-sentinel://s1:26379/x?master=pw", nil, true}, // db not a number
		{"redis-sentinel:///0?master=pw", nil, true},         // no sentinel
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			got, err := parseSentinelURL(c.url)
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if !c.wantErr && !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestRedisSentinelURL connects through a real Sentinel watching a real master, as
// the production overlay does, and checks the queue's Redis is usable through it.
func TestRedisSentinelURL(t *testing.T) {
	master := testredis.Start(t)
	if master.Kind != "redis-server" {
		t.Skip("needs redis-server (its --sentinel mode)")
	}
	bin, _ := exec.LookPath("redis-server")
	port, err := testnet.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	host, mport, _ := net.SplitHostPort(master.Addr)
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nsentinel monitor pw %s %s 1\n", port, dir, host, mport)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, conf, "--sentinel")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })

	r := &redisFlags{url: "redis-sentinel://127.0.0.1:" + strconv.Itoa(port) + "/3?master=pw"}
	ctx := context.Background()
	var rdb redis.UniversalClient
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if rdb, err = r.connect(ctx); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("connect through the sentinel: %v", err)
		}
	}
	defer rdb.Close()
	if err := rdb.Set(ctx, "via-sentinel", "yes", 0).Err(); err != nil {
		t.Fatal(err)
	}
	// The value is in the master's database 3.
	direct := redis.NewClient(&redis.Options{Addr: master.Addr, DB: 3})
	defer direct.Close()
	if got, err := direct.Get(ctx, "via-sentinel").Result(); err != nil || got != "yes" {
		t.Fatalf("master db 3 has %q, %v", got, err)
	}
	if _, err := (&redisFlags{url: r.url, sentinelMaster: "pw"}).options(); err == nil || exitCode(err) != 2 {
		t.Errorf("URL and --redis-sentinel-master together: %v, want a usage error", err)
	}
}
