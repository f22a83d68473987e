package events_test

import (
	"strings"
	"testing"

	"github.com/printworker/printworker/events"
)

// FuzzEventsFile: any bytes as an events file give endpoints or an error, never a
// panic, and a configuration built from them validates without showing a secret.
func FuzzEventsFile(f *testing.F) {
	f.Add([]byte(`{"stores": {"s1": [{"url": "https://erp.example/hooks", "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}]}}`))
	f.Add([]byte(`{"stores": {"": [{"url": ":", "secret": "whsec_"}]}}`))
	f.Add([]byte(`{"stores": {"s1": [{"url": "http://h", "secretFile": "/nonexistent"}]}} {}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		stores, err := events.ParseFile(b)
		if err != nil {
			return
		}
		verr := events.Config{Stores: stores}.Validate()
		if verr == nil {
			return
		}
		// The error names stores and shows URLs, which may contain a secret's text
		// by chance (a URL of zeros, a secret of zeros): only what is left once
		// they are taken out must not show it.
		msg := verr.Error()
		for store, eps := range stores {
			for _, e := range eps {
				msg = strings.ReplaceAll(msg, e.URL, "")
			}
			msg = strings.ReplaceAll(msg, store, "")
		}
		for _, eps := range stores {
			for _, e := range eps {
				if len(e.Secret) >= 12 && strings.Contains(msg, e.Secret) {
					t.Fatalf("error %q shows a secret", verr)
				}
			}
		}
	})
}

// FuzzDecodeSecret: any secret text decodes to 24..64 bytes or is refused.
func FuzzDecodeSecret(f *testing.F) {
	f.Add("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	f.Add("whsec_")
	f.Add("whsec_====")
	f.Fuzz(func(t *testing.T, s string) {
		key, err := events.DecodeSecret(s)
		if err == nil && (len(key) < 24 || len(key) > 64) {
			t.Fatalf("%q decoded to %d bytes", s, len(key))
		}
	})
}
