package storage_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/storage"
)

func TestPresignedLinksOfPrivateBucket(t *testing.T) {
	srv := tests3.Start(t)
	srv.SetPrivate(true)
	ctx := context.Background()
	open := func(expiry time.Duration) *storage.S3 {
		cfg := srv.Config
		cfg.LinkExpiry = expiry
		s, err := storage.NewS3(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open(time.Hour)
	key := "s1/2024-06-01/A 1/front view.png"
	body := []byte("print bytes")
	if _, err := s.Put(ctx, storage.Object{Key: key, ContentType: "image/png", Size: int64(len(body))}, bytes.NewReader(body)); err != nil {
		t.Fatal(err)
	}

	// The bucket is private: its plain address is refused without credentials.
	if code, _ := tests3.GetAnon(t, s.URL(key)); code != http.StatusForbidden {
		t.Fatalf("anonymous GET of the plain address: %d, want 403 (the test server is not private)", code)
	}
	link, err := s.Link(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link)
	if got := u.Query().Get("X-Amz-Expires"); got != "3600" {
		t.Errorf("X-Amz-Expires %q, want 3600", got)
	}
	if code, b := tests3.GetAnon(t, link); code != http.StatusOK || !bytes.Equal(b, body) {
		t.Fatalf("presigned GET: %d %q, want 200 and the stored bytes", code, b)
	}
	// A link for one key does not open another: the signature covers the path.
	other := strings.Replace(link, "front%20view", "back%20view", 1)
	if code, _ := tests3.GetAnon(t, other); code != http.StatusForbidden {
		t.Errorf("tampered link: %d, want 403", code)
	}

	short := open(time.Second)
	expiring, err := short.Link(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := tests3.GetAnon(t, expiring); code != http.StatusOK {
		t.Fatalf("fresh one-second link: %d, want 200", code)
	}
	time.Sleep(2100 * time.Millisecond)
	if code, b := tests3.GetAnon(t, expiring); code != http.StatusForbidden || !bytes.Contains(b, []byte("expired")) {
		t.Errorf("expired link: %d %s, want 403 expired", code, b)
	}
}

func TestLinkPublicBaseURLWins(t *testing.T) {
	srv := tests3.Start(t)
	cfg := srv.Config
	cfg.PublicBaseURL = "https://files.example.com/prints/"
	s, err := storage.NewS3(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Link(context.Background(), "s1/d/A-1/x y.png")
	if err != nil {
		t.Fatal(err)
	}
	if want := "https://files.example.com/prints/s1/d/A-1/x%20y.png"; got != want {
		t.Errorf("link %q, want %q", got, want)
	}
}

func TestLinkExpiryValidated(t *testing.T) {
	for _, d := range []time.Duration{-time.Second, 8 * 24 * time.Hour} {
		cfg := storage.S3Config{Bucket: "b", LinkExpiry: d}
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), "link expiry") {
			t.Errorf("expiry %s: err %v, want a link expiry error", d, err)
		}
	}
	if err := (storage.S3Config{Bucket: "b", LinkExpiry: storage.MaxLinkExpiry}).Validate(); err != nil {
		t.Errorf("7 days: %v", err)
	}
}
