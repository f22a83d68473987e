package tests3

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func TestServers(t *testing.T) {
	ctx := context.Background()
	for name, start := range map[string]func(testing.TB) *Server{"gofakes3": Start, "versitygw": StartVersity} {
		t.Run(name, func(t *testing.T) {
			s := start(t) // inside the subtest: a missing versitygw skips only its own
			if s.Kind != name {
				t.Errorf("Kind = %q", s.Kind)
			}
			c := s.Client()
			if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(s.Bucket)}); err != nil {
				t.Fatalf("bucket missing: %v", err)
			}
			if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s.Bucket), Key: aws.String("a/b.txt"),
				Body: strings.NewReader("hello")}); err != nil {
				t.Fatal(err)
			}
			out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.Bucket), Key: aws.String("a/b.txt")})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(out.Body)
			out.Body.Close()
			if string(got) != "hello" {
				t.Errorf("got %q", got)
			}
			if s.Config.Bucket != s.Bucket || s.Config.Endpoint != s.Endpoint || !s.Config.PathStyle {
				t.Errorf("Config = %+v", s.Config)
			}
			if s.Kind == "gofakes3" && s.BytesReceived() < 5 {
				t.Errorf("BytesReceived = %d after a 5-byte upload", s.BytesReceived())
			}
		})
	}
}

func TestFaults(t *testing.T) {
	ctx := context.Background()
	s := Start(t)
	c := s3.New(s3.Options{Region: s.Region, BaseEndpoint: aws.String(s.Endpoint), UsePathStyle: true,
		Credentials: s.Client().Options().Credentials, RetryMaxAttempts: 1})
	head := func() error {
		_, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(s.Bucket)})
		return err
	}
	for _, f := range []Fault{FaultUnavailable, FaultDrop} {
		s.SetFault(f)
		if err := head(); err == nil {
			t.Errorf("fault %d: request succeeded", f)
		}
	}
	s.SetFault(FaultNone)
	if err := head(); err != nil {
		t.Errorf("after faults: %v", err)
	}
	s.Stop()
	if err := head(); err == nil {
		t.Error("stopped server answered")
	}
}

func TestVersityMissing(t *testing.T) {
	t.Setenv("PRINTWORKER_TEST_VERSITYGW", "/nonexistent/versitygw")
	if got := VersityBinary(); got != "/nonexistent/versitygw" {
		t.Errorf("VersityBinary = %q", got)
	}
}
