//go:build !purego

#include "textflag.h"

// The SSE kernels of the two resampling passes of resample.go and resample_transform.go.
// Each computes what the Go loop next to its declaration computes, to the bit.

// Horizontal pass (resampleRowRGB, rowRunInt4): the four taps of a sample are four
// consecutive source pixels, 16 bytes loaded at once. PSHUFB spreads them to 16-bit
// values paired by tap, (tap 0, tap 1) and (tap 2, tap 3) of each channel, and
// PMADDWL multiplies each pair by its two 14-bit weights and adds them: two
// multiply-adds a sample for the three channels. The products and sums are exact in
// int32 (bytes times weights under 2^15), as the Go loop's are; then the rounding
// shift from 2^hBits to 2^iBits.

// 2^(hBits-iBits-1): the horizontal rounding.
DATA hRound<>+0(SB)/8, $0x0000008000000080
DATA hRound<>+8(SB)/8, $0x0000008000000080
GLOBL hRound<>(SB), RODATA|NOPTR, $16

// RGB source pixels (3 bytes): taps 0, 1 and taps 2, 3 of r, g, b as words; the
// fourth lane zero.
DATA rgbPair01<>+0(SB)/8, $0x8004800180038000
DATA rgbPair01<>+8(SB)/8, $0x8080808080058002
GLOBL rgbPair01<>(SB), RODATA|NOPTR, $16
DATA rgbPair23<>+0(SB)/8, $0x800a800780098006
DATA rgbPair23<>+8(SB)/8, $0x80808080800b8008
GLOBL rgbPair23<>(SB), RODATA|NOPTR, $16

// RGBA source pixels (4 bytes): the same, alpha in the fourth lane (not stored).
DATA rgbaPair01<>+0(SB)/8, $0x8005800180048000
DATA rgbaPair01<>+8(SB)/8, $0x8007800380068002
GLOBL rgbaPair01<>(SB), RODATA|NOPTR, $16
DATA rgbaPair23<>+0(SB)/8, $0x800d8009800c8008
DATA rgbaPair23<>+8(SB)/8, $0x800f800b800e800a
GLOBL rgbaPair23<>(SB), RODATA|NOPTR, $16

// HSUM resamples the 16 source bytes at (SI) with the pair weights at (BX) (taps
// 0, 1 then taps 2, 3, each pair repeated four times) into X0 (r, g, b as int32);
// HTAPS stores them at (DI). X13, X14: the shuffles; X15: hRound.
#define HSUM \
	MOVOU    (SI), X0;   \
	MOVO     X0, X1;     \
	PSHUFB   X13, X0;    \
	PSHUFB   X14, X1;    \
	MOVOU    (BX), X2;   \
	MOVOU    16(BX), X3; \
	PMADDWL  X2, X0;     \
	PMADDWL  X3, X1;     \
	PADDL    X1, X0;     \
	PADDL    X15, X0;    \
	PSRAL    $8, X0

#define HTAPS \
	HSUM;                \
	MOVQ     X0, (DI);   \
	PEXTRD   $2, X0, 8(DI)

// HTAPS16 is HTAPS storing r, g, b and the fourth lane (alpha) as int16 (the rotated
// path's intRing, 4 values a slot): the values lie within -2^15..2^15 (intRing), so
// the saturating pack keeps them exactly.
#define HTAPS16 \
	HSUM;                \
	PACKSSLW X0, X0;     \
	MOVQ     X0, (DI)

// Tap 4 of r, g, b as words, each beside a zero (its pair weight's second half).
DATA rgbTap4<>+0(SB)/8, $0x8080800d8080800c
DATA rgbTap4<>+8(SB)/8, $0x808080808080800e
GLOBL rgbTap4<>(SB), RODATA|NOPTR, $16

// func resampleRowRGBBlocks(out []int32, src []uint8, offs []int32, wts []int16, n, taps int)
//
// Columns 0..n-1 of the unrotated horizontal pass, each with four taps, or five when
// taps is 5 (a slight shrink widens the kernel to five taps for some columns): column
// j reads src[offs[j]:][:16] (its 12 or 15 bytes; the weights' zero lanes drop the
// rest), weights wts[24j:24j+24] (pairTaps), and writes out[3j:3j+3].
TEXT ·resampleRowRGBBlocks(SB), NOSPLIT, $0-112
	MOVQ  out_base+0(FP), DI
	MOVQ  src_base+24(FP), R8
	MOVQ  offs_base+48(FP), R9
	MOVQ  wts_base+72(FP), BX
	MOVQ  n+96(FP), CX
	MOVQ  taps+104(FP), R10
	TESTQ CX, CX
	JZ    rgbdone
	MOVOU rgbPair01<>(SB), X13
	MOVOU rgbPair23<>(SB), X14
	MOVOU hRound<>(SB), X15
	MOVOU rgbTap4<>(SB), X12
	CMPQ  R10, $5
	JEQ   rgbloop5

