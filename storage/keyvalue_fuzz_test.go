package storage_test

import (
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/printworker/printworker/storage"
)

// FuzzKeyValue: a folder value is a valid key segment, and two different values share
// one only through a collision of their 6-hex-digit fingerprints (never a clean value
// with a fingerprinted one).
func FuzzKeyValue(f *testing.F) {
	f.Add("COL/1", "COL1")
	f.Add("COL_1-d8958a", "COL/1")
	f.Add("A 1", "A-1")
	f.Add("..", "\x00")
	f.Fuzz(func(t *testing.T, a, b string) {
		ka, kb := storage.KeyValue(a), storage.KeyValue(b)
		for _, k := range []string{ka, kb} {
			if k == "" {
				continue
			}
			if strings.Contains(k, "/") || storage.ValidateKey(k) != nil {
				t.Fatalf("KeyValue gave %q, not a key segment", k)
			}
		}
		if a == b || ka != kb || ka == "" {
			return
		}
		sa, sb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
		if [3]byte(sa[:3]) != [3]byte(sb[:3]) || ka == a || kb == b {
			t.Fatalf("%q and %q share the folder %q", a, b, ka)
		}
	})
}

// FuzzOrderFolderValue: an order's folder value is a key segment, and two orders
// (order id, domain) share one only by a fingerprint collision, never by an '@'.
func FuzzOrderFolderValue(f *testing.F) {
	f.Add("DOM-1001", "shop.example.com", "DOM-1001", "other.example.com")
	f.Add("A@b", "c", "A", "b@c")
	f.Add("A@b", "", "A", "b")
	f.Add("A", "b-0a1b2c", "A@b-0a1b2c", "")
	f.Add(strings.Repeat("9", 300), "d", "9", "d")
	f.Fuzz(func(t *testing.T, o1, d1, o2, d2 string) {
		v1, v2 := storage.OrderFolderValue(o1, d1), storage.OrderFolderValue(o2, d2)
		for _, v := range []string{v1, v2} {
			if v != "" && (strings.Contains(v, "/") || storage.ValidateKey(v) != nil) {
				t.Fatalf("OrderFolderValue gave %q, not a key segment", v)
			}
		}
		if o1 == o2 && d1 == d2 || v1 != v2 || v1 == "" {
			return
		}
		// Equal values must both carry a fingerprint (a collision of 24 bits).
		if !strings.Contains(v1, "-") || v1 == o1+"@"+d1 || v2 == o2+"@"+d2 || d1 == "" && v1 == o1 || d2 == "" && v2 == o2 {
			t.Fatalf("orders %q@%q and %q@%q share the folder %q", o1, d1, o2, d2, v1)
		}
	})
}
