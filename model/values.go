package model

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Translations is a language-code -> text object (view names, element names, text
// values). It keeps the keys in the order they arrived because the renderer draws the
// first language of a text value unless one is configured, and a Go map has no order.
type Translations struct {
	langs []string
	text  map[string]string
}

// NewTranslations builds translations from lang, text pairs in order.
func NewTranslations(pairs ...string) Translations {
	var t Translations
	for i := 0; i+1 < len(pairs); i += 2 {
		t.Set(pairs[i], pairs[i+1])
	}
	return t
}

// Set adds or replaces the text of lang, keeping the first position of lang.
func (t *Translations) Set(lang, text string) {
	if t.text == nil {
		t.text = map[string]string{}
	}
	if _, ok := t.text[lang]; !ok {
		t.langs = append(t.langs, lang)
	}
	t.text[lang] = text
}

// Get returns the text of lang.
func (t Translations) Get(lang string) (string, bool) {
	s, ok := t.text[lang]
	return s, ok
}

// Langs returns the language codes in their original order.
func (t Translations) Langs() []string { return append([]string(nil), t.langs...) }

// Len is the number of languages.
func (t Translations) Len() int { return len(t.langs) }

// Pick returns the text of lang when present, else of the first language, else "".
func (t Translations) Pick(lang string) string {
	if s, ok := t.text[lang]; ok && lang != "" {
		return s
	}
	if len(t.langs) > 0 {
		return t.text[t.langs[0]]
	}
	return ""
}

// MarshalJSON writes the object with keys in their original order.
func (t Translations) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, l := range t.langs {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(l)
		v, _ := json.Marshal(t.text[l])
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads an object of strings, keeping key order.
func (t *Translations) UnmarshalJSON(b []byte) error {
	*t = Translations{}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("translations: expected an object of language -> text")
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		var s string
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("translations: language %q: %w", kt, err)
		}
		t.Set(kt.(string), s)
	}
	_, err = dec.Token()
	return err
}

// Value is a field whose JSON shape depends on where it appears:
//   - a view's `template` and a picture's `value`: a media id string (or null) in a
//     template payload, a media object (2.12) in a design detail;
//   - a text element's `value`: translations (language -> text).
//
// It keeps the raw JSON so a read -> write round trip is exact, and decodes on demand.
type Value struct {
	raw json.RawMessage
}

// MediaIDValue makes a value holding a media id (template payloads).
func MediaIDValue(id string) Value {
	b, _ := json.Marshal(id)
	return Value{raw: b}
}

// MediaValue makes a value holding a media object (design details).
func MediaValue(m Media) Value {
	b, _ := json.Marshal(m)
	return Value{raw: b}
}

// TextValue makes a value holding translations (text elements).
func TextValue(t Translations) Value {
	b, _ := t.MarshalJSON()
	return Value{raw: b}
}

// IsNull reports whether the value is absent or JSON null.
func (v Value) IsNull() bool {
	s := bytes.TrimSpace(v.raw)
	return len(s) == 0 || bytes.Equal(s, []byte("null"))
}

// Raw returns the JSON as received.
func (v Value) Raw() json.RawMessage { return v.raw }

// Media returns the media object when the value is one (design details). ok is false
// for a null, a bare id or translations.
func (v Value) Media() (m Media, ok bool, err error) {
	s := bytes.TrimSpace(v.raw)
	if len(s) == 0 || s[0] != '{' {
		return Media{}, false, nil
	}
	if err := json.Unmarshal(s, &m); err != nil {
		return Media{}, false, fmt.Errorf("media object: %w", err)
	}
	if m.ID == "" {
		// An object without _id is translations, not media.
		return Media{}, false, nil
	}
	return m, true, nil
}

// MediaID returns the media id of a bare id or of a media object, else "".
func (v Value) MediaID() string {
	s := bytes.TrimSpace(v.raw)
	if len(s) > 0 && s[0] == '"' {
		var id string
		if json.Unmarshal(s, &id) == nil {
			return id
		}
	}
	if m, ok, _ := v.Media(); ok {
		return m.ID
	}
	return ""
}

// Translations returns the value as translations (text elements). A plain string is
// taken as a text with no language.
func (v Value) Translations() (Translations, error) {
	s := bytes.TrimSpace(v.raw)
	var t Translations
	if len(s) == 0 || bytes.Equal(s, []byte("null")) {
		return t, nil
	}
	if s[0] == '"' {
		var str string
		if err := json.Unmarshal(s, &str); err != nil {
			return t, err
		}
		t.Set("", str)
		return t, nil
	}
	err := json.Unmarshal(s, &t)
	return t, err
}

// MarshalJSON writes the raw value (null when empty).
func (v Value) MarshalJSON() ([]byte, error) {
	if len(bytes.TrimSpace(v.raw)) == 0 {
		return []byte("null"), nil
	}
	return v.raw, nil
}

// UnmarshalJSON keeps the raw value after checking it is JSON.
func (v *Value) UnmarshalJSON(b []byte) error {
	if !json.Valid(b) {
		return fmt.Errorf("invalid JSON value")
	}
	v.raw = append(json.RawMessage(nil), b...)
	return nil
}
