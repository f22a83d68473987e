package events_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/events"
)

// The Standard Webhooks specification's published test vector.
const (
	vectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTS     = 1614265330
	vectorBody   = `{"test": 2432232314}`
	vectorSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

// independentSign computes the signature from the specification's text alone, with
// no code shared with package events or the library it uses.
func independentSign(secret, id string, ts int64, body string) string {
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(ts, 10) + "." + body))
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func TestSignMatchesSpecVector(t *testing.T) {
	if got := independentSign(vectorSecret, vectorID, vectorTS, vectorBody); got != vectorSig {
		t.Fatalf("independent signer gives %s, the spec says %s", got, vectorSig)
	}
	key, err := events.DecodeSecret(vectorSecret)
	if err != nil {
		t.Fatal(err)
	}
	got, err := events.Sign(key, vectorID, time.Unix(vectorTS, 0), []byte(vectorBody))
	if err != nil {
		t.Fatal(err)
	}
	if got != vectorSig {
		t.Errorf("events.Sign gives %s, want %s", got, vectorSig)
	}
}

func TestConfigValidate(t *testing.T) {
	good := events.Endpoint{URL: "https://erp.example/hooks", Secret: vectorSecret}
	short := "whsec_" + base64.StdEncoding.EncodeToString([]byte("too short"))
	tests := []struct {
		name string
		cfg  events.Config
		want []string // substrings of the error; none: valid
	}{
		{"empty", events.Config{}, nil},
		{"one default", events.Config{Default: []events.Endpoint{good}}, nil},
		{"relative url", events.Config{Default: []events.Endpoint{{URL: "/hooks", Secret: vectorSecret}}}, []string{"want an absolute http(s) URL"}},
		{"ftp url", events.Config{Stores: map[string][]events.Endpoint{"s1": {{URL: "ftp://x/y", Secret: vectorSecret}}}}, []string{`store "s1" endpoint 1`, "absolute http(s)"}},
		{"no secret", events.Config{Default: []events.Endpoint{{URL: good.URL}}}, []string{"secret is empty"}},
		{"no prefix", events.Config{Default: []events.Endpoint{{URL: good.URL, Secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}}}, []string{`start with "whsec_"`}},
		{"not base64", events.Config{Default: []events.Endpoint{{URL: good.URL, Secret: "whsec_!!!"}}}, []string{"not standard base64"}},
		{"short key", events.Config{Default: []events.Endpoint{{URL: good.URL, Secret: short}}}, []string{"9 bytes: want 24 to 64"}},
		{"two secrets one url", events.Config{Default: []events.Endpoint{good}, Stores: map[string][]events.Endpoint{"s1": {{URL: good.URL, Secret: "whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 32))}}}}, []string{"two different secrets"}},
		{"negative", events.Config{Timeout: -1, RetryFor: -time.Second}, []string{"timeout -1ns is negative", "retry-for -1s is negative"}},
		{"every error at once", events.Config{Default: []events.Endpoint{{URL: ":"}, {URL: "http://h", Secret: "x"}}}, []string{"default endpoint 1", "default endpoint 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "MfKQ9r8G") {
				t.Errorf("error %q shows the secret", err)
			}
		})
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	secretFile := write("secret", vectorSecret+"\n")
	good := write("good.json", `{"stores": {"s1": [{"url": "https://erp.example/hooks?token=t", "secretFile": "`+secretFile+`"}]}}`)
	stores, err := events.LoadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := events.ResolveSecrets(stores["s1"]); err != nil {
		t.Fatal(err)
	}
	if got := stores["s1"][0].Secret; got != vectorSecret {
		t.Errorf("secret from file %q", got)
	}
	if err := (events.Config{Stores: stores}).Validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
	if s := stores["s1"][0].String(); strings.Contains(s, "token") || strings.Contains(s, "whsec") {
		t.Errorf("endpoint prints as %q: shows the query or secret", s)
	}

	unknown := write("unknown.json", `{"stores": {"s1": [{"url": "https://x", "secert": "whsec_x"}]}}`)
	if _, err := events.LoadFile(unknown); err == nil || !strings.Contains(err.Error(), `unknown field "secert"`) {
		t.Errorf("misspelt setting: %v, want unknown field", err)
	}
	both := []events.Endpoint{{URL: "https://x", Secret: vectorSecret, SecretFile: secretFile}}
	if err := events.ResolveSecrets(both); err == nil || !strings.Contains(err.Error(), "both set") {
		t.Errorf("secret and secretFile: %v", err)
	}
	missing := []events.Endpoint{{URL: "https://x", SecretFile: filepath.Join(dir, "nope")}}
	if err := events.ResolveSecrets(missing); err == nil {
		t.Error("missing secret file: no error")
	}
}