rgbloop:
	MOVLQSX (R9), SI
	ADDQ    R8, SI
	HTAPS
	ADDQ    $4, R9
	ADDQ    $48, BX
	ADDQ    $12, DI
	DECQ    CX
	JNZ     rgbloop
	RET

rgbloop5:
	MOVLQSX  (R9), SI
	ADDQ     R8, SI
	MOVOU    (SI), X0
	MOVO     X0, X1
	MOVO     X0, X4
	PSHUFB   X13, X0
	PSHUFB   X14, X1
	PSHUFB   X12, X4
	MOVOU    (BX), X2
	MOVOU    16(BX), X3
	MOVOU    32(BX), X5
	PMADDWL  X2, X0
	PMADDWL  X3, X1
	PMADDWL  X5, X4
	PADDL    X1, X0
	PADDL    X4, X0
	PADDL    X15, X0
	PSRAL    $8, X0
	MOVQ     X0, (DI)
	PEXTRD   $2, X0, 8(DI)
	ADDQ     $4, R9
	ADDQ     $48, BX
	ADDQ     $12, DI
	DECQ     CX
	JNZ      rgbloop5

rgbdone:
	RET

// func rowRunBlocks(out []int16, n, ostride int, row []uint8, rn int, ui, dui int64, pairs *[cmLUTSteps + 1][16]int16) int
//
// rowRunInt4's loop: from position ui (32.32, step dui), up to n samples of the row
// of rn RGBA pixels while all four taps lie inside, sample s to out[s*ostride:][:3];
// returns how many.
TEXT ·rowRunBlocks(SB), NOSPLIT, $0-104
	MOVQ  out_base+0(FP), DI
	MOVQ  n+24(FP), CX
	MOVQ  ostride+32(FP), R10
	SHLQ  $1, R10
	MOVQ  row_base+40(FP), R8
	MOVQ  rn+64(FP), R11
	SUBQ  $3, R11
	MOVQ  ui+72(FP), DX
	// DX runs one pixel behind ui (tap 0's pixel; the fraction, which picks the
	// weights, unchanged).
	MOVQ  $0x100000000, AX
	SUBQ  AX, DX
	MOVQ  dui+80(FP), R12
	MOVQ  pairs+88(FP), R9
	XORQ  AX, AX
	MOVOU rgbaPair01<>(SB), X13
	MOVOU rgbaPair23<>(SB), X14
	MOVOU hRound<>(SB), X15
	TESTQ CX, CX
	JLE   rundone

runloop:
	// i0 - 1 = (ui >> 32) - 1 must lie in [0, rn-3).
	MOVQ DX, SI
	SARQ $32, SI
	CMPQ SI, R11
	JCC  rundone
	LEAQ (R8)(SI*4), SI
	// The weights of the fraction rounded to 1/1024 (lutIndex): 32 bytes a row.
	MOVL DX, BX
	ADDQ $0x200000, BX
	SHRQ $17, BX
	ANDQ $~31, BX
	ADDQ R9, BX
	HTAPS16
	ADDQ R10, DI
	ADDQ R12, DX
	INCQ AX
	CMPQ AX, CX
	JLT  runloop

rundone:
	MOVQ AX, ret+96(FP)
	RET

// Vertical pass of the rotated path (columnsRowInt4): each pixel's four taps are 12
// consecutive int32 (RGB of source rows i0-1 .. i0+2) in its column of the intRing,
// loaded as four overlapping vectors so that lane c of each holds channel c of one
// tap; each is multiplied by its tap's weight and summed, then toByte's rounding,
// shift and clamp (the saturating packs), as combine4Blocks.

// 2^(iBits+vBits-1): the rounding of toByte.
DATA vRound<>+0(SB)/8, $0x0008000000080000
DATA vRound<>+8(SB)/8, $0x0008000000080000
GLOBL vRound<>(SB), RODATA|NOPTR, $16

// Pass-2 taps as pairs: the int16 values R0 G0 B0 x R1 G1 B1 x of two slots to R0
// R1 G0 G1 B0 B1 and two zero words, for PMADDWL with (w0, w1) pairs.
DATA colPairs16<>+0(SB)/8, $0x0b0a030209080100
DATA colPairs16<>+8(SB)/8, $0x808080800d0c0504
GLOBL colPairs16<>(SB), RODATA|NOPTR, $16

