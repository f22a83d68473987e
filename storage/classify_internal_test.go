package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/smithy-go"
)

// statusError is an SDK error that carries only an HTTP status, as the SDK's
// ResponseError does for a response without an error code.
type statusError int

func (e statusError) Error() string       { return fmt.Sprintf("http %d", int(e)) }
func (e statusError) HTTPStatusCode() int { return int(e) }

// Every filesystem and store error is classed by what it is (issue 32 item 7): a name
// too long, a name refused and a permission problem are permanent, with a reason that
// says so; a full disk, a timeout, a 5xx and throttling are transient.
func TestErrorClassByKind(t *testing.T) {
	t.Parallel()
	pathErr := func(errno syscall.Errno) error {
		return &fs.PathError{Op: "mkdir", Path: "/hot/s/x", Err: errno}
	}
	api := func(code string) error { return &smithy.GenericAPIError{Code: code, Message: code} }
	tests := []struct {
		name   string
		err    error
		s3     bool
		retry  bool
		reason string // in the message of a permanent error
	}{
		{"ENAMETOOLONG", pathErr(syscall.ENAMETOOLONG), false, false, "name too long"},
		{"EINVAL", pathErr(syscall.EINVAL), false, false, "refuses the name"},
		{"EILSEQ", pathErr(syscall.EILSEQ), false, false, "refuses the name"},
		{"EACCES", pathErr(syscall.EACCES), false, false, "permission denied"},
		{"EPERM", pathErr(syscall.EPERM), false, false, "permission denied"},
		{"ENOTDIR", pathErr(syscall.ENOTDIR), false, false, "in the way"},
		{"ELOOP", pathErr(syscall.ELOOP), false, false, "in the way"},
		{"ENOENT", pathErr(syscall.ENOENT), false, false, "not found"},
		{"ENOSPC", pathErr(syscall.ENOSPC), false, true, ""},
		{"EDQUOT", pathErr(syscall.EDQUOT), false, true, ""},
		{"EIO", pathErr(syscall.EIO), false, true, ""},
		{"EROFS", pathErr(syscall.EROFS), false, true, ""},
		{"ETIMEDOUT", pathErr(syscall.ETIMEDOUT), false, true, ""},
		{"KeyTooLongError", api("KeyTooLongError"), true, false, "name too long"},
		{"InvalidURI", api("InvalidURI"), true, false, "refuses the name"},
		{"InvalidArgument", api("InvalidArgument"), true, false, "refuses the name"},
		{"AccessDenied", api("AccessDenied"), true, false, "permission denied"},
		{"403 without code", statusError(403), true, false, "permission denied"},
		{"400 without code", statusError(400), true, false, ""},
		{"SlowDown", api("SlowDown"), true, true, ""},
		{"RequestTimeout", api("RequestTimeout"), true, true, ""},
		{"503 without code", statusError(503), true, true, ""},
		{"500 without code", statusError(500), true, true, ""},
		{"no response", errors.New("dial tcp: connection refused"), true, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			classify := dirError
			if tt.s3 {
				classify = s3Error
			}
			err := classify("put", "s/x/a.png", tt.err)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("%v: not a *Error", err)
			}
			if se.Retryable() != tt.retry {
				t.Errorf("%v: Retryable() = %v, want %v", err, se.Retryable(), tt.retry)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("%v does not wrap %v", err, tt.err)
			}
			if tt.reason != "" && !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("%v: want the reason %q", err, tt.reason)
			}
		})
	}
}
