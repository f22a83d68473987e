//go:build !amd64 || purego

package resample

// hasPrefetch: the portable build asks for no prefetch at all.
const hasPrefetch = false

// detectCPU reports no features: without the amd64 assembly only TierGo runs.
func detectCPU() cpuFeatures { return cpuFeatures{} }
