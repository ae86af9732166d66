/* fcl_common.h - the dialect shared by OpenCL C and host C.
 *
 * Every file in kernels/ is compiled twice: by the OpenCL compiler (for the
 * OpenCL backend) and by the host C compiler (for the native CPU backend,
 * see host/backend/cpu_kernels.c). This header maps the few places where the two
 * languages differ onto one vocabulary, so that each pass is written once.
 * Invariant: kernel code uses only these macros, float/uint/int scalars and
 * the .x/.y/.z/.w members of float4 (no vector arithmetic operators).
 */
#ifndef FCL_COMMON_H
#define FCL_COMMON_H

#ifdef __OPENCL_C_VERSION__
/* On CPU devices the OpenCL build rounds like the native twin (compiled
 * with -ffp-contract=off, CMakeLists.txt): no fused multiply-adds, so
 * the two backends compute the same bits (PBF's projection amplified the
 * difference to 1e-4 m in 12 steps otherwise). GPUs keep their FMAs. */
#ifdef FCL_CPU_DEVICE
#pragma OPENCL FP_CONTRACT OFF
#endif
#define FCL_DEVICE 1
#define GLOBAL __global
/* PoCL keeps `inline` functions out of line, and a call in a kernel's
 * body stops its work-group vectorizer: forced inline on CPU devices the
 * MAC markers' move ran 2x faster there (README, OpenCL on CPUs). GPU
 * compilers inline on their own. */
#ifdef FCL_CPU_DEVICE
#define FCL_INLINE inline __attribute__((always_inline))
#define FCL_HOT inline __attribute__((always_inline))
#else
/* static: an OpenCL C `inline` function the compiler leaves out of line
 * is an external with no definition (clang at -O1 to -O3 left 11-14
 * *_item helpers so, and ptxas stopped on them). */
#define FCL_INLINE static inline
#define FCL_HOT static inline
#endif
#define FCL_ATOMIC_INC(p) atomic_inc(p)
#define FCL_ATOMIC_MIN(p, v) atomic_min(p, v)
#define FCL_ATOMIC_MAX(p, v) atomic_max(p, v)
#define FCL_SQRT(x) native_sqrt(x)
/* Where a sum must agree between backends to a few ulps (WCSPH's spiky
 * density): OpenCL's sqrt, which CPU devices round as the host does. */
#define FCL_SQRT_EXACT(x) sqrt(x)
#define FCL_AS_FLOAT(u) as_float(u)
#define FCL_ISFINITE(x) isfinite(x)
#define FCL_SIMD_SUM3(a, b, c)
#define FCL_LANES
#else
#include <float.h>
#include <math.h>
#include <stdint.h>
#define GLOBAL
#define FCL_INLINE static inline
/* A small function on a hot path that the host compiler would otherwise
 * keep out of line (and so unspecialized by its constant arguments). */
#define FCL_HOT static inline __attribute__((always_inline))
#define FCL_ATOMIC_INC(p) __atomic_fetch_add((p), 1u, __ATOMIC_RELAXED)
#define FCL_ATOMIC_MIN(p, v) fcl_atomic_min_u32((p), (v))
#define FCL_ATOMIC_MAX(p, v) fcl_atomic_max_u32((p), (v))
#define FCL_SQRT(x) sqrtf(x)
#define FCL_SQRT_EXACT(x) sqrtf(x)
#define FCL_AS_FLOAT(u) fcl_as_float(u)
#define FCL_ISFINITE(x) isfinite(x)
typedef uint32_t uint;
static inline float fcl_as_float(uint u)
{
    union { uint u; float f; } b = { u };
    return b.f;
}
/* A neighbor loop whose iterations only add to three sums:
 * vectorized across neighbors by the host compiler (gathers); nothing in
 * OpenCL, whose compilers vectorize across work-items instead. */
