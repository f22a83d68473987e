package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// DecodeDesign decodes a design detail document (2.14), e.g. a fixture file or a
// stored answer. Errors say where the document is broken (line and column for
// syntax errors, the field path for type mismatches).
func DecodeDesign(data []byte) (*DesignDetail, error) {
	var d DesignDetail
	if err := DecodeDocument(data, &d); err != nil {
		return nil, fmt.Errorf("design detail: %w", err)
	}
	return &d, nil
}

// DecodeTemplate decodes a template document (2.5).
func DecodeTemplate(data []byte) (*Template, error) {
	var t Template
	if err := DecodeDocument(data, &t); err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	return &t, nil
}

// DecodeDocument decodes one JSON object into dst with readable errors (line and column
// for syntax errors, the field path for type mismatches); the client uses it for answers.
func DecodeDocument(data []byte, dst any) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return errors.New("empty document")
	}
	if trimmed[0] != '{' {
		return fmt.Errorf("expected a JSON object, got %.20q", trimmed)
	}
	err := json.Unmarshal(data, dst)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := position(data, syn.Offset-1)
		return fmt.Errorf("invalid JSON at line %d, column %d: %w", line, col, err)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		// Offsets of nested objects are relative to the object (each model type
		// decodes itself), so only the field path is reliable.
		return &decodeError{msg: fmt.Sprintf("field %s: JSON %s where %s is expected", typ.Field, typ.Value, typ.Type), err: err}
	}
	return err
}

// decodeError is a readable decode failure that still unwraps to encoding/json's.
type decodeError struct {
	msg string
	err error
}

func (e *decodeError) Error() string { return e.msg }
func (e *decodeError) Unwrap() error { return e.err }

// position converts a byte offset into 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}
