/* mac.cl - the semi-Lagrangian MAC-grid liquid (Zou, Qi, Zhao 2013, seed
 * 003, with the fixes of SEED-NOTES 5.8): velocity components on the faces
 * of a staggered grid, pressure and cell flags at the centers, marker
 * particles that say where the liquid is. One substep (host/solvers/mac):
 *
 * flags:      ghost layer and cells whose center lies in a box, sphere or
 *             polygon obstacle are solid, and the cells of mesh obstacles'
 *             boundary particles (mac_flag_boundary); cells holding a
 *             marker fluid (mac_markers.cl), the rest air
 * density:    the markers' sum_p W_poly6 / (lattice sum) at the cells the
 *             next three read (mac_reseed.cl's mac_density_field, summed
 *             here by mac_wsum)
 * levelset:   phi = iso - sum_p W_poly6 / (lattice sum), at the cells on
 *             either side of the surface only (the Zou field of seed 003
 *             eq. 17 with every marker's rest volume): a half-space of a
 *             resting lattice gives phi = 0 exactly half a spacing above its
 *             last layer, so the surface sits where the liquid ends
 * advect:     u(x) <- u(x - dt u(x - dt/2 u(x))), RK2 backtrace (Stam 1999;
 *             not the seed's eq. 7), each component sampled trilinearly at
 *             its own face positions (seed eq. 12 with the half-cell
 *             offsets): mac_advect.cl
 * forces:     u += dt g on every face that is not a solid face
 * density correction (mac.density_correction > 0): deep fluid cells whose
 *             markers' density leaves 1 +- band get a target growth e_i
 *             (mac_full, mac_density_target)
 * divergence: b_i = -(rho dx / dt) (sum_faces u.n - e_i dx / dt) over fluid cells, and the
 *             diagonal of the 7-point operator: 1 per fluid neighbor, 1 /
 *             theta per air neighbor (ghost fluid: the air side's pressure
 *             is -(1 - theta) / theta p_i, theta = phi_i / (phi_i - phi_a)
 *             clamped below by theta_min), 0 per solid one (Neumann)
 * (conjugate gradients on A p = b: host/core/pcg.c)
 * project:    u -= dt / (rho dx) (p_hi - p_lo) on faces next to fluid (the
 *             gradient of the face itself, seed eq. 11 one face on)
 * extrapolate: faces next to fluid are known; each layer gives an unknown
 *             face the mean of its known neighbors of the same component
 * (the markers' passes, their marking and move among them: mac_markers.cl)
 *
 * Solid faces (a solid cell on either side: walls, obstacles) carry zero
 * normal velocity everywhere (free slip); tangential components read near
 * a wall are clamped to the first interior sample, and near an obstacle
 * read the values extrapolated into it (zero normal gradient both ways).
 * Invariant: after a substep every face next to a fluid cell holds the
 * projected velocity, faces between fluid or air and solid hold 0, faces
 * up to the extrapolation depth into air and into obstacles hold
 * extrapolated values and the others 0.
 */

#define MAC_AIR 0u
#define MAC_FLUID 1u
#define MAC_SOLID 2u

FCL_INLINE float mac_comp(float4 v, uint a)
{
    return a == 0u ? v.x : (a == 1u ? v.y : v.z);
}

FCL_INLINE float mac_abs(float x)
{
    return x < 0.0f ? -x : x;
}

FCL_INLINE uint mac_stride(uint a, const fcl_mac_info *m)
{
    return a == 0u ? 1u : (a == 1u ? m->sy : m->sz);
}

FCL_INLINE void mac_coords(uint c, const fcl_mac_info *m, uint *i, uint *j, uint *k)
{
    *k = c / m->sz;
    uint r = c - *k * m->sz;
    *j = r / m->sy;
    *i = r - *j * m->sy;
}

/* Whether the lower face of cell (i, j, k) along axis a is a face of the
 * interior grid: 1..n+1 along a, 1..n across. */
FCL_INLINE int mac_face_real(uint i, uint j, uint k, uint a, const fcl_mac_info *m)
{
    uint ex = a == 0u ? 1u : 0u, ey = a == 1u ? 1u : 0u, ez = a == 2u ? 1u : 0u;
    return i >= 1u && i <= m->nx + ex && j >= 1u && j <= m->ny + ey && k >= 1u && k <= m->nz + ez;
}

/* A face with a solid cell on either side (domain walls are the ghost
 * layer). Only for real faces: the lower neighbor exists. */
FCL_INLINE int mac_face_solid(GLOBAL const uint *flags, uint c, uint a, const fcl_mac_info *m)
{
    return flags[c] == MAC_SOLID || flags[c - mac_stride(a, m)] == MAC_SOLID;
}

FCL_INLINE float4 mac_face_pos(uint i, uint j, uint k, uint a, const fcl_mac_info *m)
{
    float dx = m->dx;
    return fcl_f4(m->origin.x + ((float)i - (a == 0u ? 1.0f : 0.5f)) * dx,
                  m->origin.y + ((float)j - (a == 1u ? 1.0f : 0.5f)) * dx,
                  m->origin.z + ((float)k - (a == 2u ? 1.0f : 0.5f)) * dx, 0.0f);
}

FCL_INLINE float4 mac_center(uint i, uint j, uint k, const fcl_mac_info *m)
{
    float dx = m->dx;
    return fcl_f4(m->origin.x + ((float)i - 0.5f) * dx, m->origin.y + ((float)j - 0.5f) * dx,
                  m->origin.z + ((float)k - 0.5f) * dx, 0.0f);
}

/* Interior cell index (1..n) along one axis of a position, clamped. */
FCL_INLINE uint mac_axis_cell(float x, float o, uint n, const fcl_mac_info *m)
{
    float g = (x - o) * m->inv_dx;
    g = g >= 0.0f ? g : 0.0f;
    return g < (float)n ? 1u + (uint)g : n;
}

FCL_INLINE uint mac_cell_of(float4 p, const fcl_mac_info *m)
{
    return mac_axis_cell(p.x, m->origin.x, m->nx, m) + m->sy * mac_axis_cell(p.y, m->origin.y, m->ny, m) +
           m->sz * mac_axis_cell(p.z, m->origin.z, m->nz, m);
}

/* Sample coordinate along one axis for a component that lives on faces
 * of this axis (face: sample k at origin + (k - 1) dx, 1 <= k <= n + 1) or
 * at cell centers (sample k at origin + (k - 1/2) dx, 1 <= k <= n); clamped
 * to the samples, so nothing outside the walls is read. Returns the
 * fraction toward sample *i0 + 1. */
