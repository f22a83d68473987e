package model

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
	all, err := objectFields(data)
	if err != nil {
		return err
	}
	*keep = all
	return nil
}

// objectFields splits a JSON object that json.Unmarshal has just accepted into its
// top-level keys and raw values (copied: the caller's buffer is not ours to keep).
// It only walks the bytes: decoding the object a second time into a
// map[string]json.RawMessage re-validated and re-scanned every nested level, which
// was half the cost of decoding a design. Keys with escapes or non-ASCII bytes go
// through encoding/json so they read exactly as the decoder reads them; a repeated
// key keeps its last value, as encoding/json does.
func objectFields(data []byte) (rawFields, error) {
	out := rawFields{}
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, fmt.Errorf("expected a JSON object")
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return out, nil
	}
	for i < len(data) {
		if data[i] != '"' {
			return nil, fmt.Errorf("object key expected at byte %d", i)
		}
		end, plain := stringEnd(data, i)
		if end < 0 {
			return nil, fmt.Errorf("unterminated key at byte %d", i)
		}
		var key string
		if plain {
			key = string(data[i+1 : end-1])
		} else if err := json.Unmarshal(data[i:end], &key); err != nil {
			return nil, err
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil, fmt.Errorf("':' expected at byte %d", i)
		}
		start := skipSpace(data, i+1)
		stop := valueEnd(data, start)
		if stop < 0 {
			return nil, fmt.Errorf("unterminated value of %q", key)
		}
		out[key] = append(json.RawMessage(nil), data[start:stop]...)
		i = skipSpace(data, stop)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
			continue
		}
		if i < len(data) && data[i] == '}' {
			return out, nil
		}
		return nil, fmt.Errorf("',' or '}' expected at byte %d", i)
	}
	return nil, fmt.Errorf("unterminated object")
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] == '"', and
// whether it is plain ASCII with no escapes (its bytes are its value).
func stringEnd(b []byte, i int) (int, bool) {
	plain := true
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '\\':
			plain = false
			j++
		case c == '"':
			return j + 1, plain
		case c >= 0x80:
			plain = false
		}
	}
	return -1, false
}

// valueEnd returns the index just past the JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := stringEnd(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := stringEnd(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	// A number, true, false or null: up to the next delimiter.
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
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
