// Package tests3 gives tests a real S3 server over HTTP.
//
// Start runs gofakes3 (an in-memory S3 implementation) behind an httptest server: the
// SDK talks the real protocol over a real socket, and the server can inject faults
// (Server.SetFault) for outage tests. StartVersity runs the standalone versitygw
// gateway over a temporary folder: a second, independent S3 implementation, which
// catches what gofakes3 forgives (checksum headers, signatures). It skips the test
// when the binary is absent; PRINTWORKER_TEST_VERSITYGW names it, else it is looked
// up on PATH.
package tests3

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/printworker/printworker/internal/testnet"
	"github.com/printworker/printworker/storage"
)

// Server is a running S3 server for one test, with a bucket already created.
type Server struct {
	Kind      string // "gofakes3" or "versitygw"
	Endpoint  string // http://127.0.0.1:PORT
	Bucket    string
	Region    string
	AccessKey string
	SecretKey string
	// Config is ready for storage.NewS3 (path-style, static keys, the bucket).
	Config storage.S3Config

	fault    atomic.Int32
	private  atomic.Bool
	received atomic.Int64
	stop     func()
}

// Fault is what a gofakes3 Server does to each request while set.
type Fault int32

const (
	// FaultNone serves normally.
	FaultNone Fault = iota
	// FaultUnavailable answers 503 ServiceUnavailable, as a store under maintenance.
	FaultUnavailable
	// FaultDrop closes the connection without an answer, as a crashed store.
	FaultDrop
)

const bucket = "printworker-test"

// Start returns a gofakes3 server that lives until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{Kind: "gofakes3", Bucket: bucket, Region: "us-east-1", AccessKey: "test-access", SecretKey: "test-secret"}
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatalf("tests3: create bucket: %v", err)
	}
	fake := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog()))
	handler := fake.Server()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch Fault(s.fault.Load()) {
		case FaultUnavailable:
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>ServiceUnavailable</Code><Message>injected by tests3</Message></Error>`)
			return
		case FaultDrop:
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
					return
				}
			}
			panic(http.ErrAbortHandler)
		}
		if s.private.Load() {
			if why := s.denied(r); why != "" {
				writeDenied(w, why)
				return
			}
		}
		r.Body = &countingBody{r: r.Body, n: &s.received}
		handler.ServeHTTP(w, r)
	}))
	s.stop = hs.Close
	t.Cleanup(s.Stop)
	s.Endpoint = hs.URL
	s.Config = s.config()
	return s
}

// SetFault changes how the server answers from now on (gofakes3 only).
func (s *Server) SetFault(f Fault) {
	if s.Kind != "gofakes3" {
		panic("tests3: faults are injected by the gofakes3 server only")
	}
	s.fault.Store(int32(f))
}

// BytesReceived counts the request body bytes the server has read so far (gofakes3
// only): tests compare it with what a client has consumed from its source to bound
// how much the client holds in memory.
func (s *Server) BytesReceived() int64 { return s.received.Load() }

// Stop shuts the server down now (it also stops at test end); later requests find a
// closed port.
func (s *Server) Stop() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

func (s *Server) config() storage.S3Config {
	return storage.S3Config{
		Bucket: s.Bucket, Endpoint: s.Endpoint, Region: s.Region,
		AccessKey: s.AccessKey, SecretKey: s.SecretKey, PathStyle: true,
		// The SDK still makes all its tries against a failing server, without
		// waiting seconds between them.
		RetryMaxBackoff: time.Millisecond,
	}
}

// Client returns a plain SDK client for the server, to check results as a user of the
// bucket would see them, independently of package storage.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:                     s.Region,
		BaseEndpoint:               aws.String(s.Endpoint),
		UsePathStyle:               true,
		Credentials:                credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

type countingBody struct {
	r io.ReadCloser
	n *atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingBody) Close() error { return c.r.Close() }

// VersityBinary returns the versitygw binary tests use, or "" when there is none.
func VersityBinary() string {
	if bin := os.Getenv("PRINTWORKER_TEST_VERSITYGW"); bin != "" {
		return bin
	}
	bin, err := exec.LookPath("versitygw")
	if err != nil {
		return ""
	}
	return bin
}

// StartVersity returns a versitygw gateway over a private folder (posix backend),
// with the bucket created; it lives until the test ends. The test is skipped when no
// binary is found.
func StartVersity(t testing.TB) *Server {
	t.Helper()
	bin := VersityBinary()
	if bin == "" {
		t.Skip("tests3: versitygw not installed (set PRINTWORKER_TEST_VERSITYGW)")
	}
	root := t.TempDir()
	data := filepath.Join(root, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &Server{Kind: "versitygw", Bucket: bucket, Region: "us-east-1", AccessKey: "printworker", SecretKey: "printworker-secret-key"}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := testnet.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		var out bytes.Buffer
		cmd := exec.Command(bin, "--access", s.AccessKey, "--secret", s.SecretKey,
			"--region", s.Region, "--port", addr, "--quiet", "posix", data)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("tests3: start %s: %v", bin, err)
		}
		stop := func() {
			_ = cmd.Process.Kill()
			_, _ = cmd.Process.Wait()
		}
		s.Endpoint = "http://" + addr
		if lastErr = s.waitReady(10 * time.Second); lastErr == nil {
			s.stop = stop
			t.Cleanup(s.Stop)
			s.Config = s.config()
			if _, err := s.Client().CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
				t.Fatalf("tests3: versitygw create bucket: %v\n%s", err, out.String())
			}
			return s
		}
		stop()
		lastErr = fmt.Errorf("%w\n%s", lastErr, out.String())
	}
	t.Fatalf("tests3: versitygw did not start: %v", lastErr)
	return nil
}

// waitReady polls until the gateway answers an authenticated ListBuckets.
func (s *Server) waitReady(within time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	c := s.Client()
	for {
		_, err := c.ListBuckets(ctx, &s3.ListBucketsInput{}, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("versitygw at %s: %w", s.Endpoint, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
