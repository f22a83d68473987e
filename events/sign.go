package events

import (
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// Sign returns the webhook-signature header of one attempt: "v1," and the base64
// HMAC-SHA256 with key of "id.timestamp.body" (timestamp in unix seconds). The
// Standard Webhooks reference library does the signing.
func Sign(key []byte, id string, ts time.Time, body []byte) (string, error) {
	wh, err := standardwebhooks.NewWebhookRaw(key)
	if err != nil {
		return "", err
	}
	return wh.Sign(id, ts, body)
}
