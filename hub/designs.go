package hub

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/printworker/printworker/model"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync/atomic"
	"time"
)

func (c *Client) designCall(op string, ref model.DesignRef, viewID string) (call, error) {
	if err := ref.Validate(); err != nil {
		return call{}, invalid(op, "%v", err)
	}
	ep := c.cfg.Designs
	k := call{op: op, method: http.MethodGet, ep: ep, mask: []string{ref.Token}}
	switch op {
	case OpGetDesign:
		k.path, k.parts = DesignPath(ep.Version, ref), DesignParts(c.cfg.Store, ref)
	case OpExportDesign:
		k.path, k.parts = ExportPath(ep.Version, ref, ""), DesignParts(c.cfg.Store, ref)
	default:
		k.path, k.parts = ExportPath(ep.Version, ref, viewID), ViewParts(c.cfg.Store, ref, viewID)
	}
	return k, nil
}

// GetDesign reads a design's details: GET /2023-10/designs/:id/:token (2022-08
// customizations, v1 configuration).
func (c *Client) GetDesign(ctx context.Context, ref model.DesignRef) (*model.DesignDetail, error) {
	k, err := c.designCall(OpGetDesign, ref, "")
	if err != nil {
		return nil, err
	}
	var d model.DesignDetail
	if err := c.do(ctx, k, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// ExportDesign downloads the production file of a whole design (a PDF, or a zip of
// one file per view): GET /{v}/export/:id/:token. The caller must close Body.
func (c *Client) ExportDesign(ctx context.Context, ref model.DesignRef) (*Download, error) {
	k, err := c.designCall(OpExportDesign, ref, "")
	if err != nil {
		return nil, err
	}
	return c.download(ctx, c.api, k.op, func(ctx context.Context) (*http.Request, error) { return c.newRequest(ctx, k) }, c.cfg.MaxExportBytes, k.mask)
}

// ExportView downloads the production file of one view: GET /{v}/export/:id/:token/view/:viewId.
// The caller must close Body.
func (c *Client) ExportView(ctx context.Context, ref model.DesignRef, viewID string) (*Download, error) {
	if viewID == "" {
		return nil, invalid(OpExportView, "export view of %s: empty view id", ref)
	}
	k, err := c.designCall(OpExportView, ref, viewID)
	if err != nil {
		return nil, err
	}
	return c.download(ctx, c.api, k.op, func(ctx context.Context) (*http.Request, error) { return c.newRequest(ctx, k) }, c.cfg.MaxExportBytes, k.mask)
}

// MediaURL expands Config.MediaURL for m.
func (c *Client) MediaURL(m model.Media) (string, error) {
	return expandMediaURL(c.cfg.MediaURL, c.cfg.Designs.BaseURL, m)
}

func expandMediaURL(tmpl, base string, m model.Media) (string, error) {
	if m.ID == "" {
		return "", errors.New("media object has no _id")
	}
	s := strings.NewReplacer(
		"{base}", base,
		"{_id}", url.PathEscape(m.ID),
		"{token}", url.PathEscape(m.Token),
		"{originalname}", url.PathEscape(m.OriginalName),
	).Replace(tmpl)
	if err := checkURL(s); err != nil {
		return "", err
	}
	return s, nil
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", s)
	}
	return nil
}

// OpenMedia downloads a media file (a template image, a customer's picture). The spec
// gives no address; it is Config.MediaURL, fetched unsigned (the token is the
// capability) and capped at MaxMediaBytes. The caller must close Body.
func (c *Client) OpenMedia(ctx context.Context, m model.Media) (*Download, error) {
	u, err := c.MediaURL(m)
	if err != nil {
		return nil, invalid(OpGetMedia, "media URL: %v", err)
	}
	if m.Size > c.cfg.MaxMediaBytes {
		return nil, &Error{Op: OpGetMedia, Method: http.MethodGet, URL: maskTokens(u, []string{m.Token}),
			Err: fmt.Errorf("%w: media %s is %d bytes, cap %d", ErrTooLarge, m.ID, m.Size, c.cfg.MaxMediaBytes)}
	}
	if pu, err := url.Parse(u); err == nil {
		if err := c.guard.CheckURL(pu); err != nil {
			return nil, &Error{Op: OpGetMedia, Method: http.MethodGet, URL: redactURL(pu, []string{m.Token}), Err: err}
		}
	}
	return c.download(ctx, c.media, OpGetMedia, func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	}, c.cfg.MaxMediaBytes, []string{m.Token})
}

