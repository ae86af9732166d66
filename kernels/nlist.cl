/* nlist.cl - per-step neighbor lists: each particle's neighbors within a
 * query radius, found once by a walk over the grid's cells and then read
 * by every pass (and every solver iteration) that needs them.
 *
 * Layout: fixed stride. Particle i's k-th entry sits at
 * idx[i * pstride + k * kstride]: pstride = cap, kstride = 1 keeps one
 * particle's entries together (CPU caches), pstride = 1, kstride = n puts
 * the k-th entries of neighboring work-items side by side (coalesced GPU
 * reads). count[i] is the true number found, which may exceed cap: the
 * first cap are stored, and the particle is reported through
 * over[report] (largest count) and over[report + 1] (smallest such
 * particle) so the host can stop with
 * a message instead of silently dropping neighbors.
 * An entry is j | m << NL_SHIFT: the candidate's sorted index and the
 * 6-bit mask of the wall image it stands for (walls.h; 0: j itself).
 * Order: images in image_mask order, then cells z, y, x ascending, then
 * sorted index: the order the cell walks of the passes used, so sums over
 * a list add in the same order on every backend.
 * Invariant: the lists describe the positions and the cell starts of the
 * build; a grid rebuild (which reorders particles) makes them stale.
 */

/* NL_SHIFT, NL_INDEX: fcl_types.h, beside the list's layout. */
/* Private buffer of the CPU build (nl_walk). */
#define NL_LOCAL 160u

/* A kernel sum the build makes on the way (nlist_build_sum): WCSPH's
 * density kernel (w_density: poly6, or spiky when `spiky`) with support h
 * and constant coef over the neighbors found. */
typedef struct fcl_nl_sum {
    float h, h2, coef, sum;
    uint spiky;
} fcl_nl_sum;

#ifdef FCL_AVX512
/* The native backend on a CPU with AVX-512 (fcl_common.h): one row of
 * candidates 16 at a time. Four loads hold 16 float4s, which a transpose
 * turns into x, y and z vectors (fcl_xyz16); the distance is
 * computed as the scalar loop does (mirror16 as mirror_axis, the same
 * operations in the same order, no contraction), and the entries of the
 * candidates within range are compressed in a register and stored at
 * buf + n, which holds 16 more than NL_LOCAL. Same entries, same order
 * as the scalar loop: the list build 2.6x faster at 1M (README). */
FCL_INLINE16 uint nl_row_avx512(float4 pi, const float4 *restrict qpos, uint lo, uint hi, uint mk, fcl_images img,
                              float r2, uint *restrict buf, uint n, const fcl_nl_sum *ws, __m512 *acc)
{
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512 px = _mm512_set1_ps(pi.x), py = _mm512_set1_ps(pi.y), pz = _mm512_set1_ps(pi.z);
    __m512 rr = _mm512_set1_ps(r2);
    __m512i tag = _mm512_set1_epi32((int)(mk << NL_SHIFT));
    for (uint j = lo; j < hi; j += 16u) {
        uint left = hi - j;
        __mmask16 live = fcl_live16(left);
        __m512 qx, qy, qz;
        fcl_xyz16(qpos, j, live, &qx, &qy, &qz);
        if (mk)
            mirror16_one(&qx, &qy, &qz, mk, img);
        __m512 dx = _mm512_sub_ps(px, qx), dy = _mm512_sub_ps(py, qy), dz = _mm512_sub_ps(pz, qz);
        __m512 d2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)), _mm512_mul_ps(dz, dz));
        __mmask16 in = _mm512_mask_cmp_ps_mask(live, d2, rr, _CMP_LT_OQ);
        __m512i e = _mm512_or_si512(_mm512_add_epi32(_mm512_set1_epi32((int)j), iota), tag);
        if (n < NL_LOCAL)
            _mm512_storeu_si512((void *)(buf + n), _mm512_maskz_compress_epi32(in, e));
        n += (uint)_mm_popcnt_u32((unsigned)in);
        if (ws) {
            /* W as smoothing.h computes it, (coef d) d d per lane with
             * d = h^2 - r^2 (poly6) or h - r (spiky). */
            __mmask16 w_in = _mm512_mask_cmp_ps_mask(in, d2, _mm512_set1_ps(ws->h2), _CMP_LT_OQ);
            __m512 d = ws->spiky ? _mm512_sub_ps(_mm512_set1_ps(ws->h), _mm512_sqrt_ps(d2))
                                 : _mm512_sub_ps(_mm512_set1_ps(ws->h2), d2);
            __m512 w = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(ws->coef), d), d), d);
            *acc = _mm512_mask_add_ps(*acc, w_in, *acc, w);
        }
    }
    return n;
}
#endif

