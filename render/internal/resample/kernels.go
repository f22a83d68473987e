package resample

import "fmt"

// Tier is an instruction-set level of the kernels: each tier runs the assembly of the
// tiers below it and its own. TierGo runs none (the Go loops alone, as a -tags purego
// build or a CPU other than amd64 does).
type Tier int

const (
	// TierGo is the Go loops alone.
	TierGo Tier = iota
	// TierSSE adds resample_simd_amd64.s and combine4Blocks (SSSE3's PSHUFB, SSE4.1's
	// PMULLD and PEXTRD).
	TierSSE
	// TierAVX adds columnsRunBlocksVEX (the rotated path's columns, VEX-encoded, with
	// BMI1's BEXTR).
	TierAVX
	// TierAVX2 adds resample_shrink_amd64.s and the AVX2 kernels of
	// resample_simd_amd64.s (rowRunBlocksAVX2 also needs BMI2).
	TierAVX2
)

// Tiers are every tier, lowest first.
var Tiers = []Tier{TierGo, TierSSE, TierAVX, TierAVX2}

func (t Tier) String() string {
	switch t {
	case TierGo:
		return "go"
	case TierSSE:
		return "sse"
	case TierAVX:
		return "avx"
	case TierAVX2:
		return "avx2"
	}
	return fmt.Sprintf("Tier(%d)", int(t))
}

// cpuFeatures is what the CPU reports that the kernels need (cpu_amd64.go reads it
// once from golang.org/x/sys/cpu and CPUID; elsewhere, and with -tags purego, it is
// empty).
type cpuFeatures struct {
	ssse3, sse41, avx, avx2, bmi1, bmi2 bool
	// prefetchW: the CPU has PREFETCHW (AMD since the K8's 3DNow!, Intel since
	// Broadwell).
	prefetchW bool
}

// host is the CPU this process runs on, read once.
var host = detectCPU()

// supports reports whether f runs tier t's own kernels.
func (f cpuFeatures) supports(t Tier) bool {
	switch t {
	case TierGo:
		return true
	case TierSSE:
		return f.ssse3 && f.sse41
	case TierAVX:
		return f.avx && f.bmi1
	case TierAVX2:
		return f.avx2
	}
	return false
}

// kernels is the dispatch table: which assembly kernels a Drawer calls, chosen once
// (kernelsFor) and carried as a value down to every call site, so that a test can
// draw the same picture at each tier (TestTiersMatchGo). Each field gates the
// kernels named; where it is false the Go loop computes the same values.
type kernels struct {
	tier Tier
	// sse: resampleRowRGBBlocks, combine4Blocks, rowRunBlocks, columnsRunBlocks,
	// yccHalfBlocks, transpose8Blocks, gatherStrideBlocks and gatherStride2Blocks.
	sse bool
	// vex: columnsRunBlocksVEX.
	vex bool
	// avx2: resampleRowRGBGroups, combineNBlocksAVX2, yccHalfBlocksAVX2 and
	// yccHalfBlocksAVX2RGBA, and the paths built around them (the turned picture's
	// column blocks, orientedView.columnRows and columnBlockFetcher).
	avx2 bool
	// avx2Cols: columnsRunBlocksAVX2 (AVX2 and BMI1). avx2Rows: rowRunBlocksAVX2
	// (AVX2, BMI1 and BMI2).
	avx2Cols, avx2Rows bool
	// prefetch: prefetchLines' hints (no effect on any result); prefetchW: owned, for
	// the rows about to be written.
	prefetch, prefetchW bool
}

// kernelsFor is the table for a CPU with features f capped at tier t: the kernels of
// tiers above t stay off even where the CPU has them. A tier the CPU lacks gives the
// highest tier it has below.
func kernelsFor(f cpuFeatures, t Tier) kernels {
	k := kernels{
		sse:      t >= TierSSE && f.supports(TierSSE),
		vex:      t >= TierAVX && f.supports(TierAVX),
		avx2:     t >= TierAVX2 && f.supports(TierAVX2),
		avx2Cols: t >= TierAVX2 && f.avx2 && f.bmi1,
		avx2Rows: t >= TierAVX2 && f.avx2 && f.bmi1 && f.bmi2,
	}
	// The prefetch hints are assembly too: off on the Go tier, so that it runs none.
	k.prefetch = t >= TierSSE && hasPrefetch
	k.prefetchW = k.prefetch && f.prefetchW
	for _, tt := range Tiers {
		if tt <= t && f.supports(tt) {
			k.tier = tt
		}
	}
	return k
}

// Supported reports whether this machine runs tier t's kernels (TierGo: always).
func Supported(t Tier) bool { return host.supports(t) }
