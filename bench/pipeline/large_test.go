package pipeline

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/storage"
)

// BenchmarkLargeExport streams one generated 1 GB export (10^9 bytes; override with
// PIPELINE_LARGE_BYTES) from the simulator, which sends it unbuffered and without
// Content-Length (hubsim.Config.StreamExports), through a `printworker work` process
// in download mode into a directory on disk, or into S3 on a versitygw gateway (a
// separate process with a posix backend, so the S3 server's memory is not ours). It
// samples the worker's resident set every 20 ms and reports the kernel's peak
// (VmHWM) and the transfer rate. Every iteration is one export; -benchtime 1x.
func BenchmarkLargeExport(b *testing.B) {
	size := int64(1_000_000_000)
	if s := os.Getenv("PIPELINE_LARGE_BYTES"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			b.Fatalf("PIPELINE_LARGE_BYTES: %v", err)
		}
		size = n
	}
	for _, st := range []string{"dir", "s3"} {
		b.Run("storage="+st, func(b *testing.B) { largeExport(b, st, size) })
	}
}

func largeExport(b *testing.B, store string, size int64) {
	var flags []string
	var st lister
	switch store {
	case "dir":
		dir := b.TempDir()
		d, err := storage.NewDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		flags, st = []string{"--storage", "dir", "--storage-dir", dir}, d
	case "s3":
		if tests3.VersityBinary() == "" {
			b.Skip("versitygw not installed (set PRINTWORKER_TEST_VERSITYGW)")
		}
		s3 := tests3.StartVersity(b)
		s3st, err := storage.NewS3(context.Background(), s3.Config)
		if err != nil {
			b.Fatal(err)
		}
		flags, st = []string{"--storage", "s3", "--s3-bucket", s3.Bucket, "--s3-endpoint", s3.Endpoint, "--s3-region", s3.Region,
			"--s3-access-key", s3.AccessKey, "--s3-secret-key", s3.SecretKey, "--s3-path-style"}, s3st
	}
	workerBinary(b)
	b.ResetTimer()
	var peak, maxRSS int64
	var took time.Duration
	for range b.N {
		b.StopTimer()
		rs, rdb := startRedis(b)
		_, hubURL, refs := startHub(b, 1, hubsim.GeneratedExporter{Size: size}, true)
		enqueueOrders(b, rdb, refs)
		b.StartTimer()

		start := time.Now()
		p := startWorker(b, rs.URL(), hubURL, append(flags, "--concurrency", "4")...)
		sampled := make(chan int64)
		stop := make(chan struct{})
		go func() {
			var top int64
			t := time.NewTicker(20 * time.Millisecond)
			defer t.Stop()
			for {
				if rss, _, err := procMem(p.pid()); err == nil {
					top = max(top, rss)
				}
				select {
				case <-stop:
					sampled <- top
					return
				case <-t.C:
				}
			}
		}()
		waitDone(b, rdb, 1, 20*time.Minute, p.tail)
		took += time.Since(start)
		_, hwm, err := procMem(p.pid())
		close(stop)
		top := <-sampled
		b.StopTimer()
		p.stop()
		if err != nil {
			b.Fatal(err)
		}
		peak, maxRSS = max(peak, hwm), max(maxRSS, top)

		if got, err := fileSizes(st); err != nil || len(got) != 1 || got[0] != size {
			b.Fatalf("stored files of %v bytes (%v), want one of %d", got, err, size)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MiB")
	b.ReportMetric(float64(maxRSS)/(1<<20), "sampled-rss-MiB")
	b.ReportMetric(float64(size)*float64(b.N)/took.Seconds()/1e6, "MB/s")
}

// fileSizes lists the sizes of the stored objects that are not manifests.
func fileSizes(l lister) ([]int64, error) {
	objs, err := l.List(context.Background(), benchStore+"/")
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, o := range objs {
		if !strings.HasSuffix(o.Key, "/"+storage.ManifestName) {
			out = append(out, o.Size)
		}
	}
	return out, nil
}
