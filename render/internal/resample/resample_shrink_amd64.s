//go:build !purego

#include "textflag.h"

// AVX2 kernels of the two passes of scaleOpaque for a shrinking picture, the
// Catmull-Rom kernel widened by the shrink factor (six taps or more; about 26 for the
// thumbnails). Each computes what the Go loop next to its declaration computes, to
// the bit.

// Horizontal pass (resampleRowRGB's wide columns): a column's taps are consecutive
// source pixels, taken four at a time (a group: 12 bytes of a 16-byte load), two
// groups per 256-bit register, one in each half. VPSHUFB spreads each group to 16-bit
// values paired by tap, (tap 0, tap 1) and (tap 2, tap 3) of each channel, and
// VPMADDWD multiplies each pair by its two 14-bit weights and adds them, as
// resampleRowRGBBlocks does for one group. The products and partial sums are exact
// in int32 (bytes times int16 weights) and int32 addition is associative even when
// it wraps, so the sum is the Go loop's to the bit; then the same rounding shift from
// 2^hBits to 2^iBits.
//
// Weights (groupTaps): for each pair of groups g, g+1, 64 bytes: the (tap 0, tap 1)
// pairs of g then of g+1, the (tap 2, tap 3) pairs of g then of g+1, each pair
// repeated four times (one a channel, the fourth lane's pixel value is zero), so that
// each 32-byte load lines up with the two halves; an odd last group takes 32 bytes,
// its (0, 1) then its (2, 3) pairs, for the 128-bit instructions.

// 2^(hBits-iBits-1): the horizontal rounding.
DATA shrinkRound<>+0(SB)/8, $0x0000008000000080
DATA shrinkRound<>+8(SB)/8, $0x0000008000000080
GLOBL shrinkRound<>(SB), RODATA|NOPTR, $16

// RGB source pixels (3 bytes): taps 0, 1 and taps 2, 3 of r, g, b as words; the
// fourth lane zero.
DATA shrinkPair01<>+0(SB)/8, $0x8004800180038000
DATA shrinkPair01<>+8(SB)/8, $0x8080808080058002
GLOBL shrinkPair01<>(SB), RODATA|NOPTR, $16
DATA shrinkPair23<>+0(SB)/8, $0x800a800780098006
DATA shrinkPair23<>+8(SB)/8, $0x80808080800b8008
GLOBL shrinkPair23<>(SB), RODATA|NOPTR, $16

// GROUPSUM adds the products of the source bytes in v (one group of four taps in
// each 128-bit half) and the weights at (BX) (pairs (0, 1), then pairs (2, 3) at
// w23(BX)) to acc01 and acc23; p01, p23: the pair shuffles; t1, t2 scratch. With Y
// registers for two groups, X registers for one.
#define GROUPSUM(p01, p23, v, t1, t2, w23, acc01, acc23) \
	VPSHUFB  p01, v, t1;         \
	VPSHUFB  p23, v, t2;         \
	VPMADDWD (BX), t1, t1;       \
	VPMADDWD w23(BX), t2, t2;    \
	VPADDD   t1, acc01, acc01;   \
	VPADDD   t2, acc23, acc23

// func resampleRowRGBGroups(out []int32, src []uint8, offs []int32, wts []int16, n, groups int)
//
// Columns 0..n-1, each of groups groups of four taps: column j reads
// src[offs[j]:][:12*groups+4], weights wts[16*groups*j:][:16*groups] (groupTaps), and
// writes out[3j:3j+3].
TEXT ·resampleRowRGBGroups(SB), NOSPLIT, $0-112
	MOVQ           out_base+0(FP), DI
	MOVQ           src_base+24(FP), R8
	MOVQ           offs_base+48(FP), R9
	MOVQ           wts_base+72(FP), BX
	MOVQ           n+96(FP), CX
	MOVQ           groups+104(FP), R10
	TESTQ          CX, CX
	JZ             avxdone
	MOVQ           R10, R11
	SHRQ           $1, R11 // pairs of groups
	ANDQ           $1, R10 // an odd last group
	VBROADCASTI128 shrinkPair01<>(SB), Y13
	VBROADCASTI128 shrinkPair23<>(SB), Y14
	VMOVDQU        shrinkRound<>(SB), X15

avxcol:
	MOVLQSX (R9), SI
	ADDQ    R8, SI
	VPXOR   Y0, Y0, Y0
	VPXOR   Y5, Y5, Y5
	MOVQ    R11, DX
	TESTQ   DX, DX
	JZ      avxfold

