package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// Checksum settings of S3Config.Checksum.
const (
	// ChecksumWhenRequired sends a checksum only where S3 demands one. Since
	// aws-sdk-go-v2 service/s3 v1.73 the SDK otherwise adds CRC32 checksums (with
	// aws-chunked, trailer-signed bodies) to every upload, which many S3-compatible
	// stores reject or store wrongly; hence the default.
	ChecksumWhenRequired = "when_required"
	// ChecksumWhenSupported is the SDK's default: checksums on every upload.
	ChecksumWhenSupported = "when_supported"
)

// Defaults of S3Config.
const (
	DefaultPartSize    int64 = 8 << 20
	DefaultConcurrency       = 2
	minPartSize        int64 = 5 << 20 // S3's smallest part but the last
)

// S3Config configures the S3 backend.
type S3Config struct {
	Bucket string
	// Endpoint of an S3-compatible store ("http://minio:9000"); empty for AWS.
	Endpoint string
	// Region; "us-east-1" when empty and nothing else (environment, profile) sets one.
	Region string
	// AccessKey and SecretKey are static credentials; when empty the standard AWS
	// chain applies (environment, shared files, SSO, web identity, instance role).
	AccessKey, SecretKey string
	// PathStyle addresses the bucket in the path (endpoint/bucket/key), as most
	// self-hosted stores need, instead of as a host name (bucket.endpoint/key).
	PathStyle bool
	// Checksum is ChecksumWhenRequired (default) or ChecksumWhenSupported.
	Checksum string
	// PartSize of multipart uploads; DefaultPartSize when 0, at least 5 MiB. A body
	// up to one part is sent with one PutObject. Memory per upload is about
	// PartSize x (Concurrency + 1).
	PartSize int64
	// Concurrency is the number of parts of one upload in flight; DefaultConcurrency
	// when 0.
	Concurrency int
	// PublicBaseURL prefixes keys in URL (a CDN, a public bucket website, a file
	// browser), e.g. "https://files.example.com/prints". Empty: endpoint/bucket/key.
	PublicBaseURL string
	// LinkExpiry is the lifetime of the presigned GET URLs Link returns when
	// PublicBaseURL is empty (a private bucket); DefaultLinkExpiry when 0, at most
	// MaxLinkExpiry.
	LinkExpiry time.Duration
	// CreateBucket creates the bucket at start when missing.
	CreateBucket bool
	// MaxAttempts is how often the SDK sends one request before giving up (it
	// retries throttling, 5xx and connection errors with a short backoff); 0 keeps the
	// SDK's 3. The storage itself never loops: a failed call returns a Retryable error
	// and the job queue retries the job later.
	MaxAttempts int
	// RetryMaxBackoff caps the SDK's wait between two tries of one request; 0 keeps
	// the SDK's backoff (up to 20 s). Tests of an unavailable store set it small so
	// each failed attempt still makes every try without sleeping through the waits.
	RetryMaxBackoff time.Duration
	// HTTPClient replaces the SDK's HTTP client (proxies, custom TLS); optional.
	HTTPClient *http.Client
}

func (c S3Config) withDefaults() S3Config {
	if c.Checksum == "" {
		c.Checksum = ChecksumWhenRequired
	}
	if c.PartSize == 0 {
		c.PartSize = DefaultPartSize
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	return c
}

// Validate reports every bad value at once.
func (c S3Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if c.Bucket == "" {
		errs = append(errs, errors.New("s3 bucket is required"))
	}
	if c.Endpoint != "" {
		if u, err := url.Parse(c.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("s3 endpoint %q: want http(s)://host[:port]", c.Endpoint))
		}
	}
	if c.PublicBaseURL != "" {
		if u, err := url.Parse(c.PublicBaseURL); err != nil || u.Scheme == "" || u.Host == "" {
			errs = append(errs, fmt.Errorf("s3 public base URL %q is not an absolute URL", c.PublicBaseURL))
		}
	}
	if err := validateLinkExpiry(c.LinkExpiry); err != nil {
		errs = append(errs, err)
	}
	if (c.AccessKey == "") != (c.SecretKey == "") {
		errs = append(errs, errors.New("s3 access key and secret key go together"))
	}
	if c.Checksum != ChecksumWhenRequired && c.Checksum != ChecksumWhenSupported {
		errs = append(errs, fmt.Errorf("s3 checksum %q: want %s or %s", c.Checksum, ChecksumWhenRequired, ChecksumWhenSupported))
	}
	if c.PartSize < minPartSize {
		errs = append(errs, fmt.Errorf("s3 part size %d: at least %d bytes", c.PartSize, minPartSize))
	}
	if c.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("s3 concurrency %d: at least 1", c.Concurrency))
	}
	if c.MaxAttempts < 0 {
		errs = append(errs, fmt.Errorf("s3 max attempts %d: at least 1, or 0 for the default", c.MaxAttempts))
	}
	return errors.Join(errs...)
}

