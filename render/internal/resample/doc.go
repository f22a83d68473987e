// Package resample draws pictures into render's canvases: Catmull-Rom resampling
// (separable when the picture is unrotated, two 1D passes when it is rotated), the
// exact coverage of its edges, quarter turns and mirrors read through a turned view,
// the band scheduling that spreads a draw over the workers and the band buffers kept
// across draws, and the amd64 kernels that do the arithmetic. render's top package
// calls it through one entry point, Drawer.Draw (and YCbCrRows for the CMYK PDF's
// pictures); docs/rendering.md describes the paths.
//
// # Tiers and the dispatch table
//
// The kernels come in instruction-set tiers, each adding to the one below: TierGo (the
// Go loops alone), TierSSE, TierAVX, TierAVX2. A Drawer chooses its table (kernels)
// once, from golang.org/x/sys/cpu (New: the highest tier the CPU has; NewTier: capped
// at a lower one), and carries it as a value down to every call site; nothing reads
// the CPU's flags elsewhere. Every tier draws the same bytes as TierGo:
// TestTiersMatchGo draws every picture kind through every path at each tier the
// machine has and compares the canvases byte for byte. -tags purego (and any CPU but
// amd64) builds TierGo alone: the assembly files are amd64 and //go:build !purego.
//
// # What each kernel buys
//
// So that a maintainer can weigh deleting one. Draw figures: BenchmarkDrawTiers, CPU
// ms a draw at one core, medians of 9 runs (3 then 6), a 2 vCPU Intel Xeon VM shared
// with other jobs (load 9-15, so single runs strayed up to a third above the median),
// 27 Nov 2026:
//
//	go test -c -o /tmp/rs.test ./render/internal/resample
//	GOMAXPROCS=1 /tmp/rs.test -test.run '^$' -test.bench DrawTiers -test.benchtime 5x -test.count 6
//
//	draw                                   go     sse    avx    avx2
//	enlarge (2000x2000 photo at 1.58x)     113    29     30     27
//	rotated 30°                            217    44     41     34
//	rotated 60°                            218    47     51     35
//	quarter turn                           152    44     46     35
//	12-MP photo shrunk 4x                  167    148    161    22
//
// Whole process: the reference T-shirt (its photo is the enlargement above) takes
// 239-280 ms of CPU as a `printworker render` process (docs/benchmarks.md, "Whole
// process"); BenchmarkRenderTiers (render) rendered it in 411 ms of CPU at TierGo and
// 344 ms at TierAVX2 on the machine above (medians of 4, load 9-15; the tiers between
// differ from these by less than that load's noise):
//
//	go test -c -o /tmp/r.test ./render && cd render
//	/tmp/r.test -test.run '^$' -test.bench RenderTiers -test.benchtime 3x -test.count 4
//
// TierSSE (SSSE3 and SSE4.1, resample_simd_amd64.s and resample_amd64.s): the tier
// that matters most: 3.5x to 5x off enlargements, rotations and quarter turns (little
// off a strong shrink); without it the T-shirt's photo alone costs about 80 ms more.
//   - resampleRowRGBBlocks: the unrotated horizontal pass, columns of four or five
//     taps (enlarging, slight shrinks such as the 600-dpi poster's): about 20
//     instructions a column instead of 90.
//   - combine4Blocks: the unrotated vertical pass of an enlargement, four pixels at a
//     time.
//   - yccHalfBlocks: 4:2:0 and 4:2:2 JPEG pixels to RGB(A), about 10 instructions a
//     pixel instead of 65; also the CMYK PDF's picture conversion (YCbCrRows).
//   - rowRunBlocks and columnsRunBlocks: the rotated path's pass 1 (about 27
//     instructions a sample) and pass 2 (about 27 instructions a pixel instead of
//     120).
//   - gatherStrideBlocks, gatherStride2Blocks: a quarter-turned picture's rows read
//     down its columns (below TierAVX2; the column blocks take them at TierAVX2).
//   - prefetchLines: the rotated path asks for the canvas rows it will write and the
//     source rows it will read eight rows ahead (PREFETCHW where the CPU has it): each
//     took 10 % or more off a 30° draw. A hint with no effect on any byte.
//
// TierAVX (AVX's encoding and BMI1, resample_simd_amd64.s): columnsRunBlocksVEX, the
// rotated pass 2 two pixels at a time (about 17 instructions a pixel instead of 26):
// 5 % off a 30° draw above, nothing measurable at 60° (the table's 47 to 51 is within
// the noise); at TierAVX2 it takes only a run's last pair. The cheapest tier to
// delete: TierSSE's columnsRunBlocks would take its runs.
//
// TierAVX2 (resample_shrink_amd64.s and resample_simd_amd64.s):
//   - resampleRowRGBGroups and combineNBlocksAVX2: a shrink's wide columns and rows
//     (six taps or more: thumbnails, phone photos placed small), about 7x off the 4x
//     shrink above (148 to 22 ms); the kernels that pay for thumbnails.
//   - yccHalfBlocksAVX2, yccHalfBlocksAVX2RGBA: JPEG pixels eight at a time.
//   - rowRunBlocksAVX2 (also BMI2; about 13 instructions a sample instead of 27) and
//     columnsRunBlocksAVX2 (a pixel's four taps in one 256-bit load): with the column
//     blocks below, a sixth to a third off a rotated draw (41-51 to 34-35 ms).
//   - transpose8Blocks with orientedView.columnRows and columnBlockFetcher: a turned
//     or past-45° picture read sixteen columns at a time through 8x8 byte transposes:
//     most of the quarter turn's 44-46 to 35 ms.
package resample
