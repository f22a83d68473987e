package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// DefaultLinkExpiry is how long a presigned link works when S3Config.LinkExpiry is 0:
// a week, the longest SigV4 allows, so a manifest's links outlive a weekend.
const DefaultLinkExpiry = 7 * 24 * time.Hour

// MaxLinkExpiry is SigV4's limit on a presigned URL's lifetime.
const MaxLinkExpiry = 7 * 24 * time.Hour

// Link returns a link to key that opens without cloud credentials: under
// PublicBaseURL when set (a CDN or public bucket website), else a presigned GET URL
// valid for LinkExpiry. Presigning is local computation (no request is sent), but it
// needs the credentials, which the SDK may fetch (instance role), hence the context.
func (s *S3) Link(ctx context.Context, key string) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", permanent("link", key, err)
	}
	if s.cfg.PublicBaseURL != "" {
		return s.URL(key), nil
	}
	exp := s.cfg.LinkExpiry
	if exp == 0 {
		exp = DefaultLinkExpiry
	}
	req, err := s3.NewPresignClient(s.client, s3.WithPresignExpires(exp)).PresignGetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(s.cfg.Bucket), Key: aws.String(key),
	})
	if err != nil {
		return "", s3Error("link", key, fmt.Errorf("presign: %w", err))
	}
	return req.URL, nil
}

// Presigns reports whether Link makes presigned URLs (a private bucket: no
// PublicBaseURL). Staff pages in such a bucket carry presigned links, since a relative
// link would reach the bucket without a signature and be refused.
func (s *S3) Presigns() bool { return s.cfg.PublicBaseURL == "" }

// Link returns the file:// URL of key.
func (d *Dir) Link(_ context.Context, key string) (string, error) { return d.URL(key), nil }

func validateLinkExpiry(d time.Duration) error {
	if d < 0 || d > MaxLinkExpiry {
		return fmt.Errorf("s3 link expiry %s: want more than 0 and at most %s (the SigV4 limit)", d, MaxLinkExpiry)
	}
	return nil
}