// uploader sends one object, in parts when large. It hides feature/s3/manager,
// deprecated in favour of feature/s3/transfermanager, which is not 1.0 yet.
type uploader interface {
	upload(ctx context.Context, in *s3.PutObjectInput) error
}

type managerUploader struct {
	u *manager.Uploader //lint:ignore SA1019 transfermanager is not stable yet; see uploader
}

func (m managerUploader) upload(ctx context.Context, in *s3.PutObjectInput) error {
	//lint:ignore SA1019 see uploader
	_, err := m.u.Upload(ctx, in)
	return err
}

// S3 stores objects in an S3-compatible bucket.
type S3 struct {
	cfg    S3Config
	client *s3.Client
	up     uploader
}

// NewS3 connects to the bucket, creating it when cfg.CreateBucket is set. It does not
// otherwise call the store, so it succeeds while the store is down.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	if err := cfg.Validate(); err != nil {
		return nil, permanent("open", "", err)
	}
	cfg = cfg.withDefaults()
	calc, valid := aws.RequestChecksumCalculationWhenRequired, aws.ResponseChecksumValidationWhenRequired
	if cfg.Checksum == ChecksumWhenSupported {
		calc, valid = aws.RequestChecksumCalculationWhenSupported, aws.ResponseChecksumValidationWhenSupported
	}
	opts := []func(*config.LoadOptions) error{
		config.WithRequestChecksumCalculation(calc),
		config.WithResponseChecksumValidation(valid),
	}
	if cfg.Region != "" {
		opts = append(opts, config.WithRegion(cfg.Region))
	}
	if cfg.AccessKey != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, "")))
	}
	if cfg.MaxAttempts > 0 {
		opts = append(opts, config.WithRetryMaxAttempts(cfg.MaxAttempts))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, permanent("open", "", fmt.Errorf("aws config: %w", err))
	}
	if awsCfg.Region == "" {
		awsCfg.Region = "us-east-1"
	}
	cfg.Region = awsCfg.Region
	client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		o.UsePathStyle = cfg.PathStyle
		if cfg.RetryMaxBackoff > 0 {
			o.Retryer = retry.AddWithMaxBackoffDelay(o.Retryer, cfg.RetryMaxBackoff)
		}
		if cfg.HTTPClient != nil {
			// Set here, not through config.WithHTTPClient, which refuses a plain
			// *http.Client when AWS_CA_BUNDLE is set.
			o.HTTPClient = cfg.HTTPClient
		}
	})
	//lint:ignore SA1019 see uploader
	up := manager.NewUploader(client, func(u *manager.Uploader) {
		u.PartSize = cfg.PartSize
		u.Concurrency = cfg.Concurrency
		u.LeavePartsOnError = false
		// The uploader has its own checksum default (when supported) and ignores the
		// client's: without this line multipart uploads send CRC32 anyway.
		u.RequestChecksumCalculation = calc
	})
	s := &S3{cfg: cfg, client: client, up: managerUploader{up}}
	if cfg.CreateBucket {
		if err := s.ensureBucket(ctx); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *S3) ensureBucket(ctx context.Context) error {
	_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(s.cfg.Bucket)})
	if err == nil {
		return nil
	}
	if !errors.Is(s3Error("open", "", err), ErrNotFound) && apiCode(err) != "NoSuchBucket" {
		return s3Error("open", "", err)
	}
	in := &s3.CreateBucketInput{Bucket: aws.String(s.cfg.Bucket)}
	if s.cfg.Region != "us-east-1" {
		in.CreateBucketConfiguration = &types.CreateBucketConfiguration{
			LocationConstraint: types.BucketLocationConstraint(s.cfg.Region)}
	}
	_, err = s.client.CreateBucket(ctx, in)
	switch apiCode(err) {
	case "", "BucketAlreadyOwnedByYou":
		return nil
	}
	return s3Error("open", "", fmt.Errorf("create bucket %s: %w", s.cfg.Bucket, err))
}

