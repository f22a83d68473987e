//go:build !purego

#include "textflag.h"

// 2^(iBits+vBits-1): the rounding of toByte.
DATA combineRound<>+0(SB)/8, $0x0008000000080000
DATA combineRound<>+8(SB)/8, $0x0008000000080000
GLOBL combineRound<>(SB), RODATA|NOPTR, $16

// Spreads 12 RGB bytes to 4 RGBA pixels (alpha bytes zeroed, then set by combineAlpha).
DATA combineExpand<>+0(SB)/8, $0x8005040380020100
DATA combineExpand<>+8(SB)/8, $0x800b0a0980080706
GLOBL combineExpand<>(SB), RODATA|NOPTR, $16

DATA combineAlpha<>+0(SB)/8, $0xff000000ff000000
DATA combineAlpha<>+8(SB)/8, $0xff000000ff000000
GLOBL combineAlpha<>(SB), RODATA|NOPTR, $16

#define BROADCAST(off, X) MOVL off(AX), DX; MOVQ DX, X; PSHUFD $0, X, X

// ACC sums the four taps of the 16 bytes at off into X: int32 products and sums
// wrap as Go's do.
#define ACC(off, X) \
	MOVOU  off(R8), X;   \
	PMULLD X8, X;        \
	MOVOU  off(R9), X3;  \
	PMULLD X9, X3;       \
	PADDD  X3, X;        \
	MOVOU  off(R10), X3; \
	PMULLD X10, X3;      \
	PADDD  X3, X;        \
	MOVOU  off(R11), X3; \
	PMULLD X11, X3;      \
	PADDD  X3, X;        \
	PADDD  X12, X;       \
	PSRAL  $20, X

// func combine4Blocks(dp []uint8, t0, t1, t2, t3, w []int32, n int)
//
// combine4 for n blocks of 4 pixels with SSE4.1: the same int32 arithmetic as the Go
// loop (PMULLD keeps the low 32 bits, as Go's int32 multiply does), the rounding
// shift of toByte, and its clamp to 0..255 as the two saturating packs
// int32 -> int16 -> uint8.
TEXT ·combine4Blocks(SB), NOSPLIT, $0-152
	MOVQ  dp_base+0(FP), DI
	MOVQ  t0_base+24(FP), R8
	MOVQ  t1_base+48(FP), R9
	MOVQ  t2_base+72(FP), R10
	MOVQ  t3_base+96(FP), R11
	MOVQ  w_base+120(FP), AX
	MOVQ  n+144(FP), CX
	TESTQ CX, CX
	JZ    done
	BROADCAST(0, X8)
	BROADCAST(4, X9)
	BROADCAST(8, X10)
	BROADCAST(12, X11)
	MOVOU combineRound<>(SB), X12
	MOVOU combineExpand<>(SB), X13
	MOVOU combineAlpha<>(SB), X14

loop:
	ACC(0, X0)
	ACC(16, X1)
	ACC(32, X2)
	PACKSSLW X1, X0
	PACKSSLW X2, X2
	PACKUSWB X2, X0
	PSHUFB   X13, X0
	POR      X14, X0
	MOVOU    X0, (DI)
	ADDQ     $16, DI
	ADDQ     $48, R8
	ADDQ     $48, R9
	ADDQ     $48, R10
	ADDQ     $48, R11
	DECQ     CX
	JNZ      loop

done:
	RET

// func prefetchLines(p []uint8, write bool)
//
// A prefetch of each cache line p spans: PREFETCHT0, or with write PREFETCHW (0F 0D
// /1, which the Go assembler does not name; the caller checks the CPU has it,
// havePrefetchW), which brings the lines in owned, ready to be written. A hint: it
// neither faults nor changes any result. The rotated path asks for the canvas rows
// and source rows it reaches a few rows later (resample_transform.go, prefetchAhead).
TEXT ·prefetchLines(SB), NOSPLIT, $0-25
	MOVQ  p_base+0(FP), SI
	MOVQ  p_len+8(FP), CX
	TESTQ CX, CX
	JZ    pfdone
	LEAQ  -1(SI)(CX*1), DX
	ANDQ  $~63, SI
	CMPB  write+24(FP), $0
	JNE   pfwloop

pfloop:
	PREFETCHT0 (SI)
	ADDQ  $64, SI
	CMPQ  SI, DX
	JLE   pfloop
	RET

pfwloop:
	BYTE  $0x0F; BYTE $0x0D; BYTE $0x0E // PREFETCHW (SI)
	ADDQ  $64, SI
	CMPQ  SI, DX
	JLE   pfwloop

pfdone:
	RET

// func cpuidPrefetchW() bool
//
// CPUID leaf 0x80000001, ECX bit 8 (PRFCHW, "3DNowPrefetch"): the CPU has PREFETCHW.
TEXT ·cpuidPrefetchW(SB), NOSPLIT, $0-1
	MOVL  $0x80000000, AX
	CPUID
	CMPL  AX, $0x80000001
	JCS   nopfw
	MOVL  $0x80000001, AX
	XORL  CX, CX
	CPUID
	SHRL  $8, CX
	ANDL  $1, CX
	MOVB  CX, ret+0(FP)
	RET

nopfw:
	MOVB  $0, ret+0(FP)
	RET