avxpair:
	VMOVDQU     (SI), X1
	VINSERTI128 $1, 12(SI), Y1, Y1
	GROUPSUM(Y13, Y14, Y1, Y2, Y3, 32, Y0, Y5)
	ADDQ        $24, SI
	ADDQ        $64, BX
	DECQ        DX
	JNZ         avxpair

avxfold:
	VPADDD       Y5, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	TESTQ        R10, R10
	JZ           avxstore
	VMOVDQU      (SI), X1
	GROUPSUM(X13, X14, X1, X2, X3, 16, X0, X0)
	ADDQ         $32, BX

avxstore:
	VPADDD  X15, X0, X0
	VPSRAD  $8, X0, X0
	VMOVQ   X0, (DI)
	VPEXTRD $2, X0, 8(DI)
	ADDQ    $4, R9
	ADDQ    $12, DI
	DECQ    CX
	JNZ     avxcol
	VZEROUPPER

avxdone:
	RET

// Vertical pass (combineN: a pixel's taps are the same column of as many intermediate
// rows as the kernel is wide). Each block of 8 pixels keeps its 24 sums (r, g, b) in
// three 256-bit registers of int32 lanes while the taps go by: the row's values times
// the tap's weight broadcast (PMULLD keeps the low 32 bits, as Go's int32 multiply
// does; the sums wrap as Go's do), then toByte's rounding shift, and its clamp to
// 0..255 as the two saturating packs int32 -> int16 -> uint8, as combine4Blocks
// (resample_amd64.s).

// 2^(iBits+vBits-1): the rounding of toByte.
DATA shrinkCombineRound<>+0(SB)/8, $0x0008000000080000
DATA shrinkCombineRound<>+8(SB)/8, $0x0008000000080000
GLOBL shrinkCombineRound<>(SB), RODATA|NOPTR, $16

// Spreads 12 RGB bytes to 4 RGBA pixels (alpha bytes zeroed, then set by
// shrinkAlpha).
DATA shrinkExpand<>+0(SB)/8, $0x8005040380020100
DATA shrinkExpand<>+8(SB)/8, $0x800b0a0980080706
GLOBL shrinkExpand<>(SB), RODATA|NOPTR, $16

DATA shrinkAlpha<>+0(SB)/8, $0xff000000ff000000
DATA shrinkAlpha<>+8(SB)/8, $0xff000000ff000000
GLOBL shrinkAlpha<>(SB), RODATA|NOPTR, $16

// PACKRGBA stores the 4 pixels whose 12 values are lo (8, X register) and hi (the 4
// in X register hi's low half) at off(DI), as RGBA with alpha 255. X13: shrinkExpand,
// X14: shrinkAlpha; X4, X5 scratch.
#define PACKRGBA(lo, hi, off) \
	VPACKSSDW hi, hi, X5;    \
	VPACKUSWB X5, lo, X4;    \
	VPSHUFB   X13, X4, X4;   \
	VPOR      X14, X4, X4;   \
	VMOVDQU   X4, off(DI)

// func combineNBlocksAVX2(dp []uint8, taps [][]int32, w []int32, n int)
//
// combineN for n blocks of 8 pixels: pixel j of block b reads taps[k][24b+3j:][:3]
// for every k, weight w[k], and writes dp[32b+4j:][:4].
TEXT ·combineNBlocksAVX2(SB), NOSPLIT, $0-80
	MOVQ         dp_base+0(FP), DI
	MOVQ         taps_base+24(FP), R8 // the taps' slice headers
	MOVQ         taps_len+32(FP), R9
	MOVQ         w_base+48(FP), AX
	MOVQ         n+72(FP), CX
	TESTQ        CX, CX
	JZ           cavxdone
	XORQ         R10, R10             // the block's offset in the tap rows
	VPBROADCASTD shrinkCombineRound<>(SB), Y12
	VMOVDQU      shrinkExpand<>(SB), X13
	VMOVDQU      shrinkAlpha<>(SB), X14

cavxblock:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	MOVQ  R8, SI
	MOVQ  AX, BX
	MOVQ  R9, DX

