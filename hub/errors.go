package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/printworker/printworker/internal/netguard"
)

// Operation names carried by Error.Op: a small fixed set, usable as a metric label.
const (
	OpCreateOrder    = "order.create"
	OpUpdateOrder    = "order.update"
	OpDeleteOrder    = "order.delete"
	OpListTemplates  = "template.list"
	OpGetTemplate    = "template.get"
	OpCreateTemplate = "template.create"
	OpUpdateTemplate = "template.update"
	OpDeleteTemplate = "template.delete"
	OpGetDesign      = "design.get"
	OpExportDesign   = "design.export"
	OpExportView     = "design.export_view"
	OpGetMedia       = "media.get"
)

var (
	// ErrTooLarge is wrapped by the error of a response, export or media body larger
	// than its configured cap. Permanent: the same request yields the same size.
	ErrTooLarge = errors.New("response body exceeds the size limit")
	// ErrBadResponse is wrapped by the error of an answer the client cannot use: a 2xx
	// JSON body that does not decode into the expected resource, or an endless chain
	// of redirects. Permanent: the hub answered, just not with anything usable. A body
	// cut short in transit is transient instead (it wraps io.ErrUnexpectedEOF).
	ErrBadResponse = errors.New("unusable response")
	// ErrInvalidRequest is wrapped when a call's arguments cannot make a request (an
	// empty id, an invalid design reference, a body that cannot be encoded).
	// Permanent: the same arguments fail the same way.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrPaging is wrapped when listing templates cannot make progress (a page that
	// repeats already seen templates, or more pages than the iteration cap).
	ErrPaging = errors.New("template paging does not advance")
	// ErrTooSlow is wrapped by the error of an export or media body that arrives
	// slower than the configured minimum rate. Transient: the next try may be fast.
	ErrTooSlow = errors.New("body arrives too slowly")
	// ErrRefused is wrapped by the error of a request or redirect to an address the
	// outbound guard refuses (loopback, private, link-local, ...). Permanent.
	ErrRefused = netguard.ErrRefused
)

// maxReason bounds the reason kept from an error answer (Error.Body).
const maxReason = 160

// Error is the failure of one hub call. It knows its operation, the HTTP exchange, a
// bounded excerpt of the answer and whether a retry can help.
type Error struct {
	Op     string // one of the Op* constants
	Method string
	URL    string // request URL without query
	Status int    // HTTP status; 0 when no answer arrived
	// Body is a short reason from an API error answer, for humans: the "error" or
	// "message" field of a JSON body, or the first line of a text/plain one, in
	// printable ASCII, at most 160 bytes. Empty for media downloads and other
	// answers: a remote body never reaches errors, logs or events verbatim.
	Body string
	Err  error // underlying cause (transport, decode, size), may be nil
	// Retry is the server's Retry-After (429, 503), 0 when absent.
	Retry time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hub %s: %s %s", e.Op, e.Method, e.URL)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": status %d %s", e.Status, http.StatusText(e.Status))
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Body != "" {
		fmt.Fprintf(&b, ": body %q", e.Body)
	}
	if e.Retry > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.Retry)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether repeating the call can succeed: network failures, a body
// cut short or too slow, 408, 425, 429 and 5xx. Everything else the hub answers
// (400, 401, 403, 404, 409, 413, 422, 3xx, ...) is permanent, as are oversized and
// malformed bodies, refused addresses and redirects, and a cancelled context. hub-gaps.md lists the classes; the client never retries by
// itself, the job queue does.
func (e *Error) Retryable() bool {
	switch {
	case errors.Is(e.Err, ErrTooSlow):
		return true
	case errors.Is(e.Err, ErrTooLarge), errors.Is(e.Err, ErrBadResponse), errors.Is(e.Err, ErrPaging),
		errors.Is(e.Err, ErrInvalidRequest), errors.Is(e.Err, ErrRefused):
		return false
	case errors.Is(e.Err, context.Canceled):
		return false
	case e.Status == 0:
		// No answer: connection refused/reset, DNS, timeout.
		return true
	case e.Status >= 200 && e.Status < 300:
		// The answer began and then failed in transit (truncated body, reset).
		return e.Err != nil
	}
	return RetryableStatus(e.Status)
}