// COLPIX computes one pixel of columnsRunBlocks into xr (RGB in int32 lanes 0..2
// after toByte's rounding shift; lane 3 zero): sample position DX less one pixel
// (tap 0's row, the fraction unchanged), its column at R8, ring mask R11, the pair
// weights (cmLUTPairs) at R9, the pair shuffle in X14, vRound in X15. SI, BX, X1,
// X2 scratch. Taps 0, 1 come from the 16 bytes of slots 0 and 1, taps 2, 3 from
// those of slots 2 and 3.
#define COLPIX(xr) \
	MOVQ    DX, SI;           \
	SARQ    $32, SI;          \
	ANDQ    R11, SI;          \
	LEAQ    (R8)(SI*8), SI;   \
	MOVL    DX, BX;           \
	ADDQ    $0x200000, BX;    \
	SHRQ    $17, BX;          \
	ANDQ    $~31, BX;         \
	MOVOU   (SI), xr;         \
	PSHUFB  X14, xr;          \
	MOVOU   16(SI), X1;       \
	PSHUFB  X14, X1;          \
	MOVOU   (R9)(BX*1), X2;   \
	PMADDWL X2, xr;           \
	MOVOU   16(R9)(BX*1), X2; \
	PMADDWL X2, X1;           \
	PADDL   X1, xr;           \
	PADDL   X15, xr;          \
	PSRAL   $20, xr

// COLARGS loads the arguments the pass-2 kernels share (columnsRunBlocks, and
// through VEXARGS columnsRunBlocksVEX and columnsRunBlocksAVX2): dp into DI, the
// column's first value's address into R8, cs in bytes into R10.
#define COLARGS \
	MOVQ dp_base+0(FP), DI;     \
	MOVQ inter_base+24(FP), R8; \
	MOVQ col+48(FP), R9;        \
	SHLQ $1, R9;                \
	ADDQ R9, R8;                \
	MOVQ cs+56(FP), R10;        \
	SHLQ $1, R10

// VEXARGS loads the arguments of columnsRunBlocksVEX and columnsRunBlocksAVX2
// (COLARGS, then e into DX, dvi into R12, n into CX, slotCtl into R11, the weights
// into R9) and into R13 the BEXTR control of the weight row: bits 22..31 (start 22,
// length 10).
#define VEXARGS \
	COLARGS;                  \
	MOVQ e+64(FP), DX;        \
	MOVQ dvi+72(FP), R12;     \
	MOVQ n+80(FP), CX;        \
	MOVQ slotCtl+88(FP), R11; \
	MOVQ pairs+96(FP), R9;    \
	MOVQ $0x0a16, R13

// func columnsRunBlocks(dp []uint8, inter []int16, col, cs, mask int, v, dvi int64, n int, pairs *[cmLUTSteps + 1][16]int16)
//
// n wholly covered pixels: pixel j is written opaque to dp[4j:4j+4], sampled at
// v + j dvi (32.32) from the column at inter[col + j cs:], whose slot s holds
// values 4s..4s+2 (int16). Two multiply-adds a pixel on pairs of taps (as the
// horizontal pass), two pixels an iteration, packed and stored together.
TEXT ·columnsRunBlocks(SB), NOSPLIT, $0-104
	COLARGS
	MOVQ  mask+64(FP), R11
	MOVQ  v+72(FP), DX
	MOVQ  $0x100000000, AX
	SUBQ  AX, DX
	MOVQ  dvi+80(FP), R12
	MOVQ  n+88(FP), CX
	MOVQ  pairs+96(FP), R9
	MOVOU vRound<>(SB), X15
	MOVOU colPairs16<>(SB), X14
	MOVQ  $0xff000000ff000000, R13
	CMPQ  CX, $2
	JLT   coltail

colpair:
	COLPIX(X0)
	ADDQ     R10, R8
	ADDQ     R12, DX
	COLPIX(X3)
	ADDQ     R10, R8
	ADDQ     R12, DX
	PACKSSLW X3, X0
	PACKUSWB X0, X0
	MOVQ     X0, AX
	ORQ      R13, AX
	MOVQ     AX, (DI)
	ADDQ     $8, DI
	SUBQ     $2, CX
	CMPQ     CX, $2
	JGE      colpair

coltail:
	TESTQ CX, CX
	JZ    coldone
	COLPIX(X0)
	PACKSSLW X0, X0
	PACKUSWB X0, X0
	MOVL     X0, AX
	ORL      $0xff000000, AX
	MOVL     AX, (DI)

coldone:
	RET

// YCbCr to RGBA (the span fetchers of resample_span.go): color.YCbCrToRGB's integer
// arithmetic (JFIF coefficients at 2^16, Y scaled by 0x10101) on four pixels at once
// in int32 lanes; its clamp to 0..255 is the two saturating packs (the values before
// them lie within -180..433, exact in int16).