cavxtap:
	MOVQ         (SI), R11
	VPBROADCASTD (BX), Y3
	VPMULLD      (R11)(R10*1), Y3, Y4
	VPADDD       Y4, Y0, Y0
	VPMULLD      32(R11)(R10*1), Y3, Y5
	VPADDD       Y5, Y1, Y1
	VPMULLD      64(R11)(R10*1), Y3, Y6
	VPADDD       Y6, Y2, Y2
	ADDQ         $24, SI
	ADDQ         $4, BX
	DECQ         DX
	JNZ          cavxtap

	VPADDD Y12, Y0, Y0
	VPADDD Y12, Y1, Y1
	VPADDD Y12, Y2, Y2
	VPSRAD $20, Y0, Y0
	VPSRAD $20, Y1, Y1
	VPSRAD $20, Y2, Y2

	// Pixels 0..3: values 0..7 (Y0) and 8..11 (low half of Y1); pixels 4..7:
	// values 12..15 (high half of Y1), 16..23 (Y2).
	VEXTRACTI128 $1, Y0, X3
	VPACKSSDW    X3, X0, X3
	PACKRGBA(X3, X1, 0)
	VEXTRACTI128 $1, Y1, X3
	VEXTRACTI128 $1, Y2, X6
	VPACKSSDW    X2, X3, X3
	PACKRGBA(X3, X6, 16)

	ADDQ $32, DI
	ADDQ $96, R10
	DECQ CX
	JNZ  cavxblock
	VZEROUPPER

cavxdone:
	RET

// YCbCr to RGB for the opaque row fetcher (a shrink reads every source pixel, so the
// conversion weighs as much as the horizontal pass): yccHalfBlocks
// (resample_simd_amd64.s) on eight pixels at once, the same color.YCbCrToRGB
// arithmetic (JFIF coefficients at 2^16, Y scaled by 0x10101) in int32 lanes, the
// clamp to 0..255 the two saturating packs (the values before them lie within
// -180..433, exact in int16). The packs and the byte shuffle work in 128-bit halves:
// pixels 0..3 in the low one, 4..7 in the high one.

DATA shrinkYcc128<>+0(SB)/4, $0x00000080
GLOBL shrinkYcc128<>(SB), RODATA|NOPTR, $4
DATA shrinkYccY<>+0(SB)/4, $0x00010101
GLOBL shrinkYccY<>(SB), RODATA|NOPTR, $4
// 91881 (Cr to R), 22554 (Cb to G, subtracted), 46802 (Cr to G, subtracted), 116130 (Cb to B).
DATA shrinkYccCrR<>+0(SB)/4, $0x000166e9
GLOBL shrinkYccCrR<>(SB), RODATA|NOPTR, $4
DATA shrinkYccCbG<>+0(SB)/4, $0x0000581a
GLOBL shrinkYccCbG<>(SB), RODATA|NOPTR, $4
DATA shrinkYccCrG<>+0(SB)/4, $0x0000b6d2
GLOBL shrinkYccCrG<>(SB), RODATA|NOPTR, $4
DATA shrinkYccCbB<>+0(SB)/4, $0x0001c5a2
GLOBL shrinkYccCbB<>(SB), RODATA|NOPTR, $4
// Bytes R0..R3 G0..G3 B0..B3 (and four more) of a half to R0 G0 B0 R1 ... B3, then
// four zeros.
DATA shrinkYccRGB<>+0(SB)/8, $0x0602090501080400
DATA shrinkYccRGB<>+8(SB)/8, $0x808080800b07030a
GLOBL shrinkYccRGB<>(SB), RODATA|NOPTR, $16

// CHROMA8 loads the four chroma bytes at (reg), each twice (one a pixel of a pair),
// into the eight int32 lanes of y.
#define CHROMA8(reg, x, y) \
	MOVL        (reg), AX;  \
	VMOVD       AX, x;      \
	VPUNPCKLBW  x, x, x;    \
	VPMOVZXBD   x, y

// YCCARGS loads yccHalfBlocksAVX2's and yccHalfBlocksAVX2RGBA's arguments (dst in
// DI, y in SI, cb in R8, cr in R9, n in CX) and the conversion's constants (Y8..Y13),
// or jumps to done when n is 0.
#define YCCARGS(done) \
	MOVQ         dst_base+0(FP), DI;             \
	MOVQ         y_base+24(FP), SI;              \
	MOVQ         cb_base+48(FP), R8;             \
	MOVQ         cr_base+72(FP), R9;             \
	MOVQ         n+96(FP), CX;                   \
	TESTQ        CX, CX;                         \
	JZ           done;                           \
	VPBROADCASTD shrinkYcc128<>(SB), Y8;         \
	VPBROADCASTD shrinkYccY<>(SB), Y9;           \
	VPBROADCASTD shrinkYccCrR<>(SB), Y10;        \
	VPBROADCASTD shrinkYccCbG<>(SB), Y11;        \
	VPBROADCASTD shrinkYccCrG<>(SB), Y12;        \
	VPBROADCASTD shrinkYccCbB<>(SB), Y13

