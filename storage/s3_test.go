package storage_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/storage"
)

// TestS3ErrorClasses checks what the job queue learns from each failure: the storage
// never loops, so a store that is down must say "retry later" and a misconfiguration
// must say "do not".
func TestS3ErrorClasses(t *testing.T) {
	ctx := context.Background()
	obj := storage.Object{Key: "s/2024-01-02/1/a.png"}
	body := func() *strings.Reader { return strings.NewReader("x") }

	t.Run("closed port", func(t *testing.T) {
		srv := tests3.Start(t)
		srv.Stop()
		for _, attempts := range []int{1, 0} { // 0: the SDK's own few attempts
			cfg := srv.Config
			cfg.MaxAttempts = attempts
			st, err := storage.NewS3(ctx, cfg)
			if err != nil {
				t.Fatalf("NewS3 must not need the store: %v", err)
			}
			_, err = st.Put(ctx, obj, body())
			checkClass(t, "Put", err, true)
			_, err = st.Stat(ctx, obj.Key)
			checkClass(t, "Stat", err, true)
			if errors.Is(err, storage.ErrNotFound) {
				t.Error("an unreachable store is not a missing object")
			}
		}
	})

	for _, tc := range []struct {
		name  string
		fault tests3.Fault
	}{{"503 unavailable", tests3.FaultUnavailable}, {"dropped connection", tests3.FaultDrop}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tests3.Start(t)
			cfg := srv.Config
			cfg.MaxAttempts = 1
			st, err := storage.NewS3(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			srv.SetFault(tc.fault)
			_, err = st.Put(ctx, obj, body())
			checkClass(t, "Put", err, true)
			_, err = st.List(ctx, "")
			checkClass(t, "List", err, true)
			srv.SetFault(tests3.FaultNone)
			if _, err := st.Put(ctx, obj, body()); err != nil {
				t.Errorf("after recovery: %v", err)
			}
		})
	}

	t.Run("missing bucket", func(t *testing.T) {
		srv := tests3.Start(t)
		cfg := srv.Config
		cfg.Bucket = "no-such-bucket"
		st, err := storage.NewS3(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Put(ctx, obj, body())
		checkClass(t, "Put", err, false)
		if errors.Is(err, storage.ErrNotFound) {
			t.Error("a missing bucket is not a missing object")
		}
	})

	t.Run("wrong secret", func(t *testing.T) {
		srv := tests3.StartVersity(t) // gofakes3 does not check signatures
		cfg := srv.Config
		cfg.SecretKey = "wrong-secret"
		st, err := storage.NewS3(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Put(ctx, obj, body())
		checkClass(t, "Put", err, false)
		_, err = st.Stat(ctx, obj.Key)
		checkClass(t, "Stat", err, false)
	})

	t.Run("cancelled", func(t *testing.T) {
		srv := tests3.Start(t)
		st, err := storage.NewS3(ctx, srv.Config)
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err = st.Stat(cctx, obj.Key)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Stat = %v", err)
		}
		checkClass(t, "Stat", err, false)
	})
}

