package hub

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// rawFields holds every key of a decoded JSON object exactly as it arrived.
//
// The hub's payloads carry fields whose meaning the spec does not give ("not shown") and
// fields the hub may add later. Templates are read, edited and written back, so anything
// we do not model must survive decode -> encode unchanged. Typed fields win on encode;
// a key the typed struct does not emit (unknown, or an optional field that arrived as
// null) is written back from here.
type rawFields map[string]json.RawMessage

// unmarshalKeeping decodes data into dst (a method-less alias of the real type) and
// records all of data's keys in keep.
func unmarshalKeeping[T any](data []byte, dst *T, keep *rawFields) error {
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, []byte("null")) {
		return nil
	}
	if len(data) == 0 || data[0] != '{' {
		return fmt.Errorf("expected a JSON object, got %.20q", data)
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	*keep = all
	return nil
}

// marshalKeeping encodes src and adds back every kept key the typed encoding left out.
//
// optional names typed keys that some shapes of the object leave out (an element's
// "id" and "weight" are absent from a view's addText/addPicture defaults): on a
// decoded value, such a key that was absent and still holds its zero value is not
// invented on encode.
func marshalKeeping[T any](src *T, keep rawFields, optional ...string) ([]byte, error) {
	b, err := json.Marshal(src)
	if err != nil || keep == nil {
		return b, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	changed := false
	for k, v := range keep {
		if _, ok := out[k]; !ok {
			out[k] = v
			changed = true
		}
	}
	for _, k := range optional {
		if v, ok := out[k]; ok && !keep.has(k) && isZeroJSON(v) {
			delete(out, k)
			changed = true
		}
	}
	if !changed {
		return b, nil
	}
	return json.Marshal(out)
}

// isZeroJSON reports whether v is "", 0, false or null.
func isZeroJSON(v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case `""`, "0", "false", "null":
		return true
	}
	return false
}

// has reports whether the decoded object carried key (null included).
func (r rawFields) has(key string) bool {
	_, ok := r[key]
	return ok
}

// isNull reports whether key arrived as JSON null.
func (r rawFields) isNull(key string) bool {
	v, ok := r[key]
	return ok && bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}
