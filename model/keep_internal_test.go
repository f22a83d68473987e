package model

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzObjectFields checks the byte walker against encoding/json: for every object
// json.Unmarshal accepts, the keys and raw values are the ones decoding into a
// map[string]json.RawMessage gives.
func FuzzObjectFields(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1}`, ` { "a" : [1, {"b": "}"}] , "c":null,"d":"x\"y" } `,
		`{"k\u00e9y":true,"a":1,"a":2}`, `{"e":"\\","f":-1.5e3,"g":[],"h":{}}`,
		"{\"ünï\":\"c\\u00f6de\",\"t\":\"\\t\"}", `{"a":{"b":{"c":[[],[{}]]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]json.RawMessage
		if json.Unmarshal(data, &want) != nil || want == nil {
			return
		}
		got, err := objectFields(data)
		if err != nil {
			t.Fatalf("objectFields(%q): %v", data, err)
		}
		if len(got) != len(want) {
			t.Fatalf("objectFields(%q) = %d keys, want %d", data, len(got), len(want))
		}
		for k, v := range want {
			if !reflect.DeepEqual([]byte(got[k]), []byte(v)) {
				t.Fatalf("objectFields(%q)[%q] = %q, want %q", data, k, got[k], v)
			}
		}
	})
}
