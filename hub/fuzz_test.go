package hub_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/printworker/printworker/hub"
)

// fuzzSeeds adds the realistic fixtures and a few broken variants.
func fuzzSeeds(f *testing.F, file string) {
	good := fixture(file)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"views":[{"elements":[{"type":"text","value":{"en":"a","de":"b"},"name":null}],"template":null}]}`))
	f.Add([]byte(`{"views":[{"name":{"en":"x","en":"y"},"export":{"area":null},"addText":{}}],"NAME":"a","name":"b"}`))
	f.Add([]byte(`{"views":"front"}`))
	f.Add([]byte(`[1,2,3]`))
}

// roundTrip checks decode -> encode -> decode -> encode is stable: the second encoding
// equals the first byte for byte.
func roundTrip[T any](t *testing.T, data []byte, decode func([]byte) (*T, error)) {
	v, err := decode(data)
	if err != nil {
		if err.Error() == "" {
			t.Fatal("empty error message")
		}
		return
	}
	enc1, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode of a decoded value failed: %v", err)
	}
	v2, err := decode(enc1)
	if err != nil {
		t.Fatalf("re-decode of %s failed: %v", enc1, err)
	}
	enc2, err := json.Marshal(v2)
	if err != nil {
		t.Fatalf("second encode: %v", err)
	}
	if !bytes.Equal(enc1, enc2) {
		t.Fatalf("unstable round trip\nfirst:  %s\nsecond: %s", enc1, enc2)
	}
}

func FuzzDecodeDesign(f *testing.F) {
	fuzzSeeds(f, "design.json")
	f.Fuzz(func(t *testing.T, data []byte) { roundTrip(t, data, hub.DecodeDesign) })
}

func FuzzDecodeTemplate(f *testing.F) {
	fuzzSeeds(f, "template.json")
	f.Fuzz(func(t *testing.T, data []byte) { roundTrip(t, data, hub.DecodeTemplate) })
}

func TestDecodeErrorsAreClear(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{``, "design detail: empty document"},
		{`[]`, "expected a JSON object"},
		{"{\n  \"views\": [\n    {,}\n  ]\n}", "invalid JSON at line 3, column 6"},
		{`{"views":[{"elements":[{"weight":"x"}]}]}`, "field views.elements.weight: JSON string where int is expected"},
		{`{"configurationId":"1042"}`, "field configurationId: JSON string where int64 is expected"},
		{`{"views":[{"name":{"en":5}}]}`, `translations: language "en"`},
		{string(fixture("design.json")[:200]), "unexpected end of JSON input"},
	}
	for _, tc := range cases {
		_, err := hub.DecodeDesign([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeDesign(%.30q) = %v, want it to say %q", tc.in, err, tc.want)
		}
	}
	_, err := hub.DecodeTemplate([]byte(`{"views":[{"weight":1.5}]}`))
	var typ *json.UnmarshalTypeError
	if err == nil || !strings.HasPrefix(err.Error(), "template: field views.weight") || !errors.As(err, &typ) {
		t.Errorf("template error %v must name the field and unwrap to *json.UnmarshalTypeError", err)
	}
	if d, err := hub.DecodeDesign(fixture("design.json")); err != nil || d.ConfigurationID != 1042 {
		t.Errorf("fixture: %v", err)
	}
}