FCL_HOT float mac_axis_sample(float x, float o, uint n, uint face, const fcl_mac_info *m, uint *i0)
{
    float g = (x - o) * m->inv_dx + (face ? 1.0f : 0.5f);
    float top = face ? (float)(n + 1u) : (float)n;
    g = g >= 1.0f ? (g <= top ? g : top) : 1.0f;     /* NaN goes to 1 */
    uint b = (uint)g;
    b = b >= (uint)top ? (uint)top - 1u : b;
    *i0 = b;
    return g - (float)b;
}

/* Component a at p, trilinear in its own staggered samples (seed eq. 12). */
FCL_HOT float mac_sample(GLOBAL const float4 *v, float4 p, uint a, const fcl_mac_info *m)
{
    uint i, j, k;
    float fx = mac_axis_sample(p.x, m->origin.x, m->nx, a == 0u, m, &i);
    float fy = mac_axis_sample(p.y, m->origin.y, m->ny, a == 1u, m, &j);
    float fz = mac_axis_sample(p.z, m->origin.z, m->nz, a == 2u, m, &k);
    /* One float of each float4 sample, not the whole vector: 10 % less
     * time in the markers' move on PoCL. Offsets in floats. */
    GLOBAL const float *w = (GLOBAL const float *)(v + (i + m->sy * j + m->sz * k)) + a;
    uint sy = 4u * m->sy, sz = 4u * m->sz;
    float c00 = w[0] * (1.0f - fx) + w[4] * fx;
    float c10 = w[sy] * (1.0f - fx) + w[sy + 4u] * fx;
    float c01 = w[sz] * (1.0f - fx) + w[sz + 4u] * fx;
    float c11 = w[sy + sz] * (1.0f - fx) + w[sy + sz + 4u] * fx;
    float c0 = c00 * (1.0f - fy) + c10 * fy, c1 = c01 * (1.0f - fy) + c11 * fy;
    return c0 * (1.0f - fz) + c1 * fz;
}

FCL_HOT float4 mac_velocity(GLOBAL const float4 *v, float4 p, const fcl_mac_info *m)
{
    return fcl_f4(mac_sample(v, p, 0u, m), mac_sample(v, p, 1u, m), mac_sample(v, p, 2u, m), 0.0f);
}

/* Whether the cell of center p and half side hc is solid: its center
 * inside a listed obstacle (each grown by half a spacing), where an
 * obstacle thinner than a cell counts as at least a cell thick. Centers
 * alone missed a wall thinner than a cell between two of them, and the
 * liquid flowed through it (at sim.dt 5 ms, 1,611 of a dam break's 8,960
 * markers past an 8 mm box wall in 2 cm cells by 0.4 s, 4,120 past a 1
 * mm polygon; markers move up to a cell per substep, past their own
 * push-out: test_cli 28). So a box's axis thinner than a cell spans the
 * cell centered on its middle, a polygon's slab thinner than the cells it
 * crosses spans them (hc (|nx| + |ny| + |nz|) either side of its middle
 * plane), a sphere reaches the nearest center (radius hc sqrt 3). Thicker
 * obstacles keep the exit functions' strict test, so their cells are
 * those of the centers alone. Meshes reach the grid as their boundary
 * particles (mac_flag_boundary), not by their distance fields. */
FCL_INLINE int mac_in_box(float4 p, float4 lo, float4 hi, float hc)
{
    float q[3] = { p.x, p.y, p.z }, l[3] = { lo.x, lo.y, lo.z }, h[3] = { hi.x, hi.y, hi.z };
    for (uint a = 0u; a < 3u; a++) {
        float mid = 0.5f * (l[a] + h[a]);
        int in = 0.5f * (h[a] - l[a]) >= hc ? q[a] > l[a] && q[a] < h[a] : fabs(q[a] - mid) <= hc;
        if (!in)
            return 0;
    }
    return 1;
}

FCL_INLINE int mac_in_slab(float4 p, float4 a, float4 b, float4 c, float hc)
{
    float nx, ny, nz;
    if (!solid_triangle_normal(a, b, c, &nx, &ny, &nz))
        return 0;
    float s = (p.x - a.x) * nx + (p.y - a.y) * ny + (p.z - a.z) * nz;
    /* In float on both backends (C's fabs would sum in double). */
    float ax = nx < 0.0f ? -nx : nx, ay = ny < 0.0f ? -ny : ny, az = nz < 0.0f ? -nz : nz;
    float thick = 0.5f * (a.w + b.w), reach = hc * (ax + ay + az);
    int in = thick >= reach ? s < b.w && s > -a.w : fabs(s - 0.5f * (b.w - a.w)) <= reach;
    return in && solid_over_triangle(p, a, b, c, nx, ny, nz);
}

FCL_INLINE int mac_in_solid(float4 p, GLOBAL const fcl_solid *s, const fcl_sph_consts *c, float hc)
{
    for (uint k = 0u; k < c->nsolids; k++) {
        GLOBAL const fcl_solid *e = s + k;
        if (e->kind == FCL_SOLID_SDF) {
            k += solid_sdf_entries(e);
            continue;
        }
        float4 ctr = e->a;
        float dx = p.x - ctr.x, dy = p.y - ctr.y, dz = p.z - ctr.z, r2 = dx * dx + dy * dy + dz * dz;
        float R = fmax(ctr.w, hc * 1.7320508f);   /* a grown sphere takes the center at R too */
        int in = e->kind == FCL_SOLID_BOX      ? mac_in_box(p, e->a, e->b, hc)
                 : e->kind == FCL_SOLID_SPHERE ? (ctr.w < R ? r2 <= R * R : r2 < R * R)
                                               : mac_in_slab(p, e->a, e->b, e->c, hc);
        if (in)
            return 1;
    }
    return 0;
}

/* Ghost layer and obstacles solid, everything else air (mark_fluid then
 * fills in the liquid). */
FCL_INLINE void mac_flag_solid_item(uint c, GLOBAL uint *flags, GLOBAL uint *count, GLOBAL const fcl_solid *solids,
                                    const fcl_mac_info *m, const fcl_sph_consts *cs)
{
    uint i, j, k;
    mac_coords(c, m, &i, &j, &k);
    int ghost = i == 0u || j == 0u || k == 0u || i > m->nx || j > m->ny || k > m->nz;
    flags[c] = ghost || mac_in_solid(mac_center(i, j, k, m), solids, cs, 0.5f * m->dx) ? MAC_SOLID : MAC_AIR;
    count[c] = 0u;
}

