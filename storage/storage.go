// Package storage puts print files where print staff pick them up: an S3-compatible
// bucket (S3), a local "hot folder" directory (Dir) or a folder on an SFTP server
// (SFTP, which keeps Dir's temporary-name-then-rename scheme; see sftp.go).
//
// The backends have the same methods (Put, Get, Stat, List, Delete, URL, Describe)
// and pass one conformance suite; consumers declare the interface they need. Put
// streams: a body is never held whole in memory, its SHA-256 is computed on the way
// through, and an upload that fails part-way (a body read error, a size or checksum
// mismatch, a cancelled context) leaves nothing under the final key. S3 guarantees
// that by itself (PutObject and CompleteMultipartUpload are atomic); Dir writes a
// hidden temporary file in the target folder and renames it into place.
//
// Errors carry their class: *Error implements Retryable() (true for network
// failures, 5xx and throttling; false for access denied, a missing bucket or an
// invalid key) and wraps ErrNotFound when an object is missing. The package never
// loops retrying (the job queue does); the S3 SDK may repeat a single request a few
// times (S3Config.MaxAttempts).
package storage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrNotFound is wrapped by the errors of Get, Stat for a missing object.
var ErrNotFound = errors.New("object not found")

// ErrInvalidKey is wrapped when a key or metadata name is malformed; it is permanent.
var ErrInvalidKey = errors.New("invalid key")

// ErrExists is wrapped when Put with Object.IfAbsent finds the key taken (S3 answers
// 412 Precondition Failed, or 409 while another conditional write is in flight). It is
// permanent: the same write meets the same object.
var ErrExists = errors.New("object already exists")

// Object describes what Put writes.
type Object struct {
	Key         string
	ContentType string // "application/octet-stream" when empty
	// Filename is offered to browsers in Content-Disposition: attachment; empty means
	// the last segment of Key.
	Filename string
	// Inline makes browsers show the object instead of saving it (Content-Disposition:
	// inline, same filename): the staff pages, which are opened from a bucket.
	Inline bool
	// Size is the body's length when known (> 0): Put fails, and stores nothing, when
	// the body ends early or runs long. 0 or -1 means unknown.
	Size int64
	// Metadata is stored with the object (store, order, design, view, dpi, quantity,
	// sha256 ...). Names are lowercase letters, digits and '-'. A "sha256" given here
	// is verified against the body: a mismatch fails Put and stores nothing.
	Metadata map[string]string
	// IfAbsent makes Put a conditional create: when the key already holds an object,
	// Put stores nothing and fails with ErrExists. S3 sends If-None-Match: * (AWS and
	// most S3-compatible stores honour it; a store that ignores the header overwrites,
	// so callers still check what they replace); Dir links the finished temporary file
	// to the final name, which fails atomically when the name exists.
	IfAbsent bool
}

// Info describes a stored object. List fills Key, Size and ModTime only.
type Info struct {
	Key         string
	Size        int64
	ContentType string
	Metadata    map[string]string
	ModTime     time.Time
}

// PutResult reports what Put stored.
type PutResult struct {
	Key    string
	Bytes  int64
	SHA256 string // lowercase hex of the body
}

// Error is a storage failure with its retry class.
type Error struct {
	Op  string // "put", "get", "stat", "list", "delete", "open"
	Key string
	Err error
	// retry says whether trying again later may succeed.
	retry bool
}

