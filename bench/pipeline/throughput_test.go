package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/printworker/printworker/storage"
)

// exportSize is the size of every export in the throughput benchmark.
const exportSize = 100 << 10

// BenchmarkThroughput runs b.N orders (one design, one 100 KiB png view each) through
// the whole pipeline in download mode: enqueued into a private redis-server, then a
// `printworker work` process fetches each design and its export from the simulator
// over loopback HTTP and stores it, and writes each order's manifest. It reports
// exports/s from the worker's start to the last completed task, the enqueue time, and
// the worker's CPU time per export. Use -benchtime Nx (e.g. 3000x): every run starts a
// new Redis, simulator and worker.
//
// Sub-benchmarks: storage x worker concurrency (PIPELINE_CONCURRENCY=8,16 picks).
// Storage: a directory on tmpfs or on disk; S3 on
// gofakes3 (in this process, in memory) and on versitygw (a process of its own,
// posix backend on disk).
func BenchmarkThroughput(b *testing.B) {
	conc := concurrencies(b, 8, 16, 32, 64)
	for _, st := range []string{"tmpfs", "disk", "s3", "versitygw"} {
		for _, c := range conc {
			b.Run(fmt.Sprintf("storage=%s/conc=%d", st, c), func(b *testing.B) {
				throughput(b, st, c)
			})
		}
	}
}

func throughput(b *testing.B, store string, conc int) {
	n := b.N
	rs, rdb := startRedis(b)
	_, hubURL, refs := startHub(b, n, fixedExporter(payload(b, exportSize)), false)

	var flags []string
	var list func() (int, error)
	switch store {
	case "tmpfs", "disk":
		dir := b.TempDir()
		if store == "tmpfs" {
			var kind string
			if dir, kind = tmpfsDir(b); kind != "tmpfs" {
				b.Skip("no tmpfs at /dev/shm")
			}
		}
		flags = []string{"--storage", "dir", "--storage-dir", dir}
		d, err := storage.NewDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		list = func() (int, error) { return countManifests(d) }
	case "s3", "versitygw":
		kind := "versitygw"
		if store == "s3" {
			kind = "gofakes3"
		}
		var st *storage.S3
		flags, st = startS3(b, kind)
		list = func() (int, error) { return countManifests(st) }
	}
	workerBinary(b) // build before the clock starts

	b.ResetTimer()
	enqueued := enqueueOrders(b, rdb, refs)
	var self0 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
	start := time.Now()
	p := startWorker(b, rs.URL(), hubURL, append(flags, "--concurrency", strconv.Itoa(conc))...)
	end := waitDone(b, rdb, n, 10*time.Minute, p.tail)
	cpu, cpuErr := procCPU(p.pid())
	_, peak, memErr := procMem(p.pid())
	var self1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
	b.StopTimer()

	p.stop()
	if got, err := list(); err != nil || got != n {
		b.Fatalf("%d manifests stored (%v), want %d", got, err, n)
	}
	secs := end.Sub(start).Seconds()
	b.ReportMetric(float64(n)/secs, "exports/s")
	b.ReportMetric(float64(n)/(secs+enqueued.Seconds()), "e2e-exports/s")
	b.ReportMetric(float64(enqueued.Microseconds())/1000/float64(n), "enqueue-ms/order")
	if cpuErr == nil {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n), "worker-cpu-ms/export")
		b.ReportMetric(cpu.Seconds()/secs, "worker-cores")
	}
	if memErr == nil {
		b.ReportMetric(float64(peak)/(1<<20), "worker-peak-MiB")
	}
	// This process runs the simulator (and gofakes3) while the worker works.
	self := rusageCPU(self1) - rusageCPU(self0)
	b.ReportMetric(float64(self.Microseconds())/1000/float64(n), "sim-cpu-ms/export")
}

func rusageCPU(r syscall.Rusage) time.Duration {
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

type lister interface {
	List(ctx context.Context, prefix string) ([]storage.Info, error)
}

func countManifests(l lister) (int, error) {
	objs, err := l.List(context.Background(), benchStore+"/")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, o := range objs {
		if strings.HasSuffix(o.Key, "/"+storage.ManifestName) {
			n++
		}
	}
	return n, nil
}