// File kinds of a Download.
const (
	KindPNG     = "png"
	KindPDF     = "pdf"
	KindZIP     = "zip"
	KindJPEG    = "jpeg"
	KindSVG     = "svg"
	KindGIF     = "gif"
	KindWebP    = "webp"
	KindUnknown = "bin"
)

// Download is a streamed file from the hub. Body yields at most the configured cap and
// fails with an *Error wrapping ErrTooLarge beyond it; transport failures while
// reading are *Error too (retryable). Close it.
type Download struct {
	Body        io.ReadCloser
	ContentType string // as sent, "" when absent
	Filename    string // from Content-Disposition, base name only; "" when absent
	Kind        string // one of the Kind* constants
	Length      int64  // from Content-Length; -1 when unknown
}

// download sends a GET whose body streams to the caller. Config.Timeout bounds the wait
// for the response headers only; the body is bounded by ctx.
func (c *Client) download(ctx context.Context, hc *http.Client, op string, build func(context.Context) (*http.Request, error), limit int64, mask []string) (*Download, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := build(ctx)
	if err != nil {
		cancel()
		var he *Error
		if errors.As(err, &he) {
			return nil, err
		}
		return nil, invalid(op, "%v", err)
	}
	var timedOut atomic.Bool
	var timer *time.Timer
	if c.cfg.Timeout > 0 {
		timer = time.AfterFunc(c.cfg.Timeout, func() { timedOut.Store(true); cancel() })
	}
	resp, err := c.send(hc, op, req, mask)
	if timer != nil && !timer.Stop() && err == nil {
		// The timer fired as the answer arrived: the body is already cancelled.
		resp.Body.Close()
		err = &Error{Op: op, Method: req.Method, URL: redactURL(req.URL, mask), Status: resp.StatusCode, Err: context.DeadlineExceeded}
	}
	if err != nil {
		cancel()
		var he *Error
		if timedOut.Load() && errors.As(err, &he) && he.Status == 0 {
			he.Err = fmt.Errorf("no answer within %s: %w", c.cfg.Timeout, context.DeadlineExceeded)
		}
		return nil, err
	}
	fail := func(err error) (*Download, error) {
		resp.Body.Close()
		cancel()
		return nil, &Error{Op: op, Method: req.Method, URL: redactURL(req.URL, mask), Status: resp.StatusCode, Err: err}
	}
	if resp.ContentLength > limit {
		return fail(fmt.Errorf("%w: %d bytes announced, cap %d", ErrTooLarge, resp.ContentLength, limit))
	}
	var src io.Reader = resp.Body
	if c.cfg.MinRate > 0 && c.cfg.MinRateWindow > 0 {
		src = &rateReader{r: resp.Body, min: c.cfg.MinRate, window: c.cfg.MinRateWindow, clock: c.cfg.Clock, cancel: cancel}
	}
	br := bufio.NewReaderSize(src, 512)
	body := &cappedBody{r: br, c: resp.Body, ctx: ctx, cancel: cancel, limit: limit,
		err: func(err error) error {
			return &Error{Op: op, Method: req.Method, URL: redactURL(req.URL, mask), Status: resp.StatusCode, Err: err}
		}}
	d := &Download{Body: body, ContentType: resp.Header.Get("Content-Type"), Length: resp.ContentLength}
	d.Filename = dispositionFilename(resp.Header.Get("Content-Disposition"))
	d.Kind = kindFromContentType(d.ContentType)
	if d.Kind == KindUnknown {
		// Peek fills at most the 512-byte buffer; nothing more is read ahead.
		head, err := br.Peek(512)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			body.Close()
			if !errors.Is(err, ErrTooSlow) {
				err = transportCause(ctx, err)
			}
			return nil, body.err(fmt.Errorf("reading body: %w", err))
		}
		d.Kind = SniffKind(head)
	}
	return d, nil
}

