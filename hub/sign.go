package hub

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"github.com/printworker/printworker/model"
	"strings"
)

// SignatureEncoding is how the HMAC output is written into the signature header. The
// spec leaves it open; the hub's reference integration sends lowercase hex.
type SignatureEncoding string

const (
	EncodingHex    SignatureEncoding = "hex"
	EncodingBase64 SignatureEncoding = "base64"
)

// ParseSignatureEncoding accepts "hex" (also "") and "base64".
func ParseSignatureEncoding(s string) (SignatureEncoding, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "hex":
		return EncodingHex, nil
	case "base64":
		return EncodingBase64, nil
	}
	return "", fmt.Errorf("signature encoding %q: want hex or base64", s)
}

// Sign computes the HMAC-SHA256 of the verification string (parts concatenated with no
// separator, spec section 5) keyed with secret, encoded as enc.
func Sign(secret string, enc SignatureEncoding, parts ...string) string {
	m := hmac.New(sha256.New, []byte(secret))
	for _, p := range parts {
		m.Write([]byte(p))
	}
	sum := m.Sum(nil)
	if enc == EncodingBase64 {
		return base64.StdEncoding.EncodeToString(sum)
	}
	return hex.EncodeToString(sum)
}

// VerifySignature reports, in constant time, whether got is the signature of parts.
// Hex is compared case-insensitively (servers differ in case, the bytes do not).
func VerifySignature(secret string, enc SignatureEncoding, got string, parts ...string) bool {
	want := Sign(secret, enc, parts...)
	if enc != EncodingBase64 {
		got = strings.ToLower(got)
	}
	return hmac.Equal([]byte(want), []byte(got))
}

// Verification strings per operation (spec section 5). Each returns the parts whose
// concatenation is signed.

// OrderParts: create, update and delete order.
func OrderParts(store, orderID string) []string { return []string{store, orderID} }

// StoreParts: list templates and create template.
func StoreParts(store string) []string { return []string{store} }

// TemplateParts: get, update and delete template.
func TemplateParts(store, templateID string) []string { return []string{store, templateID} }

// DesignParts: export a whole design and get design details.
func DesignParts(store string, ref model.DesignRef) []string {
	return []string{store, fmt.Sprint(ref.ID), ref.Token}
}

// ViewParts: export one view.
func ViewParts(store string, ref model.DesignRef, viewID string) []string {
	return []string{store, fmt.Sprint(ref.ID), ref.Token, viewID}
}
