package routing

import (
	"strings"
	"testing"
)

// FuzzParse: any input is accepted or refused with an error, never a panic, and an
// accepted prefix never leaves its folder.
func FuzzParse(f *testing.F) {
	f.Add([]byte(goodRules))
	f.Add([]byte(`{"rules": [{"match": {"type": "png"}, "prefix": "../x"}]}`))
	f.Add([]byte(`{"rules": [{"match": {"minQuantity": 1e99}, "bucket": "a..b"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			return
		}
		for _, ru := range r.rules {
			p := ru.prefix
			if strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") {
				t.Fatalf("accepted prefix %q", p)
			}
		}
	})
}
