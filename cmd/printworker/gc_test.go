package main

import "testing"

func TestGCPolicy(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name     string
		args     []string
		getenv   func(string) string
		memTotal int64
		limit    int64
		ok       bool
	}{
		{"render, 24 GiB machine", []string{"render", "--design", "d.json"}, env(), 24 << 30, 12 << 30, true},
		{"render, small container", []string{"render"}, env(), 512 << 20, 256 << 20, true},
		{"render, memory unknown", []string{"render"}, env(), 0, unknownMemoryLimit, true},
		{"GOGC set", []string{"render"}, env("GOGC", "100"), 24 << 30, 0, false},
		{"GOMEMLIMIT set", []string{"render"}, env("GOMEMLIMIT", "2GiB"), 24 << 30, 0, false},
		{"worker keeps defaults", []string{"work"}, env(), 24 << 30, 0, false},
		{"demo keeps defaults", []string{"demo"}, env(), 24 << 30, 0, false},
		{"no command", nil, env(), 24 << 30, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limit, ok := gcPolicy(tc.args, tc.getenv, tc.memTotal)
			if limit != tc.limit || ok != tc.ok {
				t.Errorf("gcPolicy = %d, %v; want %d, %v", limit, ok, tc.limit, tc.ok)
			}
		})
	}
}

func TestMemTotal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"MemTotal:       24579880 kB\nMemFree:        1 kB\n", 24579880 << 10},
		{"MemFree: 5 kB\n", 0},
		{"MemTotal: lots kB\n", 0},
		{"", 0},
	} {
		if got := memTotal([]byte(tc.in)); got != tc.want {
			t.Errorf("memTotal(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
