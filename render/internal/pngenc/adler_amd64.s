//go:build !purego

#include "textflag.h"

// Weights of the 32 bytes of a block in s2: byte i of the block is added to s2 once
// for itself and once for every later byte of the block, 32-i times in all.
DATA adlerWeights<>+0(SB)/8, $0x191a1b1c1d1e1f20
DATA adlerWeights<>+8(SB)/8, $0x1112131415161718
DATA adlerWeights<>+16(SB)/8, $0x090a0b0c0d0e0f10
DATA adlerWeights<>+24(SB)/8, $0x0102030405060708
GLOBL adlerWeights<>(SB), RODATA|NOPTR, $32

DATA adlerOnes<>+0(SB)/8, $0x0001000100010001
DATA adlerOnes<>+8(SB)/8, $0x0001000100010001
GLOBL adlerOnes<>(SB), RODATA|NOPTR, $16

// func adlerBlocksSSSE3(p []byte) (sum, weighted uint32)
//
// For the first len(p) &^ 31 bytes q (n of them, n <= adlerChunk so nothing wraps):
// sum = sum of q[i], weighted = sum of (n-i)*q[i], i.e. Adler-32's s1 and s2 gains
// from zero initial sums. SSSE3, 32 bytes a step, as zlib-ng's adler32_ssse3: PSADBW
// adds the bytes (s1), PMADDUBSW with the weights 32..1 then PMADDWD (Go: PMADDWL)
// with ones adds the in-block part of s2, and the sum of s1 before each block, times
// 32, is the part of s2 the earlier blocks contribute. All lanes are 32-bit partial sums of
// non-negative terms, so each is at most the total and none wraps.
TEXT ·adlerBlocksSSSE3(SB), NOSPLIT, $0-32
	MOVQ p_base+0(FP), SI
	MOVQ p_len+8(FP), CX
	SHRQ $5, CX
	PXOR X2, X2  // s1 lanes
	PXOR X3, X3  // s2 lanes (in-block weights)
	PXOR X4, X4  // sum of s1 lanes before each block
	PXOR X15, X15
	MOVOU adlerWeights<>+0(SB), X12
	MOVOU adlerWeights<>+16(SB), X13
	MOVOU adlerOnes<>(SB), X14
	TESTQ CX, CX
	JZ    done

loop:
	MOVOU     (SI), X0
	MOVOU     16(SI), X1
	PADDD     X2, X4
	MOVO      X0, X5
	PSADBW    X15, X5
	MOVO      X1, X6
	PSADBW    X15, X6
	PADDD     X5, X2
	PADDD     X6, X2
	PMADDUBSW X12, X0
	PMADDWL   X14, X0
	PMADDUBSW X13, X1
	PMADDWL   X14, X1
	PADDD     X0, X3
	PADDD     X1, X3
	ADDQ      $32, SI
	DECQ      CX
	JNZ       loop

done:
	PSLLL  $5, X4
	PADDD  X4, X3
	PSHUFD $0x4e, X2, X0
	PADDD  X0, X2
	PSHUFD $0xb1, X2, X0
	PADDD  X0, X2
	MOVQ   X2, AX
	MOVL   AX, sum+24(FP)
	PSHUFD $0x4e, X3, X0
	PADDD  X0, X3
	PSHUFD $0xb1, X3, X0
	PADDD  X0, X3
	MOVQ   X3, AX
	MOVL   AX, weighted+28(FP)
	RET

// func adlerBlocksAVX2(p []byte) (sum, weighted uint32)
//
// adlerBlocksSSSE3 with AVX2: the same sums, a whole 32-byte block in one register, two
// blocks a loop.
TEXT ·adlerBlocksAVX2(SB), NOSPLIT, $0-32
	MOVQ    p_base+0(FP), SI
	MOVQ    p_len+8(FP), CX
	SHRQ    $5, CX
	VPXOR   Y2, Y2, Y2 // s1 lanes
	VPXOR   Y3, Y3, Y3 // s2 lanes (in-block weights)
	VPXOR   Y4, Y4, Y4 // sum of s1 lanes before each block
	VPXOR   Y15, Y15, Y15
	VMOVDQU adlerWeights<>(SB), Y12
	VPCMPEQW Y14, Y14, Y14
	VPSRLW  $15, Y14, Y14 // 16-bit ones
	SHRQ    $1, CX
	JZ      single

pair:
	VMOVDQU    (SI), Y0
	VMOVDQU    32(SI), Y1
	VPADDD     Y2, Y4, Y4
	VPSADBW    Y15, Y0, Y5
	VPADDD     Y5, Y2, Y2
	VPADDD     Y2, Y4, Y4
	VPSADBW    Y15, Y1, Y6
	VPADDD     Y6, Y2, Y2
	VPMADDUBSW Y12, Y0, Y0
	VPMADDWD   Y14, Y0, Y0
	VPMADDUBSW Y12, Y1, Y1
	VPMADDWD   Y14, Y1, Y1
	VPADDD     Y0, Y3, Y3
	VPADDD     Y1, Y3, Y3
	ADDQ       $64, SI
	DECQ       CX
	JNZ        pair

single:
	MOVQ p_len+8(FP), CX
	TESTQ $32, CX
	JZ    done
	VMOVDQU    (SI), Y0
	VPADDD     Y2, Y4, Y4
	VPSADBW    Y15, Y0, Y5
	VPADDD     Y5, Y2, Y2
	VPMADDUBSW Y12, Y0, Y0
	VPMADDWD   Y14, Y0, Y0
	VPADDD     Y0, Y3, Y3

done:
	VPSLLD       $5, Y4, Y4
	VPADDD       Y4, Y3, Y3
	VEXTRACTI128 $1, Y2, X0
	VPADDD       X0, X2, X2
	VPSHUFD      $0x4e, X2, X0
	VPADDD       X0, X2, X2
	VPSHUFD      $0xb1, X2, X0
	VPADDD       X0, X2, X2
	VMOVD        X2, AX
	MOVL         AX, sum+24(FP)
	VEXTRACTI128 $1, Y3, X0
	VPADDD       X0, X3, X3
	VPSHUFD      $0x4e, X3, X0
	VPADDD       X0, X3, X3
	VPSHUFD      $0xb1, X3, X0
	VPADDD       X0, X3, X3
	VMOVD        X3, AX
	MOVL         AX, weighted+28(FP)
	VZEROUPPER
	RET