DATA ycc128<>+0(SB)/8, $0x0000008000000080
DATA ycc128<>+8(SB)/8, $0x0000008000000080
GLOBL ycc128<>(SB), RODATA|NOPTR, $16
DATA yccY<>+0(SB)/8, $0x0001010100010101
DATA yccY<>+8(SB)/8, $0x0001010100010101
GLOBL yccY<>(SB), RODATA|NOPTR, $16
// 91881 (Cr to R), 22554 (Cb to G, subtracted), 46802 (Cr to G, subtracted), 116130 (Cb to B).
DATA yccCrR<>+0(SB)/8, $0x000166e9000166e9
DATA yccCrR<>+8(SB)/8, $0x000166e9000166e9
GLOBL yccCrR<>(SB), RODATA|NOPTR, $16
DATA yccCbG<>+0(SB)/8, $0x0000581a0000581a
DATA yccCbG<>+8(SB)/8, $0x0000581a0000581a
GLOBL yccCbG<>(SB), RODATA|NOPTR, $16
DATA yccCrG<>+0(SB)/8, $0x0000b6d20000b6d2
DATA yccCrG<>+8(SB)/8, $0x0000b6d20000b6d2
GLOBL yccCrG<>(SB), RODATA|NOPTR, $16
DATA yccCbB<>+0(SB)/8, $0x0001c5a20001c5a2
DATA yccCbB<>+8(SB)/8, $0x0001c5a20001c5a2
GLOBL yccCbB<>(SB), RODATA|NOPTR, $16
DATA yccAlpha<>+0(SB)/8, $0x000000ff000000ff
DATA yccAlpha<>+8(SB)/8, $0x000000ff000000ff
GLOBL yccAlpha<>(SB), RODATA|NOPTR, $16
// Bytes R0..R3 G0..G3 B0..B3 A0..A3 to R0 G0 B0 A0 R1 ...
DATA yccInterleave<>+0(SB)/8, $0x0d0905010c080400
DATA yccInterleave<>+8(SB)/8, $0x0f0b07030e0a0602
GLOBL yccInterleave<>(SB), RODATA|NOPTR, $16

// YCC4 converts X0 (Y), X1 (Cb), X2 (Cr), four int32 lanes each, to four RGBA pixels
// stored at (DI). X8..X15 hold the constants above.
#define YCC4 \
	PMULLD  X9, X0;       \
	PSUBL   X8, X1;       \
	PSUBL   X8, X2;       \
	MOVO    X2, X3;       \
	PMULLD  X10, X3;      \
	PADDL   X0, X3;       \
	MOVO    X1, X4;       \
	PMULLD  X11, X4;      \
	MOVO    X2, X5;       \
	PMULLD  X12, X5;      \
	MOVO    X0, X6;       \
	PSUBL   X4, X6;       \
	PSUBL   X5, X6;       \
	PMULLD  X13, X1;      \
	PADDL   X0, X1;       \
	PSRAL   $16, X3;      \
	PSRAL   $16, X6;      \
	PSRAL   $16, X1;      \
	PACKSSLW X6, X3;      \
	PACKSSLW X14, X1;     \
	PACKUSWB X1, X3;      \
	PSHUFB  X15, X3;      \
	MOVOU   X3, (DI)

#define YCCCONST \
	MOVOU ycc128<>(SB), X8;        \
	MOVOU yccY<>(SB), X9;          \
	MOVOU yccCrR<>(SB), X10;       \
	MOVOU yccCbG<>(SB), X11;       \
	MOVOU yccCrG<>(SB), X12;       \
	MOVOU yccCbB<>(SB), X13;       \
	MOVOU yccAlpha<>(SB), X14;     \
	MOVOU yccInterleave<>(SB), X15

// Bytes R0..R3 G0..G3 B0..B3 A0..A3 to R0 G0 B0 R1 ... B3, then four zeros.
DATA yccInterleaveRGB<>+0(SB)/8, $0x0602090501080400
DATA yccInterleaveRGB<>+8(SB)/8, $0x808080800b07030a
GLOBL yccInterleaveRGB<>(SB), RODATA|NOPTR, $16

// func yccHalfBlocks(dst, y, cb, cr []uint8, n, step int)
//
// n blocks of four pixels whose chroma is shared by pairs (4:2:0 and 4:2:2 rows):
// pixels y[4j:4j+4] with chroma cb, cr[2j:2j+2], to dst[step*j:] as RGBA (step 16)
// or RGB (step 12; each block stores 16 bytes, the last four zeros that the next
// block overwrites, so dst must hold 4 more after the last block's 12).
TEXT ·yccHalfBlocks(SB), NOSPLIT, $0-112
	MOVQ  dst_base+0(FP), DI
	MOVQ  y_base+24(FP), SI
	MOVQ  cb_base+48(FP), R8
	MOVQ  cr_base+72(FP), R9
	MOVQ  n+96(FP), CX
	MOVQ  step+104(FP), R10
	TESTQ CX, CX
	JZ    halfdone
	YCCCONST
	CMPQ  R10, $16
	JEQ   halfloop
	MOVOU yccInterleaveRGB<>(SB), X15