/* Whether the n stored entries of particle i from idx[base] (stride ks)
 * are all neighbors themselves, no wall image: images come after them
 * (image_mask order, 0 first), so the last entry tells. A pass that
 * mirrors in a vectorized loop runs a plain one for these (most
 * particles): the images' selects cost the DFSPH solves 13 % on the
 * native backend with particle walls, where no entry has one. */
FCL_INLINE uint nl_plain(GLOBAL const uint *idx, uint base, uint n, uint ks)
{
    return n == 0u || (idx[base + (n - 1u) * ks] >> NL_SHIFT) == 0u;
}

/* Stored entries of particle i (count capped at the capacity). */
FCL_INLINE uint nl_len(GLOBAL const uint *count, uint i, const fcl_nlist_info *L)
{
    uint c = count[i];
    return c < L->cap ? c : L->cap;
}

/* for each stored neighbor of i: j its sorted index, m its mirror mask
 * (always 0 for boundary lists and particle walls), e its slot, for
 * per-pair values a pass keeps beside the list in the same layout. In
 * the spirit of SPlisHSPlasH's forall_fluid_neighbors. */
#define forall_neighbors_at(L, count, idx, i, j, m, e)                                                \
    for (uint nl_k_ = 0u, nl_n_ = nl_len(count, i, L), e = 0u, j = 0u, m = 0u;                      \
         nl_k_ < nl_n_ && (e = (i) * (L)->pstride + nl_k_ * (L)->kstride, j = (idx)[e] & NL_INDEX,    \
                           m = (idx)[e] >> NL_SHIFT, 1); nl_k_++)
#define forall_neighbors(L, count, idx, i, j, m) forall_neighbors_at(L, count, idx, i, j, m, nl_e_)
/* The same over a list between two sets (host nlist_one), which holds
 * no wall images: no mask. */
#define forall_cross_neighbors_at(L, count, idx, i, j, e)                                             \
    for (uint nl_k_ = 0u, nl_n_ = nl_len(count, i, L), e = 0u, j = 0u;                               \
         nl_k_ < nl_n_ && (e = (i) * (L)->pstride + nl_k_ * (L)->kstride, j = (idx)[e] & NL_INDEX, 1);  \
         nl_k_++)

/* sum over k < n of w[k] x[j_k], j_k the index of entry ent[k]: one
 * particle's row of a matrix stored beside its list (MPS's pressure
 * equation), entries and weights contiguous (kstride 1). In list order;
 * with AVX-512 (fcl_common.h) 16 entries at a time, the lanes added at
 * the end: the add chain of the scalar loop is what bounds it on a CPU. */
FCL_INLINE float nl_gather_dot(GLOBAL const float *w, GLOBAL const uint *ent, GLOBAL const float *x, uint n)
{
#ifdef FCL_AVX512
    __m512 acc = _mm512_setzero_ps();
    for (uint k = 0u; k < n; k += 16u) {
        __mmask16 live = fcl_live16(n - k);
        __m512i j = _mm512_and_si512(_mm512_maskz_loadu_epi32(live, ent + k), _mm512_set1_epi32((int)NL_INDEX));
        __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), live, j, x, 4);
        acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_maskz_loadu_ps(live, w + k), v));
    }
    return _mm512_reduce_add_ps(acc);
#else
    float s = 0.0f;
    for (uint k = 0u; k < n; k++)
        s += w[k] * x[ent[k] & NL_INDEX];
    return s;
#endif
}

#ifdef FCL_AVX512
/* List entries ent[0 .. left) (at most 16) in the lanes of one vector:
 * their particles j, mirror masks m, positions src, images q (mirror()),
 * offsets r = q - pi and r2 = |r|^2 in pbf_r2's order, so a lane's r2 has
 * the scalar walk's bits; live, the lanes that hold an entry. */
typedef struct { __m512 x, y, z; } nl_v16;
typedef struct {
    __m512i j, m;
    nl_v16 src, q, r;
    __m512 r2;
    __mmask16 live;
} nl_lanes16;

