package storage

import (
	"strings"
	"testing"
)

// FuzzIsTempName: the leftover pattern is only ever our temporary names: a name it
// takes for a key's file is also taken by the sweep, starts with tempPrefix and ends
// with tempSuffix, and a name Put would write for a key always matches.
func FuzzIsTempName(f *testing.F) {
	for _, s := range [][2]string{{".tmp-a.png-123.part", "a.png"}, {".tmp-a-b.png-9.part", "a-b.png"}, {".tmp-.part", ""},
		{"a.png.part", "a.png"}, {".tmp-a.png.part", ""}, {".tmp-x-ab12.part", "x"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, base string) {
		if isTempName(name, base) {
			if !strings.HasPrefix(name, tempPrefix) || !strings.HasSuffix(name, tempSuffix) {
				t.Fatalf("%q taken for %q outside the pattern", name, base)
			}
			if !isTempName(name, "") {
				t.Fatalf("%q taken for %q but not by the sweep", name, base)
			}
		}
		if base != "" && !strings.ContainsAny(base, "/") {
			own := tempPrefix + base + "-123456" + tempSuffix
			if !isTempName(own, base) {
				t.Fatalf("Put's own name %q for %q not taken", own, base)
			}
		}
	})
}
