package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/hubsim"
)

// TestTemplatesCommandsRetryAndListWithoutIDs: against a hub whose list omits _id and
// whose every path fails twice before it answers, sync, pull and a pruning sync all
// finish (each call retried with backoff, templates addressed by productId); with a
// single attempt the sync fails and does not say "done".
func TestTemplatesCommandsRetryAndListWithoutIDs(t *testing.T) {
	sim, err := hubsim.New(hubsim.Config{Stores: []hubsim.Store{{ID: "demo-store", Domains: []string{"shop.example.com"},
		Keys: []hubsim.Key{{Key: "k", Secret: "s3cret"}}}}, PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	sim.SetListWithoutIDs(true)
	hs := httptest.NewServer(sim)
	t.Cleanup(hs.Close)
	env := map[string]string{"PRINTWORKER_HUB_URL": hs.URL, "PRINTWORKER_HUB_STORE": "demo-store",
		"PRINTWORKER_HUB_API_KEY": "k", "PRINTWORKER_HUB_SECRET": "s3cret"}
	src := t.TempDir()
	fixtures, _ := hubsimFixtureTemplates(t)
	for name, b := range fixtures {
		if err := os.WriteFile(filepath.Join(src, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fast := []string{"--hub-retry-base", "1ms"}
	failTwice := func() {
		t.Helper()
		if err := sim.SetFaults(hubsim.Faults{FailFirst: 2}); err != nil {
			t.Fatal(err)
		}
	}

	failTwice()
	out, _, err := runCLI(t, env, append([]string{"templates", "sync", "--dir", src}, fast...)...)
	if err != nil || !strings.Contains(out, "3 create, 0 update, 0 delete, 0 unchanged: done") {
		t.Fatalf("sync through 503s: %v\n%s", err, out)
	}
	failTwice()
	pulled := t.TempDir()
	out, _, err = runCLI(t, env, append([]string{"templates", "pull", "--dir", pulled}, fast...)...)
	if err != nil || !strings.Contains(out, "3 templates written") {
		t.Fatalf("pull through 503s from a list without _id: %v\n%s", err, out)
	}
	one := t.TempDir()
	b, err := os.ReadFile(filepath.Join(pulled, "mug-11oz.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(one, "mug-11oz.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	failTwice()
	out, _, err = runCLI(t, env, append([]string{"templates", "sync", "--dir", one, "--prune"}, fast...)...)
	if err != nil || !strings.Contains(out, "2 delete, 1 unchanged: done") {
		t.Fatalf("prune by productId through 503s: %v\n%s", err, out)
	}
	if n := len(sim.Templates("demo-store")); n != 1 {
		t.Errorf("after prune the hub has %d templates, want 1", n)
	}

	failTwice()
	out, _, err = runCLI(t, env, "templates", "sync", "--dir", src, "--hub-attempts", "1")
	if err == nil || strings.Contains(out, "done") || !strings.Contains(out, "FAILED") {
		t.Fatalf("sync with one attempt against a failing hub: %v\n%s", err, out)
	}
}
