// Command vipspeer is the in-process libvips peer of the printworker benchmark (issue 16,
// docs/benchmarks.md "Peers side by side"): it draws reference design 1 (tshirt-front)
// with libvips called from Go through cgo, in one process, with no temporary files, and
// writes the PNG.
//
//	go build -o vipspeer . && ./vipspeer [-poster] MEDIA_DIR OUT.png [COMPRESSION [FILTER]]
//
// -poster draws reference 4 (poster-600dpi) instead: its photo filling the page.
//
// COMPRESSION (0-9) and FILTER (libpng's filter flags: 8 none, 248 all, libvips'
// VipsForeignPngFilter) set pngsave's options; without them its defaults apply, as
// with the command line. printworker's own encoder is at deflate level 1 with an
// adaptive row filter, so "1 248" is libvips at printworker's settings.
//
// It does exactly what bench/vips/render.sh does with the libvips command line, same
// operations, same arguments, same geometry (see that script for where the numbers come
// from), so the two peers differ only in how libvips is driven: here the operations
// build one lazy pipeline that libvips evaluates once, on its own thread pool, when the
// PNG is written; the command line materialises every intermediate image in a file.
//
// It calls the libvips C API directly rather than through github.com/davidbyttow/govips:
// govips (v2.16) has no binding for vips_text (only Label, which draws one colour at
// 72 dpi into an existing image, without rgba or dpi), and github.com/cshum/vipsgen,
// which generates bindings for every operation, is not served by the module proxy here.
// The calls below are the ones those bindings make. This is its own Go module so that
// cgo and libvips never enter the service's build (`go list ./...` from the repository
// root does not see it).
package main