#define FCL_SIMD_PRAGMA_(x) _Pragma(#x)
#define FCL_SIMD_SUM3(a, b, c) FCL_SIMD_PRAGMA_(omp simd reduction(+ : a, b, c))
/* The native backend built for a CPU with AVX-512 (FCL_NATIVE, the
 * default): the two hottest loops of the neighbor-list solvers, the list
 * build's candidate rows (nlist.cl) and WCSPH's fluid forces (wcsph.cl),
 * MPS's collision filter (nlist.cl's nl_close16), row products and list
 * walks (number density, viscosity, assembly, correction: mps.cl), the
 * grid's count (grid.cl, with AVX-512CD) and gather, the step statistics
 * (wcsph.cl), the MAC markers' move, marking and fields
 * (mac_markers.cl), their density sum (mac.cl) and FLIP splat
 * (mac_markers.cl), and the MAC velocity's advection (mac_advect.cl)
 * have a 16-lane twin next to the one
 * source, written with intrinsics: the same per-pair (per-marker)
 * arithmetic, 16 at a time. Where a twin sums over a list (WCSPH's
 * forces, the list build's density, MPS's walks and row products) it
 * keeps a sum per lane and adds the lanes at the end: another order of
 * additions, so those agree with OpenCL within tolerance, not to the bit;
 * the others (grid, statistics, list entries, collisions, markers, the
 * MAC grid) give the scalar source's bits (the MAC density's and splat's
 * sums are written in the twin's order in the scalar source too). The
 * host compiler did not vectorize them (a compaction; gathers of float4
 * with a long scalar tail). A portable build runs the scalar source. */
#if defined(__AVX512F__) && defined(__AVX512DQ__)   /* DQ: the twins' float masks and xors (F alone: Xeon Phi) */
#include <immintrin.h>
#define FCL_AVX512 1
/* The twins that take a particle's wall images (walls.h, fcl_images: 64
 * bytes) inlined whatever the compiler weighs: passed on the stack, they
 * cost MPS's collide and assemble passes 8-10 % (a review). */
#define FCL_INLINE16 static inline __attribute__((always_inline))
#endif
/* A short fixed loop over independent lanes (8 surface nodes, 8
 * particles): kept rolled so that the host compiler vectorizes it as a
 * loop (unrolled first, it did not: 225 -> 45 ms for the 1M-particle
 * volume pass); OpenCL compilers see nothing. */
#define FCL_LANES FCL_SIMD_PRAGMA_(GCC unroll 1)
/* Same layout as OpenCL's float4 / cl_float4: 16 bytes, 16-byte aligned. */
typedef struct { float x, y, z, w; } __attribute__((aligned(16))) float4;
static inline uint fcl_atomic_min_u32(uint *p, uint v)
{
    uint old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < old &&
           !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}
static inline uint fcl_atomic_max_u32(uint *p, uint v)
{
    uint old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v > old &&
           !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}
#endif

FCL_INLINE float4 fcl_f4(float x, float y, float z, float w)
{
    float4 r;
    r.x = x; r.y = y; r.z = z; r.w = w;
    return r;
}

