package pngenc_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"

	"github.com/printworker/printworker/render/internal/pngenc"
)

func ExampleEncode() {
	canvas := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for i := range canvas.Pix {
		canvas.Pix[i] = 0xff // opaque white: written as RGB, not RGBA
	}
	var buf bytes.Buffer
	if err := pngenc.Encode(&buf, canvas, pngenc.Options{DPI: 300}); err != nil {
		log.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Bounds().Size(), img.ColorModel() == color.RGBAModel)
	// Output: (400,300) true
}