halfloop:
	MOVL      (SI), AX
	MOVQ      AX, X0
	PMOVZXBD  X0, X0
	MOVWLZX   (R8), AX
	MOVQ      AX, X1
	PUNPCKLBW X1, X1
	PMOVZXBD  X1, X1
	MOVWLZX   (R9), AX
	MOVQ      AX, X2
	PUNPCKLBW X2, X2
	PMOVZXBD  X2, X2
	YCC4
	ADDQ      R10, DI
	ADDQ      $4, SI
	ADDQ      $2, R8
	ADDQ      $2, R9
	DECQ      CX
	JNZ       halfloop

halfdone:
	RET

// The same vertical pass with AVX (VEX encoding, 128-bit registers) and BMI1
// (columnsRunBlocksVEX): the per-pixel address arithmetic in BEXTR, the weights
// read by VPMADDWD itself, four pixels an iteration. The position
// e runs 2^21 (half a weight-table step) ahead of tap 0's row, so that its bits
// 22..31 are the weight row (lutIndex without the add) and its bits from 32 the slot
// of tap 0. Where the fraction rounds up to a whole row (weight row 1024 in
// columnsRunBlocks: 0, 0, 1, 0), e has moved on to the next row and weight row 0
// (0, 1, 0, 0): the same pass-1 value times the same weight, the fourth tap's slot
// (any value, read in the ring's repeated slots) times 0. (Two pixels a 256-bit
// register with AVX2 took fewer instructions still, but about 20 % more CPU time on
// the whole 30° draw.)

// COLVEX computes one pixel into xr as COLPIX: DX e, R8 the column, R10 cs in bytes,
// R11 and R13 the BEXTR controls of the slot and the weight row, R12 the step, R9 the
// weights, X14 the pair shuffle, X15 vRound; SI, BX and xt scratch. Then it steps.
#define COLVEX(xr, xt) \
	BEXTRQ   R11, DX, SI;         \
	BEXTRQ   R13, DX, BX;         \
	SHLQ     $5, BX;              \
	VMOVDQU  (R8)(SI*8), xr;      \
	VMOVDQU  16(R8)(SI*8), xt;    \
	VPSHUFB  X14, xr, xr;         \
	VPSHUFB  X14, xt, xt;         \
	VPMADDWD (R9)(BX*1), xr, xr;  \
	VPMADDWD 16(R9)(BX*1), xt, xt; \
	VPADDD   xt, xr, xr;          \
	VPADDD   X15, xr, xr;         \
	VPSRAD   $20, xr, xr;         \
	ADDQ     R10, R8;             \
	ADDQ     R12, DX

// func columnsRunBlocksVEX(dp []uint8, inter []int16, col, cs int, e, dvi int64, n, slotCtl int, pairs *[cmLUTSteps + 1][16]int16)
//
// columnsRunBlocks for n even, with e = v - 2^32 + 2^21 and slotCtl the BEXTR
// control of the slot (start 32, the ring's mask's bit length).
TEXT ·columnsRunBlocksVEX(SB), NOSPLIT, $0-104
	VEXARGS
	VMOVDQU vRound<>(SB), X15
	VMOVDQU colPairs16<>(SB), X14
	MOVQ    $0xff000000ff000000, AX
	VMOVQ   AX, X13
	VPUNPCKLQDQ X13, X13, X13
	SUBQ    $4, CX
	JLT     vexpair

vexloop:
	// Four pixels an iteration, packed and stored together.
	COLVEX(X0, X1)
	COLVEX(X2, X3)
	COLVEX(X4, X5)
	COLVEX(X6, X7)
	VPACKSSDW X2, X0, X0
	VPACKSSDW X6, X4, X4
	VPACKUSWB X4, X0, X0
	VPOR      X13, X0, X0
	VMOVDQU   X0, (DI)
	ADDQ      $16, DI
	SUBQ      $4, CX
	JGE       vexloop

vexpair:
	// Two left (n is even).
	ADDQ $4, CX
	JZ   vexdone
	COLVEX(X0, X1)
	COLVEX(X2, X3)
	VPACKSSDW X2, X0, X0
	VPACKUSWB X0, X0, X0
	VPOR      X13, X0, X0
	VMOVQ     X0, (DI)

vexdone:
	RET

