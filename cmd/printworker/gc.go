package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// One-shot render: the garbage collector only under memory pressure.
//
// `printworker render` allocates one canvas, the decoded sources and the encoder's
// buffers, writes the files and exits; what it frees mid-run, the exit frees anyway.
// A collection cycle in the middle of it (the canvas's allocation starts one) costs
// the reference T-shirt about 30 ms of CPU and 20 ms of wall time, 7 % of the
// process (docs/benchmarks.md, "Whole process"), for nothing the process needs.
// So unless the environment says otherwise (GOGC or GOMEMLIMIT set, Go's own
// settings), the render command runs with GOGC=off and a soft memory limit: the
// collector runs only if the heap nears the limit, which a render larger than it
// still gets. The long-running commands (work, serve, gang) keep Go's defaults and
// whatever the deployment sets.

// unknownMemoryLimit is the soft limit where the machine's memory is unknown: far
// above a 300-dpi T-shirt's 150 MB.
const unknownMemoryLimit = 1 << 30

// gcPolicy is the collector setting for the command args: ok is false when Go's
// defaults (or the environment's GOGC/GOMEMLIMIT) stay. memTotal is the memory the
// process may use (0: unknown); the limit is half of it, so that a render larger
// than that is still collected before the machine runs short.
func gcPolicy(args []string, getenv func(string) string, memTotal int64) (limit int64, ok bool) {
	if len(args) == 0 || args[0] != "render" || getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return 0, false
	}
	if memTotal <= 0 {
		return unknownMemoryLimit, true
	}
	return memTotal / 2, true
}

// applyGCPolicy sets the collector for the command args (see gcPolicy).
func applyGCPolicy(args []string) {
	if limit, ok := gcPolicy(args, os.Getenv, memoryAvailable()); ok {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(-1)
	}
}

// memoryAvailable is the machine's memory, or the cgroup's limit when lower (a
// container), in bytes; 0 when neither can be read (not Linux).
func memoryAvailable() int64 {
	total := int64(0)
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		total = memTotal(b)
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && (total == 0 || v < total) {
			total = v
		}
	}
	return total
}

// memTotal reads MemTotal (kB) from /proc/meminfo's text, in bytes; 0 if absent.
func memTotal(meminfo []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb > 0 {
				return kb << 10
			}
		}
	}
	return 0
}
