package tests3

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// SetPrivate makes the gofakes3 server behave as a private bucket: a request without
// an Authorization header is refused (403 AccessDenied) unless it is a valid,
// unexpired presigned URL (SigV4 query signature with this server's keys). gofakes3
// itself checks no signature, so without this every anonymous GET succeeds.
func (s *Server) SetPrivate(private bool) {
	if s.Kind != "gofakes3" {
		panic("tests3: SetPrivate applies to the gofakes3 server only")
	}
	s.private.Store(private)
}

// denied answers why r may not read a private bucket, or "" when it may.
func (s *Server) denied(r *http.Request) string {
	if r.Header.Get("Authorization") != "" {
		return ""
	}
	q := r.URL.Query()
	sig := q.Get("X-Amz-Signature")
	if sig == "" {
		return "Anonymous access is forbidden for this bucket"
	}
	signed, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	if err != nil {
		return "bad X-Amz-Date"
	}
	expires, err := strconv.Atoi(q.Get("X-Amz-Expires"))
	if err != nil || expires <= 0 {
		return "bad X-Amz-Expires"
	}
	if time.Now().After(signed.Add(time.Duration(expires) * time.Second)) {
		return "Request has expired"
	}
	// Sign the same request again with the server's keys and compare (S3 signs the
	// path escaped once, not twice as other services).
	q.Del("X-Amz-Signature")
	u := *r.URL
	u.Scheme, u.Host, u.RawQuery = "http", r.Host, q.Encode()
	req, err := http.NewRequest(r.Method, u.String(), nil)
	if err != nil {
		return "bad request"
	}
	creds := aws.Credentials{AccessKeyID: s.AccessKey, SecretAccessKey: s.SecretKey}
	want, _, err := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }).PresignHTTP(context.Background(), creds, req, "UNSIGNED-PAYLOAD", "s3", s.Region, signed)
	if err != nil {
		return "cannot check signature: " + err.Error()
	}
	wu, err := req.URL.Parse(want)
	if err != nil || wu.Query().Get("X-Amz-Signature") != sig {
		return "The request signature we calculated does not match the signature you provided"
	}
	return ""
}

func writeDenied(w http.ResponseWriter, why string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusForbidden)
	io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>`+why+`</Message></Error>`)
}

// GetAnon fetches u with no credentials, as print staff's browser or a store's
// receiver following a link would, and returns the status and body. Tests of private
// buckets use it to show that a presigned link opens and a plain object URL does not.
func GetAnon(t testing.TB, u string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", u, err)
	}
	return resp.StatusCode, b
}