// PAIRSUM is the arithmetic of the AVX2 kernel, two samples at once (one a 128-bit
// lane): the taps in s0 and s1 shuffled (by k0 into d0, by k1 into d1;
// d1 first, so that s0 may be s1 and d0) into pairs, multiplied by the pair weights
// ywa, ywb and added, plus the rounding Y15, shifted right by sh: in d0.
#define PAIRSUM(k0, s0, d0, k1, s1, d1, ywa, ywb, sh) \
	VPSHUFB  k1, s1, d1;   \
	VPSHUFB  k0, s0, d0;   \
	VPMADDWD ywa, d0, d0;  \
	VPMADDWD ywb, d1, d1;  \
	VPADDD   d1, d0, d0;   \
	VPADDD   Y15, d0, d0;  \
	VPSRAD   $sh, d0, d0

// The horizontal pass of the rotated path with AVX2 and BMI2 (rowRunBlocksAVX2): four
// samples an iteration, two in each 256-bit register (one a 128-bit lane, as HSUM on
// one sample), n of them all inside the row (the caller counts them), so the loop
// has no bounds test.

// ROWLOAD loads one sample's 16 source bytes into xs and its pair weights into xwa,
// xwb, then steps: DX the position of tap 0 (32.32) plus 2^21, so that its bits
// 22..31 are the weight row and its bits from 32 tap 0's pixel, as in
// columnsRunBlocksVEX (where the fraction rounds up, the next pixel and weight row 0
// instead of row 1024: the same pixel times the same weight, a fourth tap one pixel
// further times 0); R12 the step, R13 32, R11 the BEXTR control of bits 22..31, R8
// the row, R9 the weights; SI, BX scratch.
#define ROWADDR \
	SHRXQ  R13, DX, SI; \
	BEXTRQ R11, DX, BX; \
	SHLQ   $5, BX;      \
	ADDQ   R12, DX

#define ROWLOAD(xs, xwa, xwb) \
	ROWADDR;                  \
	VMOVDQU (R8)(SI*4), xs;   \
	VMOVDQU (R9)(BX*1), xwa;  \
	VMOVDQU 16(R9)(BX*1), xwb

#define ROWLOADHI(ys, ywa, ywb) \
	ROWADDR;                                \
	VINSERTI128 $1, (R8)(SI*4), ys, ys;     \
	VINSERTI128 $1, (R9)(BX*1), ywa, ywa;   \
	VINSERTI128 $1, 16(R9)(BX*1), ywb, ywb

// ROWSUM is HSUM on the two samples of ys (yt scratch). Y13, Y12: the pair
// shuffles; Y15: hRound.
#define ROWSUM(ys, ywa, ywb, yt) PAIRSUM(Y13, ys, ys, Y12, ys, yt, ywa, ywb, 8)

// func rowRunBlocksAVX2(out []int16, n, ostride int, row []uint8, ui, dui int64, pairs *[cmLUTSteps + 1][16]int16)
//
// rowRunBlocks for n samples, a multiple of 4, every one with its four taps inside
// the row, and the fourth tap of its rounded position too (rowRunInt4): sample s to
// out[s*ostride:][:4] (the fourth value alpha's, as HTAPS16).
TEXT ·rowRunBlocksAVX2(SB), NOSPLIT, $0-88
	MOVQ  out_base+0(FP), DI
	MOVQ  n+24(FP), CX
	MOVQ  ostride+32(FP), R10
	SHLQ  $1, R10
	LEAQ  (R10)(R10*2), R14
	MOVQ  row_base+40(FP), R8
	MOVQ  ui+64(FP), DX
	MOVQ  $0x100000000-0x200000, AX
	SUBQ  AX, DX
	MOVQ  dui+72(FP), R12
	MOVQ  pairs+80(FP), R9
	MOVQ  $32, R13
	// Bits 22..31: start 22, length 10.
	MOVQ  $0x0a16, R11
	SHRQ  $2, CX
	JZ    rowavxdone
	VBROADCASTI128 rgbaPair01<>(SB), Y13
	VBROADCASTI128 rgbaPair23<>(SB), Y12
	VBROADCASTI128 hRound<>(SB), Y15

rowavxloop:
	// Samples s, s+1 in the low lanes of Y0 and Y4, s+2, s+3 in the high ones.
	ROWLOAD(X0, X1, X2)
	ROWLOAD(X4, X5, X6)
	ROWLOADHI(Y0, Y1, Y2)
	ROWLOADHI(Y4, Y5, Y6)
	ROWSUM(Y0, Y1, Y2, Y3)
	ROWSUM(Y4, Y5, Y6, Y7)
	// Lanes (s, s+1) and (s+2, s+3) as four int16 each.
	VPACKSSDW   Y4, Y0, Y0
	VMOVQ       X0, (DI)
	VPEXTRQ     $1, X0, (DI)(R10*1)
	VEXTRACTI128 $1, Y0, X1
	VMOVQ       X1, (DI)(R10*2)
	VPEXTRQ     $1, X1, (DI)(R14*1)
	LEAQ        (DI)(R10*4), DI
	DECQ        CX
	JNZ         rowavxloop
	VZEROUPPER

rowavxdone:
	RET

