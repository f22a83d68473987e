package hub_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/printworker/printworker/hub"
)

// BenchmarkExportDownload streams a 64 MiB export through the client. Allocated bytes
// per operation stay far below the export size: the body is never buffered whole.
func BenchmarkExportDownload(b *testing.B) {
	const size = 64 << 20
	chunk := make([]byte, 1<<20)
	copy(chunk, "%PDF-1.7\n")
	f := newFakeHub(b)
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for range size / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	for _, bc := range []struct {
		name    string
		minRate int64
	}{{"rate-check", 0}, {"no-rate-check", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := hub.NewClient(hub.Config{Store: f.store, APIKey: f.key, Secret: f.secret, BaseURL: f.srv.URL, MinRate: bc.minRate})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(size)
			for b.Loop() {
				d, err := c.ExportDesign(context.Background(), testRef)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, d.Body)
				d.Body.Close()
				if err != nil || n != size {
					b.Fatalf("read %d: %v", n, err)
				}
			}
		})
	}
}
