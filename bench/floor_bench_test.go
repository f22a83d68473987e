package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/printworker/printworker/bench/refdesign"
	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/storage"
)

// The floor (issue 16 item 4, docs/benchmarks.md "The floor"): each stage of the
// reference-1 PNG render timed alone, so that their sum can be set against the whole
// (BenchmarkRenderView/tshirt-front/png) and the upload that follows it in the worker.
// The stages the renderer runs fused (the photo is resampled straight into the canvas)
// are separated by rasterizing subsets of the scene's layers: background alone, then
// background and photo, then everything (BenchmarkRasterize); the differences are the
// photo's resampling and compositing, and the vector layers'.
//
//	go test -c -o bench.test ./bench
//	cd bench && ../bench.test -test.run '^$' -test.bench 'Floor|BuildScene|Rasterize|EncodePNG|RenderView/tshirt-front/png' \
//	  -test.benchtime=3x -test.count=6 | tee floor.txt

// BenchmarkFloorDecodeJPEG: the 2000 x 2000 photo's JPEG decoded alone (image/jpeg,
// the decoder BuildScene uses), from memory.
func BenchmarkFloorDecodeJPEG(b *testing.B) {
	_, media := loadDesign(b, refdesign.TShirtFront)
	data, err := os.ReadFile(filepath.Join(string(media), refdesign.PhotoID+".jpg"))
	if err != nil {
		b.Fatal(err)
	}
	cpu := cpuMeter{tb: b}
	b.ReportAllocs()
	cpu.on()
	for b.Loop() {
		if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	cpu.off()
	cpu.report(b)
}

// BenchmarkFloorRasterizeLayers: the scene of reference 1 rasterized with a prefix of
// its layers: bg (canvas allocated and filled), bg+photo (the photo resampled to
// 3167 x 2167 and drawn), as BenchmarkRasterize does with all of them. Each iteration
// gets a fresh scene, built off the clock (Rasterize releases the sources it draws).
func BenchmarkFloorRasterizeLayers(b *testing.B) {
	for _, c := range []struct {
		name   string
		layers []string
	}{
		{"bg", []string{"bg"}},
		{"bg+photo", []string{"bg", "photo"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			benchRasterize(b, func(s *render.Scene) {
				kept := s.Layers[:0]
				for _, l := range s.Layers {
					if slices.Contains(c.layers, l.ElementID) {
						kept = append(kept, l)
					}
				}
				if len(kept) != len(c.layers) {
					b.Fatalf("scene has %d of the layers %v", len(kept), c.layers)
				}
				s.Layers = kept
			})
		})
	}
}

// BenchmarkFloorUpload: reference 1's PNG (rendered once, off the clock) stored with
// storage.S3's Put, as the worker uploads an export: to gofakes3 in this process, and
// to versitygw (a process of its own, on disk) when installed. The CPU figure is this
// process's: the client's, plus gofakes3's in the first case.
func BenchmarkFloorUpload(b *testing.B) {
	r := newRenderer(b)
	d, media := loadDesign(b, refdesign.TShirtFront)
	var png bytes.Buffer
	if _, err := r.RenderView(context.Background(), d, "front", media, &png); err != nil {
		b.Fatal(err)
	}
	for _, kind := range []string{"gofakes3", "versitygw"} {
		b.Run(kind, func(b *testing.B) {
			var srv *tests3.Server
			if kind == "gofakes3" {
				srv = tests3.Start(b)
			} else {
				srv = tests3.StartVersity(b) // skips when not installed
			}
			st, err := storage.NewS3(context.Background(), srv.Config)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			cpu := cpuMeter{tb: b}
			b.SetBytes(int64(png.Len()))
			b.ReportAllocs()
			i := 0
			cpu.on()
			for b.Loop() {
				obj := storage.Object{Key: fmt.Sprintf("floor/%d/front.png", i), ContentType: "image/png", Size: int64(png.Len())}
				i++
				if _, err := st.Put(ctx, obj, bytes.NewReader(png.Bytes())); err != nil {
					b.Fatal(err)
				}
			}
			cpu.off()
			cpu.report(b)
		})
	}
}
