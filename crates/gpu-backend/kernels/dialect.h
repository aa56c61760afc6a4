/*
 * dialect.h: the few words that differ between OpenCL C and CUDA C++.
 *
 * Every kernel file after this one is written once against these macros and
 * compiles under both compilers: the OpenCL backend hands the assembled
 * source to clBuildProgram, the CUDA backend to NVRTC.
 */

#if defined(__OPENCL_VERSION__)

typedef ulong u64;
typedef uint u32;
#define KERNEL __kernel
#define GLOBAL __global
#define SHARED __local
#define DEVICE static inline
/* The point operations and the Fp and Fp2 products (see the CUDA branch):
 * real calls when the host passes -DPCE_NOINLINE_CALLS, which it does
 * first on every platform and drops when that build fails. Clang-based
 * compilers (PoCL, and the LLVM-based vendor compilers) accept the GNU
 * attribute; inlined into every call site they make the program many
 * times larger and its build correspondingly slower. */
#ifdef PCE_NOINLINE_CALLS
#define DEVICE_CALL static __attribute__((noinline))
#else
#define DEVICE_CALL static inline
#endif
#define THREAD_ID() ((u32)get_global_id(0))
#define LOCAL_ID() ((u32)get_local_id(0))
#define LOCAL_SIZE() ((u32)get_local_size(0))
#define GROUP_ID() ((u32)get_group_id(0))
#define SYNC_THREADS() barrier(CLK_LOCAL_MEM_FENCE)
/* *p += 1 atomically, for a u32 in global memory; the old value. */
#define ATOMIC_INC(p) atomic_inc(p)

#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)

typedef unsigned long long u64;
typedef unsigned int u32;
/* Blocks have at most MAX_BLOCK_THREADS threads (given by the host on the
 * compiler's command line, the engines' largest block): lets the compiler
 * use up to 255 registers per thread without failing a launch. */
#ifndef MAX_BLOCK_THREADS
#error "MAX_BLOCK_THREADS must be defined by the compiler options"
#endif
/* KERNEL_MIN_BLOCKS (default 1): blocks each multiprocessor should hold at
 * once; more caps the registers a thread may use (65536 / (blocks x
 * MAX_BLOCK_THREADS)), trading spills for occupancy (on an H200, 2 and 4
 * spilled and were slower: docs/benchmarks.md). */
#ifndef KERNEL_MIN_BLOCKS
#define KERNEL_MIN_BLOCKS 1
#endif
#define KERNEL extern "C" __global__ __launch_bounds__(MAX_BLOCK_THREADS, KERNEL_MIN_BLOCKS)
#define GLOBAL
#define SHARED __shared__
#define DEVICE static __device__ __forceinline__
/* Functions that stay calls: the point operations, the Fp and Fp2
 * products. Force-inlined into every call site of every kernel they make
 * the PTX and NVRTC's time many times larger (docs/benchmarks.md). */
#define DEVICE_CALL static __device__ __noinline__
#define THREAD_ID() (blockIdx.x * blockDim.x + threadIdx.x)
#define LOCAL_ID() (threadIdx.x)
#define LOCAL_SIZE() (blockDim.x)
#define GROUP_ID() (blockIdx.x)
#define SYNC_THREADS() __syncthreads()
#define ATOMIC_INC(p) atomicAdd((p), 1u)

#else
#error "kernels/ compile as OpenCL C or CUDA C++ only"
#endif

/* Token pasting through one level of expansion, for the templates. */
#define PASTE_(a, b) a##_##b
#define PASTE(a, b) PASTE_(a, b)

/* a + b + *carry (carry 0 or 1); *carry becomes the carry out. */
DEVICE u64 add_carry(u64 a, u64 b, u64 *carry) {
  u64 s = a + b;
  u64 c = s < a;
  u64 t = s + *carry;
  c += t < s;
  *carry = c;
  return t;
}

/* a - b - *borrow (borrow 0 or 1); *borrow becomes the borrow out. */
DEVICE u64 sub_borrow(u64 a, u64 b, u64 *borrow) {
  u64 d = a - b;
  u64 c = a < b;
  u64 t = d - *borrow;
  c += d < *borrow;
  *borrow = c;
  return t;
}

/* The bits of x in reverse order. */
DEVICE u32 reverse_bits(u32 x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}
