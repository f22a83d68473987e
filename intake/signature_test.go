package intake

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// countingVerifier counts the body MACs computed.
func countingVerifier(n *int) verifier {
	return verifier{mac: func(secret, ts string, body []byte) []byte {
		*n++
		return mac(secret, ts, body)
	}}
}

// hostileSignatures is a header of n well-formed but wrong signatures.
func hostileSignatures(n int) string {
	sig := SignaturePrefix + strings.Repeat("ab", 32)
	return strings.TrimSuffix(strings.Repeat(sig+",", n), ",")
}

func statusOf(t *testing.T, err error) int {
	t.Helper()
	var he *httpError
	if !errors.As(err, &he) {
		t.Fatalf("want an *httpError, got %v", err)
	}
	return he.status
}

// The generic signature is checked with one MAC per secret, whatever the header
// holds, and a header with many entries is refused before any MAC: issue 10, a
// 100k-entry header once cost 114 s of CPU.
func TestGenericSignatureMACCount(t *testing.T) {
	now := time.Unix(1710424800, 0)
	ts := "1710424800"
	body := []byte(`{"orderId":"1"}`)
	secrets := []string{"s1", "s2", "s3"}
	good := Sign("s3", now, body)
	cases := []struct {
		name       string
		header     string
		wantStatus int // 0: accepted
		wantMACs   int
	}{
		{"100k entries", hostileSignatures(100_000), http.StatusRequestHeaderFieldsTooLarge, 0},
		{"too many entries under the size cap", hostileSignatures(MaxSignatures + 1), http.StatusBadRequest, 0},
		{"max entries, none matching", hostileSignatures(MaxSignatures), http.StatusUnauthorized, len(secrets)},
		{"max entries, last one matching", hostileSignatures(MaxSignatures-1) + "," + good, 0, len(secrets)},
		{"rotation pair", good + "," + Sign("s1", now, body), 0, 1},
		{"no well-formed entry", "sha256=zz,v1=abc", http.StatusUnauthorized, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := 0
			start := time.Now()
			err := countingVerifier(&n).generic(secrets, ts, c.header, body, now, time.Minute)
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %s", d)
			}
			if c.wantStatus == 0 && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if c.wantStatus != 0 {
				if err == nil {
					t.Fatal("accepted")
				}
				if got := statusOf(t, err); got != c.wantStatus {
					t.Errorf("status %d, want %d (%v)", got, c.wantStatus, err)
				}
			}
			if n != c.wantMACs {
				t.Errorf("%d MACs computed, want %d", n, c.wantMACs)
			}
		})
	}
}

func TestShopifyHmacHeaderCap(t *testing.T) {
	err := verifyShopify([]string{"s"}, strings.Repeat("A", 100_000), []byte("{}"))
	if err == nil || statusOf(t, err) != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("want 431, got %v", err)
	}
}

// BenchmarkHostileSignatureHeader measures the answer to a 100k-entry signature
// header over a 2 MiB body (the default --max-body), and the worst case the caps
// allow: MaxSignatures entries against three secrets.
//
//	go test ./intake -run XXX -bench HostileSignature
func BenchmarkHostileSignatureHeader(b *testing.B) {
	now := time.Unix(1710424800, 0)
	body := []byte(strings.Repeat("x", 2<<20))
	secrets := []string{"s1", "s2", "s3"}
	for _, bc := range []struct {
		name    string
		entries int
	}{{"100k-entries", 100_000}, {"max-entries", MaxSignatures}} {
		header := hostileSignatures(bc.entries)
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if verifyGeneric(secrets, "1710424800", header, body, now, time.Minute) == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}
