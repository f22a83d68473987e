// Package testcpu measures the process's CPU time for benchmarks (their cpu-ms/op
// metric): on a shared machine it moves far less than wall time between identical
// runs.
package testcpu

import (
	"testing"
	"time"
)

// Time is the user plus system CPU time of the whole process so far; zero where it is
// not measured (off unix), so that cpu-ms/op reads 0 there.
func Time(tb testing.TB) time.Duration { return processTime(tb) }

// PerOp reports the CPU time since start divided among b's iterations as cpu-ms/op.
func PerOp(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(Time(b)-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