/* Mesh obstacles reach the grid only as boundary particles (the solid
 * list has boxes, spheres and polygon slabs): the cell holding a sample
 * turns solid. Samples lie a spacing apart and a cell is cbrt(particles
 * per cell) >= 1 spacings, so a closed mesh's shell of cells has no gap.
 * Samples outside the grid (particle walls) are skipped. Every writer
 * writes the same value. */
FCL_INLINE void mac_flag_boundary_item(uint b, GLOBAL const float4 *bpos, GLOBAL uint *flags,
                                       const fcl_mac_info *m)
{
    float4 p = bpos[b];
    float lx = p.x - m->origin.x, ly = p.y - m->origin.y, lz = p.z - m->origin.z;
    float ex = (float)m->nx * m->dx, ey = (float)m->ny * m->dx, ez = (float)m->nz * m->dx;
    if (lx < 0.0f || ly < 0.0f || lz < 0.0f || lx >= ex || ly >= ey || lz >= ez)
        return;
    flags[mac_cell_of(p, m)] = MAC_SOLID;
}

/* Of cell c's six face neighbors: how many are air, the last such in
 * *open, and how many are fluid. */
FCL_INLINE uint mac_open_faces(uint c, GLOBAL const uint *flags, const fcl_mac_info *m, uint *open, uint *fluid)
{
    uint sy = m->sy, sz = m->sz, q[6] = { c - 1u, c + 1u, c - sy, c + sy, c - sz, c + sz }, n = 0u;
    *fluid = 0u;
    for (int k = 0; k < 6; k++) {
        uint f = flags[q[k]];
        if (f == MAC_AIR) {
            n++;
            *open = q[k];
        }
        *fluid += f == MAC_FLUID;
    }
    return n;
}

/* A hole: one air cell, or two side by side, that no marker reached,
 * enclosed by fluid and solid cells (fluid among them). The markers'
 * sampling leaves such cells inside the liquid; taken as air, each was a
 * free surface at p = 0 in the middle of the liquid, and the liquid's
 * divergence error drained through its faces: a closed box full of
 * liquid whose reseeding left such a cell sped up from 0.5 to 3 m/s in a
 * step (a review; single cells filled, pairs still gave 0.8 -> 1.26). It
 * is liquid with its markers missing: mac_hole_fill makes it fluid, and
 * the reseeding gives it markers. The holes go to a scratch buffer and
 * the flags are only read here, so no work item reads a flag another
 * writes. Ghost cells are solid, so c's neighbors are in the grid. */
FCL_INLINE void mac_hole_mark_item(uint c, GLOBAL const uint *flags, GLOBAL uint *hole, const fcl_mac_info *m)
{
    uint open = c, fluid = 0u, other, fluid2, is = 0u;
    if (flags[c] == MAC_AIR) {
        uint n = mac_open_faces(c, flags, m, &open, &fluid);
        is = n == 0u ? fluid > 0u
                     : n == 1u && mac_open_faces(open, flags, m, &other, &fluid2) == 1u && fluid + fluid2 > 0u;
    }
    hole[c] = is;
}

FCL_INLINE void mac_hole_fill_item(uint c, GLOBAL uint *flags, GLOBAL const uint *hole)
{
    if (hole[c])
        flags[c] = MAC_FLUID;
}

/* A fluid cell with an air neighbor or an air cell with a fluid one. */
FCL_INLINE int mac_band(uint c, GLOBAL const uint *flags, const fcl_mac_info *m)
{
    uint f = flags[c];
    if (f == MAC_SOLID)
        return 0;
    uint w = f == MAC_FLUID ? MAC_AIR : MAC_FLUID, sy = m->sy, sz = m->sz;
    return flags[c - 1u] == w || flags[c + 1u] == w || flags[c - sy] == w || flags[c + sy] == w ||
           flags[c - sz] == w || flags[c + sz] == w;
}

/* W_poly6(x - x_q) of marker q, 0 from hi on. */
FCL_INLINE float mac_w(float4 x, GLOBAL const float4 *pos, uint q, uint hi, const fcl_sph_consts *cs)
{
    if (q >= hi)
        return 0.0f;
    float4 p = pos[q];
    float dx = p.x - x.x, dy = p.y - x.y, dz = p.z - x.z;
    return w_poly6(dx * dx + dy * dy + dz * dz, cs->h2, cs->poly6);
}

/* Of a group of 16 values, what the pairwise tree's last add takes from
 * lanes b, b + 2, ..., b + 14 (lane l plus l + 8, then + l + 4, + l + 2;
 * the last add joins the parts of b = q0 and q0 + 1): ONE(k) the k-th
 * value, ADD(x, y) the sum. The one order both the scalar sums below and
 * mac_markers.cl's use, and mac_tree16 keeps on 16 lanes. */
#define MAC_TREE16_PART(ADD, ONE, b)                                                                    \
    ADD(ADD(ADD(ONE(b), ONE((b) + 8u)), ADD(ONE((b) + 4u), ONE((b) + 12u))),                            \
        ADD(ADD(ONE((b) + 2u), ONE((b) + 10u)), ADD(ONE((b) + 6u), ONE((b) + 14u))))
#define MAC_FADD(x, y) ((x) + (y))

/* sum_p W_poly6(x - x_p) over markers lo .. hi - 1, in groups of 16: a
 * group's weights (past hi: 0) added as a pairwise tree (lane l and
 * l + 8, then l + 4, l + 2, l + 1), the groups' sums in order. One order
 * for both backends (the reseeding's decisions need the same bits), and
 * the one a 16-lane twin adds in: in marker order, each add waited on
 * the last, and the density pass was that chain (1.4 ms of a 9.5 ms step
 * on the 216k-marker drop). */
FCL_INLINE float mac_wsum_run(float4 x, GLOBAL const float4 *pos, uint lo, uint hi, const fcl_sph_consts *cs)
{
    float sum = 0.0f;
    for (uint q0 = lo; q0 < hi; q0 += 16u) {
        /* The tree written out, not as a 16-element array (private arrays
         * cost on GPUs and stop PoCL's vectorizer). */
#define MAC_W(k) mac_w(x, pos, k, hi, cs)
        sum += MAC_TREE16_PART(MAC_FADD, MAC_W, q0) + MAC_TREE16_PART(MAC_FADD, MAC_W, q0 + 1u);
#undef MAC_W
    }
    return sum;
}