FCL_INLINE16 void nl_lanes16_load(const uint *ent, uint left, const float4 *pos, float4 pi, fcl_images img,
                                nl_lanes16 *L)
{
    L->live = fcl_live16(left);
    __m512i e = _mm512_maskz_loadu_epi32(L->live, ent), j4;
    const float *pf = (const float *)pos;
    __m512 zero = _mm512_setzero_ps();
    L->m = _mm512_srli_epi32(e, NL_SHIFT);
    L->j = _mm512_and_si512(e, _mm512_set1_epi32((int)NL_INDEX));
    j4 = _mm512_slli_epi32(L->j, 2);
    L->src.x = _mm512_mask_i32gather_ps(zero, L->live, j4, pf, 4);
    L->src.y = _mm512_mask_i32gather_ps(zero, L->live, j4, pf + 1, 4);
    L->src.z = _mm512_mask_i32gather_ps(zero, L->live, j4, pf + 2, 4);
    L->q = L->src;
    if (_mm512_test_epi32_mask(L->m, L->m))
        mirror16(&L->q.x, &L->q.y, &L->q.z, L->m, img);
    L->r.x = _mm512_sub_ps(L->q.x, _mm512_set1_ps(pi.x));
    L->r.y = _mm512_sub_ps(L->q.y, _mm512_set1_ps(pi.y));
    L->r.z = _mm512_sub_ps(L->q.z, _mm512_set1_ps(pi.z));
    L->r2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(L->r.x, L->r.x), _mm512_mul_ps(L->r.y, L->r.y)),
                          _mm512_mul_ps(L->r.z, L->r.z));
}

/* Of the (at most 16) list entries ent[0 .. left), the ones a scalar
 * test `r2 >= r2max || r2 <= 0` would not skip: a pass whose radius is
 * much smaller than its list's (MPS's collisions) then runs its scalar
 * body on those entries alone, in list order, to the same bits. */
FCL_INLINE16 __mmask16 nl_close16(const uint *ent, uint left, const float4 *pos, float4 pi, fcl_images img, float r2max)
{
    nl_lanes16 L;
    nl_lanes16_load(ent, left, pos, pi, img, &L);
    return L.live & _mm512_cmp_ps_mask(L.r2, _mm512_set1_ps(r2max), _CMP_NGE_UQ) &
           _mm512_cmp_ps_mask(L.r2, _mm512_setzero_ps(), _CMP_NLE_UQ);
}
#endif

/* The cells within `reach` of p's cell come as at most (2 reach + 1)^2
 * rows of contiguous sorted indices, one row (y, z) at a time, so no
 * array bound: cells x0..x1 of it start at start[row + x0] and end
 * before start[row + x1 + 1]. */
FCL_INLINE void nl_row(const fcl_grid_info *g, GLOBAL const uint *start, uint x0, uint x1, uint y, uint z, uint *lo,
                       uint *hi)
{
    uint row = g->nx * (y + g->ny * z);
    *lo = start[row + x0];
    *hi = start[row + x1 + 1u];
}

/* The candidates of particle i (at pi) on layout g with wall-image masks;
 * each neighbor's entry goes to out[n * stride] while n < cap. Returns the
 * number found. `collect` (CPUs) gathers into a private buffer without a
 * branch on the distance test, which is unpredictable in a disordered
 * fluid; it returns ~0 when the buffer overflowed, for the direct walk.
 * ws (or 0): w_density summed over the neighbors found, into ws->sum: in
 * list order, but for the AVX-512 rows, which add 16 lanes apiece. */