// TestS3RetryMaxBackoff: a capped backoff shortens the SDK's waits, not its tries; a
// store answering 503 still gets every try of the request.
func TestS3RetryMaxBackoff(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	st, err := storage.NewS3(context.Background(), storage.S3Config{
		Bucket: "b", Endpoint: srv.URL, Region: "us-east-1", AccessKey: "k", SecretKey: "s", PathStyle: true,
		MaxAttempts: 3, RetryMaxBackoff: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Stat(context.Background(), "s/a.png")
	checkClass(t, "Stat", err, true)
	if got := requests.Load(); got != 3 {
		t.Errorf("%d requests, want 3 (every try of MaxAttempts)", got)
	}
}

func checkClass(t *testing.T, op string, err error, retry bool) {
	t.Helper()
	var se *storage.Error
	if !errors.As(err, &se) {
		t.Fatalf("%s = %v (%T), want a *storage.Error", op, err, err)
	}
	if se.Retryable() != retry {
		t.Errorf("%s: Retryable() = %v, want %v: %v", op, se.Retryable(), retry, err)
	}
}

func TestS3CreateBucket(t *testing.T) {
	ctx := context.Background()
	for name, start := range map[string]func(testing.TB) *tests3.Server{"gofakes3": tests3.Start, "versitygw": tests3.StartVersity} {
		t.Run(name, func(t *testing.T) {
			srv := start(t) // inside the subtest: a missing versitygw skips only its own
			cfg := srv.Config
			cfg.Bucket = "fresh-bucket"
			cfg.CreateBucket = true
			st, err := storage.NewS3(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := storage.NewS3(ctx, cfg); err != nil {
				t.Errorf("second start with an existing bucket: %v", err)
			}
			put(t, st, "a/b.png", []byte("x"))
			out, err := srv.Client().ListBuckets(ctx, &s3.ListBucketsInput{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, b := range out.Buckets {
				names = append(names, aws.ToString(b.Name))
			}
			if !strings.Contains(strings.Join(names, ","), "fresh-bucket") {
				t.Errorf("buckets %q", names)
			}
		})
	}
}

func TestS3ConfigValidate(t *testing.T) {
	if err := (storage.S3Config{Bucket: "b"}).Validate(); err != nil {
		t.Errorf("minimal config: %v", err)
	}
	err := storage.S3Config{Endpoint: "minio:9000", AccessKey: "a", Checksum: "always", PartSize: 1 << 20,
		Concurrency: -1, MaxAttempts: -1, PublicBaseURL: "/files"}.Validate()
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, want := range []string{"bucket", "endpoint", "secret key", "checksum", "part size", "concurrency", "max attempts", "public base URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s: %v", want, err)
		}
	}
}

func TestS3URLAndDescribe(t *testing.T) {
	ctx := context.Background()
	key := "shop/2024-01-02/1001/Café 1.png"
	for _, tc := range []struct {
		cfg      storage.S3Config
		url      string
		describe string
	}{
		{storage.S3Config{Bucket: "prints", Endpoint: "http://minio:9000", PathStyle: true},
			"http://minio:9000/prints/shop/2024-01-02/1001/Caf%C3%A9%201.png", "s3://prints (http://minio:9000)"},
		{storage.S3Config{Bucket: "prints", Endpoint: "https://s3.example.com"},
			"https://prints.s3.example.com/shop/2024-01-02/1001/Caf%C3%A9%201.png", "s3://prints (https://s3.example.com)"},
		{storage.S3Config{Bucket: "prints", Region: "eu-west-1"},
			"https://prints.s3.eu-west-1.amazonaws.com/shop/2024-01-02/1001/Caf%C3%A9%201.png", "s3://prints (aws eu-west-1)"},
		{storage.S3Config{Bucket: "prints", Region: "eu-west-1", PublicBaseURL: "https://files.example.com/p/"},
			"https://files.example.com/p/shop/2024-01-02/1001/Caf%C3%A9%201.png", "s3://prints (aws eu-west-1)"},
	} {
		tc.cfg.AccessKey, tc.cfg.SecretKey = "a", "b"
		st, err := storage.NewS3(ctx, tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.URL(key); got != tc.url {
			t.Errorf("URL = %s, want %s", got, tc.url)
		}
		if got := st.Describe(); got != tc.describe {
			t.Errorf("Describe = %s, want %s", got, tc.describe)
		}
	}
}

// TestS3Inline: a page stored Inline is shown by browsers (Content-Disposition:
// inline), everything else is offered as a download.
func TestS3Inline(t *testing.T) {
	ctx := context.Background()
	srv := tests3.Start(t)
	st, err := storage.NewS3(ctx, srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	for key, inline := range map[string]bool{"s/d/index.html": true, "s/d/a.png": false} {
		if _, err := st.Put(ctx, storage.Object{Key: key, Inline: inline}, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
		out, err := srv.Client().HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(srv.Config.Bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		got := aws.ToString(out.ContentDisposition)
		want := "attachment"
		if inline {
			want = "inline"
		}
		if !strings.HasPrefix(got, want+`; filename="`) {
			t.Errorf("%s: Content-Disposition %q, want %s", key, got, want)
		}
	}
}