// invalid is the permanent error of arguments that cannot make a request.
func invalid(op, format string, a ...any) *Error {
	return &Error{Op: op, Err: fmt.Errorf("%w: %s", ErrInvalidRequest, fmt.Sprintf(format, a...))}
}

// RetryAfter is the delay the hub asked for with Retry-After, 0 when none.
func (e *Error) RetryAfter() time.Duration { return e.Retry }

// RetryableStatus reports whether an HTTP status is transient (hub-gaps.md).
func RetryableStatus(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests:
		return true
	}
	return code >= 500 && code <= 599
}

// IsStatus reports whether err is (or wraps) a hub Error with the HTTP status code.
func IsStatus(err error, code int) bool {
	var he *Error
	return errors.As(err, &he) && he.Status == code
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date, relative
// to now. Unparsable or past values give 0.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		// Cap to avoid overflow on absurd values; a day is beyond any sane ask.
		const maxSecs = int64(24 * time.Hour / time.Second)
		return time.Duration(min(secs, maxSecs)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, 24*time.Hour)
		}
	}
	return 0
}

// readReason reads a bounded part of an error body and returns a short sanitized
// reason from it (see Error.Body), then drains a bounded amount more so the
// connection can be reused.
func readReason(r io.Reader) string {
	buf := make([]byte, 4<<10)
	n, _ := io.ReadFull(r, buf)
	drain(r)
	return Reason(buf[:n])
}

// drain discards a bounded rest of a body so the connection can be reused.
func drain(r io.Reader) { _, _ = io.Copy(io.Discard, io.LimitReader(r, 64<<10)) }

// Reason summarises an error answer's body: the "error" or "message" string of a
// JSON object (or the "message" of an "error" object), else the first line of a
// body that is not JSON or markup; cut to printable ASCII (anything else becomes
// '?', runs of spaces one space) of at most 160 bytes. "" when nothing fits.
func Reason(body []byte) string {
	t := bytes.TrimSpace(body)
	if len(t) == 0 {
		return ""
	}
	var s string
	switch t[0] {
	case '{':
		var v struct {
			Error   json.RawMessage `json:"error"`
			Message *string         `json:"message"`
		}
		if json.Unmarshal(t, &v) != nil {
			return "" // cut short or not JSON after all: nothing trustworthy to say
		}
		var str string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &str) == nil && str != "":
			s = str
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			s = obj.Message
		case v.Message != nil:
			s = *v.Message
		}
	case '<', '[':
		return "" // markup (an HTML error page) or an array: no reason to quote
	default:
		if i := bytes.IndexAny(t, "\r\n"); i >= 0 {
			t = t[:i]
		}
		s = string(t)
	}
	return printable(s, maxReason)
}

// printable keeps s as printable ASCII: other runes become '?', whitespace runs one
// space, and the result is cut to max bytes (ending in "..." when cut).
func printable(s string, max int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			space = b.Len() > 0
			continue
		case r < 0x21 || r > 0x7e:
			r = '?'
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		if b.Len() > max {
			return b.String()[:max-3] + "..."
		}
	}
	return b.String()
}

// FieldError is one invalid property of a payload.
type FieldError struct {
	Field  string // JSON path, e.g. "billingDetails.zip", "lineItems[0].token"
	Reason string
}

// ValidationError lists every invalid property of a payload found before sending it.
// It is permanent: the same payload fails the same way.
type ValidationError struct {
	What   string // "order <id>"
	Fields []FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Field + ": " + f.Reason
	}
	return fmt.Sprintf("hub: invalid %s: %s", e.What, strings.Join(parts, "; "))
}

// Retryable is always false: a retry sends the same invalid payload.
func (e *ValidationError) Retryable() bool { return false }
