package storage_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/internal/testsftp"
	"github.com/printworker/printworker/storage"
)

// BenchmarkPut streams a 24 MiB generated body (hashing included) into each backend.
func BenchmarkPut(b *testing.B) {
	const size = 24 << 20
	ctx := context.Background()
	dir, err := storage.NewDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	srv := tests3.Start(b)
	fake, err := storage.NewS3(ctx, srv.Config)
	if err != nil {
		b.Fatal(err)
	}
	backends := []struct {
		name string
		st   Store
	}{{"dir", dir}, {"gofakes3", fake}}
	if testsftp.Binary() != "" {
		sftpSrv := testsftp.Start(b)
		st, err := storage.NewSFTP(sftpSrv.Config())
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		backends = append(backends, struct {
			name string
			st   Store
		}{"sftp", st})
	}
	for _, tc := range backends {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(size)
			for i := 0; b.Loop(); i++ {
				key := fmt.Sprintf("bench/%d.bin", i%2)
				if _, err := tc.st.Put(ctx, storage.Object{Key: key, Size: size}, newGenerator(size, byte(i))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