#ifdef FCL_AVX512
/* The pairwise tree of 16 lanes, as mac_wsum_run (and mac_markers.cl's
 * mac_p2g_run) add them. */
FCL_INLINE float mac_tree16(__m512 w)
{
    __m256 w8 = _mm256_add_ps(_mm512_castps512_ps256(w), _mm512_extractf32x8_ps(w, 1));
    __m128 w4 = _mm_add_ps(_mm256_castps256_ps128(w8), _mm256_extractf128_ps(w8, 1));
    __m128 w2 = _mm_add_ps(w4, _mm_movehl_ps(w4, w4));
    return _mm_cvtss_f32(_mm_add_ss(w2, _mm_shuffle_ps(w2, w2, 1)));
}

/* mac_wsum_run 16 markers at a time (the native backend on an AVX-512
 * host): the same weights, the same tree, the same bits. */
static float mac_wsum_run16(float4 x, const float4 *pos, uint lo, uint hi, const fcl_sph_consts *cs)
{
    __m512 h2 = _mm512_set1_ps(cs->h2), coef = _mm512_set1_ps(cs->poly6);
    __m512 ox = _mm512_set1_ps(x.x), oy = _mm512_set1_ps(x.y), oz = _mm512_set1_ps(x.z);
    float sum = 0.0f;
    for (uint q0 = lo; q0 < hi; q0 += 16u) {
        __mmask16 live = fcl_live16(hi - q0);
        __m512 px, py, pz;
        fcl_xyz16(pos, q0, live, &px, &py, &pz);
        __m512 dx = _mm512_sub_ps(px, ox), dy = _mm512_sub_ps(py, oy), dz = _mm512_sub_ps(pz, oz);
        __m512 r2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)), _mm512_mul_ps(dz, dz));
        __m512 d = _mm512_sub_ps(h2, r2);
        __mmask16 in = _mm512_mask_cmp_ps_mask(live, r2, h2, _CMP_LT_OQ);
        sum += mac_tree16(_mm512_maskz_mul_ps(in, _mm512_mul_ps(_mm512_mul_ps(coef, d), d), d));
    }
    return sum;
}
#endif

/* sum_p W_poly6(x - x_p) over the markers around x (mac_wsum_run's
 * order). */
FCL_INLINE float mac_wsum(float4 x, GLOBAL const float4 *pos, GLOBAL const uint *start, const fcl_grid_info *g,
                          const fcl_sph_consts *cs)
{
    uint lo[9], hi[9];
    uint rows = grid_neighbor_rows(g, start, x, lo, hi);
    float sum = 0.0f;
    for (uint r = 0u; r < rows; r++)
#ifdef FCL_AVX512
        sum += mac_wsum_run16(x, pos, lo[r], hi[r], cs);
#else
        sum += mac_wsum_run(x, pos, lo[r], hi[r], cs);
#endif
    return sum;
}

/* x reflected across the grid box's nearer wall along one axis when that
 * wall is within the support h, else x itself (*hit = 0). */
FCL_INLINE float mac_reflect(float x, float o, uint n, const fcl_mac_info *m, float h, int *hit)
{
    float top = o + (float)n * m->dx;
    *hit = x - o < h || top - x < h;
    return x - o < h ? 2.0f * o - x : (top - x < h ? 2.0f * top - x : x);
}

/* Cell c's center and its mirror images across the grid walls within h
 * (as the markers are mirrored), in a fixed order, into y; their count. */
FCL_INLINE uint mac_images(uint c, const fcl_mac_info *m, const fcl_sph_consts *cs, float4 y[8])
{
    uint i, j, k, n = 0u;
    mac_coords(c, m, &i, &j, &k);
    float4 x = mac_center(i, j, k, m);
    int hx, hy, hz;
    float rx = mac_reflect(x.x, m->origin.x, m->nx, m, cs->h, &hx);
    float ry = mac_reflect(x.y, m->origin.y, m->ny, m, cs->h, &hy);
    float rz = mac_reflect(x.z, m->origin.z, m->nz, m, cs->h, &hz);
    for (uint r = 0u; r < 8u; r++) {
        int ax = (int)(r & 1u), ay = (int)((r >> 1) & 1u), az = (int)((r >> 2) & 1u);
        if ((ax && !hx) || (ay && !hy) || (az && !hz))
            continue;
        y[n++] = fcl_f4(ax ? rx : x.x, ay ? ry : x.y, az ? rz : x.z, 0.0f);
    }
    return n;
}

/* The markers' density at cell c's center relative to a resting
 * lattice's, sum_p W_poly6 / (lattice sum), from the markers around it
 * (the particle grid's cells are at least the poly6 support wide) and
 * their mirror images across the grid walls (free slip: a resting
 * pool's surface stays level up to the walls), divided by `share`, the
 * part of that lattice the markers may fill (mac_open_share; 1 but
 * beside an obstacle). */
FCL_INLINE float mac_density_in(uint c, GLOBAL const float4 *pos, GLOBAL const uint *start, const fcl_grid_info *g,
                                const fcl_mac_info *m, const fcl_sph_consts *cs, float share)
{
    float4 y[8];
    uint n = mac_images(c, m, cs, y);
    float inv = m->inv_lattice / share, sum = 0.0f;
    for (uint q = 0u; q < n; q++)
        sum += mac_wsum(y[q], pos, start, g, cs);
    return sum * inv;
}

FCL_INLINE float mac_density(uint c, GLOBAL const float4 *pos, GLOBAL const uint *start, const fcl_grid_info *g,
                             const fcl_mac_info *m, const fcl_sph_consts *cs)
{
    return mac_density_in(c, pos, start, g, m, cs, 1.0f);
}

/* The share of the poly6 weight around cell c's center (and its mirror
 * images, as mac_density_in sums them) that falls outside obstacle
 * cells: the points of a lattice of spacing h/2 about it (the resting
 * markers' own at the default support of 2 spacings), weighted by W,
 * those in the box and in a solid cell blocked; at least 1/4. */
