//go:build !purego

#include "textflag.h"

// func paethBlocks(o, x, a, b, c []byte)
//
// o[i] = x[i] - Paeth(a[i], b[i], c[i]) for the first len(o) &^ 15 bytes, 16 at a
// time with SSE2 (part of every amd64 CPU, so no feature check). The predictor is
// the stb_image formulation filterPaeth's Go loop uses, on 16-bit lanes:
// t = 3c-(a+b), lo = min(a,b), hi = max(a,b); p = c, then lo where hi <= t, then hi
// where t <= lo.
TEXT ·paethBlocks(SB), NOSPLIT, $0-120
	MOVQ o_base+0(FP), DI
	MOVQ o_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	MOVQ a_base+48(FP), R8
	MOVQ b_base+72(FP), R9
	MOVQ c_base+96(FP), R10
	SHRQ $4, CX
	JZ   done
	PXOR X14, X14

loop:
	MOVOU (R8), X0
	MOVOU (R9), X1
	MOVOU (R10), X2

	// Low eight bytes.
	MOVO      X0, X3
	PUNPCKLBW X14, X3 // a
	MOVO      X1, X4
	PUNPCKLBW X14, X4 // b
	MOVO      X2, X5
	PUNPCKLBW X14, X5 // c
	MOVO      X3, X6
	PADDW     X4, X6 // a+b
	MOVO      X5, X7
	PADDW     X5, X7
	PADDW     X5, X7 // 3c
	PSUBW     X6, X7 // t
	MOVO      X3, X8
	PMINSW    X4, X8 // lo
	PMAXSW    X4, X3 // hi
	MOVO      X3, X9
	PCMPGTW   X7, X9 // hi > t: keep c
	PAND      X9, X5
	PANDN     X8, X9
	POR       X9, X5 // p
	MOVO      X7, X10
	PCMPGTW   X8, X10 // t > lo: keep p
	PAND      X10, X5
	PANDN     X3, X10
	POR       X10, X5 // p, low words

	// High eight bytes.
	PUNPCKHBW X14, X0 // a
	PUNPCKHBW X14, X1 // b
	PUNPCKHBW X14, X2 // c
	MOVO      X0, X6
	PADDW     X1, X6 // a+b
	MOVO      X2, X7
	PADDW     X2, X7
	PADDW     X2, X7 // 3c
	PSUBW     X6, X7 // t
	MOVO      X0, X8
	PMINSW    X1, X8 // lo
	PMAXSW    X1, X0 // hi
	MOVO      X0, X9
	PCMPGTW   X7, X9
	PAND      X9, X2
	PANDN     X8, X9
	POR       X9, X2
	MOVO      X7, X10
	PCMPGTW   X8, X10
	PAND      X10, X2
	PANDN     X0, X10
	POR       X10, X2 // p, high words

	PACKUSWB X2, X5
	MOVOU    (SI), X11
	PSUBB    X5, X11
	MOVOU    X11, (DI)

	ADDQ $16, DI
	ADDQ $16, SI
	ADDQ $16, R8
	ADDQ $16, R9
	ADDQ $16, R10
	DECQ CX
	JNZ  loop

done:
	RET
