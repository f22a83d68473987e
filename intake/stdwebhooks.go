package intake

import (
	"crypto/hmac"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/printworker/printworker/events"
)

// Bounds of the Standard Webhooks headers (BigCommerce, Etsy). A sender rotating its
// secret sends two signatures; MaxSignatures entries are plenty, and the header cap
// keeps an unauthenticated request from making the intake compute thousands of MACs.
const (
	maxWebhookIDHeader  = 256
	maxStdSigHeader     = 1024
	maxStdTimestampSize = 20
)

// standardKeys turns configured secrets into HMAC keys: "whsec_<base64>" is the
// Standard Webhooks form (Etsy) and is decoded; any other value is used as it is
// (BigCommerce signs with the app's client secret).
func standardKeys(secrets []string) ([][]byte, error) {
	keys := make([][]byte, 0, len(secrets))
	for _, s := range secrets {
		if rest, ok := strings.CutPrefix(s, "whsec_"); ok {
			k, err := base64.StdEncoding.DecodeString(rest)
			if err != nil || len(k) == 0 {
				return nil, fmt.Errorf("secret after whsec_ is not standard base64")
			}
			keys = append(keys, k)
			continue
		}
		keys = append(keys, []byte(s))
	}
	return keys, nil
}

// verifyStandard checks a Standard Webhooks signature: the timestamp within
// tolerance of now, then "v1,<base64>" entries of webhook-signature against the HMAC
// of "id.timestamp.body" under every key, compared in constant time. The MAC comes
// from events.Sign (the reference library), the same code that signs printworker's
// own events. It returns the webhook-id.
func verifyStandard(keys [][]byte, h http.Header, body []byte, now time.Time, tolerance time.Duration) (string, error) {
	id := strings.TrimSpace(h.Get(standardwebhooks.HeaderWebhookID))
	tsHeader := strings.TrimSpace(h.Get(standardwebhooks.HeaderWebhookTimestamp))
	sigHeader := h.Get(standardwebhooks.HeaderWebhookSignature)
	switch {
	case len(sigHeader) > maxStdSigHeader:
		return "", headerTooLarge(standardwebhooks.HeaderWebhookSignature, maxStdSigHeader)
	case len(id) > maxWebhookIDHeader:
		return "", headerTooLarge(standardwebhooks.HeaderWebhookID, maxWebhookIDHeader)
	case id == "":
		return "", unauthorized(standardwebhooks.HeaderWebhookID + " header missing")
	case tsHeader == "":
		return "", unauthorized(standardwebhooks.HeaderWebhookTimestamp + " header missing")
	case sigHeader == "":
		return "", unauthorized(standardwebhooks.HeaderWebhookSignature + " header missing")
	case len(tsHeader) > maxStdTimestampSize:
		return "", unauthorized(standardwebhooks.HeaderWebhookTimestamp + " is not Unix seconds")
	}
	sec, err := strconv.ParseInt(tsHeader, 10, 64)
	if err != nil {
		return "", unauthorized(standardwebhooks.HeaderWebhookTimestamp + " is not Unix seconds")
	}
	ts := time.Unix(sec, 0)
	if d := now.Sub(ts); d > tolerance || d < -tolerance {
		return "", unauthorized(fmt.Sprintf("%s is %s away from now (tolerance %s)", standardwebhooks.HeaderWebhookTimestamp, d.Round(time.Second), tolerance))
	}
	// Space-separated "v1,<base64>" entries; other versions are skipped so a future
	// scheme can be sent beside this one.
	parts := strings.SplitN(strings.TrimSpace(sigHeader), " ", MaxSignatures+1)
	if len(parts) > MaxSignatures {
		return "", badRequest(fmt.Sprintf("%s holds more than %d signatures", standardwebhooks.HeaderWebhookSignature, MaxSignatures))
	}
	var sigs []string
	for _, p := range parts {
		if v, ok := strings.CutPrefix(p, "v1,"); ok && v != "" {
			sigs = append(sigs, "v1,"+v)
		}
	}
	if len(sigs) == 0 {
		return "", unauthorized(standardwebhooks.HeaderWebhookSignature + " holds no v1 signature")
	}
	for _, k := range keys {
		want, err := events.Sign(k, id, ts, body)
		if err != nil {
			return "", err
		}
		for _, got := range sigs {
			if hmac.Equal([]byte(want), []byte(got)) {
				return id, nil
			}
		}
	}
	return "", unauthorized(standardwebhooks.HeaderWebhookSignature + " matches no configured secret")
}

// verifyStandardBody verifies a read body's Standard Webhooks signature with
// secrets; it returns the webhook-id.
func (s *Server) verifyStandardBody(h http.Header, body []byte, secrets []string) (string, error) {
	keys, err := standardKeys(secrets)
	if err != nil {
		return "", err
	}
	return verifyStandard(keys, h, body, s.now(), s.cfg.Orders.Tolerance)
}