FCL_INLINE float mac_open_share(uint c, GLOBAL const uint *flags, const fcl_mac_info *m, const fcl_sph_consts *cs)
{
    float4 img[8];
    uint nimg = mac_images(c, m, cs, img);
    float st = 0.5f * cs->h, ex = (float)m->nx * m->dx, ey = (float)m->ny * m->dx, ez = (float)m->nz * m->dx;
    float all = 0.0f, blocked = 0.0f;
    for (uint v = 0u; v < nimg; v++) {
        float4 y = img[v];
        for (int a = -2; a < 2; a++)
            for (int b = -2; b < 2; b++)
                for (int e = -2; e < 2; e++) {
                    float ox = ((float)a + 0.5f) * st, oy = ((float)b + 0.5f) * st, oz = ((float)e + 0.5f) * st;
                    float w = w_poly6(ox * ox + oy * oy + oz * oz, cs->h2, cs->poly6);
                    float4 q = fcl_f4(y.x + ox, y.y + oy, y.z + oz, 0.0f);
                    float lx = q.x - m->origin.x, ly = q.y - m->origin.y, lz = q.z - m->origin.z;
                    if (w == 0.0f || lx < 0.0f || ly < 0.0f || lz < 0.0f || lx >= ex || ly >= ey || lz >= ez)
                        continue;
                    all += w;
                    blocked += flags[mac_cell_of(q, m)] == MAC_SOLID ? w : 0.0f;
                }
    }
    return all > 0.0f && blocked < 0.75f * all ? 1.0f - blocked / all : 0.25f;
}

/* The poly6 support's reach in cells, ceil(h / dx) (a thousandth of a
 * cell under a whole number rounds down). */
FCL_INLINE int mac_reach(const fcl_mac_info *m, const fcl_sph_consts *cs)
{
    return (int)ceil(cs->h * m->inv_dx - 1.0e-3f);
}

/* Whether an obstacle cell (a solid cell off the ghost layer) lies
 * within r cells of interior cell (i, j, k), across or along the axes. */
FCL_INLINE int mac_near_obstacle(int i, int j, int k, int r, GLOBAL const uint *flags, const fcl_mac_info *m)
{
    int nx = (int)m->nx, ny = (int)m->ny, nz = (int)m->nz;
    for (int c = k - r > 1 ? k - r : 1; c <= k + r && c <= nz; c++)
        for (int b = j - r > 1 ? j - r : 1; b <= j + r && b <= ny; b++)
            for (int a = i - r > 1 ? i - r : 1; a <= i + r && a <= nx; a++)
                if (flags[(uint)a + m->sy * (uint)b + m->sz * (uint)c] == MAC_SOLID)
                    return 1;
    return 0;
}

/* phi = iso - density at the band's cell centers; elsewhere -iso inside,
 * +iso outside, which no theta reads. No markers lie inside an obstacle
 * (nor, as seeded, within 0.75 spacings of one), so the density of a band
 * cell within the poly6 support's reach of an obstacle cell reads a
 * deficit and would put the surface too low there: a resting pool that
 * an obstacle pierced flowed (0.31 m/s after 60 steps). Such a cell takes
 * instead the mean phi of the nearest band cells of its own kind (fluid
 * or air) clear of obstacles, up to 3 cells beyond that reach: phi
 * extended along the surface from where the markers measure it, so the
 * surface meets the obstacle at right angles (Bridson's extrapolation of
 * phi into solids). A cell with none in reach (a narrow gap beside an
 * obstacle) divides its own density by the share of its support outside
 * obstacle cells. Without an obstacle cell near: the same bits as before. */
FCL_INLINE void mac_levelset_item(uint c, GLOBAL const uint *flags, GLOBAL const float4 *pos,
                                  GLOBAL const uint *start, GLOBAL const float *dens, GLOBAL float *phi,
                                  const fcl_grid_info *g, const fcl_mac_info *m, const fcl_sph_consts *cs)
{
    if (!mac_band(c, flags, m)) {
        phi[c] = flags[c] == MAC_FLUID ? -m->iso : m->iso;
        return;
    }
    uint i, j, k;
    mac_coords(c, m, &i, &j, &k);
    int r = mac_reach(m, cs);
    if (!mac_near_obstacle((int)i, (int)j, (int)k, r, flags, m)) {
        phi[c] = m->iso - dens[c];   /* mac_density of every band cell (mac_density_field) */
        return;
    }
    int nx = (int)m->nx, ny = (int)m->ny, nz = (int)m->nz;
    float sum = 0.0f, n = 0.0f;
    /* Shells of growing Chebyshev distance s; in the first that holds
     * one, the nearest such cells. */
    for (int s = 1; s <= r + 3 && n == 0.0f; s++) {
        int best = 0x7fffffff;
        for (int pass = 0; pass < 2; pass++)
            for (int dk = -s; dk <= s; dk++)
                for (int dj = -s; dj <= s; dj++)
                    for (int di = -s; di <= s; di++) {
                        int a = (int)i + di, b = (int)j + dj, e = (int)k + dk, d2 = di * di + dj * dj + dk * dk;
                        int ai = di < 0 ? -di : di, aj = dj < 0 ? -dj : dj, ak = dk < 0 ? -dk : dk;
                        if ((ai != s && aj != s && ak != s) || a < 1 || b < 1 || e < 1 || a > nx || b > ny ||
                            e > nz || (pass ? d2 != best : d2 >= best))
                            continue;
                        uint q = (uint)a + m->sy * (uint)b + m->sz * (uint)e;
                        if (flags[q] != flags[c] || !mac_band(q, flags, m) || mac_near_obstacle(a, b, e, r, flags, m))
                            continue;
                        if (!pass) {
                            best = d2;
                            continue;
                        }
                        sum += m->iso - dens[q];
                        n += 1.0f;
                    }
    }
    phi[c] = n > 0.0f ? sum / n
                      : m->iso - mac_density_in(c, pos, start, g, m, cs, mac_open_share(c, flags, m, cs));
}

/* The surface's fraction of the way from a fluid center (phi_f) to an
 * air center (phi_a), clamped below (SEED-NOTES 5.8 item 4). A fluid cell
 * the level set puts outside gets the floor; an air cell it puts inside
 * gets 1 (p = 0 at the air center, Foster & Fedkiw 2001). */
FCL_INLINE float mac_theta(float pf, float pa, const fcl_mac_info *m)
{
    float t = pf < 0.0f && pa > 0.0f ? pf / (pf - pa) : (pf >= 0.0f ? m->theta_min : 1.0f);
    return fcl_clampf(t, m->theta_min, 1.0f);
}

