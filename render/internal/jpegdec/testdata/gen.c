/* gen.c writes the gen-*.jpg fixtures of jpegdec's tests with libjpeg: sampling
 * factors, colour spaces, restart markers and progression image/jpeg's own testdata
 * (the video-00*.jpeg files, copied from Go's src/image/testdata) has only at 150x103.
 * Build: gcc -O2 -o /tmp/jpeggen gen.c -ljpeg; run in this directory. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <jpeglib.h>

static void gen(const char *name, int w, int h, int comps, J_COLOR_SPACE in, J_COLOR_SPACE out,
                int h0, int v0, int progressive, int restart) {
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr e;
	FILE *f = fopen(name, "wb");
	c.err = jpeg_std_error(&e);
	jpeg_create_compress(&c);
	jpeg_stdio_dest(&c, f);
	c.image_width = w;
	c.image_height = h;
	c.input_components = comps;
	c.in_color_space = in;
	jpeg_set_defaults(&c);
	jpeg_set_colorspace(&c, out);
	jpeg_set_quality(&c, 80, TRUE);
	c.comp_info[0].h_samp_factor = h0;
	c.comp_info[0].v_samp_factor = v0;
	for (int i = 1; i < c.num_components; i++) {
		c.comp_info[i].h_samp_factor = 1;
		c.comp_info[i].v_samp_factor = 1;
	}
	if (progressive)
		jpeg_simple_progression(&c);
	c.restart_interval = restart;
	jpeg_start_compress(&c, TRUE);
	unsigned char *row = malloc(w * comps);
	while (c.next_scanline < (unsigned)h) {
		int y = c.next_scanline;
		for (int x = 0; x < w; x++)
			for (int k = 0; k < comps; k++) {
				double v = 128 + 60 * sin(x * (0.05 + 0.02 * k) + y * 0.03) + 50 * cos((x - y) * 0.011 * (k + 1)) + ((x * 7 + y * 13 + k * 5) % 17);
				row[x * comps + k] = v < 0 ? 0 : v > 255 ? 255 : (unsigned char)v;
			}
		JSAMPROW r = row;
		jpeg_write_scanlines(&c, &r, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	fclose(f);
	free(row);
}

int main(void) {
	int w = 331, h = 517;
	gen("gen-444.jpg", w, h, 3, JCS_RGB, JCS_YCbCr, 1, 1, 0, 0);
	gen("gen-422.jpg", w, h, 3, JCS_RGB, JCS_YCbCr, 2, 1, 0, 0);
	gen("gen-420.jpg", w, h, 3, JCS_RGB, JCS_YCbCr, 2, 2, 0, 0);
	gen("gen-440.jpg", w, h, 3, JCS_RGB, JCS_YCbCr, 1, 2, 0, 0);
	gen("gen-411.jpg", w, h, 3, JCS_RGB, JCS_YCbCr, 4, 1, 0, 0);
	gen("gen-grey.jpg", w, h, 1, JCS_GRAYSCALE, JCS_GRAYSCALE, 1, 1, 0, 0);
	gen("gen-rgb.jpg", w, h, 3, JCS_RGB, JCS_RGB, 1, 1, 0, 0);
	gen("gen-cmyk.jpg", w, h, 4, JCS_CMYK, JCS_CMYK, 1, 1, 0, 0);
	gen("gen-ycck.jpg", w, h, 4, JCS_CMYK, JCS_YCCK, 2, 2, 0, 0);
	gen("gen-420-restart.jpg", w, h, 3, JCS_RGB, JCS_YCbCr, 2, 2, 0, 3);
	gen("gen-444-restart.jpg", w, h, 3, JCS_RGB, JCS_YCbCr, 1, 1, 0, 7);
	gen("gen-420-progressive.jpg", w, h, 3, JCS_RGB, JCS_YCbCr, 2, 2, 1, 0);
	gen("gen-422-progressive.jpg", w, h, 3, JCS_RGB, JCS_YCbCr, 2, 1, 1, 0);
	gen("gen-grey-progressive.jpg", w, h, 1, JCS_GRAYSCALE, JCS_GRAYSCALE, 1, 1, 1, 0);
	gen("gen-17x9-420.jpg", 17, 9, 3, JCS_RGB, JCS_YCbCr, 2, 2, 0, 0);
	gen("gen-1x1-444.jpg", 1, 1, 3, JCS_RGB, JCS_YCbCr, 1, 1, 0, 0);
	return 0;
}