func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("storage %s: %v", e.Op, e.Err)
	}
	return fmt.Sprintf("storage %s %q: %v", e.Op, e.Key, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the operation may succeed when tried again later.
func (e *Error) Retryable() bool { return e.retry }

func permanent(op, key string, err error) error {
	return &Error{Op: op, Key: key, Err: err}
}

func transient(op, key string, err error) error {
	return &Error{Op: op, Key: key, Err: err, retry: true}
}

// bodyError marks a failure of the caller's body (read error, size or checksum
// mismatch), so Put can report it as such rather than as a storage failure. A body
// usually streams from the network (a hub download): a read error or an early end
// is worth retrying unless the body's error says otherwise; a body that is too long
// or does not match its declared checksum is a bug a retry will not fix.
type bodyError struct {
	err   error
	retry bool
}

func (e *bodyError) Error() string { return e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

// checkedReader hashes and counts a body while it is read and turns a wrong length
// or checksum into a read error at the end, before the backend commits the object:
// the upload is then aborted and nothing becomes visible.
type checkedReader struct {
	r       io.Reader
	h       hash.Hash
	n       int64
	size    int64  // expected, <= 0 unknown
	wantSum string // expected hex sha256, "" unknown
	err     error
}

func newCheckedReader(r io.Reader, obj Object) *checkedReader {
	return &checkedReader{r: r, h: sha256.New(), size: obj.Size,
		wantSum: strings.ToLower(obj.Metadata["sha256"])}
}

func (c *checkedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	switch {
	case c.size > 0 && c.n > c.size:
		c.err = &bodyError{err: fmt.Errorf("body longer than the declared %d bytes", c.size)}
	case err == io.EOF && c.size > 0 && c.n != c.size:
		c.err = &bodyError{err: fmt.Errorf("body ended after %d of %d bytes", c.n, c.size), retry: true}
	case err == io.EOF && c.wantSum != "" && c.sum() != c.wantSum:
		c.err = &bodyError{err: fmt.Errorf("body sha256 %s differs from the declared %s", c.sum(), c.wantSum)}
	case err != nil && err != io.EOF:
		var r interface{ Retryable() bool }
		retry := !errors.Is(err, context.Canceled) && (!errors.As(err, &r) || r.Retryable())
		c.err = &bodyError{err: fmt.Errorf("reading body: %w", err), retry: retry}
	default:
		return n, err
	}
	return n, c.err
}

func (c *checkedReader) sum() string { return hex.EncodeToString(c.h.Sum(nil)) }

// putError classifies a failed Put: a body failure by its own class, anything else
// by the backend.
func putError(key string, err error, classify func(op, key string, err error) error) error {
	var be *bodyError
	if errors.As(err, &be) {
		return &Error{Op: "put", Key: key, Err: be, retry: be.retry}
	}
	return classify("put", key, err)
}

// contextError classifies an error caused by the caller's context, nil for any other:
// a cancellation is not worth retrying by itself, a deadline may be.
func contextError(op, key string, err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return permanent(op, key, err)
	case errors.Is(err, context.DeadlineExceeded):
		return transient(op, key, err)
	}
	return nil
}

// ContentDisposition returns an "attachment" Content-Disposition header for filename:
// an ASCII filename for old clients and, when the name is not plain ASCII, an
// RFC 5987 filename* that modern browsers prefer (RFC 6266).
func ContentDisposition(filename string) string {
	var ascii strings.Builder
	plain := true
	for _, r := range filename {
		switch {
		case r < 0x20 || r == 0x7f:
			plain = false
		case r >= utf8.RuneSelf, r == '"', r == '\\', r == '%':
			plain = false
			ascii.WriteByte('_')
		default:
			ascii.WriteRune(r)
		}
	}
	h := `attachment; filename="` + ascii.String() + `"`
	if !plain {
		h += "; filename*=UTF-8''" + rfc5987(filename)
	}
	return h
}

// rfc5987 percent-encodes every byte outside RFC 5987's attr-char set.
func rfc5987(s string) string {
	const attr = "!#$&+-.^_`|~"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(attr, c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// validateMetadata checks names (they become HTTP header names on S3) and values.
func validateMetadata(m map[string]string) error {
	for k, v := range m {
		if k == "" {
			return fmt.Errorf("%w: empty metadata name", ErrInvalidKey)
		}
		for _, r := range k {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return fmt.Errorf("%w: metadata name %q: use lowercase letters, digits and '-'", ErrInvalidKey, k)
			}
		}
		if !utf8.ValidString(v) {
			return fmt.Errorf("%w: metadata %q is not valid UTF-8", ErrInvalidKey, k)
		}
	}
	return nil
}

// encodeMeta makes a value safe in an HTTP header: non-ASCII or control characters
// are carried as an RFC 2047 encoded word, as S3 itself returns such values.
func encodeMeta(v string) string {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c >= 0x7f {
			return mime.QEncoding.Encode("utf-8", v)
		}
	}
	if strings.HasPrefix(v, "=?") {
		// A literal value that looks encoded must survive the decoder.
		return mime.QEncoding.Encode("utf-8", v)
	}
	return v
}

func decodeMeta(v string) string {
	if !strings.HasPrefix(v, "=?") {
		return v
	}
	d, err := new(mime.WordDecoder).DecodeHeader(v)
	if err != nil {
		return v
	}
	return d
}

// ValidateKey reports whether key is a usable object key: relative, '/'-separated,
// no empty, "." or ".." segment, no segment starting with '.' (reserved for Dir's
// temporary and metadata files), no backslash or control character, valid UTF-8,
// at most 1024 bytes.
func ValidateKey(key string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrInvalidKey, key, why) }
	switch {
	case key == "":
		return bad("empty")
	case len(key) > 1024:
		return bad("longer than 1024 bytes")
	case !utf8.ValidString(key):
		return bad("not valid UTF-8")
	case strings.ContainsRune(key, '\\'):
		return bad("contains a backslash")
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return bad("contains a control character")
		}
	}
	for _, seg := range strings.Split(key, "/") {
		switch {
		case seg == "":
			return bad("empty path segment (leading, trailing or double '/')")
		case seg == "." || seg == "..":
			return bad("relative path segment")
		case strings.HasPrefix(seg, "."):
			return bad("segment starts with '.'")
		}
	}
	return nil
}

// filenameOf returns the download name of obj.
func filenameOf(obj Object) string {
	if obj.Filename != "" {
		return obj.Filename
	}
	return obj.Key[strings.LastIndexByte(obj.Key, '/')+1:]
}

func contentTypeOf(obj Object) string {
	if obj.ContentType == "" {
		return "application/octet-stream"
	}
	return obj.ContentType
}

// checkObject refuses, before anything is sent, what every backend refuses alike: a
// key or metadata that cannot be stored (permanent).
func checkObject(obj Object) error {
	if err := ValidateKey(obj.Key); err != nil {
		return permanent("put", obj.Key, err)
	}
	if err := validateMetadata(obj.Metadata); err != nil {
		return permanent("put", obj.Key, err)
	}
	return nil
}
