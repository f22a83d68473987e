//go:build !purego

#include "textflag.h"

// Byte indices of one 4-pixel RGBA block's colour bytes, then four zeros.
DATA rgbShuffle<>+0(SB)/8, $0x0908060504020100
DATA rgbShuffle<>+8(SB)/8, $0x808080800e0d0c0a
GLOBL rgbShuffle<>(SB), RODATA|NOPTR, $16

// func rgbaToRGBBlocks(dst, src []byte, n int)
//
// Packs n blocks of 4 RGBA pixels (16 bytes of src each) into 12 bytes of dst each
// with one SSSE3 PSHUFB. Every store writes 16 bytes, the last 4 zeros that the next
// block overwrites, so dst must hold 12n+4 bytes.
TEXT ·rgbaToRGBBlocks(SB), NOSPLIT, $0-56
	MOVQ  dst_base+0(FP), DI
	MOVQ  src_base+24(FP), SI
	MOVQ  n+48(FP), CX
	TESTQ CX, CX
	JZ    done
	MOVOU rgbShuffle<>(SB), X1

loop:
	MOVOU  (SI), X0
	PSHUFB X1, X0
	MOVOU  X0, (DI)
	ADDQ   $16, SI
	ADDQ   $12, DI
	DECQ   CX
	JNZ    loop

done:
	RET

// func alphaOpaque64(p []byte) bool
//
// Reports whether every fourth byte (the alpha of RGBA pixels) of the first
// len(p)&^63 bytes is 0xff: the 64-byte blocks are ANDed together with SSE2 and the
// alpha bytes of the result compared once.
TEXT ·alphaOpaque64(SB), NOSPLIT, $0-25
	MOVQ    p_base+0(FP), SI
	MOVQ    p_len+8(FP), CX
	SHRQ    $6, CX
	PCMPEQB X4, X4
	MOVO    X4, X5
	TESTQ   CX, CX
	JZ      check

loop:
	MOVOU (SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	PAND  X1, X0
	PAND  X3, X2
	PAND  X2, X0
	PAND  X0, X4
	ADDQ  $64, SI
	DECQ  CX
	JNZ   loop

check:
	PCMPEQB  X5, X4
	PMOVMSKB X4, AX
	ANDL     $0x8888, AX
	CMPL     AX, $0x8888
	SETEQ    ret+24(FP)
	RET
