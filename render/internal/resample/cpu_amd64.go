//go:build !purego

package resample

import "golang.org/x/sys/cpu"

// hasPrefetch: prefetchLines is assembly here.
const hasPrefetch = true

func detectCPU() cpuFeatures {
	x := cpu.X86
	return cpuFeatures{
		ssse3: x.HasSSSE3, sse41: x.HasSSE41, avx: x.HasAVX, avx2: x.HasAVX2,
		bmi1: x.HasBMI1, bmi2: x.HasBMI2,
		// x/sys/cpu does not report PREFETCHW; CPUID does (resample_amd64.s).
		prefetchW: cpuidPrefetchW(),
	}
}