// func gatherStrideBlocks(dst, src []uint8, at, step int)
//
// dst[i] = src[at + i*step] for every i of dst (gatherStride checks the indexes):
// a picture's column read for the transposed span fetchers, four bytes a step.
TEXT ·gatherStrideBlocks(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	ADDQ at+48(FP), SI
	MOVQ step+56(FP), DX
	LEAQ (DX)(DX*2), R8
	LEAQ (DX*4), R9
	SUBQ $4, CX
	JLT  gathertail

gatherloop:
	MOVBLZX (SI), AX
	MOVB    AX, (DI)
	MOVBLZX (SI)(DX*1), AX
	MOVB    AX, 1(DI)
	MOVBLZX (SI)(DX*2), AX
	MOVB    AX, 2(DI)
	MOVBLZX (SI)(R8*1), AX
	MOVB    AX, 3(DI)
	ADDQ    R9, SI
	ADDQ    $4, DI
	SUBQ    $4, CX
	JGE     gatherloop

gathertail:
	ADDQ $4, CX
	JZ   gatherdone

gatherone:
	MOVBLZX (SI), AX
	MOVB    AX, (DI)
	ADDQ    DX, SI
	INCQ    DI
	DECQ    CX
	JNZ     gatherone

gatherdone:
	RET


// func gatherStride2Blocks(dst0, dst1, src0, src1 []uint8, at, step int)
//
// gatherStrideBlocks on two planes at once (a picture's Cb and Cr): dst0[i] =
// src0[at + i*step] and dst1[i] = src1[at + i*step] for every i of dst0 (dst1 as
// long; gatherStride2 checks the indexes), four of each a step.
TEXT ·gatherStride2Blocks(SB), NOSPLIT, $0-112
	MOVQ dst0_base+0(FP), DI
	MOVQ dst0_len+8(FP), CX
	MOVQ dst1_base+24(FP), R10
	MOVQ src0_base+48(FP), SI
	MOVQ src1_base+72(FP), R11
	MOVQ at+96(FP), AX
	ADDQ AX, SI
	ADDQ AX, R11
	MOVQ step+104(FP), DX
	LEAQ (DX)(DX*2), R8
	LEAQ (DX*4), R9
	SUBQ $4, CX
	JLT  gather2tail

gather2loop:
	MOVBLZX (SI), AX
	MOVBLZX (R11), BX
	MOVB    AX, (DI)
	MOVB    BX, (R10)
	MOVBLZX (SI)(DX*1), AX
	MOVBLZX (R11)(DX*1), BX
	MOVB    AX, 1(DI)
	MOVB    BX, 1(R10)
	MOVBLZX (SI)(DX*2), AX
	MOVBLZX (R11)(DX*2), BX
	MOVB    AX, 2(DI)
	MOVB    BX, 2(R10)
	MOVBLZX (SI)(R8*1), AX
	MOVBLZX (R11)(R8*1), BX
	MOVB    AX, 3(DI)
	MOVB    BX, 3(R10)
	ADDQ    R9, SI
	ADDQ    R9, R11
	ADDQ    $4, DI
	ADDQ    $4, R10
	SUBQ    $4, CX
	JGE     gather2loop

gather2tail:
	ADDQ $4, CX
	JZ   gather2done

gather2one:
	MOVBLZX (SI), AX
	MOVBLZX (R11), BX
	MOVB    AX, (DI)
	MOVB    BX, (R10)
	ADDQ    DX, SI
	ADDQ    DX, R11
	INCQ    DI
	INCQ    R10
	DECQ    CX
	JNZ     gather2one

gather2done:
	RET

// func transpose8Blocks(dst, src []uint8, at, stride, n, ls int)
//
// The 8 bytes at src[at + r*stride:] of rows r = 0..8n-1 (eight columns of a
// picture) to eight planes: byte c of row r to dst[c*ls + r]. Eight rows an
// iteration: an 8x8 byte transpose in three rounds of unpacks (bytes, words,
// doublewords), each plane's eight rows stored as one quadword. The caller checks
// the indexes (columnBlockFetcher, resample_span.go).
TEXT ·transpose8Blocks(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	ADDQ at+48(FP), SI
	MOVQ stride+56(FP), DX
	MOVQ n+64(FP), CX
	MOVQ ls+72(FP), R10
	LEAQ (R10)(R10*2), R11 // 3 ls
	LEAQ (R10)(R10*4), R12 // 5 ls
	LEAQ (R11)(R10*4), R13 // 7 ls
	LEAQ (DX)(DX*2), R8    // 3 stride
	TESTQ CX, CX
	JZ    tdone

tloop:
	MOVQ (SI), X0
	MOVQ (SI)(DX*1), X1
	MOVQ (SI)(DX*2), X2
	MOVQ (SI)(R8*1), X3
	LEAQ (SI)(DX*4), SI
	MOVQ (SI), X4
	MOVQ (SI)(DX*1), X5
	MOVQ (SI)(DX*2), X6
	MOVQ (SI)(R8*1), X7
	LEAQ (SI)(DX*4), SI
	// Rows a..h: pairs (a, b), (c, d), (e, f), (g, h) by column.
	PUNPCKLBW X1, X0
	PUNPCKLBW X3, X2
	PUNPCKLBW X5, X4
	PUNPCKLBW X7, X6
	// Quads a..d and e..h by column: columns 0..3 and 4..7.
	MOVO      X0, X1
	PUNPCKLWL X2, X0
	PUNPCKHWL X2, X1
	MOVO      X4, X5
	PUNPCKLWL X6, X4
	PUNPCKHWL X6, X5
	// Eights by column: columns (0, 1), (2, 3), (4, 5), (6, 7).
	MOVO       X0, X2
	PUNPCKLLQ  X4, X0
	PUNPCKHLQ  X4, X2
	MOVO       X1, X3
	PUNPCKLLQ  X5, X1
	PUNPCKHLQ  X5, X3
	MOVQ       X0, (DI)
	MOVHPS     X0, (DI)(R10*1)
	MOVQ       X2, (DI)(R10*2)
	MOVHPS     X2, (DI)(R11*1)
	MOVQ       X1, (DI)(R10*4)
	MOVHPS     X1, (DI)(R12*1)
	MOVQ       X3, (DI)(R11*2)
	MOVHPS     X3, (DI)(R13*1)
	ADDQ       $8, DI
	DECQ       CX
	JNZ        tloop

tdone:
	RET

// COLAVX is COLVEX on one 256-bit register: a pixel's four taps (32 bytes, slots 0 to
// 3) loaded at once, taps 0, 1 in the low lane and 2, 3 in the high one, shuffled to
// pairs by Y14 (colPairs16 in both lanes) and multiplied by the weight row's 32 bytes
// ((w0, w1) pairs, then (w2, w3) pairs: cmLUTPairs): the two lanes' sums, added later.
#define COLAVX(y) \
	BEXTRQ   R11, DX, SI;      \
	BEXTRQ   R13, DX, BX;      \
	SHLQ     $5, BX;           \
	VMOVDQU  (R8)(SI*8), y;    \
	VPSHUFB  Y14, y, y;        \
	VPMADDWD (R9)(BX*1), y, y; \
	ADDQ     R10, R8;          \
	ADDQ     R12, DX

// LANESUM adds the lanes of two pixels' COLAVX results a and b into d: d's low lane
// a's, its high lane b's, each rounded and shifted as COLVEX's (t scratch).
#define LANESUM(a, b, d, t) \
	VPERM2I128 $0x20, b, a, d; \
	VPERM2I128 $0x31, b, a, t; \
	VPADDD     t, d, d;        \
	VPADDD     Y15, d, d;      \
	VPSRAD     $20, d, d

// func columnsRunBlocksAVX2(dp []uint8, inter []int16, col, cs int, e, dvi int64, n, slotCtl int, pairs *[cmLUTSteps + 1][16]int16)
//
// columnsRunBlocksVEX with AVX2 for n a multiple of 4: a pixel's taps in one load,
// shuffle and multiply-add instead of two each, four pixels an iteration. The sums
// are the same int32 sums (added in the same pairs), so the bytes are the same.
TEXT ·columnsRunBlocksAVX2(SB), NOSPLIT, $0-104
	VEXARGS
	SHRQ  $2, CX
	JZ    avxcoldone
	VBROADCASTI128 vRound<>(SB), Y15
	VBROADCASTI128 colPairs16<>(SB), Y14
	MOVQ    $0xff000000ff000000, AX
	VMOVQ   AX, X13
	VPUNPCKLQDQ X13, X13, X13

avxcolloop:
	// Pixels p, q, r, s in Y0..Y3; p and r summed into Y4, q and s into Y6, so
	// that the packs leave them in order.
	COLAVX(Y0)
	COLAVX(Y1)
	COLAVX(Y2)
	COLAVX(Y3)
	LANESUM(Y0, Y2, Y4, Y5)
	LANESUM(Y1, Y3, Y6, Y7)
	// Words: low lane p, q; high lane r, s. Bytes: p q p q | r s r s.
	VPACKSSDW Y6, Y4, Y4
	VPACKUSWB Y4, Y4, Y4
	// Quadwords 0 and 2: p q r s.
	VPERMQ    $0x08, Y4, Y4
	VPOR      X13, X4, X4
	VMOVDQU   X4, (DI)
	ADDQ      $16, DI
	DECQ      CX
	JNZ       avxcolloop
	VZEROUPPER

avxcoldone:
	RET
