/* detail/util/common.cuh -- the helpers and named limits that every level shares: integer
 * arithmetic, overlap tests, thread geometry, the 16-byte element type, launch-bound
 * clamping per architecture. Level 0: needs only the C headers and the CUDA runtime API;
 * the host part also compiles as plain C.
 *
 * Everything here is type-independent, so it is plain code: host tests call the
 * arithmetic directly, and a compiler error in it points at a real line. */
#ifndef GPUPRIMS_DETAIL_COMMON_CUH
#define GPUPRIMS_DETAIL_COMMON_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime_api.h>

/* ---- named limits --------------------------------------------------------------------- */
#define GP__CLUSTER_MAX 8              /* portable thread-block cluster size (sm_90) */
#define GP__VECTOR_BYTES 16            /* the widest load or store a thread issues */
#define GP__STATIC_SMEM_MAX (48 * 1024) /* static shared memory per block, without opt-in */
#define GP__GRID_MAX 0x7fffffffu       /* blocks in gridDim.x (INT_MAX) */
#define GP__SCRATCH_ALIGN 256          /* alignment of each part of a scratch block */
#define GP__FULL_MASK 0xffffffffu      /* all 32 lanes of a warp */
/* The largest element a GP_DEFINE_* instance accepts: the device reduce keeps 256
 * elements per block in static shared memory (GP__STATIC_SMEM_MAX), a transpose tile
 * 32 x 33 of them. Bigger types fail to compile at the user's GP_DEFINE_* line. */
#define GP_MAX_ELEM_BYTES 128

/* ---- 16-byte element ------------------------------------------------------------------
 * Four 32-bit words, 16-byte aligned: the default instance for 16-byte data (float4,
 * double2, complex double, ...) in type-agnostic primitives such as transpose. */
#ifdef __cplusplus
#define GP__ALIGNAS(n) alignas(n)
#else
#define GP__ALIGNAS(n) _Alignas(n)
#endif
typedef struct gp_v16 {
    GP__ALIGNAS(16) uint32_t w[4];
} gp_v16_t;

/* Declarations of the host API have C linkage in C++ and CUDA files too. */
#ifdef __cplusplus
#define GP__EXTERN_C extern "C"
#else
#define GP__EXTERN_C extern
#endif

/* A GP_DEFINE_* used in a file that is not compiled as CUDA fails here, on the user's line. */
#ifdef __cplusplus
#define GP__NEEDS_CUDA(macro) static_assert(0, "gpuprims: " #macro " needs a .cu file compiled by nvcc; elsewhere, use GP_DECLARE_*")
#else
#define GP__NEEDS_CUDA(macro) _Static_assert(0, "gpuprims: " #macro " needs a .cu file compiled by nvcc; elsewhere, use GP_DECLARE_*")
#endif

#ifdef __CUDACC__
#define GP__HD __host__ __device__
#else
#define GP__HD
#endif

/* ---- arithmetic (host and device) ------------------------------------------------------ */
static inline GP__HD size_t gp__ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
static inline GP__HD size_t gp__min_size(size_t a, size_t b) { return a < b ? a : b; }
static inline GP__HD size_t gp__max_size(size_t a, size_t b) { return a > b ? a : b; }
static inline GP__HD size_t gp__round_up(size_t x, size_t to) { return gp__ceil_div(x, to) * to; }

/* 1 when the byte ranges [p, p+a) and [q, q+b) overlap (an empty range overlaps nothing). */
static inline GP__HD int gp__ranges_overlap(const void *p, size_t a, const void *q, size_t b)
{
    const uintptr_t x = (uintptr_t)p, y = (uintptr_t)q;
    return a && b && x < y + b && y < x + a;
}

#ifdef __CUDACC__

/* ---- launch bounds per architecture ------------------------------------------------------
 * __launch_bounds__(threads, blocks) names a minimum of resident blocks per SM. Kernels are
 * tuned for sm_90 (2048 threads per SM); other architectures have fewer (1024 on sm_75,
 * 1536 on sm_86/89/120), and ptxas warns and ignores a bound it cannot meet. So the bound
 * is clamped to what the architecture being compiled can hold. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000 || \
    __CUDA_ARCH__ == 1030
#define GP__MAX_THREADS_PER_SM 2048
#elif __CUDA_ARCH__ == 750
#define GP__MAX_THREADS_PER_SM 1024
#else /* sm_86, 87, 89, 110, 120, 121 */
#define GP__MAX_THREADS_PER_SM 1536
#endif
#define GP__MIN_BLOCKS(threads, blocks) \
    ((blocks) * (threads) <= GP__MAX_THREADS_PER_SM ? (blocks) : GP__MAX_THREADS_PER_SM / (threads))

/* Whether this translation unit compiles device code for sm_90 or later (thread-block
 * clusters); nvcc defines __CUDA_ARCH_LIST__ in its host and device passes alike. The host
 * never plans a cluster launch without it. */
static inline int gp__built_for_clusters(void)
{
#ifdef __CUDA_ARCH_LIST__
    const int archs[] = {__CUDA_ARCH_LIST__};
    for (size_t i = 0; i < sizeof archs / sizeof *archs; i++)
        if (archs[i] >= 900) return 1;
#endif
    return 0;
}