/* Gravity on every face that is not a solid face. */
FCL_INLINE void mac_forces_item(uint c, GLOBAL float4 *vel, GLOBAL const uint *flags, const fcl_mac_info *m,
                                const fcl_sph_consts *cs)
{
    uint i, j, k;
    mac_coords(c, m, &i, &j, &k);
    float4 v = vel[c];
    float dt = m->dt;
    if (mac_face_real(i, j, k, 0u, m) && !mac_face_solid(flags, c, 0u, m))
        v.x += dt * cs->gravity.x;
    if (mac_face_real(i, j, k, 1u, m) && !mac_face_solid(flags, c, 1u, m))
        v.y += dt * cs->gravity.y;
    if (mac_face_real(i, j, k, 2u, m) && !mac_face_solid(flags, c, 2u, m))
        v.z += dt * cs->gravity.z;
    vel[c] = v;
}

/* An emitter's velocity on the faces of its slab (fcl_mac_inflow), after
 * the seed's advection: a field that only advects carries no marker's
 * velocity, and a jet from a 1 m/s emitter fell as one column at up to
 * 4.4 m/s where free fall allows 2.7 (a review); FLIP's markers carry
 * theirs and do not need it. */
FCL_INLINE int mac_in_inflow(float4 x, const fcl_mac_inflow *e, float behind, float grow)
{
    float rx = x.x - e->center.x, ry = x.y - e->center.y, rz = x.z - e->center.z;
    float along = rx * e->dir.x + ry * e->dir.y + rz * e->dir.z;
    float a = rx * e->u.x + ry * e->u.y + rz * e->u.z, b = rx * e->v.x + ry * e->v.y + rz * e->v.z;
    if (along < -behind || along > e->dir.w)
        return 0;
    float ru = e->u.w + grow, rv = e->v.w + grow;
    return e->disk ? a * a + b * b <= ru * ru : fabs(a) <= ru && fabs(b) <= rv;
}

/* A fluid cell on either side of the lower face along a (a real face). */
FCL_INLINE int mac_fluid_face(GLOBAL const uint *flags, uint c, uint a, const fcl_mac_info *m)
{
    return flags[c] == MAC_FLUID || flags[c - mac_stride(a, m)] == MAC_FLUID;
}

FCL_INLINE void mac_inflow_item(uint c, GLOBAL float4 *vel, GLOBAL const uint *flags, const fcl_mac_info *m,
                                const fcl_mac_inflow *e)
{
    uint i, j, k;
    mac_coords(c, m, &i, &j, &k);
    float4 v = vel[c];
    float behind = 0.5f * m->dx;
    /* Faces of cells the emitted markers reach (fluid), within half a cell
     * of the outline too: the markers cover the outline, and a rim cell
     * whose face lay outside it kept the extrapolated and gravity-driven
     * speed (a 1 m/s jet of 3 cm radius on 2 cm cells left its nozzle at
     * 1.6 m/s, 1.18 where free fall allows; a review). */
    if (mac_face_real(i, j, k, 0u, m) && !mac_face_solid(flags, c, 0u, m) &&
        mac_in_inflow(mac_face_pos(i, j, k, 0u, m), e, behind, mac_fluid_face(flags, c, 0u, m) ? behind : 0.0f))
        v.x = e->vel.x;
    if (mac_face_real(i, j, k, 1u, m) && !mac_face_solid(flags, c, 1u, m) &&
        mac_in_inflow(mac_face_pos(i, j, k, 1u, m), e, behind, mac_fluid_face(flags, c, 1u, m) ? behind : 0.0f))
        v.y = e->vel.y;
    if (mac_face_real(i, j, k, 2u, m) && !mac_face_solid(flags, c, 2u, m) &&
        mac_in_inflow(mac_face_pos(i, j, k, 2u, m), e, behind, mac_fluid_face(flags, c, 2u, m) ? behind : 0.0f))
        v.z = e->vel.z;
    vel[c] = v;
}

/* A neighbor's share of the diagonal: fluid 1, air 1 / theta, solid 0. */
FCL_INLINE float mac_coef(GLOBAL const uint *flags, GLOBAL const float *phi, uint c, uint n, const fcl_mac_info *m)
{
    uint f = flags[n];
    return f == MAC_FLUID ? 1.0f : (f == MAC_AIR ? 1.0f / mac_theta(phi[c], phi[n], m) : 0.0f);
}

/* 1 for a neighbor across an open face, 0 across a solid one. */
FCL_INLINE float mac_open(GLOBAL const uint *flags, uint n)
{
    return flags[n] == MAC_SOLID ? 0.0f : 1.0f;
}

/* Whether every interior cell within r of (i, j, k), along and across
 * the axes, holds `want` in v (the ghost layer does not count). */
FCL_INLINE int mac_all_within(uint i, uint j, uint k, int r, GLOBAL const uint *v, uint want, const fcl_mac_info *m)
{
    int nx = (int)m->nx, ny = (int)m->ny, nz = (int)m->nz;
    for (int z = (int)k - r > 1 ? (int)k - r : 1; z <= (int)k + r && z <= nz; z++)
        for (int y = (int)j - r > 1 ? (int)j - r : 1; y <= (int)j + r && y <= ny; y++)
            for (int x = (int)i - r > 1 ? (int)i - r : 1; x <= (int)i + r && x <= nx; x++)
                if (v[(uint)x + m->sy * (uint)y + m->sz * (uint)z] != want)
                    return 0;
    return 1;
}

/* full = 1 where the cell and every interior cell beside it (along and
 * across the axes) is fluid: the first half of mac_density_target's
 * test (at a reach of 1, the default support's, it reads 2 x 27 cells
 * instead of 125). And air[0] = gen, this substep's number, once any
 * cell is air: without air the pressure equation has no free surface to
 * take up the targets' net volume, its right-hand side no longer sums to
 * zero, and the solve fails (a box filled with moving liquid blew up at
 * step 57). The test before the atomic keeps the cells from queueing on
 * one address once it is set. */
FCL_INLINE void mac_full_item(uint c, GLOBAL const uint *flags, GLOBAL uint *full, GLOBAL uint *air,
                              const fcl_mac_info *m, uint gen)
{
    uint i, j, k;
    mac_coords(c, m, &i, &j, &k);
    uint f = flags[c];
    full[c] = f == MAC_FLUID && mac_all_within(i, j, k, 1, flags, MAC_FLUID, m) ? 1u : 0u;
    if (f == MAC_AIR && air[0] != gen)
        FCL_ATOMIC_MAX(air, gen);
}