FCL_INLINE uint nl_walk(float4 pi, GLOBAL const float4 *restrict qpos, GLOBAL const uint *restrict qstart,
                        const fcl_grid_info *g, const fcl_nlist_info *L, uint near, fcl_images img,
                        GLOBAL uint *restrict out, uint stride, uint cap, uint collect, fcl_nl_sum *ws)
{
    float sum = 0.0f;
#ifdef FCL_AVX512
    __m512 acc = _mm512_setzero_ps();
    uint buf[NL_LOCAL + 16u];
#else
    uint buf[NL_LOCAL];
#endif
    uint ix = grid_axis(pi.x, g->origin.x, g->inv_cell_size, g->nx);
    uint iy = grid_axis(pi.y, g->origin.y, g->inv_cell_size, g->ny);
    uint iz = grid_axis(pi.z, g->origin.z, g->inv_cell_size, g->nz);
    uint reach = L->reach, n = 0u;
    uint x0 = ix > reach ? ix - reach : 0u, x1 = ix + reach < g->nx ? ix + reach : g->nx - 1u;
    uint y0 = iy > reach ? iy - reach : 0u, y1 = iy + reach < g->ny ? iy + reach : g->ny - 1u;
    uint z0 = iz > reach ? iz - reach : 0u, z1 = iz + reach < g->nz ? iz + reach : g->nz - 1u;
    for (uint k = 0u, nm = image_count(near); k < nm; k++) {
        /* restrict, the mask made once and 4 candidates a round: the
         * list build 0.460 -> 0.435 ms at 1M on an H100 (README). */
        uint mk = k ? image_mask(near, k) : 0u;   /* 0 first: the neighbors themselves */
        for (uint z = z0; z <= z1; z++)
            for (uint y = y0; y <= y1; y++) {
                uint lo, hi;
                nl_row(g, qstart, x0, x1, y, z, &lo, &hi);
#ifdef FCL_AVX512
                if (collect) {
                    n = nl_row_avx512(pi, qpos, lo, hi, mk, img, L->r2, buf, n, ws, &acc);
                    continue;
                }
#endif
#if defined(__OPENCL_C_VERSION__) && !defined(FCL_CPU_DEVICE)   /* PoCL could not, and said so on stderr */
#pragma unroll 4
#endif
                for (uint j = lo; j < hi; j++) {
                    float4 q = mirror(qpos[j], mk, img);
                    float dx = pi.x - q.x, dy = pi.y - q.y, dz = pi.z - q.z;
                    float d2 = dx * dx + dy * dy + dz * dz;
                    uint in = d2 < L->r2, e = j | (mk << NL_SHIFT);
                    if (ws && !collect) {
                        /* + 0 for a candidate out of range: the same bits as
                         * a sum over the list. */
                        float w = w_density(d2, ws->spiky, ws->h, ws->h2, ws->coef, ws->coef);
                        sum += in ? w : 0.0f;
                    }
                    if (collect) {
                        buf[n < NL_LOCAL - 1u ? n : NL_LOCAL - 1u] = e;
                    } else if (in && n < cap) {
                        out[n * stride] = e;
                    }
                    n += in;
                }
            }
    }
#ifdef FCL_AVX512
    if (ws)
        sum += _mm512_reduce_add_ps(acc);
#else
    /* Collected (CPU devices): the sum over the entries found, in list
     * order, their positions still in cache; a sum over every candidate
     * took PoCL's list build from 198 to 250 ms at 1M. */
    for (uint k = 0u; ws && collect && k < n && k < NL_LOCAL - 1u; k++) {
        float4 q = mirror(qpos[buf[k] & NL_INDEX], buf[k] >> NL_SHIFT, img);
        float dx = pi.x - q.x, dy = pi.y - q.y, dz = pi.z - q.z;
        sum += w_density(dx * dx + dy * dy + dz * dz, ws->spiky, ws->h, ws->h2, ws->coef, ws->coef);
    }
#endif
    if (ws)
        ws->sum = sum;
    if (!collect)
        return n;
    if (n > NL_LOCAL - 1u)
        return ~0u;
    for (uint k = 0u; k < n && k < cap; k++)
        out[k * stride] = buf[k];
    return n;
}

/* Particle i (at pos[i]) against the candidates qpos with cell starts
 * qstart on layout g: every candidate (and, for L->mirror, every wall
 * image of one) closer than the query radius. ws: as nl_walk. */