/* ---- thread geometry (device) ------------------------------------------------------------ */
static __device__ __forceinline__ unsigned gp__lane_id(void)
{
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

/* Linear thread index, for 1-, 2- and 3-D blocks alike (x fastest, as warps are formed). */
static __device__ __forceinline__ unsigned gp__thread_rank(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

static __device__ __forceinline__ unsigned gp__block_size(void) { return blockDim.x * blockDim.y * blockDim.z; }

/* The shared-memory address of p (a pointer into shared memory), as the instructions that
 * take one (cp.async, mbarriers, bulk copies) want it. */
static __device__ __forceinline__ unsigned gp__smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

/* 32-bit words of a T moved one at a time by shuffles and L2 loads. */
#define GP__WORDS(T) ((sizeof(T) + 3) / 4)

/* One element at an address that may sit below its type's alignment: the host API accepts
 * any address the element's size allows as 4-byte words (a double at a 4-byte boundary),
 * and an 8-byte load there faults. Types of 4-byte words aligned to more than 4 are read
 * word by word; others as themselves. Used on element-by-element paths only: aligned bulk
 * data moves as 16-byte vectors. */
template <class T>
static __device__ __forceinline__ T gp__load_elem(const T *p)
{
    if constexpr (sizeof(T) % 4 == 0 && alignof(T) > 4) {
        uint32_t w[sizeof(T) / 4];
#pragma unroll
        for (int i = 0; i < (int)(sizeof(T) / 4); i++) w[i] = reinterpret_cast<const uint32_t *>(p)[i];
        T v;
        memcpy(&v, w, sizeof(T));
        return v;
    } else {
        return *p;
    }
}

/* The store that goes with it. */
template <class T>
static __device__ __forceinline__ void gp__store_elem(T *p, const T &v)
{
    if constexpr (sizeof(T) % 4 == 0 && alignof(T) > 4) {
        uint32_t w[sizeof(T) / 4];
        memcpy(w, &v, sizeof(T));
#pragma unroll
        for (int i = 0; i < (int)(sizeof(T) / 4); i++) reinterpret_cast<uint32_t *>(p)[i] = w[i];
    } else {
        *p = v;
    }
}

/* The top bit of each nonzero byte of w, nothing else: (b & 0x7f) + 0x7f has its top bit
 * set unless b & 0x7f is 0, and no carry leaves a byte; OR-ing w covers the byte 0x80,
 * whose only set bit is the top one. Three instructions on sm_90, where __vcmpne4 and a
 * mask take five. */
static __device__ __forceinline__ uint32_t gp__byte_tops(uint32_t w)
{
    return (((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u;
}

/* Bit k set where byte k of w is nonzero (4 bits). The multiply adds the tops, bits 7 + 8k,
 * shifted by 7j (j = 0..3): the terms with k + j = 3 land on bits 28 + k, and no two terms
 * share a bit, so nothing carries into them. */
static __device__ __forceinline__ uint32_t gp__byte_flags(uint32_t w)
{
    return (gp__byte_tops(w) * 0x00204081u) >> 28;
}

/* Bit k set where the k-th of VEC flag bytes at f (aligned to VEC; global or shared
 * memory) is nonzero (VEC 1, 2, 4, 8 or 16). */
template <int VEC>
static __device__ __forceinline__ uint32_t gp__flag_bits(const uint8_t *f)
{
    uint32_t bits = 0;
    if constexpr (VEC == 1) {
        bits = *f != 0;
    } else if constexpr (VEC == 2) {
        const uint32_t w = *reinterpret_cast<const uint16_t *>(f);
        bits = (w & 0xffu ? 1u : 0u) | (w & 0xff00u ? 2u : 0u);
    } else if constexpr (VEC == 4) {
        bits = gp__byte_flags(*reinterpret_cast<const uint32_t *>(f));
    } else if constexpr (VEC == 8 || VEC == 16) {
#pragma unroll
        for (int h = 0; h < VEC / 4; h++) bits |= gp__byte_flags(*reinterpret_cast<const uint32_t *>(f + 4 * h)) << (4 * h);
    }
    return bits;
}

/* A load that bypasses L1: for values other blocks wrote during this kernel. */
template <class T>
static __device__ __forceinline__ T gp__load_cg(const T *p)
{
    T v;
    if (sizeof(T) % 4 == 0) {
        unsigned w[GP__WORDS(T)];
#pragma unroll
        for (int i = 0; i < (int)(sizeof(T) / 4); i++) w[i] = __ldcg(reinterpret_cast<const unsigned *>(p) + i);
        memcpy(&v, w, sizeof(T));
    } else { /* 1- and 2-byte types */
        unsigned char b[sizeof(T)];
        const volatile unsigned char *src = reinterpret_cast<const volatile unsigned char *>(p);
#pragma unroll
        for (int i = 0; i < (int)sizeof(T); i++) b[i] = src[i];
        memcpy(&v, b, sizeof(T));
    }
    return v;
}

#endif /* __CUDACC__ */
#endif /* GPUPRIMS_DETAIL_COMMON_CUH */