// Client returns the underlying SDK client, for tools that need more than storage
// offers (presigned links, lifecycle rules).
func (s *S3) Client() *s3.Client { return s.client }

// Describe names the backend for logs: "s3://bucket (endpoint)".
func (s *S3) Describe() string {
	where := s.cfg.Endpoint
	if where == "" {
		where = "aws " + s.cfg.Region
	}
	return fmt.Sprintf("s3://%s (%s)", s.cfg.Bucket, where)
}

// URL returns where key can be opened: under PublicBaseURL when set, else the
// bucket's address at the endpoint (which needs the bucket to be readable, or a
// browser logged in to the store's console).
func (s *S3) URL(key string) string {
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	path := strings.Join(segs, "/")
	if s.cfg.PublicBaseURL != "" {
		return strings.TrimRight(s.cfg.PublicBaseURL, "/") + "/" + path
	}
	if s.cfg.Endpoint == "" {
		return fmt.Sprintf("https://%s.s3.%s.amazonaws.com/%s", s.cfg.Bucket, s.cfg.Region, path)
	}
	u, _ := url.Parse(s.cfg.Endpoint) // checked by Validate
	base := strings.TrimRight(u.Path, "/")
	if s.cfg.PathStyle {
		return fmt.Sprintf("%s://%s%s/%s/%s", u.Scheme, u.Host, base, url.PathEscape(s.cfg.Bucket), path)
	}
	return fmt.Sprintf("%s://%s.%s%s/%s", u.Scheme, s.cfg.Bucket, u.Host, base, path)
}

// Put streams body to key. Bodies up to PartSize go in one PutObject, larger ones in
// a multipart upload that is aborted on any failure: either way the key shows the
// previous object or the complete new one, never a part.
func (s *S3) Put(ctx context.Context, obj Object, body io.Reader) (PutResult, error) {
	if err := checkObject(obj); err != nil {
		return PutResult{}, err
	}
	meta := make(map[string]string, len(obj.Metadata))
	for k, v := range obj.Metadata {
		meta[k] = encodeMeta(v)
	}
	cr := newCheckedReader(body, obj)
	in := &s3.PutObjectInput{
		Bucket:             aws.String(s.cfg.Bucket),
		Key:                aws.String(obj.Key),
		Body:               cr,
		ContentType:        aws.String(contentTypeOf(obj)),
		ContentDisposition: aws.String(dispositionOf(obj)),
		Metadata:           meta,
	}
	if obj.IfAbsent {
		in.IfNoneMatch = aws.String("*")
	}
	err := s.up.upload(ctx, in)
	if cr.err != nil {
		// The SDK may wrap the body's error beyond recognition; the reader knows it.
		return PutResult{}, putError(obj.Key, cr.err, s3Error)
	}
	if err != nil {
		return PutResult{}, putError(obj.Key, err, s3Error)
	}
	return PutResult{Key: obj.Key, Bytes: cr.n, SHA256: cr.sum()}, nil
}

// Get opens key for reading; close the reader.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, Info, error) {
	if err := ValidateKey(key); err != nil {
		return nil, Info{}, permanent("get", key, err)
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.cfg.Bucket), Key: aws.String(key)})
	if err != nil {
		return nil, Info{}, s3Error("get", key, err)
	}
	return out.Body, Info{
		Key: key, Size: sizeOf(out.ContentLength), ContentType: aws.ToString(out.ContentType),
		Metadata: decodeMetadata(out.Metadata), ModTime: aws.ToTime(out.LastModified),
	}, nil
}