/*
#cgo pkg-config: vips
#include <stdlib.h>
#include <vips/vips.h>

// cgo cannot call variadic C functions: one small wrapper per operation, with the
// optional arguments render.sh passes.

static int pw_background(VipsImage **out) {
	VipsImage *black;
	double a[3] = {1, 1, 1}, b[3] = {243, 239, 230};
	if (vips_black(&black, 4167, 5000, "bands", 3, NULL)) return -1;
	int r = vips_linear(black, out, a, b, 3, "uchar", TRUE, NULL);
	g_object_unref(black);
	return r;
}

static int pw_thumbnail(const char *file, VipsImage **out) {
	return vips_thumbnail(file, out, 3167, "height", 2167,
		"crop", VIPS_INTERESTING_CENTRE, "size", VIPS_SIZE_BOTH, NULL);
}

// Reference 4 (poster-600dpi): the 5100 x 7200 photo filling a 4958 x 7017 page,
// cropped to the centre, as the design's autoResize "fill" places it.
static int pw_poster(const char *file, VipsImage **out) {
	return vips_thumbnail(file, out, 4958, "height", 7017,
		"crop", VIPS_INTERESTING_CENTRE, "size", VIPS_SIZE_BOTH, NULL);
}

static int pw_svg(const void *buf, size_t len, VipsImage **out) {
	return vips_svgload_buffer((void *) buf, len, out, "scale", 4.1667, NULL);
}

static int pw_text(const char *markup, const char *font, VipsImage **out) {
	return vips_text(out, markup, "font", font, "dpi", 300,
		"align", VIPS_ALIGN_CENTRE, "rgba", TRUE, NULL);
}

static int pw_rotate(VipsImage *in, VipsImage **out, double angle) {
	return vips_rotate(in, out, angle, NULL);
}

static int pw_composite(VipsImage **in, int n, int *x, int *y, VipsImage **out) {
	int modes[16];
	for (int i = 0; i < n - 1; i++) modes[i] = VIPS_BLEND_MODE_OVER;
	VipsArrayInt *xs = vips_array_int_new(x, n - 1);
	VipsArrayInt *ys = vips_array_int_new(y, n - 1);
	int r = vips_composite(in, out, n, modes, "x", xs, "y", ys, NULL);
	vips_area_unref(VIPS_AREA(xs));
	vips_area_unref(VIPS_AREA(ys));
	return r;
}

// The canvas is opaque: RGB, at pxPerMM (11.811 for 300 dpi); compression and
// filter < 0 leave pngsave's defaults (compression 6, as the command line; no row
// filter).
static int pw_save(VipsImage *in, const char *file, double pxPerMM, int compression, int filter) {
	VipsImage *rgb, *res;
	if (vips_extract_band(in, &rgb, 0, "n", 3, NULL)) return -1;
	if (vips_copy(rgb, &res, "xres", pxPerMM, "yres", pxPerMM, NULL)) {
		g_object_unref(rgb);
		return -1;
	}
	int r;
	if (compression < 0) {
		r = vips_pngsave(res, file, NULL);
	} else if (filter < 0) {
		r = vips_pngsave(res, file, "compression", compression, NULL);
	} else {
		r = vips_pngsave(res, file, "compression", compression, "filter", filter, NULL);
	}
	g_object_unref(res);
	g_object_unref(rgb);
	return r;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"unsafe"
)

// Reference 1's media (bench/refdesign): the photo and the badge; reference 4's
// photo.
const (
	photoFile  = "be1c0000000000000000a001.jpg"
	badgeFile  = "be1c0000000000000000a002.svg"
	posterFile = "be1c0000000000000000a004.jpg"
)

// text is one text layer: pango markup, font, and the output pixel its box is centred on.
type text struct {
	markup, font string
	cx, cy       int
	rotate       float64
}

var texts = []text{
	{`<span foreground="#1d3557">SUMMER CAMP 2026</span>`, "DejaVu Sans Bold 72", 2083, 2750, 0},
	{`<span foreground="#8b1e3f">Team Falcons</span>`, "DejaVu Serif 64", 2750, 3375, 15},
	{"<span foreground=\"#333333\">Anna Müller\nCabin 7 · River Trail\nJuly 14 – 21</span>", "DejaVu Sans 46", 2750, 4271, 0},
}

// recolour gives every painted fill and stroke the element colour, as printworker,
// the fabric peer and render.sh (with sed) do.
var recolour = regexp.MustCompile(`(fill|stroke)="#[0-9a-fA-F]{6}"`)

func main() {
	args := os.Args[1:]
	poster := len(args) > 0 && args[0] == "-poster"
	if poster {
		args = args[1:]
	}
	if len(args) < 2 || len(args) > 4 {
		fmt.Fprintln(os.Stderr, "usage: vipspeer [-poster] MEDIA_DIR OUT.png [COMPRESSION [FILTER]]")
		os.Exit(2)
	}
	opts := []int{-1, -1}
	for i, a := range args[2:] {
		v, err := strconv.Atoi(a)
		if err != nil || v < 0 {
			fmt.Fprintf(os.Stderr, "vipspeer: %q: want a number >= 0\n", a)
			os.Exit(2)
		}
		opts[i] = v
	}
	run := runTShirt
	if poster {
		run = runPoster
	}
	if err := run(args[0], args[1], opts[0], opts[1]); err != nil {
		fmt.Fprintln(os.Stderr, "vipspeer:", err)
		os.Exit(1)
	}
}

// runPoster draws reference 4: one photo filling an A4 page at 600 dpi.
func runPoster(media, out string, compression, filter int) error {
	name := C.CString("vipspeer")
	defer C.free(unsafe.Pointer(name))
	if C.vips_init(name) != 0 {
		return vipsErr("vips_init")
	}
	defer C.vips_shutdown()
	path := C.CString(filepath.Join(media, posterFile))
	defer C.free(unsafe.Pointer(path))
	var photo *C.VipsImage
	if C.pw_poster(path, &photo) != 0 {
		return vipsErr("thumbnail")
	}
	defer C.g_object_unref(C.gpointer(photo))
	cout := C.CString(out)
	defer C.free(unsafe.Pointer(cout))
	if C.pw_save(photo, cout, 600/25.4, C.int(compression), C.int(filter)) != 0 {
		return vipsErr("pngsave")
	}
	return nil
}

// runTShirt draws reference 1, the T-shirt front.
func runTShirt(media, out string, compression, filter int) error {
	name := C.CString("vipspeer")
	defer C.free(unsafe.Pointer(name))
	if C.vips_init(name) != 0 {
		return vipsErr("vips_init")
	}
	defer C.vips_shutdown()

	badge, err := os.ReadFile(filepath.Join(media, badgeFile))
	if err != nil {
		return err
	}
	badge = recolour.ReplaceAll(badge, []byte(`${1}="#1d4f91"`))

	// Every image made here is released at the end; the PNG save pulls the pixels
	// through the whole pipeline once.
	var imgs []*C.VipsImage
	defer func() {
		for _, im := range imgs {
			C.g_object_unref(C.gpointer(im))
		}
	}()
	keep := func(im *C.VipsImage) *C.VipsImage { imgs = append(imgs, im); return im }

	var bg, photo, svg *C.VipsImage
	if C.pw_background(&bg) != 0 {
		return vipsErr("background")
	}
	keep(bg)
	photoPath := C.CString(filepath.Join(media, photoFile))
	defer C.free(unsafe.Pointer(photoPath))
	if C.pw_thumbnail(photoPath, &photo) != 0 {
		return vipsErr("thumbnail")
	}
	keep(photo)
	// libvips keeps a reference to the buffer until the image is unreffed: C memory,
	// freed after the save.
	svgBuf := C.CBytes(badge)
	defer C.free(svgBuf)
	if C.pw_svg(svgBuf, C.size_t(len(badge)), &svg) != 0 {
		return vipsErr("svgload")
	}
	keep(svg)

	layers := []*C.VipsImage{bg, photo, svg}
	xs := []C.int{500, 208}
	ys := []C.int{250, 3042}
	for _, t := range texts {
		markup, font := C.CString(t.markup), C.CString(t.font)
		var im *C.VipsImage
		rc := C.pw_text(markup, font, &im)
		C.free(unsafe.Pointer(markup))
		C.free(unsafe.Pointer(font))
		if rc != 0 {
			return vipsErr("text")
		}
		keep(im)
		if t.rotate != 0 {
			var rot *C.VipsImage
			if C.pw_rotate(im, &rot, C.double(t.rotate)) != 0 {
				return vipsErr("rotate")
			}
			im = keep(rot)
		}
		// The top-left corner that centres the layer on (cx, cy), as render.sh's
		// centred() computes it.
		w, h := int(C.vips_image_get_width(im)), int(C.vips_image_get_height(im))
		layers = append(layers, im)
		xs = append(xs, C.int(t.cx-w/2))
		ys = append(ys, C.int(t.cy-h/2))
	}

	// The arrays are passed to C: C memory, so cgo's pointer rules hold.
	n := len(layers)
	cin := (*[16]*C.VipsImage)(C.malloc(C.size_t(16 * unsafe.Sizeof(uintptr(0)))))
	cx := (*[16]C.int)(C.malloc(C.size_t(16 * unsafe.Sizeof(C.int(0)))))
	cy := (*[16]C.int)(C.malloc(C.size_t(16 * unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(cin))
	defer C.free(unsafe.Pointer(cx))
	defer C.free(unsafe.Pointer(cy))
	copy(cin[:], layers)
	copy(cx[:], xs)
	copy(cy[:], ys)
	var all *C.VipsImage
	if C.pw_composite(&cin[0], C.int(n), &cx[0], &cy[0], &all) != 0 {
		return vipsErr("composite")
	}
	keep(all)

	cout := C.CString(out)
	defer C.free(unsafe.Pointer(cout))
	if C.pw_save(all, cout, 300/25.4, C.int(compression), C.int(filter)) != 0 {
		return vipsErr("pngsave")
	}
	return nil
}

// vipsErr returns libvips' error buffer (and clears it).
func vipsErr(op string) error {
	msg := C.GoString(C.vips_error_buffer())
	C.vips_error_clear()
	return errors.New(op + ": " + msg)
}