/* The density correction (beyond the seed; after the divergence targets of
 * Kugelstadt et al. 2019 and Losasso et al. 2008): markers follow a field
 * that is divergence-free only on the faces, so over many substeps they
 * bunch in some cells and leave holes in others, and the level set, which
 * reads their density, thins (a dam break at 1 cm cells lost 6 % of its
 * volume). A deep fluid cell (below) whose markers' density at its
 * center (mac_density, the level set's measure) lies outside 1 +- band
 * asks the projection to make it grow (or shrink) by kappa times the
 * excess over the band in this substep: tgt, the target of its divergence
 * times dt. Near the surface or an obstacle the density reads the support
 * they leave empty as much as the markers' spacing, and pushing bunches
 * apart there moved the sloshing period (-1.9 to -4.8 %), so those cells
 * keep 0, as every cell does when kappa is 0 (the seed's scheme). */
FCL_INLINE void mac_density_target_item(uint c, GLOBAL const uint *flags, GLOBAL const uint *full,
                                        GLOBAL const uint *air, GLOBAL const float *dens, GLOBAL float *tgt,
                                        const fcl_mac_info *m, const fcl_sph_consts *cs, float kappa, float band,
                                        uint gen)
{
    uint i, j, k;
    mac_coords(c, m, &i, &j, &k);
    /* Deep: every cell within ceil(h / dx) + 1 fluid, no air or obstacle
     * within the poly6 support of its center, whose density then
     * measures the markers' spacing alone (the ghost layer does not
     * count: the density mirrors the markers across it). */
    if (flags[c] != MAC_FLUID || !(kappa > 0.0f) || air[0] != gen ||
        !mac_all_within(i, j, k, mac_reach(m, cs), full, 1u, m)) {
        tgt[c] = 0.0f;
        return;
    }
    float r = dens[c] - 1.0f;   /* mac_density, as every deep cell's (mac_density_field) */
    tgt[c] = kappa * (r > band ? r - band : (r < -band ? r + band : 0.0f));
}

/* Right-hand side and diagonal of the pressure equation, whose solution
 * makes each fluid cell's net outflow (the face velocities' flux, times
 * dx) tgt dx / dt (mac_density_target; 0 without it); rows of other
 * cells are identity rows with b = 0 and their pressure is zeroed, so the
 * conjugate gradients leave them at 0 (the warm start keeps fluid cells'). */
FCL_INLINE void mac_divergence_item(uint c, GLOBAL const float4 *vel, GLOBAL const uint *flags,
                                    GLOBAL const float *phi, GLOBAL const float *tgt, GLOBAL float *rhs,
                                    GLOBAL float *diag, GLOBAL float *p, const fcl_mac_info *m)
{
    if (flags[c] != MAC_FLUID) {
        rhs[c] = 0.0f;
        diag[c] = 1.0f;
        p[c] = 0.0f;
        return;
    }
    uint sy = m->sy, sz = m->sz;
    float4 u = vel[c];
    /* Solid faces count as 0 whatever they hold: the wall is at rest. */
    float flux = mac_open(flags, c + 1u) * vel[c + 1u].x - mac_open(flags, c - 1u) * u.x +
                 mac_open(flags, c + sy) * vel[c + sy].y - mac_open(flags, c - sy) * u.y +
                 mac_open(flags, c + sz) * vel[c + sz].z - mac_open(flags, c - sz) * u.z;
    float d = mac_coef(flags, phi, c, c - 1u, m) + mac_coef(flags, phi, c, c + 1u, m) +
              mac_coef(flags, phi, c, c - sy, m) + mac_coef(flags, phi, c, c + sy, m) +
              mac_coef(flags, phi, c, c - sz, m) + mac_coef(flags, phi, c, c + sz, m);
    /* A fluid cell walled in on all six sides has no equation. */
    rhs[c] = d > 0.0f ? -(m->rho * m->dx / m->dt) * (flux - tgt[c] * m->dx / m->dt) : 0.0f;
    diag[c] = d > 0.0f ? d : 1.0f;
    if (!(d > 0.0f))
        p[c] = 0.0f;
}

FCL_INLINE float mac_fluid_x(GLOBAL const uint *flags, GLOBAL const float *x, uint n)
{
    return flags[n] == MAC_FLUID ? x[n] : 0.0f;
}

/* y = A x, matrix-free: the diagonal from mac_divergence, -1 per fluid
 * neighbor. */
FCL_INLINE void mac_matvec_item(uint c, GLOBAL const float *x, GLOBAL float *y, GLOBAL const uint *flags,
                                GLOBAL const float *diag, const fcl_mac_info *m)
{
    if (flags[c] != MAC_FLUID) {
        y[c] = x[c];
        return;
    }
    uint sy = m->sy, sz = m->sz;
    y[c] = diag[c] * x[c] - (mac_fluid_x(flags, x, c - 1u) + mac_fluid_x(flags, x, c + 1u) +
                             mac_fluid_x(flags, x, c - sy) + mac_fluid_x(flags, x, c + sy) +
                             mac_fluid_x(flags, x, c - sz) + mac_fluid_x(flags, x, c + sz));
}

/* The lower face of cell c (upper cell c, lower cell n) after the
 * pressure gradient, with the ghost pressure on an air side. */
FCL_INLINE float mac_project_face(GLOBAL const uint *flags, GLOBAL const float *phi, GLOBAL const float *p, uint c,
                                  uint n, float u, const fcl_mac_info *m)
{
    uint fh = flags[c], fl = flags[n];
    if (fh == MAC_SOLID || fl == MAC_SOLID)
        return 0.0f;
    if (fh != MAC_FLUID && fl != MAC_FLUID)
        return u;
    float ph = p[c], pl = p[n];
    if (fh != MAC_FLUID) {
        float t = mac_theta(phi[n], phi[c], m);
        ph = -(1.0f - t) / t * pl;
    }
    if (fl != MAC_FLUID) {
        float t = mac_theta(phi[c], phi[n], m);
        pl = -(1.0f - t) / t * ph;
    }
    return u - m->dt / (m->rho * m->dx) * (ph - pl);
}

