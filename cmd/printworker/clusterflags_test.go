package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestRedisClusterFlags: redis-cluster:// URLs and --redis-cluster-addrs build a
// cluster client with the nodes, password and pool settings given; contradictory
// settings are usage errors.
func TestRedisClusterFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args          []string
		addrs         []string
		user, pass    string
		idle, wantErr string
	}{
		{args: []string{"--redis-url", "redis-cluster://n1:7000,n2,n3:7002"}, addrs: []string{"n1:7000", "n2:6379", "n3:7002"}},
		{args: []string{"--redis-url", "redis-cluster://u:pw@n1:7000/0"}, addrs: []string{"n1:7000"}, user: "u", pass: "pw"},
		{args: []string{"--redis-url", "redis://:pw@ignored:6379/0", "--redis-cluster-addrs", "n1:7000,n2:7001"}, addrs: []string{"n1:7000", "n2:7001"}, pass: "pw"},
		{args: []string{"--redis-url", "redis-cluster://n1:7000/3"}, wantErr: "only database 0"},
		{args: []string{"--redis-url", "redis-cluster://n1:7000", "--redis-cluster-addrs", "n2:7001"}, wantErr: "already names the nodes"},
		{args: []string{"--redis-url", "redis://h:6379/2", "--redis-cluster-addrs", "n2:7001"}, wantErr: "only database 0"},
		{args: []string{"--redis-sentinel-master", "m", "--redis-cluster-addrs", "n2:7001"}, wantErr: "exclude each other"},
		{args: []string{"--redis-url", "redis-cluster:///"}, wantErr: "names no node"},
	} {
		rf, _ := parseWorkFlags(t, tc.args)
		rdb, err := rf.options()
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want one saying %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		cc, ok := rdb.(*redis.ClusterClient)
		if !ok {
			t.Errorf("%v: a %T, want a cluster client", tc.args, rdb)
			continue
		}
		o := cc.Options()
		cc.Close()
		if !slices.Equal(o.Addrs, tc.addrs) || o.Username != tc.user || o.Password != tc.pass || o.MaxIdleConns != 1 {
			t.Errorf("%v: addrs %v user %q password %q idle %d; want %v %q %q 1", tc.args, o.Addrs, o.Username, o.Password, o.MaxIdleConns, tc.addrs, tc.user, tc.pass)
		}
	}
}
