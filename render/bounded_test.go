package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/printworker/printworker/internal/testctx"
	"io"
	"strings"
	"testing"

	"github.com/printworker/printworker/render/internal/jpegdec"
	"github.com/printworker/printworker/render/svg"
	"go.uber.org/goleak"
)

// progressiveScans returns a progressive greyscale JPEG of w x h pixels (multiples of
// 8) with the given number of scans: a DC first scan, then DC refinement scans of one
// bit a block (each a pass over every block, however few bytes it has).
func progressiveScans(w, h, scans int) []byte {
	var b bytes.Buffer
	seg := func(marker byte, body ...byte) {
		b.Write([]byte{0xff, marker, byte((len(body) + 2) >> 8), byte(len(body) + 2)})
		b.Write(body)
	}
	b.Write([]byte{0xff, 0xd8})
	q := make([]byte, 65)
	for i := 1; i < 65; i++ {
		q[i] = 1
	}
	seg(0xdb, q...)
	seg(0xc2, 8, byte(h>>8), byte(h), byte(w>>8), byte(w), 1, 1, 0x11, 0)
	seg(0xc4, append(append([]byte{0x00, 1}, make([]byte, 15)...), 0)...)
	blocks := (w / 8) * (h / 8)
	data := make([]byte, (blocks+7)/8)
	if blocks%8 != 0 {
		data[len(data)-1] = 0xff >> (blocks % 8)
	}
	seg(0xda, 1, 1, 0x00, 0, 0, 0x01)
	b.Write(data)
	for range scans - 1 {
		seg(0xda, 1, 1, 0x00, 0, 0, 0x10)
		b.Write(data)
	}
	b.Write([]byte{0xff, 0xd9})
	return b.Bytes()
}

// manySVGShapes is an SVG of n shapes each covering the whole size x size drawing.
func manySVGShapes(n, size int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">`, size, size)
	for i := range n {
		fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#%06x"/>`, size, size, (i*7919)&0xffffff)
	}
	b.WriteString(`</svg>`)
	return []byte(b.String())
}

// TestHostileMediaRefused: a JPEG of 5000 scans and a drawing of 19,000 full-size SVG
// shapes end the render with a permanent InputError naming the cap, before the work.
func TestHostileMediaRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		file []byte
		opts Options
		want string
	}{
		{"5000-scan JPEG", progressiveScans(256, 256, 5000), Options{}, "more than 100 scans"},
		{"5000-scan JPEG, cap 10", progressiveScans(256, 256, 5000), Options{MaxJPEGScans: 10}, "more than 10 scans"},
		{"19000 SVG shapes", manySVGShapes(19000, 500), Options{MaxSVGCost: 1e8, SVG: manyLimits}, "over the cap of 1e+08"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRenderer(t, tc.opts)
			_, err := r.RenderView(context.Background(), onePicture(t, "m", 500, 500), "main", memSource{"m": tc.file}, io.Discard)
			var ie *InputError
			if !errors.As(err, &ie) || ie.Retryable() || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want a permanent InputError saying %q", err, tc.want)
			}
			var se *jpegdec.ScanLimitError
			if strings.Contains(tc.name, "JPEG") && !errors.As(err, &se) {
				t.Errorf("err %v does not wrap the decoder's ScanLimitError", err)
			}
		})
	}
}

// manyLimits let a test parse 19,000 shapes and more.
var manyLimits = svg.Limits{MaxElements: 40_000, MaxBytes: 16 << 20}

// TestRenderCancelStops: a render whose context ends in the middle of decoding a
// 99-scan JPEG or drawing 19,000 SVG shapes returns the context's error (not an
// InputError: the task's retry policy decides), each goroutine stops at its next
// check, and none is left running.
func TestRenderCancelStops(t *testing.T) {
	for _, tc := range []struct {
		name  string
		file  []byte
		after int64
	}{
		{"99-scan JPEG", progressiveScans(1024, 1024, 99), 500},
		{"19000 SVG shapes", manySVGShapes(19000, 500), 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			r := newRenderer(t, Options{SVG: manyLimits})
			ctx := testctx.CancelAt(tc.after)
			_, err := r.RenderView(ctx, onePicture(t, "m", 500, 500), "main", memSource{"m": tc.file}, io.Discard)
			var ie *InputError
			if !errors.Is(err, context.Canceled) || errors.As(err, &ie) {
				t.Fatalf("err %v, want context.Canceled", err)
			}
			// Every loop that saw the end returned: a few checks after it (one per
			// goroutine and caller), not one a shape or scan to the end.
			if extra := ctx.Calls() - tc.after; extra > 8 {
				t.Errorf("%d checks of the context after it ended", extra)
			}
		})
	}
}

// TestRenderCancelledAtAnyCheck ends the context of a render of the pictures design
// (every picture kind, rotations, an SVG, text) at its 1st, 2nd, 3rd, 5th, 8th... check,
// until a render sees no end: every earlier render returns the context's error, never
// an InputError or a file, and leaves no goroutine behind.
func TestRenderCancelledAtAnyCheck(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	d := loadDesign(t, "pictures.json")
	d.Views[0].Export.DPI = 150
	r := newRenderer(t, Options{})
	cancelled := 0
	for a, b := int64(1), int64(2); ; a, b = b, a+b {
		ctx := testctx.CancelAt(a)
		_, err := r.RenderView(ctx, d, "main", DirSource(mediaDir), io.Discard)
		if err == nil {
			if ctx.Calls() >= a {
				t.Fatalf("render ended at check %d yet succeeded", a)
			}
			t.Logf("%d renders cancelled; one of %d checks ran to the end", cancelled, ctx.Calls())
			break
		}
		var ie *InputError
		if !errors.Is(err, context.Canceled) || errors.As(err, &ie) {
			t.Fatalf("ended at check %d: err %v, want context.Canceled", a, err)
		}
		cancelled++
	}
	if cancelled < 5 {
		t.Errorf("only %d renders cancelled: the render checks its context too seldom to test", cancelled)
	}
}