FCL_INLINE void mac_project_item(uint c, GLOBAL float4 *vel, GLOBAL const uint *flags, GLOBAL const float *phi,
                                 GLOBAL const float *p, const fcl_mac_info *m)
{
    uint i, j, k;
    mac_coords(c, m, &i, &j, &k);
    float4 v = vel[c];
    if (mac_face_real(i, j, k, 0u, m))
        v.x = mac_project_face(flags, phi, p, c, c - 1u, v.x, m);
    if (mac_face_real(i, j, k, 1u, m))
        v.y = mac_project_face(flags, phi, p, c, c - m->sy, v.y, m);
    if (mac_face_real(i, j, k, 2u, m))
        v.z = mac_project_face(flags, phi, p, c, c - m->sz, v.z, m);
    vel[c] = v;
}

/* Whether the lower face along a of cell q lies inside an obstacle: solid
 * cells on both sides (outside the grid counts as solid). */
FCL_INLINE int mac_face_inside(GLOBAL const uint *flags, uint q, uint a, const fcl_mac_info *m)
{
    uint s = mac_stride(a, m);
    return q < s || q >= m->ncell || (flags[q] == MAC_SOLID && flags[q - s] == MAC_SOLID);
}

/* Mask bits per cell: bit a, the lower face along a is known (next to
 * fluid, not solid); bit a + 3, it is fixed (a face between a solid cell
 * and another, or no face of the grid) and never extrapolated into. A
 * face inside an obstacle is extrapolated into as air is: the tangential
 * velocity an obstacle's first solid row holds is then the fluid's beside
 * it, and a sample between the two rows reads it (free slip, as the clamp
 * at the domain's walls gives; it read 0 there, half-slip: a dam break
 * over a raised floor ran 2 % behind the same over the domain's floor).
 * But one with faces outside the obstacle on two opposite sides (a wall
 * one cell thick) is fixed at 0: it would hold the mean of both sides,
 * and still liquid behind such a wall moved at 0.17 m/s (a review). */
FCL_INLINE uint mac_face_mask(GLOBAL const uint *flags, uint c, uint i, uint j, uint k, uint a,
                              const fcl_mac_info *m)
{
    if (!mac_face_real(i, j, k, a, m))
        return 8u << a;
    if (flags[c] == MAC_SOLID && flags[c - mac_stride(a, m)] == MAC_SOLID) {
        /* Only faces beside one outside are read by samples outside: the
         * deeper ones are fixed, so the layers skip the obstacle's inside
         * (extrapolating into all of it cost a third more there). */
        uint st[3] = { 1u, m->sy, m->sz }, near = 0u;
        for (uint e = 0u; e < 3u; e++) {
            int up = mac_face_inside(flags, c + st[e], a, m), down = mac_face_inside(flags, c - st[e], a, m);
            if (!up && !down)
                return 8u << a;
            near |= (uint)(!up || !down);
        }
        return near ? 0u : 8u << a;
    }
    if (mac_face_solid(flags, c, a, m))
        return 8u << a;
    return flags[c] == MAC_FLUID || flags[c - mac_stride(a, m)] == MAC_FLUID ? 1u << a : 0u;
}

/* Known faces keep their value, fixed ones too; the others start at 0. */
FCL_INLINE void mac_extrap_init_item(uint c, GLOBAL float4 *vel, GLOBAL const uint *flags, GLOBAL uint *mask,
                                     const fcl_mac_info *m)
{
    uint i, j, k;
    mac_coords(c, m, &i, &j, &k);
    uint b = mac_face_mask(flags, c, i, j, k, 0u, m) | mac_face_mask(flags, c, i, j, k, 1u, m) |
             mac_face_mask(flags, c, i, j, k, 2u, m);
    float4 v = vel[c];
    mask[c] = b;
    vel[c] = fcl_f4((b & 9u) ? v.x : 0.0f, (b & 18u) ? v.y : 0.0f, (b & 36u) ? v.z : 0.0f, 0.0f);
}

/* One face of an extrapolation layer: the mean of its known neighbors of
 * the same component, or its value as it was. */
FCL_INLINE float mac_extrap_face(GLOBAL const float4 *v, GLOBAL const uint *min, uint c, uint a, uint *b,
                                 const fcl_mac_info *m)
{
    float cur = mac_comp(v[c], a);
    if (*b & (9u << a))
        return cur;
    uint nb[6] = { c - 1u, c + 1u, c - m->sy, c + m->sy, c - m->sz, c + m->sz };
    float sum = 0.0f;
    uint cnt = 0u;
    for (uint q = 0u; q < 6u; q++)
        if ((min[nb[q]] >> a) & 1u) {
            sum += mac_comp(v[nb[q]], a);
            cnt++;
        }
    if (!cnt)
        return cur;
    *b |= 1u << a;
    return sum / (float)cnt;
}

FCL_INLINE void mac_extrap_layer_item(uint c, GLOBAL const float4 *vin, GLOBAL float4 *vout, GLOBAL const uint *min,
                                      GLOBAL uint *mout, const fcl_mac_info *m)
{
    uint b = min[c];
    /* Settled (every component known or fixed), at the grid's first or
     * last plane, or with no known face of its own or beside it (the air
     * away from the liquid): as it was. The last test reads the six
     * neighbors once where each component's walk read them again, and
     * is most of the grid. */
    if (((b | b >> 3) & 7u) == 7u || c < m->sz || c + m->sz >= m->ncell ||
        !((b | min[c - 1u] | min[c + 1u] | min[c - m->sy] | min[c + m->sy] | min[c - m->sz] | min[c + m->sz]) & 7u)) {
        vout[c] = vin[c];
        mout[c] = b;
        return;
    }
    float x = mac_extrap_face(vin, min, c, 0u, &b, m);
    float y = mac_extrap_face(vin, min, c, 1u, &b, m);
    float z = mac_extrap_face(vin, min, c, 2u, &b, m);
    vout[c] = fcl_f4(x, y, z, 0.0f);
    mout[c] = b;
}

/* The largest component on known faces (the CFL bound's max |u|). */
FCL_INLINE void mac_speed_item(uint c, GLOBAL const float4 *vel, GLOBAL const uint *mask, GLOBAL float *out)
{
    uint b = mask[c];
    float4 v = vel[c];
    float s = (b & 1u) ? mac_abs(v.x) : 0.0f;
    /* A NaN component is kept (the maximum's reduction keeps it too). */
    s = (b & 2u) && (mac_abs(v.y) > s || v.y != v.y) && s == s ? mac_abs(v.y) : s;
    s = (b & 4u) && (mac_abs(v.z) > s || v.z != v.z) && s == s ? mac_abs(v.z) : s;
    out[c] = s;
}
