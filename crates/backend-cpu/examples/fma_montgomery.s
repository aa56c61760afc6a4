// Written by fma_montgomery_asm.py; do not edit.
.text
.globl fma_montgomery_mul_x2
.p2align 6
fma_montgomery_mul_x2:
vmovapd ymm2, ymmword ptr [rcx + 32]
vmovapd ymm10, ymmword ptr [rcx + 32]
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 0]
vmovapd ymm12, ymmword ptr [rsi + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 0]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 0]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 576]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 576]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpsrlq ymm5, ymm4, 32
vpsrlq ymm13, ymm12, 32
vpmuludq ymm5, ymm5, ymmword ptr [rcx + 256]
vpmuludq ymm13, ymm13, ymmword ptr [rcx + 256]
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 288]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 288]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpsllq ymm5, ymm5, 32
vpsllq ymm13, ymm13, 32
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 256]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 256]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpand ymm5, ymm5, ymmword ptr [rcx + 64]
vpand ymm13, ymm13, ymmword ptr [rcx + 64]
vpor ymm5, ymm5, ymmword ptr [rcx + 96]
vpor ymm13, ymm13, ymmword ptr [rcx + 96]
vsubpd ymm3, ymm5, ymmword ptr [rcx + 128]
vsubpd ymm11, ymm13, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [r8 + 0 + 0], ymm3
vmovapd ymmword ptr [r8 + 256 + 0], ymm11
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vmovapd ymm7, ymmword ptr [rcx + 160]
vmovapd ymm15, ymmword ptr [rcx + 160]
vfmadd213pd ymm4, ymm7, ymmword ptr [rcx + 192]
vfmadd213pd ymm12, ymm15, ymmword ptr [rcx + 192]
vfmadd231pd ymm4, ymm3, ymmword ptr [rcx + 224]
vfmadd231pd ymm12, ymm11, ymmword ptr [rcx + 224]
vaddpd ymm4, ymm4, ymmword ptr [rcx + 128]
vaddpd ymm12, ymm12, ymmword ptr [rcx + 128]
vpaddq ymm2, ymm6, ymm4
vpaddq ymm10, ymm14, ymm12
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 0]
vmovapd ymm12, ymmword ptr [rsi + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 32]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 32]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 32]
vmovapd ymm12, ymmword ptr [rsi + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 0]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 0]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm9, ymm11, ymmword ptr [rcx + 352]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm13, ymm11, ymmword ptr [rcx + 352]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 608]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 608]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpsrlq ymm5, ymm4, 32
vpsrlq ymm13, ymm12, 32
vpmuludq ymm5, ymm5, ymmword ptr [rcx + 256]
vpmuludq ymm13, ymm13, ymmword ptr [rcx + 256]
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 288]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 288]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpsllq ymm5, ymm5, 32
vpsllq ymm13, ymm13, 32
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 256]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 256]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpand ymm5, ymm5, ymmword ptr [rcx + 64]
vpand ymm13, ymm13, ymmword ptr [rcx + 64]
vpor ymm5, ymm5, ymmword ptr [rcx + 96]
vpor ymm13, ymm13, ymmword ptr [rcx + 96]
vsubpd ymm3, ymm5, ymmword ptr [rcx + 128]
vsubpd ymm11, ymm13, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [r8 + 0 + 32], ymm3
vmovapd ymmword ptr [r8 + 256 + 32], ymm11
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vmovapd ymm7, ymmword ptr [rcx + 160]
vmovapd ymm15, ymmword ptr [rcx + 160]
vfmadd213pd ymm4, ymm7, ymmword ptr [rcx + 192]
vfmadd213pd ymm12, ymm15, ymmword ptr [rcx + 192]
vfmadd231pd ymm4, ymm3, ymmword ptr [rcx + 224]
vfmadd231pd ymm12, ymm11, ymmword ptr [rcx + 224]
vaddpd ymm4, ymm4, ymmword ptr [rcx + 128]
vaddpd ymm12, ymm12, ymmword ptr [rcx + 128]
vpaddq ymm2, ymm6, ymm4
vpaddq ymm10, ymm14, ymm12
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 0]
vmovapd ymm12, ymmword ptr [rsi + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 64]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 64]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 32]
vmovapd ymm12, ymmword ptr [rsi + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 32]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 32]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 64]
vmovapd ymm12, ymmword ptr [rsi + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 0]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 0]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 0]
vmovapd ymm12, ymmword ptr [r8 + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 384]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 384]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm9, ymm11, ymmword ptr [rcx + 352]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm13, ymm11, ymmword ptr [rcx + 352]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 640]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 640]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpsrlq ymm5, ymm4, 32
vpsrlq ymm13, ymm12, 32
vpmuludq ymm5, ymm5, ymmword ptr [rcx + 256]
vpmuludq ymm13, ymm13, ymmword ptr [rcx + 256]
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 288]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 288]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpsllq ymm5, ymm5, 32
vpsllq ymm13, ymm13, 32
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 256]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 256]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpand ymm5, ymm5, ymmword ptr [rcx + 64]
vpand ymm13, ymm13, ymmword ptr [rcx + 64]
vpor ymm5, ymm5, ymmword ptr [rcx + 96]
vpor ymm13, ymm13, ymmword ptr [rcx + 96]
vsubpd ymm3, ymm5, ymmword ptr [rcx + 128]
vsubpd ymm11, ymm13, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [r8 + 0 + 64], ymm3
vmovapd ymmword ptr [r8 + 256 + 64], ymm11
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vmovapd ymm7, ymmword ptr [rcx + 160]
vmovapd ymm15, ymmword ptr [rcx + 160]
vfmadd213pd ymm4, ymm7, ymmword ptr [rcx + 192]
vfmadd213pd ymm12, ymm15, ymmword ptr [rcx + 192]
vfmadd231pd ymm4, ymm3, ymmword ptr [rcx + 224]
vfmadd231pd ymm12, ymm11, ymmword ptr [rcx + 224]
vaddpd ymm4, ymm4, ymmword ptr [rcx + 128]
vaddpd ymm12, ymm12, ymmword ptr [rcx + 128]
vpaddq ymm2, ymm6, ymm4
vpaddq ymm10, ymm14, ymm12
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 0]
vmovapd ymm12, ymmword ptr [rsi + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 96]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 96]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 32]
vmovapd ymm12, ymmword ptr [rsi + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 64]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 64]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 64]
vmovapd ymm12, ymmword ptr [rsi + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 32]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 32]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 96]
vmovapd ymm12, ymmword ptr [rsi + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 0]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 0]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 0]
vmovapd ymm12, ymmword ptr [r8 + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 416]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 416]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 32]
vmovapd ymm12, ymmword ptr [r8 + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 384]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 384]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm9, ymm11, ymmword ptr [rcx + 352]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm13, ymm11, ymmword ptr [rcx + 352]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 672]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 672]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpsrlq ymm5, ymm4, 32
vpsrlq ymm13, ymm12, 32
vpmuludq ymm5, ymm5, ymmword ptr [rcx + 256]
vpmuludq ymm13, ymm13, ymmword ptr [rcx + 256]
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 288]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 288]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpsllq ymm5, ymm5, 32
vpsllq ymm13, ymm13, 32
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 256]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 256]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpand ymm5, ymm5, ymmword ptr [rcx + 64]
vpand ymm13, ymm13, ymmword ptr [rcx + 64]
vpor ymm5, ymm5, ymmword ptr [rcx + 96]
vpor ymm13, ymm13, ymmword ptr [rcx + 96]
vsubpd ymm3, ymm5, ymmword ptr [rcx + 128]
vsubpd ymm11, ymm13, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [r8 + 0 + 96], ymm3
vmovapd ymmword ptr [r8 + 256 + 96], ymm11
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vmovapd ymm7, ymmword ptr [rcx + 160]
vmovapd ymm15, ymmword ptr [rcx + 160]
vfmadd213pd ymm4, ymm7, ymmword ptr [rcx + 192]
vfmadd213pd ymm12, ymm15, ymmword ptr [rcx + 192]
vfmadd231pd ymm4, ymm3, ymmword ptr [rcx + 224]
vfmadd231pd ymm12, ymm11, ymmword ptr [rcx + 224]
vaddpd ymm4, ymm4, ymmword ptr [rcx + 128]
vaddpd ymm12, ymm12, ymmword ptr [rcx + 128]
vpaddq ymm2, ymm6, ymm4
vpaddq ymm10, ymm14, ymm12
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 0]
vmovapd ymm12, ymmword ptr [rsi + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 128]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 128]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 32]
vmovapd ymm12, ymmword ptr [rsi + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 96]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 96]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 64]
vmovapd ymm12, ymmword ptr [rsi + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 64]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 64]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 96]
vmovapd ymm12, ymmword ptr [rsi + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 32]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 32]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 128]
vmovapd ymm12, ymmword ptr [rsi + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 0]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 0]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 0]
vmovapd ymm12, ymmword ptr [r8 + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 448]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 448]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 32]
vmovapd ymm12, ymmword ptr [r8 + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 416]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 416]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 64]
vmovapd ymm12, ymmword ptr [r8 + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 384]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 384]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm9, ymm11, ymmword ptr [rcx + 352]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm13, ymm11, ymmword ptr [rcx + 352]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 704]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 704]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpsrlq ymm5, ymm4, 32
vpsrlq ymm13, ymm12, 32
vpmuludq ymm5, ymm5, ymmword ptr [rcx + 256]
vpmuludq ymm13, ymm13, ymmword ptr [rcx + 256]
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 288]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 288]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpsllq ymm5, ymm5, 32
vpsllq ymm13, ymm13, 32
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 256]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 256]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpand ymm5, ymm5, ymmword ptr [rcx + 64]
vpand ymm13, ymm13, ymmword ptr [rcx + 64]
vpor ymm5, ymm5, ymmword ptr [rcx + 96]
vpor ymm13, ymm13, ymmword ptr [rcx + 96]
vsubpd ymm3, ymm5, ymmword ptr [rcx + 128]
vsubpd ymm11, ymm13, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [r8 + 0 + 128], ymm3
vmovapd ymmword ptr [r8 + 256 + 128], ymm11
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vmovapd ymm7, ymmword ptr [rcx + 160]
vmovapd ymm15, ymmword ptr [rcx + 160]
vfmadd213pd ymm4, ymm7, ymmword ptr [rcx + 192]
vfmadd213pd ymm12, ymm15, ymmword ptr [rcx + 192]
vfmadd231pd ymm4, ymm3, ymmword ptr [rcx + 224]
vfmadd231pd ymm12, ymm11, ymmword ptr [rcx + 224]
vaddpd ymm4, ymm4, ymmword ptr [rcx + 128]
vaddpd ymm12, ymm12, ymmword ptr [rcx + 128]
vpaddq ymm2, ymm6, ymm4
vpaddq ymm10, ymm14, ymm12
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 0]
vmovapd ymm12, ymmword ptr [rsi + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 160]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 160]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 32]
vmovapd ymm12, ymmword ptr [rsi + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 128]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 128]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 64]
vmovapd ymm12, ymmword ptr [rsi + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 96]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 96]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 96]
vmovapd ymm12, ymmword ptr [rsi + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 64]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 64]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 128]
vmovapd ymm12, ymmword ptr [rsi + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 32]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 32]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 160]
vmovapd ymm12, ymmword ptr [rsi + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 0]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 0]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 0]
vmovapd ymm12, ymmword ptr [r8 + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 480]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 480]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 32]
vmovapd ymm12, ymmword ptr [r8 + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 448]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 448]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 64]
vmovapd ymm12, ymmword ptr [r8 + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 416]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 416]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 96]
vmovapd ymm12, ymmword ptr [r8 + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 384]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 384]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm9, ymm11, ymmword ptr [rcx + 352]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm13, ymm11, ymmword ptr [rcx + 352]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 736]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 736]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpsrlq ymm5, ymm4, 32
vpsrlq ymm13, ymm12, 32
vpmuludq ymm5, ymm5, ymmword ptr [rcx + 256]
vpmuludq ymm13, ymm13, ymmword ptr [rcx + 256]
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 288]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 288]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpsllq ymm5, ymm5, 32
vpsllq ymm13, ymm13, 32
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 256]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 256]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpand ymm5, ymm5, ymmword ptr [rcx + 64]
vpand ymm13, ymm13, ymmword ptr [rcx + 64]
vpor ymm5, ymm5, ymmword ptr [rcx + 96]
vpor ymm13, ymm13, ymmword ptr [rcx + 96]
vsubpd ymm3, ymm5, ymmword ptr [rcx + 128]
vsubpd ymm11, ymm13, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [r8 + 0 + 160], ymm3
vmovapd ymmword ptr [r8 + 256 + 160], ymm11
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vmovapd ymm7, ymmword ptr [rcx + 160]
vmovapd ymm15, ymmword ptr [rcx + 160]
vfmadd213pd ymm4, ymm7, ymmword ptr [rcx + 192]
vfmadd213pd ymm12, ymm15, ymmword ptr [rcx + 192]
vfmadd231pd ymm4, ymm3, ymmword ptr [rcx + 224]
vfmadd231pd ymm12, ymm11, ymmword ptr [rcx + 224]
vaddpd ymm4, ymm4, ymmword ptr [rcx + 128]
vaddpd ymm12, ymm12, ymmword ptr [rcx + 128]
vpaddq ymm2, ymm6, ymm4
vpaddq ymm10, ymm14, ymm12
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 0]
vmovapd ymm12, ymmword ptr [rsi + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 192]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 192]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 32]
vmovapd ymm12, ymmword ptr [rsi + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 160]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 160]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 64]
vmovapd ymm12, ymmword ptr [rsi + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 128]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 128]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 96]
vmovapd ymm12, ymmword ptr [rsi + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 96]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 96]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 128]
vmovapd ymm12, ymmword ptr [rsi + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 64]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 64]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 160]
vmovapd ymm12, ymmword ptr [rsi + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 32]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 32]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 192]
vmovapd ymm12, ymmword ptr [rsi + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 0]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 0]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 0]
vmovapd ymm12, ymmword ptr [r8 + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 512]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 512]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 32]
vmovapd ymm12, ymmword ptr [r8 + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 480]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 480]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 64]
vmovapd ymm12, ymmword ptr [r8 + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 448]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 448]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 96]
vmovapd ymm12, ymmword ptr [r8 + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 416]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 416]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 128]
vmovapd ymm12, ymmword ptr [r8 + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 384]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 384]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm9, ymm11, ymmword ptr [rcx + 352]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm13, ymm11, ymmword ptr [rcx + 352]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 768]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 768]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpsrlq ymm5, ymm4, 32
vpsrlq ymm13, ymm12, 32
vpmuludq ymm5, ymm5, ymmword ptr [rcx + 256]
vpmuludq ymm13, ymm13, ymmword ptr [rcx + 256]
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 288]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 288]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpsllq ymm5, ymm5, 32
vpsllq ymm13, ymm13, 32
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 256]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 256]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpand ymm5, ymm5, ymmword ptr [rcx + 64]
vpand ymm13, ymm13, ymmword ptr [rcx + 64]
vpor ymm5, ymm5, ymmword ptr [rcx + 96]
vpor ymm13, ymm13, ymmword ptr [rcx + 96]
vsubpd ymm3, ymm5, ymmword ptr [rcx + 128]
vsubpd ymm11, ymm13, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [r8 + 0 + 192], ymm3
vmovapd ymmword ptr [r8 + 256 + 192], ymm11
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vmovapd ymm7, ymmword ptr [rcx + 160]
vmovapd ymm15, ymmword ptr [rcx + 160]
vfmadd213pd ymm4, ymm7, ymmword ptr [rcx + 192]
vfmadd213pd ymm12, ymm15, ymmword ptr [rcx + 192]
vfmadd231pd ymm4, ymm3, ymmword ptr [rcx + 224]
vfmadd231pd ymm12, ymm11, ymmword ptr [rcx + 224]
vaddpd ymm4, ymm4, ymmword ptr [rcx + 128]
vaddpd ymm12, ymm12, ymmword ptr [rcx + 128]
vpaddq ymm2, ymm6, ymm4
vpaddq ymm10, ymm14, ymm12
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 0]
vmovapd ymm12, ymmword ptr [rsi + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 224]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 224]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 32]
vmovapd ymm12, ymmword ptr [rsi + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 192]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 192]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 64]
vmovapd ymm12, ymmword ptr [rsi + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 160]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 160]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 96]
vmovapd ymm12, ymmword ptr [rsi + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 128]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 128]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 128]
vmovapd ymm12, ymmword ptr [rsi + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 96]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 96]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 160]
vmovapd ymm12, ymmword ptr [rsi + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 64]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 64]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 192]
vmovapd ymm12, ymmword ptr [rsi + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 32]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 32]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 224]
vmovapd ymm12, ymmword ptr [rsi + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 0]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 0]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 0]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 0]
vmovapd ymm12, ymmword ptr [r8 + 256 + 0]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 544]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 544]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 32]
vmovapd ymm12, ymmword ptr [r8 + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 512]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 512]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 64]
vmovapd ymm12, ymmword ptr [r8 + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 480]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 480]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 96]
vmovapd ymm12, ymmword ptr [r8 + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 448]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 448]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 128]
vmovapd ymm12, ymmword ptr [r8 + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 416]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 416]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 160]
vmovapd ymm12, ymmword ptr [r8 + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 384]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 384]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm9, ymm11, ymmword ptr [rcx + 352]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm13, ymm11, ymmword ptr [rcx + 352]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 800]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 800]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpsrlq ymm5, ymm4, 32
vpsrlq ymm13, ymm12, 32
vpmuludq ymm5, ymm5, ymmword ptr [rcx + 256]
vpmuludq ymm13, ymm13, ymmword ptr [rcx + 256]
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 288]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 288]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpsllq ymm5, ymm5, 32
vpsllq ymm13, ymm13, 32
vpmuludq ymm7, ymm4, ymmword ptr [rcx + 256]
vpmuludq ymm15, ymm12, ymmword ptr [rcx + 256]
vpaddq ymm5, ymm5, ymm7
vpaddq ymm13, ymm13, ymm15
vpand ymm5, ymm5, ymmword ptr [rcx + 64]
vpand ymm13, ymm13, ymmword ptr [rcx + 64]
vpor ymm5, ymm5, ymmword ptr [rcx + 96]
vpor ymm13, ymm13, ymmword ptr [rcx + 96]
vsubpd ymm3, ymm5, ymmword ptr [rcx + 128]
vsubpd ymm11, ymm13, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [r8 + 0 + 224], ymm3
vmovapd ymmword ptr [r8 + 256 + 224], ymm11
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vmovapd ymm7, ymmword ptr [rcx + 160]
vmovapd ymm15, ymmword ptr [rcx + 160]
vfmadd213pd ymm4, ymm7, ymmword ptr [rcx + 192]
vfmadd213pd ymm12, ymm15, ymmword ptr [rcx + 192]
vfmadd231pd ymm4, ymm3, ymmword ptr [rcx + 224]
vfmadd231pd ymm12, ymm11, ymmword ptr [rcx + 224]
vaddpd ymm4, ymm4, ymmword ptr [rcx + 128]
vaddpd ymm12, ymm12, ymmword ptr [rcx + 128]
vpaddq ymm2, ymm6, ymm4
vpaddq ymm10, ymm14, ymm12
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 32]
vmovapd ymm12, ymmword ptr [rsi + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 224]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 224]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 64]
vmovapd ymm12, ymmword ptr [rsi + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 192]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 192]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 96]
vmovapd ymm12, ymmword ptr [rsi + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 160]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 160]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 128]
vmovapd ymm12, ymmword ptr [rsi + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 128]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 128]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 160]
vmovapd ymm12, ymmword ptr [rsi + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 96]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 96]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 192]
vmovapd ymm12, ymmword ptr [rsi + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 64]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 64]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 224]
vmovapd ymm12, ymmword ptr [rsi + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 32]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 32]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 32]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 32]
vmovapd ymm12, ymmword ptr [r8 + 256 + 32]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 544]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 544]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 64]
vmovapd ymm12, ymmword ptr [r8 + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 512]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 512]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 96]
vmovapd ymm12, ymmword ptr [r8 + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 480]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 480]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 128]
vmovapd ymm12, ymmword ptr [r8 + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 448]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 448]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 160]
vmovapd ymm12, ymmword ptr [r8 + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 416]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 416]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 192]
vmovapd ymm12, ymmword ptr [r8 + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 384]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 384]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm9, ymm11, ymmword ptr [rcx + 352]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm3, ymmword ptr [rcx + 352]
vfmadd231pd ymm13, ymm11, ymmword ptr [rcx + 352]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 832]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 832]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vsubpd ymm4, ymm4, ymmword ptr [rcx + 128]
vsubpd ymm12, ymm12, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [rdi + 0 + 0], ymm4
vmovapd ymmword ptr [rdi + 256 + 0], ymm12
vmovapd ymm2, ymm6
vmovapd ymm10, ymm14
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 64]
vmovapd ymm12, ymmword ptr [rsi + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 224]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 224]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 96]
vmovapd ymm12, ymmword ptr [rsi + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 192]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 192]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 128]
vmovapd ymm12, ymmword ptr [rsi + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 160]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 160]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 160]
vmovapd ymm12, ymmword ptr [rsi + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 128]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 128]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 192]
vmovapd ymm12, ymmword ptr [rsi + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 96]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 96]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 224]
vmovapd ymm12, ymmword ptr [rsi + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 64]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 64]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 64]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 64]
vmovapd ymm12, ymmword ptr [r8 + 256 + 64]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 544]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 544]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 96]
vmovapd ymm12, ymmword ptr [r8 + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 512]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 512]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 128]
vmovapd ymm12, ymmword ptr [r8 + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 480]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 480]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 160]
vmovapd ymm12, ymmword ptr [r8 + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 448]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 448]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 192]
vmovapd ymm12, ymmword ptr [r8 + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 416]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 416]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 224]
vmovapd ymm12, ymmword ptr [r8 + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 384]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 384]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 384]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 864]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 864]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vsubpd ymm4, ymm4, ymmword ptr [rcx + 128]
vsubpd ymm12, ymm12, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [rdi + 0 + 32], ymm4
vmovapd ymmword ptr [rdi + 256 + 32], ymm12
vmovapd ymm2, ymm6
vmovapd ymm10, ymm14
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 96]
vmovapd ymm12, ymmword ptr [rsi + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 224]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 224]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 128]
vmovapd ymm12, ymmword ptr [rsi + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 192]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 192]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 160]
vmovapd ymm12, ymmword ptr [rsi + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 160]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 160]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 192]
vmovapd ymm12, ymmword ptr [rsi + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 128]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 128]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 224]
vmovapd ymm12, ymmword ptr [rsi + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 96]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 96]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 96]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 96]
vmovapd ymm12, ymmword ptr [r8 + 256 + 96]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 544]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 544]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 128]
vmovapd ymm12, ymmword ptr [r8 + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 512]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 512]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 160]
vmovapd ymm12, ymmword ptr [r8 + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 480]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 480]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 192]
vmovapd ymm12, ymmword ptr [r8 + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 448]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 448]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 224]
vmovapd ymm12, ymmword ptr [r8 + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 416]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 416]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 416]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 896]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 896]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vsubpd ymm4, ymm4, ymmword ptr [rcx + 128]
vsubpd ymm12, ymm12, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [rdi + 0 + 64], ymm4
vmovapd ymmword ptr [rdi + 256 + 64], ymm12
vmovapd ymm2, ymm6
vmovapd ymm10, ymm14
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 128]
vmovapd ymm12, ymmword ptr [rsi + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 224]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 224]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 160]
vmovapd ymm12, ymmword ptr [rsi + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 192]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 192]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 192]
vmovapd ymm12, ymmword ptr [rsi + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 160]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 160]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 224]
vmovapd ymm12, ymmword ptr [rsi + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 128]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 128]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 128]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 128]
vmovapd ymm12, ymmword ptr [r8 + 256 + 128]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 544]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 544]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 160]
vmovapd ymm12, ymmword ptr [r8 + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 512]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 512]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 192]
vmovapd ymm12, ymmword ptr [r8 + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 480]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 480]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 224]
vmovapd ymm12, ymmword ptr [r8 + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 448]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 448]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 448]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 928]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 928]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vsubpd ymm4, ymm4, ymmword ptr [rcx + 128]
vsubpd ymm12, ymm12, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [rdi + 0 + 96], ymm4
vmovapd ymmword ptr [rdi + 256 + 96], ymm12
vmovapd ymm2, ymm6
vmovapd ymm10, ymm14
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 160]
vmovapd ymm12, ymmword ptr [rsi + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 224]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 224]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 192]
vmovapd ymm12, ymmword ptr [rsi + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 192]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 192]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 224]
vmovapd ymm12, ymmword ptr [rsi + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 160]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 160]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 160]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 160]
vmovapd ymm12, ymmword ptr [r8 + 256 + 160]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 544]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 544]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 192]
vmovapd ymm12, ymmword ptr [r8 + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 512]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 512]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 224]
vmovapd ymm12, ymmword ptr [r8 + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 480]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 480]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 480]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 960]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 960]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vsubpd ymm4, ymm4, ymmword ptr [rcx + 128]
vsubpd ymm12, ymm12, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [rdi + 0 + 128], ymm4
vmovapd ymmword ptr [rdi + 256 + 128], ymm12
vmovapd ymm2, ymm6
vmovapd ymm10, ymm14
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 192]
vmovapd ymm12, ymmword ptr [rsi + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 224]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 224]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [rsi + 0 + 224]
vmovapd ymm12, ymmword ptr [rsi + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 192]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 192]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 192]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 192]
vmovapd ymm12, ymmword ptr [r8 + 256 + 192]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 544]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 544]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 224]
vmovapd ymm12, ymmword ptr [r8 + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 512]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 512]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 512]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 992]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 992]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vsubpd ymm4, ymm4, ymmword ptr [rcx + 128]
vsubpd ymm12, ymm12, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [rdi + 0 + 160], ymm4
vmovapd ymmword ptr [rdi + 256 + 160], ymm12
vmovapd ymm2, ymm6
vmovapd ymm10, ymm14
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vmovapd ymm4, ymmword ptr [rsi + 0 + 224]
vmovapd ymm12, ymmword ptr [rsi + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm9, ymm12, ymmword ptr [rdx + 256 + 224]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rdx + 0 + 224]
vfmadd231pd ymm13, ymm12, ymmword ptr [rdx + 256 + 224]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vmovapd ymm4, ymmword ptr [r8 + 0 + 224]
vmovapd ymm12, ymmword ptr [r8 + 256 + 224]
vmovapd ymm5, ymm1
vmovapd ymm13, ymm9
vfmadd231pd ymm1, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm9, ymm12, ymmword ptr [rcx + 544]
vsubpd ymm5, ymm5, ymm1
vsubpd ymm13, ymm13, ymm9
vfmadd231pd ymm5, ymm4, ymmword ptr [rcx + 544]
vfmadd231pd ymm13, ymm12, ymmword ptr [rcx + 544]
vaddpd ymm0, ymm0, ymm5
vaddpd ymm8, ymm8, ymm13
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 1024]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 1024]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vsubpd ymm4, ymm4, ymmword ptr [rcx + 128]
vsubpd ymm12, ymm12, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [rdi + 0 + 192], ymm4
vmovapd ymmword ptr [rdi + 256 + 192], ymm12
vmovapd ymm2, ymm6
vmovapd ymm10, ymm14
vmovapd ymm0, ymmword ptr [rcx + 0]
vmovapd ymm8, ymmword ptr [rcx + 0]
vmovapd ymm1, ymmword ptr [rcx + 32]
vmovapd ymm9, ymmword ptr [rcx + 32]
vpaddq ymm6, ymm0, ymm2
vpaddq ymm14, ymm8, ymm10
vpsubq ymm6, ymm6, ymmword ptr [rcx + 1056]
vpsubq ymm14, ymm14, ymmword ptr [rcx + 1056]
vpand ymm4, ymm6, ymmword ptr [rcx + 64]
vpand ymm12, ymm14, ymmword ptr [rcx + 64]
vpsrlq ymm6, ymm6, 48
vpsrlq ymm14, ymm14, 48
vpaddq ymm6, ymm6, ymm1
vpaddq ymm14, ymm14, ymm9
vpor ymm4, ymm4, ymmword ptr [rcx + 96]
vpor ymm12, ymm12, ymmword ptr [rcx + 96]
vsubpd ymm4, ymm4, ymmword ptr [rcx + 128]
vsubpd ymm12, ymm12, ymmword ptr [rcx + 128]
vmovapd ymmword ptr [rdi + 0 + 224], ymm4
vmovapd ymmword ptr [rdi + 256 + 224], ymm12
vmovapd ymm2, ymm6
vmovapd ymm10, ymm14
vzeroupper
ret