// cappedBody streams a response body, failing past limit bytes and wrapping read
// failures into *Error so callers can classify them.
type cappedBody struct {
	r      io.Reader
	c      io.Closer
	ctx    context.Context
	cancel context.CancelFunc
	limit  int64
	n      int64
	err    func(error) error
	done   error
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.done != nil {
		return 0, b.done
	}
	// Read one byte past the cap so an exactly-at-cap body still ends in EOF.
	if room := b.limit + 1 - b.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > b.limit {
		n -= int(b.n - b.limit)
		b.done = b.err(fmt.Errorf("%w: more than %d bytes", ErrTooLarge, b.limit))
		return n, b.done
	}
	switch {
	case err == nil, err == io.EOF:
		return n, err
	case errors.Is(err, ErrTooSlow):
		// The rate check cancelled the request: the cause is the slowness.
		b.done = b.err(fmt.Errorf("reading body after %d bytes: %w", b.n, err))
		return n, b.done
	default:
		b.done = b.err(fmt.Errorf("reading body after %d bytes: %w", b.n, transportCause(b.ctx, err)))
		return n, b.done
	}
}

func (b *cappedBody) Close() error {
	err := b.c.Close()
	b.cancel()
	return err
}

// rateReader fails a body that arrives slower than min bytes per window of time
// spent waiting in Read. Only waiting counts: a consumer that pauses between reads
// (an upload catching up) does not make the remote slow. A Read that waits past the
// window's rest is ended by cancelling the request.
type rateReader struct {
	r       io.Reader
	min     int64
	window  time.Duration
	clock   Clock
	cancel  context.CancelFunc
	got     int64         // bytes in the current window
	spent   time.Duration // waiting in the current window
	timer   Timer         // one per body, reset per read (no allocation per read)
	tripped atomic.Bool
}

func (r *rateReader) Read(p []byte) (int, error) {
	start := r.clock.Now()
	if r.timer == nil {
		r.timer = r.clock.AfterFunc(r.window-r.spent, func() { r.tripped.Store(true); r.cancel() })
	} else {
		r.timer.Reset(r.window - r.spent)
	}
	n, err := r.r.Read(p)
	r.timer.Stop()
	r.got += int64(n)
	if r.got >= r.min {
		r.got, r.spent = 0, 0
	} else if r.spent += r.clock.Now().Sub(start); r.spent >= r.window && err != io.EOF {
		r.tripped.Store(true)
	}
	if r.tripped.Load() {
		r.cancel()
		return n, fmt.Errorf("%w: fewer than %d bytes in %s", ErrTooSlow, r.min, r.window)
	}
	return n, err
}

// dispositionFilename returns the base name of the filename parameter of a
// Content-Disposition header (RFC 6266; filename* in RFC 5987 form is decoded by
// mime.ParseMediaType), "" when there is none or it is unusable.
func dispositionFilename(h string) string {
	if h == "" {
		return ""
	}
	_, params, err := mime.ParseMediaType(h)
	if err != nil {
		return ""
	}
	name := params["filename"]
	// Never let a server choose a directory.
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(name)
	if name == "." || name == ".." || name == "/" {
		return ""
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
}

// kindFromContentType maps a Content-Type to a kind; generic or absent types give
// KindUnknown so the magic bytes decide.
func kindFromContentType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return KindUnknown
	}
	switch mt {
	case "image/png":
		return KindPNG
	case "application/pdf", "application/x-pdf":
		return KindPDF
	case "application/zip", "application/x-zip-compressed", "application/x-zip":
		return KindZIP
	case "image/jpeg", "image/jpg":
		return KindJPEG
	case "image/svg+xml":
		return KindSVG
	case "image/gif":
		return KindGIF
	case "image/webp":
		return KindWebP
	}
	return KindUnknown
}

// SniffKind decides a kind from the first bytes of a file, KindUnknown when none
// fits.
func SniffKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return KindPDF
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return KindPNG
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return KindZIP
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return KindJPEG
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return KindGIF
	case len(head) >= 12 && bytes.Equal(head[:4], []byte("RIFF")) && bytes.Equal(head[8:12], []byte("WEBP")):
		return KindWebP
	}
	t := bytes.TrimLeft(head, "\xef\xbb\xbf \t\r\n")
	if (bytes.HasPrefix(t, []byte("<svg")) || bytes.HasPrefix(t, []byte("<?xml"))) && bytes.Contains(head, []byte("<svg")) {
		return KindSVG
	}
	return KindUnknown
}