// YCC8 converts the eight pixels at (SI), their chroma at (R8) and (R9), into Y3:
// per half, four pixels' bytes in the order the shuffle Y15 makes of r0..r3 g0..g3
// b0..b3 and the four packed from the int32 lanes of yb beside blue (Y1: blue again;
// Y14: alpha). Then it steps SI, R8, R9.
#define YCC8(yb) \
	VPMOVZXBD (SI), Y0;      \
	CHROMA8(R8, X1, Y1);     \
	CHROMA8(R9, X2, Y2);     \
	VPMULLD   Y9, Y0, Y0;    \
	VPSUBD    Y8, Y1, Y1;    \
	VPSUBD    Y8, Y2, Y2;    \
	VPMULLD   Y10, Y2, Y3;   \
	VPADDD    Y0, Y3, Y3;    \
	VPMULLD   Y11, Y1, Y4;   \
	VPMULLD   Y12, Y2, Y5;   \
	VPSUBD    Y4, Y0, Y6;    \
	VPSUBD    Y5, Y6, Y6;    \
	VPMULLD   Y13, Y1, Y1;   \
	VPADDD    Y0, Y1, Y1;    \
	VPSRAD    $16, Y3, Y3;   \
	VPSRAD    $16, Y6, Y6;   \
	VPSRAD    $16, Y1, Y1;   \
	VPACKSSDW Y6, Y3, Y3;    \
	VPACKSSDW yb, Y1, Y1;    \
	VPACKUSWB Y1, Y3, Y3;    \
	VPSHUFB   Y15, Y3, Y3;   \
	ADDQ      $8, SI;        \
	ADDQ      $4, R8;        \
	ADDQ      $4, R9

// func yccHalfBlocksAVX2(dst, y, cb, cr []uint8, n int)
//
// n blocks of eight pixels whose chroma is shared by pairs (4:2:0 and 4:2:2 rows):
// pixels y[8j:8j+8] with chroma cb, cr[4j:4j+4], to dst[24j:] as RGB. Each block
// stores 28 bytes, the last four zeros that the next block overwrites, so dst must
// hold 4 more after the last block's 24. Per pixel: y * 0x10101, cb - 128, cr - 128;
// r = y + 91881 cr, g = y - 22554 cb - 46802 cr, b = y + 116130 cb, each >> 16.
TEXT ·yccHalfBlocksAVX2(SB), NOSPLIT, $0-104
	YCCARGS(yccdone)
	VBROADCASTI128 shrinkYccRGB<>(SB), Y15

yccloop:
	YCC8(Y1)
	VMOVDQU      X3, (DI)
	VEXTRACTI128 $1, Y3, 12(DI)
	ADDQ         $24, DI
	DECQ         CX
	JNZ          yccloop
	VZEROUPPER

yccdone:
	RET

// Bytes R0..R3 G0..G3 B0..B3 A0..A3 of a half to R0 G0 B0 A0 R1 ... A3.
DATA shrinkYccRGBA<>+0(SB)/8, $0x0d0905010c080400
DATA shrinkYccRGBA<>+8(SB)/8, $0x0f0b07030e0a0602
GLOBL shrinkYccRGBA<>(SB), RODATA|NOPTR, $16
DATA shrinkYccAlpha<>+0(SB)/4, $0x000000ff
GLOBL shrinkYccAlpha<>(SB), RODATA|NOPTR, $4

// func yccHalfBlocksAVX2RGBA(dst, y, cb, cr []uint8, n int)
//
// yccHalfBlocksAVX2 to opaque RGBA: n blocks of eight pixels y[8j:8j+8] with chroma
// cb, cr[4j:4j+4] to dst[32j:32j+32] (the rotated path's source spans,
// resample_span.go), the same arithmetic; alpha 255 packed beside blue as
// yccHalfBlocks does with step 16.
TEXT ·yccHalfBlocksAVX2RGBA(SB), NOSPLIT, $0-104
	YCCARGS(yccadone)
	VPBROADCASTD   shrinkYccAlpha<>(SB), Y14
	VBROADCASTI128 shrinkYccRGBA<>(SB), Y15

yccaloop:
	YCC8(Y14)
	VMOVDQU Y3, (DI)
	ADDQ    $32, DI
	DECQ    CX
	JNZ     yccaloop
	VZEROUPPER

yccadone:
	RET
