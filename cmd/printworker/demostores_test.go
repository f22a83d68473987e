package main

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/printworker/printworker/demo"
	"github.com/printworker/printworker/worker"
)

// TestDemoPlatforms runs the demo once per platform (--platform), in parallel: each
// store simulator sends its signed webhooks to the demo's intake (and serves the
// order fetches of BigCommerce, Etsy and WooCommerce), and every demo order comes
// out with its manifest, its designs in their quantities, and the very files of the
// Shopify run: the same keys and the same bytes.
func TestDemoPlatforms(t *testing.T) {
	t.Parallel()
	files := map[string]map[string]string{} // platform -> file key -> sha256
	t.Run("group", func(t *testing.T) {
		for _, p := range demo.Platforms {
			got := map[string]string{}
			files[p] = got
			t.Run(p, func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(t.TempDir(), "printworker-demo")
				stdout, stderr, err := runCLI(t, nil, "demo", "--platform", p, "--out", out, "--timeout", "2m")
				if err != nil {
					t.Fatalf("demo --platform %s: %v\nstdout:\n%s\nstderr:\n%s", p, err, stdout, stderr)
				}
				manifests := checkDemoOutput(t, out, stdout)
				checkDemoOrders(t, manifests)
				for _, m := range manifests {
					for _, f := range m.Files {
						got[f.Key] = f.SHA256
					}
				}
			})
		}
	})
	want := files[demo.PlatformShopify]
	for _, p := range demo.Platforms {
		if len(want) == 0 || len(files[p]) == 0 {
			continue // the failed run said why
		}
		if keys, wantKeys := slices.Sorted(maps.Keys(files[p])), slices.Sorted(maps.Keys(want)); !slices.Equal(keys, wantKeys) {
			t.Errorf("%s: files\n %q\nwant (shopify)\n %q", p, keys, wantKeys)
			continue
		}
		for k, sum := range files[p] {
			if sum != want[k] {
				t.Errorf("%s: %s differs from the shopify run's", p, k)
			}
		}
	}
}

func TestDemoRefusesUnknownPlatform(t *testing.T) {
	t.Parallel()
	_, _, err := runCLI(t, nil, "demo", "--platform", "magento", "--out", filepath.Join(t.TempDir(), "o"))
	if err == nil || exitCode(err) != 2 {
		t.Fatalf("demo --platform magento: %v, want a usage error", err)
	}
}

// demoWant is what the sample orders hold (demo/demodata): order ->
// design -> quantity.
var demoWant = map[string]map[int64]int{
	"6100000000001": {1001: 2, 1002: 1},
	"6100000000002": {1003: 5},
	"6100000000003": {1002: 3, 1004: 10},
}

// checkDemoOrders checks that every sample order has its manifest with its designs
// in their quantities, each with files.
func checkDemoOrders(t *testing.T, manifests map[string]*worker.Manifest) {
	t.Helper()
	for id, qty := range demoWant {
		m := manifests[id]
		if m == nil {
			t.Errorf("no manifest for order %s", id)
			continue
		}
		got := map[int64]int{}
		for _, l := range m.LineItems {
			got[l.DesignID] += l.Quantity
			if len(l.Files) == 0 {
				t.Errorf("order %s design %d: no files listed", id, l.DesignID)
			}
		}
		if !maps.Equal(got, qty) {
			t.Errorf("order %s lines %v, want %v", id, got, qty)
		}
	}
}

// TestDemoTimeoutSaysWhatIsMissing: a demo whose orders cannot finish within
// --timeout fails naming the orders without a manifest and what to do.
func TestDemoTimeoutSaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	_, _, err := runCLI(t, nil, "demo", "--out", filepath.Join(t.TempDir(), "o"), "--timeout", "1ms")
	if err == nil {
		t.Fatal("a demo with --timeout 1ms succeeded")
	}
	for _, want := range []string{"no manifest after 1ms for ", "#2001", "raise --timeout"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
