package model

import (
	"fmt"
	"strconv"
	"strings"
)

// DesignRef is the `<designId>.<designToken>` reference a personalized order line
// carries (2.4). Both parts are needed for every design endpoint.
type DesignRef struct {
	ID    int64
	Token string
}

// maxTokenLen bounds a design token; real tokens are UUIDs (36 characters).
const maxTokenLen = 128

// ParseDesignRef parses and validates "<id>.<token>": id a positive decimal integer,
// token 1..128 characters of letters, digits, '-' and '_' (it goes into URL paths).
func ParseDesignRef(s string) (DesignRef, error) {
	s = strings.TrimSpace(s)
	idPart, token, ok := strings.Cut(s, ".")
	if !ok {
		return DesignRef{}, fmt.Errorf("design reference %q: want <designId>.<designToken>", s)
	}
	if idPart == "" || strings.TrimLeft(idPart, "0123456789") != "" {
		return DesignRef{}, fmt.Errorf("design reference %q: design id must be a decimal integer", s)
	}
	id, err := strconv.ParseInt(idPart, 10, 64)
	if err != nil || id <= 0 {
		return DesignRef{}, fmt.Errorf("design reference %q: design id must be a positive integer", s)
	}
	r := DesignRef{ID: id, Token: token}
	if err := r.Validate(); err != nil {
		return DesignRef{}, err
	}
	return r, nil
}

// Validate checks the parts of a reference built in code.
func (r DesignRef) Validate() error {
	if r.ID <= 0 {
		return fmt.Errorf("design reference %s: design id must be a positive integer", r)
	}
	if r.Token == "" || len(r.Token) > maxTokenLen {
		return fmt.Errorf("design reference %s: token must be 1..%d characters", r, maxTokenLen)
	}
	for _, c := range r.Token {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("design reference %s: token has a character %q outside [A-Za-z0-9_-]", r, c)
		}
	}
	return nil
}

// String formats the reference as "<id>.<token>".
func (r DesignRef) String() string { return strconv.FormatInt(r.ID, 10) + "." + r.Token }