FCL_INLINE float fcl_clampf(float v, float lo, float hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* e^x from arithmetic alone, so that CPU devices and the host give the
 * same bits (OpenCL's exp on PoCL and glibc's expf round differently,
 * and the fluid-control spring, control.cl, parted the backends at steps
 * 20 to 161 of the control scenes; a review): x clamped to [-87, 88]
 * (normal results), reduced by n ln 2 (Cody and Waite's two-part ln 2),
 * Cephes' degree-7 polynomial for e^r on |r| <= ln 2 / 2 (within about
 * an ulp), and 2^n put into the exponent bits. */
FCL_INLINE float fcl_exp(float x)
{
    if (!(x == x))
        return x;   /* NaN: no conversion of it to int (undefined in C) */
    x = fcl_clampf(x, -87.0f, 88.0f);
    float t = x * 1.44269504f;
    int n = (int)(t + (t >= 0.0f ? 0.5f : -0.5f));
    float fn = (float)n, r = x - fn * 0.693359375f;
    r = r - fn * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    return p * FCL_AS_FLOAT((uint)(n + 127) << 23);
}
#define FCL_EXP(x) fcl_exp(x)

#ifdef FCL_AVX512
/* What the 16-lane twins share. Their gathers index floats with 32-bit
 * ints, so the arrays they read stay under 2^29 elements. */
#define FCL_LANES_FIT(n) ((n) < 0x20000000u)

/* The first `left` of 16 lanes (all 16 from 16 on). */
FCL_INLINE __mmask16 fcl_live16(uint left)
{
    return left >= 16u ? (__mmask16)0xffffu : (__mmask16)((1u << left) - 1u);
}

/* The float mask of a float4 array's four elements whose bits in m4 are
 * set (four bits each). */
FCL_INLINE __mmask16 fcl_quad_mask(uint m4)
{
    return (__mmask16)(((m4 & 1u) ? 0x000fu : 0u) | ((m4 & 2u) ? 0x00f0u : 0u) | ((m4 & 4u) ? 0x0f00u : 0u) |
                       ((m4 & 8u) ? 0xf000u : 0u));
}

/* x, y, z and w of p[i0 .. i0 + 15], the live lanes (0 in the others):
 * four loads (masked at the end: nothing past the live elements is read)
 * and a transpose, where 16-element gathers cost more (the markers' move,
 * their cell marking and the grid's count read positions so). */
FCL_INLINE void fcl_xyzw16(const float4 *p, uint i0, __mmask16 live, __m512 *x, __m512 *y, __m512 *z, __m512 *w)
{
    const float *pf = (const float *)(p + i0);
    __m512 r[4];
    for (int k = 0; k < 4; k++)
        r[k] = live == (__mmask16)0xffffu ? _mm512_loadu_ps(pf + 16 * k)
                                          : _mm512_maskz_loadu_ps(fcl_quad_mask(((uint)live >> (4 * k)) & 15u), pf + 16 * k);
    __m512i xy = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
    __m512i zw = _mm512_setr_epi32(2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
    __m512 a = _mm512_permutex2var_ps(r[0], xy, r[1]), b = _mm512_permutex2var_ps(r[2], xy, r[3]);
    __m512 c = _mm512_permutex2var_ps(r[0], zw, r[1]), d = _mm512_permutex2var_ps(r[2], zw, r[3]);
    *x = _mm512_shuffle_f32x4(a, b, 0x44);   /* x0..7 from a, x8..15 from b */
    *y = _mm512_shuffle_f32x4(a, b, 0xee);
    *z = _mm512_shuffle_f32x4(c, d, 0x44);
    if (w)
        *w = _mm512_shuffle_f32x4(c, d, 0xee);
}

FCL_INLINE void fcl_xyz16(const float4 *p, uint i0, __mmask16 live, __m512 *x, __m512 *y, __m512 *z)
{
    fcl_xyzw16(p, i0, live, x, y, z, (__m512 *)0);
}

/* fcl_xyzw16's inverse: p[i0 .. i0 + 15] = (x, y, z, w), the live lanes
 * only. */
FCL_INLINE void fcl_put16(float4 *p, uint i0, __mmask16 live, __m512 x, __m512 y, __m512 z, __m512 w)
{
    __m512 a = _mm512_shuffle_f32x4(x, y, 0x44), b = _mm512_shuffle_f32x4(x, y, 0xee);   /* x, y of 0..7; 8..15 */
    __m512 c = _mm512_shuffle_f32x4(z, w, 0x44), d = _mm512_shuffle_f32x4(z, w, 0xee);
    __m512i lo = _mm512_setr_epi32(0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27);
    __m512i hi = _mm512_setr_epi32(4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31);
    __m512 r[4] = { _mm512_permutex2var_ps(a, lo, c), _mm512_permutex2var_ps(a, hi, c),
                    _mm512_permutex2var_ps(b, lo, d), _mm512_permutex2var_ps(b, hi, d) };
    float *pf = (float *)(p + i0);
    for (int k = 0; k < 4; k++) {
        if (live == (__mmask16)0xffffu)
            _mm512_storeu_ps(pf + 16 * k, r[k]);
        else
            _mm512_mask_storeu_ps(pf + 16 * k, fcl_quad_mask(((uint)live >> (4 * k)) & 15u), r[k]);
    }
}

#ifdef __AVX512CD__
/* The live lanes of keys c grouped by equal key: cs the keys, cf[k] the
 * earlier lanes holding lane k's key (0 for the first of a run), mult[k]
 * for a first lane the lanes that share its key (a pass then does its
 * atomic once per distinct key, where a chain on one address cost). */
FCL_INLINE void fcl_runs16(__m512i c, __mmask16 live, uint n, uint cs[16], uint cf[16], uint mult[16])
{
    _mm512_storeu_si512(cs, c);
    _mm512_storeu_si512(cf, _mm512_and_si512(_mm512_conflict_epi32(c), _mm512_set1_epi32((int)live)));
    for (uint k = 0u; k < 16u; k++)
        mult[k] = 0u;
    for (uint k = 0u; k < n; k++)
        mult[cf[k] ? (uint)__builtin_ctz(cf[k]) : k]++;
}
#endif
#endif

/* A 32-bit mix of two integers, the same on every backend: where a pass
 * needs a repeatable "random" number. */
FCL_INLINE uint fcl_hash(uint a, uint b)
{
    uint x = a * 0x9e3779b9u ^ (b + 0x7f4a7c15u);
    x ^= x >> 16; x *= 0x7feb352du;
    x ^= x >> 15; x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* Its top 24 bits as a uniform number in [0, 1). */
FCL_INLINE float fcl_hash01(uint a, uint b)
{
    return (float)(fcl_hash(a, b) >> 8) * (1.0f / 16777216.0f);
}

#endif