FCL_INLINE uint nl_build_one(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *qpos, GLOBAL const uint *qstart,
                             GLOBAL uint *count, GLOBAL uint *idx, GLOBAL uint *over, uint report,
                             const fcl_grid_info *g, const fcl_nlist_info *L, const fcl_sph_consts *c, fcl_nl_sum *ws)
{
    float4 pi = pos[i];
    fcl_images img;
    uint near = near_walls_within(pi, c, L->r, &img);
    if (!L->mirror)
        near = 0x111u;   /* no images: boundary lists but MPS's */
    GLOBAL uint *out = idx + i * L->pstride;
#if defined(FCL_DEVICE) && !defined(FCL_CPU_DEVICE)
    /* GPUs: the direct walk (a private buffer would cost registers). */
    uint n = nl_walk(pi, qpos, qstart, g, L, near, img, out, L->kstride, L->cap, 0u, ws);
#else
    /* CPUs: branch-free collection, 2x faster on a developed dam break
     * (README); the direct walk only for a particle over NL_LOCAL - 1. */
    uint n = nl_walk(pi, qpos, qstart, g, L, near, img, out, L->kstride, L->cap, 1u, ws);
    if (n == ~0u)
        n = nl_walk(pi, qpos, qstart, g, L, near, img, out, L->kstride, L->cap, 0u, ws);
#endif
    count[i] = n;
    if (n > L->cap) {
        FCL_ATOMIC_MAX(&over[report], n);
        FCL_ATOMIC_MIN(&over[report + 1u], i);
    }
    return n;
}

/* near[c] = whether any cell within L->reach of cell c holds a candidate
 * (cell starts qstart): for candidates that do not move (boundary
 * particles), made once; a particle in a cell with near 0 has an empty
 * list without a walk. */
FCL_INLINE void nlist_near_item(uint c, GLOBAL const uint *qstart, GLOBAL uint *near, const fcl_grid_info *g,
                                const fcl_nlist_info *L)
{
    uint ix = c % g->nx, iy = (c / g->nx) % g->ny, iz = c / (g->nx * g->ny), reach = L->reach, any = 0u;
    uint x0 = ix > reach ? ix - reach : 0u, x1 = ix + reach < g->nx ? ix + reach : g->nx - 1u;
    uint y0 = iy > reach ? iy - reach : 0u, y1 = iy + reach < g->ny ? iy + reach : g->ny - 1u;
    uint z0 = iz > reach ? iz - reach : 0u, z1 = iz + reach < g->nz ? iz + reach : g->nz - 1u;
    for (uint z = z0; z <= z1; z++)
        for (uint y = y0; y <= y1; y++) {
            uint lo, hi;
            nl_row(g, qstart, x0, x1, y, z, &lo, &hi);
            any |= hi > lo;
        }
    near[c] = any;
}

FCL_INLINE void nlist_build_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *qpos,
                                 GLOBAL const uint *qstart, GLOBAL uint *count, GLOBAL uint *idx,
                                 GLOBAL uint *over, uint report, const fcl_grid_info *g, const fcl_nlist_info *L,
                                 const fcl_sph_consts *c)
{
    nl_build_one(i, pos, qpos, qstart, count, idx, over, report, g, L, c, 0);
}

/* The same for candidates that do not move, with near from nlist_near:
 * the boundary list, which most particles (those away from walls and
 * obstacles) have empty (README). */
FCL_INLINE void nlist_build_sparse_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *qpos,
                                        GLOBAL const uint *qstart, GLOBAL const uint *near, GLOBAL uint *count,
                                        GLOBAL uint *idx, GLOBAL uint *over, uint report, const fcl_grid_info *g,
                                        const fcl_nlist_info *L, const fcl_sph_consts *c)
{
    if (near[grid_cell_of(pos[i], g)])
        nl_build_one(i, pos, qpos, qstart, count, idx, over, report, g, L, c, 0);
    else
        count[i] = 0u;
}

/* The same, and wsum[i] = sum of WCSPH's density kernel (support h) over
 * the neighbors found: WCSPH's fluid density sum made while the
 * candidates are in registers, which saves the density pass its own walk
 * over the list (wcsph.c; README). */
FCL_INLINE void nlist_build_sum_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *qpos,
                                     GLOBAL const uint *qstart, GLOBAL uint *count, GLOBAL uint *idx,
                                     GLOBAL uint *over, uint report, GLOBAL float *wsum, const fcl_grid_info *g,
                                     const fcl_nlist_info *L, const fcl_sph_consts *c)
{
    fcl_nl_sum ws;
    ws.h = c->h;
    ws.h2 = c->h2;
    ws.spiky = c->density_spiky;
    ws.coef = c->density_spiky ? c->spiky : c->poly6;
    ws.sum = 0.0f;
    nl_build_one(i, pos, qpos, qstart, count, idx, over, report, g, L, c, &ws);
    wsum[i] = ws.sum;
}