// Stat describes key.
func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	if err := ValidateKey(key); err != nil {
		return Info{}, permanent("stat", key, err)
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.cfg.Bucket), Key: aws.String(key)})
	if err != nil {
		return Info{}, s3Error("stat", key, err)
	}
	return Info{
		Key: key, Size: sizeOf(out.ContentLength), ContentType: aws.ToString(out.ContentType),
		Metadata: decodeMetadata(out.Metadata), ModTime: aws.ToTime(out.LastModified),
	}, nil
}

// List returns the objects whose key starts with prefix, sorted by key.
func (s *S3) List(ctx context.Context, prefix string) ([]Info, error) {
	var out []Info
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: aws.String(s.cfg.Bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s3Error("list", prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, Info{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), ModTime: aws.ToTime(o.LastModified)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Delete removes key; deleting a missing key succeeds.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return permanent("delete", key, err)
	}
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.cfg.Bucket), Key: aws.String(key)})
	if err != nil && !errors.Is(s3Error("delete", key, err), ErrNotFound) {
		return s3Error("delete", key, err)
	}
	return nil
}

func decodeMetadata(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		// Header names arrive canonicalised by some stores ("Order"); ours are lowercase.
		out[strings.ToLower(k)] = decodeMeta(v)
	}
	return out
}

// sizeOf reads a length the store may omit; -1 is unknown, as in Object.Size.
func sizeOf(n *int64) int64 {
	if n == nil {
		return -1
	}
	return *n
}

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// s3Error classifies an SDK error. The service's error code decides first, then the
// HTTP status; an error without a response (connection refused, reset, DNS, TLS
// timeout) is transient: the store may be back later.
func s3Error(op, key string, err error) error {
	if e := contextError(op, key, err); e != nil {
		return e
	}
	switch apiCode(err) {
	case "PreconditionFailed", "ConditionalRequestConflict":
		return permanent(op, key, fmt.Errorf("%w: %w", ErrExists, err))
	case "NoSuchKey", "NotFound":
		return permanent(op, key, fmt.Errorf("%w: %w", ErrNotFound, err))
	case "KeyTooLongError":
		return permanent(op, key, fmt.Errorf("name too long for the store (keys hold at most 1024 bytes): %w", err))
	case "InvalidURI", "InvalidObjectName", "XMinioInvalidObjectName", "InvalidArgument":
		return permanent(op, key, fmt.Errorf("the store refuses the name: %w", err))
	case "AccessDenied", "AllAccessDisabled", "AccountProblem", "InvalidAccessKeyId", "SignatureDoesNotMatch":
		return permanent(op, key, fmt.Errorf("permission denied by the store: %w", err))
	case "NoSuchBucket", "InvalidBucketName", "EntityTooLarge", "MetadataTooLarge":
		return permanent(op, key, err)
	case "SlowDown", "Throttling", "ThrottlingException", "RequestTimeout", "RequestTimeTooSkewed",
		"InternalError", "ServiceUnavailable", "XMinioStorageFull":
		return transient(op, key, err)
	}
	var hs interface{ HTTPStatusCode() int }
	if errors.As(err, &hs) {
		switch code := hs.HTTPStatusCode(); {
		case code == http.StatusNotFound:
			return permanent(op, key, fmt.Errorf("%w: %w", ErrNotFound, err))
		case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests, code >= 500:
			return transient(op, key, err)
		case code == http.StatusForbidden:
			return permanent(op, key, fmt.Errorf("permission denied by the store: %w", err))
		case code >= 400:
			return permanent(op, key, err)
		}
	}
	return transient(op, key, err)
}

// dispositionOf is the object's Content-Disposition: attachment, or inline for an
// object meant to be shown (Object.Inline).
func dispositionOf(obj Object) string {
	h := ContentDisposition(filenameOf(obj))
	if obj.Inline {
		h = "inline" + strings.TrimPrefix(h, "attachment")
	}
	return h
}
