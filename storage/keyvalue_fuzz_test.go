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
