package routing

import (
	"strings"
	"testing"
)

// FuzzParse: any input is accepted or refused with an error, never a panic, an
// accepted prefix never leaves its folder, and an accepted machine folder's file
// name pattern names a file (no separator) that, flat, carries the order number.
func FuzzParse(f *testing.F) {
	f.Add([]byte(goodRules))
	f.Add([]byte(`{"rules": [{"match": {"type": "png"}, "prefix": "../x"}]}`))
	f.Add([]byte(`{"rules": [{"match": {"minQuantity": 1e99}, "bucket": "a..b"}]}`))
	f.Add([]byte(`{"rules": [{"prefix": "m", "layout": "nested", "filename": "[id]/[title]", "ready": true}]}`))
	f.Add([]byte(`{"rules": [{"prefix": "m", "filename": "[order]-[line]-\u0001"}, {"gang": "g", "ready": false}]}`))
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
			if strings.ContainsAny(ru.filename, `/\`) || ru.layout == LayoutFlat && !strings.Contains(ru.filename, "[order]") {
				t.Fatalf("accepted filename %q (layout %q)", ru.filename, ru.layout)
			}
		}
	})
}
