/* levelset_speed.c - the level set's speed field F(x) = T + sum_i f(x, i)
 * (Premoze et al. 2003 s4, eq. 31-32), evaluated from particles sorted
 * into cells of its reach, cached per node for a frame; phi from F's sign
 * (the first frame's start, and fluid that appears beyond the band).
 * f is smooth, 1 / (1 + (d/r)^2) (k = 2) times (1 - d^2/R^2)^2, 0 beyond
 * the truncation radius R, or binary, 1 for d < r and 0 beyond, over a
 * ramp (ls_binary_f). d is stretched along the particle's velocity v by
 * s = min(1 + stretch |v| / h, max_stretch):
 * d^2 = a^2 / s^2 + p^2 s for the parts a along v and p across it, an
 * ellipsoid s r long and r / sqrt(s) wide, of the same volume (the seed's
 * eq. 32 adds |d_v| and d_perp, which is not a distance at rest).
 * Invariant: f = 0 beyond fd.reach of a particle, so F at x needs only the
 * 27 cells around x's cell; F[k] is valid where have[k] == 1.
 */
#include "levelset_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The particle cells within reach of x are those at most LS_SPAN cells
 * away (cells are at least reach / LS_SPAN wide): 125 cells of
 * (reach/2)^3 hold 2.2x fewer particles than 27 of reach^3. */
enum { LS_SPAN = 2 };

void ls_field_from_config(ls_field *f, const mc_config *c)
{
    float r = c->ls_radius * c->spacing, R = c->ls_truncation * c->spacing;
    f->binary = (int)c->ls_binary;
    f->T = c->ls_threshold != 0.0f ? c->ls_threshold : (c->ls_binary ? -0.5f : -2.0f);
    f->rbar = r;
    f->inv_ramp = 1.0f / c->spacing;
    f->rbar2 = r * r;
    f->inv_rbar2 = 1.0f / (r * r);
    f->rc2 = R * R;
    f->stretch_k = c->stretch > 0.0f ? c->stretch / c->h : 0.0f;
    f->max_stretch = f->stretch_k > 0.0f ? c->max_stretch : 1.0f;
    f->reach = (c->ls_binary ? r + 0.5f / f->inv_ramp : R) * f->max_stretch;
}

float ls_threshold_of(const mc_config *c)
{
    ls_field f;
    ls_field_from_config(&f, c);
    return f.T;
}

/* The binary f at stretched squared distance q2: 1 within r less half the
 * ramp, 0 beyond r plus half, linear between; the ramp a spacing wide. A
 * step, sampled at the nodes, kept the front moving between nodes of
 * opposite speed: a ball's still moved 0.023 cells an iteration after
 * the 200 allowed (36 iterations with the ramp), and the gaps between
 * particles lined up into tunnels that ate a resting block to 0.60 of its
 * volume at ls_radius 0.62. A ramp as wide as two level-set cells, where
 * that is more, blurred coarse grids: the block at 1.16 and 1.72 of its
 * volume at surface.ls_cell 1 and 2 (0.977 and 0.916 with a spacing). */
static inline float ls_binary_f(const ls_field *f, float q2)
{
    float t = 0.5f + (f->rbar - sqrtf(q2)) * f->inv_ramp;
    return t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
}

float ls_rest_speed(const mc_config *c)
{
    ls_field f;
    ls_field_from_config(&f, c);
    int m = (int)ceilf(f.reach / c->spacing) + 1;
    float sum = 0.0f;
    for (int i = -m; i <= m; i++)
        for (int j = -m; j <= m; j++)
            for (int k = -m; k <= m; k++) {
                float x = (float)i + 0.5f, y = (float)j + 0.5f, z = (float)k + 0.5f;
                float q2 = (x * x + y * y + z * z) * c->spacing * c->spacing, w = 1.0f - q2 / f.rc2;
                if (f.binary)
                    sum += ls_binary_f(&f, q2);
                else if (q2 < f.rc2)
                    sum += w * w / (1.0f + q2 * f.inv_rbar2);
            }
    return f.T + sum;
}

/* The stretch this frame's fastest particle gets bounds the reach, so a
 * resting frame searches no farther than an unstretched particle. */
void ls_field_fit(ls_field *f, const float4 *vel, size_t n)
{
    float v2 = 0.0f;
    for (size_t i = 0; vel && f->stretch_k > 0.0f && i < n; i++)
        v2 = fmaxf(v2, vel[i].x * vel[i].x + vel[i].y * vel[i].y + vel[i].z * vel[i].z);
    float s = fminf(1.0f + f->stretch_k * sqrtf(v2), f->max_stretch);
    f->reach = f->reach / f->max_stretch * s;
}

/* A particle's stretch, once (not per node it reaches): its unit velocity
 * and s in dir, 1 / s^2 in pos.w; at rest, or without stretching, dir 0
 * and s 1, which leave d^2 unstretched in ls_row_sum. */
static void ls_stretch_of(const ls_field *f, float4 v, float4 *p, float4 *dir)
{
    float v2 = v.x * v.x + v.y * v.y + v.z * v.z;
    *dir = (float4){ 0.0f, 0.0f, 0.0f, 1.0f };
    p->w = 1.0f;
    if (f->stretch_k > 0.0f && v2 > 0.0f) {
        float speed = sqrtf(v2), s = fminf(1.0f + f->stretch_k * speed, f->max_stretch);
        *dir = (float4){ v.x / speed, v.y / speed, v.z / speed, s };
        p->w = 1.0f / (s * s);
    }
}

/* Counting sort of the particles into cells of at least the reach over
 * their bounding box; cells grow when the box is sparse, so that there are
 * never many more cells than particles. */
int ls_pgrid_build(ls_pgrid *g, const float4 *pos, const float4 *vel, size_t n, const ls_field *f)
{
    float reach = f->reach;
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (size_t i = 0; i < n; i++) {
        const float p[3] = { pos[i].x, pos[i].y, pos[i].z };
        for (int a = 0; a < 3; a++)
            lo[a] = fminf(lo[a], p[a]), hi[a] = fmaxf(hi[a], p[a]);
    }
    double size = reach / LS_SPAN, vol = 1.0;
    for (int a = 0; a < 3; a++)
        vol *= (double)(hi[a] - lo[a]) + reach;
    if (vol / (size * size * size) > 4.0 * (double)n + 1e6)
        size = cbrt(vol / (4.0 * (double)n + 1e6));
    size_t cells = 1;
    for (int a = 0; a < 3; a++) {
        g->lo[a] = lo[a];
        g->n[a] = (int)((hi[a] - lo[a]) / size) + 1;
        cells *= (size_t)g->n[a];
    }
    g->size = (float)size;
    g->start = calloc(cells + 1, sizeof *g->start);
    g->pos = malloc((n ? n : 1) * sizeof *g->pos);
    g->dir = malloc((n ? n : 1) * sizeof *g->dir);
    uint *cell = malloc((n ? n : 1) * sizeof *cell);
    if (!g->start || !g->pos || !g->dir || !cell) {
        free(cell);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const float p[3] = { pos[i].x, pos[i].y, pos[i].z };
        size_t c = 0;
        for (int a = 2; a >= 0; a--) {
            int q = (int)((p[a] - g->lo[a]) / g->size);
            c = c * (size_t)g->n[a] + (size_t)(q < g->n[a] ? q : g->n[a] - 1);
        }
        cell[i] = (uint)c;
        g->start[c + 1]++;
    }
    for (size_t c = 0; c < cells; c++)
        g->start[c + 1] += g->start[c];
    for (size_t i = 0; i < n; i++) {
        uint at = g->start[cell[i]]++;
        g->pos[at] = pos[i];
        ls_stretch_of(f, vel ? vel[i] : (float4){ 0.0f, 0.0f, 0.0f, 0.0f }, &g->pos[at], &g->dir[at]);
    }
    memmove(g->start + 1, g->start, cells * sizeof *g->start);
    g->start[0] = 0;
    free(cell);
    return 0;
}

void ls_pgrid_free(ls_pgrid *g)
{
    free(g->start);
    free(g->pos);
    free(g->dir);
    memset(g, 0, sizeof *g);
}

#ifdef FCL_AVX512
/* ls_row_sum 16 particles at a time (a host built for AVX-512): rows are
 * a few dozen particles, and the compiler's own vector loop left most of
 * them to its scalar remainder. A sum per lane, added at the end. */
static float ls_row_sum16(const ls_field *f, const ls_pgrid *g, uint lo, uint hi, float x, float y, float z,
                          float r2)
{
    __m512 ox = _mm512_set1_ps(x), oy = _mm512_set1_ps(y), oz = _mm512_set1_ps(z), zero = _mm512_setzero_ps();
    __m512 one = _mm512_set1_ps(1.0f), inv_rc2 = _mm512_set1_ps(1.0f / f->rc2), inv_rbar2 = _mm512_set1_ps(f->inv_rbar2);
    __m512 acc = zero;
    for (uint q0 = lo; q0 < hi; q0 += 16u) {
        __mmask16 live = fcl_live16(hi - q0);
        __m512 px, py, pz, pw, ux, uy, uz, us;
        fcl_xyzw16(g->pos, q0, live, &px, &py, &pz, &pw);
        fcl_xyzw16(g->dir, q0, live, &ux, &uy, &uz, &us);
        __m512 dx = _mm512_sub_ps(ox, px), dy = _mm512_sub_ps(oy, py), dz = _mm512_sub_ps(oz, pz);
        __m512 d2 = _mm512_fmadd_ps(dz, dz, _mm512_fmadd_ps(dy, dy, _mm512_mul_ps(dx, dx)));
        __m512 a = _mm512_fmadd_ps(dz, uz, _mm512_fmadd_ps(dy, uy, _mm512_mul_ps(dx, ux)));
        __m512 p2 = _mm512_max_ps(_mm512_fnmadd_ps(a, a, d2), zero);
        __m512 q2 = _mm512_fmadd_ps(p2, us, _mm512_mul_ps(_mm512_mul_ps(a, a), pw));
        __m512 w = _mm512_fnmadd_ps(q2, inv_rc2, one);
        __mmask16 in = live & _mm512_cmp_ps_mask(d2, _mm512_set1_ps(r2), _CMP_LT_OQ);
        __m512 fq;
        if (f->binary) {
            /* ls_binary_f */
            __m512 t = _mm512_fmadd_ps(_mm512_sub_ps(_mm512_set1_ps(f->rbar), _mm512_sqrt_ps(q2)),
                                       _mm512_set1_ps(f->inv_ramp), _mm512_set1_ps(0.5f));
            fq = _mm512_min_ps(_mm512_max_ps(t, zero), one);
        } else {
            __mmask16 near = _mm512_cmp_ps_mask(q2, _mm512_set1_ps(f->rc2), _CMP_LT_OQ);
            fq = _mm512_maskz_div_ps(near, _mm512_mul_ps(w, w), _mm512_fmadd_ps(q2, inv_rbar2, one));
        }
        acc = _mm512_mask_add_ps(acc, in, acc, fq);
    }
    return _mm512_reduce_add_ps(acc);
}
#endif

/* sum of f over the sorted particles lo .. hi - 1 at x within the reach
 * (r2): d^2 stretched by each particle's s along its velocity (ls_stretch_of
 * made both once). Branch-free; with AVX-512, ls_row_sum16 (F's last bits
 * then depend on the build, never on the thread count). */
static float ls_row_sum(const ls_field *f, const ls_pgrid *g, uint lo, uint hi, float x, float y, float z, float r2)
{
#ifdef FCL_AVX512
    return ls_row_sum16(f, g, lo, hi, x, y, z, r2);
#else
    const float4 *pos = g->pos, *dir = g->dir;
    float sum = 0.0f, rc2 = f->rc2, inv_rc2 = 1.0f / f->rc2, inv_rbar2 = f->inv_rbar2;
    if (f->binary) {
        for (uint q = lo; q < hi; q++) {
            float dx = x - pos[q].x, dy = y - pos[q].y, dz = z - pos[q].z, d2 = dx * dx + dy * dy + dz * dz;
            float a = dx * dir[q].x + dy * dir[q].y + dz * dir[q].z, p2 = fmaxf(d2 - a * a, 0.0f);
            sum += d2 < r2 ? ls_binary_f(f, a * a * pos[q].w + p2 * dir[q].w) : 0.0f;
        }
        return sum;
    }
#pragma omp simd reduction(+ : sum)
    for (uint q = lo; q < hi; q++) {
        float dx = x - pos[q].x, dy = y - pos[q].y, dz = z - pos[q].z, d2 = dx * dx + dy * dy + dz * dz;
        float a = dx * dir[q].x + dy * dir[q].y + dz * dir[q].z, p2 = d2 - a * a;
        p2 = p2 > 0.0f ? p2 : 0.0f;   /* not fmaxf: a libm call, which keeps the loop scalar */
        float q2 = a * a * pos[q].w + p2 * dir[q].w, w = 1.0f - q2 * inv_rc2;
        float falloff = w * w / (1.0f + q2 * inv_rbar2);   /* on every lane, then chosen: never 1/0 */
        sum += d2 < r2 && q2 < rc2 ? falloff : 0.0f;
    }
    return sum;
#endif
}

/* F at (x, y, z); with bound, the sum stops once it reaches 0 (every f
 * is >= 0, so F is then >= 0: inside), and *partial says so. The rows in
 * one order either way, so an F that never stops has the same bits. */
static float speed_sum(const ls_state *s, float x, float y, float z, int bound, int *partial)
{
    const ls_pgrid *g = &s->pg;
    const float p[3] = { x, y, z };
    int c[3];
    *partial = 0;
    for (int a = 0; a < 3; a++) {
        float q = floorf((p[a] - g->lo[a]) / g->size);
        if (q < -(float)LS_SPAN || q >= (float)(g->n[a] + LS_SPAN))
            return s->fd.T; /* beyond reach of the particles' box */
        c[a] = (int)q;
    }
    float sum = 0.0f, r2 = s->fd.reach * s->fd.reach;
    int i0 = c[0] > LS_SPAN ? c[0] - LS_SPAN : 0, i1 = c[0] + LS_SPAN < g->n[0] ? c[0] + LS_SPAN : g->n[0] - 1;
    if (bound && c[1] >= 0 && c[2] >= 0 && c[1] < g->n[1] && c[2] < g->n[2]) {
        /* The row through x alone first: deep inside it is enough. */
        size_t row = (size_t)g->n[0] * ((size_t)c[1] + (size_t)g->n[1] * (size_t)c[2]);
        float mid = ls_row_sum(&s->fd, g, g->start[row + (size_t)i0], g->start[row + (size_t)i1 + 1], x, y, z, r2);
        if (s->fd.T + mid >= 0.0f) {
            *partial = 1;
            return s->fd.T + mid;
        }
    }
    for (int k = c[2] - LS_SPAN; k <= c[2] + LS_SPAN; k++)
        for (int j = c[1] - LS_SPAN; j <= c[1] + LS_SPAN; j++) {
            if (k < 0 || j < 0 || k >= g->n[2] || j >= g->n[1])
                continue;
            size_t row = (size_t)g->n[0] * ((size_t)j + (size_t)g->n[1] * (size_t)k);
            sum += ls_row_sum(&s->fd, g, g->start[row + (size_t)i0], g->start[row + (size_t)i1 + 1], x, y, z, r2);
            if (bound && s->fd.T + sum >= 0.0f) {
                *partial = 1;
                return s->fd.T + sum;
            }
        }
    return s->fd.T + sum;
}

static float node_speed_bounded(const ls_state *s, size_t q, int bound, int *partial)
{
    int i, j, k;
    ls_coords(s, q, &i, &j, &k);
    return speed_sum(s, s->cell * (float)(s->o[0] + i), s->cell * (float)(s->o[1] + j),
                     s->cell * (float)(s->o[2] + k), bound, partial);
}

static float node_speed(const ls_state *s, size_t q)
{
    int partial;
    return node_speed_bounded(s, q, 0, &partial);
}

/* F's sign on every node (the first frame): summed until it is known to
 * be >= 0, so a node deep inside stops after a few rows; such a node is
 * not cached (have 0) and its value is only a lower bound, until
 * ls_init_from_speed or a later use (ls_speed_nodes) sums it whole. */
void ls_speed_all(ls_state *s)
{
#pragma omp parallel for schedule(dynamic, 4096)
    for (size_t q = 0; q < s->nn; q++) {
        int partial;
        s->F[q] = node_speed_bounded(s, q, 1, &partial);
        s->have[q] = (unsigned char)!partial;
    }
}

/* F on the listed nodes that lack it (duplicates allowed). */
void ls_speed_nodes(ls_state *s, const uint *nodes, size_t count)
{
    size_t m = 0;
    uint *todo = malloc((count ? count : 1) * sizeof *todo);
    if (!todo) { /* computed one by one instead */
        for (size_t t = 0; t < count; t++)
            if (!s->have[nodes[t]])
                s->F[nodes[t]] = node_speed(s, nodes[t]), s->have[nodes[t]] = 1;
        return;
    }
    for (size_t t = 0; t < count; t++)
        if (!s->have[nodes[t]])
            s->have[nodes[t]] = 2, todo[m++] = nodes[t];
#pragma omp parallel for schedule(dynamic, 256)
    for (size_t t = 0; t < m; t++)
        s->F[todo[t]] = node_speed(s, todo[t]);
    for (size_t t = 0; t < m; t++)
        s->have[todo[t]] = 1;
    free(todo);
}

/* Trilinear F at a point inside the grid from the 8 cached nodes around
 * it (the caller made sure they are cached). */
float ls_speed_interp(const ls_state *s, float x, float y, float z)
{
    const float p[3] = { x, y, z };
    int c[3];
    float t[3];
    for (int a = 0; a < 3; a++) {
        float u = p[a] / s->cell - (float)s->o[a], f = floorf(u);
        f = fminf(fmaxf(f, 0.0f), (float)(s->n[a] - 2));
        c[a] = (int)f;
        t[a] = fminf(fmaxf(u - f, 0.0f), 1.0f);
    }
    float v = 0.0f;
    for (int e = 0; e < 8; e++) {
        int dx = e & 1, dy = (e >> 1) & 1, dz = e >> 2;
        float w = (dx ? t[0] : 1.0f - t[0]) * (dy ? t[1] : 1.0f - t[1]) * (dz ? t[2] : 1.0f - t[2]);
        v += w * s->F[ls_idx(s, c[0] + dx, c[1] + dy, c[2] + dz)];
    }
    return v;
}

/* phi at inner node q from F's signs at it and its 6 neighbors: the
 * distance to the zero crossings of F along the grid edges (linear in F),
 * combined over the axes as the distance to a plane through them, or
 * +-far away from every crossing. F >= 0 is inside. */
static float phi_from_speed(const ls_state *s, size_t q)
{
    int i, j, k;
    ls_coords(s, q, &i, &j, &k);
    float f0 = s->F[q], sign = f0 >= 0.0f ? 1.0f : -1.0f, inv2 = 0.0f;
    const size_t step[3] = { 1, (size_t)s->n[0], (size_t)s->n[0] * (size_t)s->n[1] };
    for (int a = 0; a < 3; a++) {
        float best = INFINITY;
        for (int side = -1; side <= 1; side += 2) {
            float f1 = s->F[side < 0 ? q - step[a] : q + step[a]];
            if ((f1 >= 0.0f) != (f0 >= 0.0f))
                best = fminf(best, f0 / (f0 - f1) * s->cell);
        }
        if (best < INFINITY)
            inv2 += 1.0f / fmaxf(best * best, 1e-12f * s->cell * s->cell);
    }
    return inv2 > 0.0f ? sign / sqrtf(inv2) : sign * s->far;
}

/* The first frame: phi from F on every node (ls_speed_all's signs; the
 * nodes inside beside one outside summed whole first, as phi there
 * interpolates F), the rim outside. */
void ls_init_from_speed(ls_state *s)
{
    const size_t step[3] = { 1, (size_t)s->n[0], (size_t)s->n[0] * (size_t)s->n[1] };
#pragma omp parallel for schedule(static)
    for (size_t q = 0; q < s->nn; q++) {
        int i, j, k, beside = 0;
        if (s->have[q])
            continue; /* summed whole already: skip the coordinates' divisions */
        ls_coords(s, q, &i, &j, &k);
        if (!ls_inner(s, i, j, k))
            continue;
        for (int a = 0; a < 3 && !beside; a++)
            beside = s->F[q - step[a]] < 0.0f || s->F[q + step[a]] < 0.0f;
        if (beside)
            s->have[q] = 2; /* F read here: no F written in this loop */
    }
#pragma omp parallel for schedule(dynamic, 256)
    for (size_t q = 0; q < s->nn; q++)
        if (s->have[q] == 2) {
            s->F[q] = node_speed(s, q);
            s->have[q] = 1;
        }
#pragma omp parallel for schedule(static)
    for (size_t q = 0; q < s->nn; q++) {
        int i, j, k;
        ls_coords(s, q, &i, &j, &k);
        s->phi[q] = ls_inner(s, i, j, k) ? phi_from_speed(s, q) : -s->far;
    }
}

/* Marks nodes within r of node (ci, cj, ck) (inner ones) into list, once
 * each (st = 3 until the caller clears it). */
static int box_nodes(ls_state *s, int ci, int cj, int ck, int r, uint **list, size_t *len, size_t *cap)
{
    for (int k = ck - r; k <= ck + r; k++)
        for (int j = cj - r; j <= cj + r; j++)
            for (int i = ci - r; i <= ci + r; i++) {
                if (!ls_inner(s, i, j, k))
                    continue;
                size_t q = ls_idx(s, i, j, k);
                if (s->st[q] == 3)
                    continue;
                s->st[q] = 3;
                if (ls_push(list, len, cap, (uint)q) != 0)
                    return -1;
            }
    return 0;
}

/* Around each candidate node (F of the sign that is news there), the
 * nodes still beyond the band on the other side (outside for fluid,
 * inside for a hole) get phi from F's sign as on a first frame, in a box
 * of r nodes; returns the candidates that seeded, or (size_t)-1 out of
 * memory. */
static size_t seed_boxes(ls_state *s, const uint *cand, size_t nc, int hole, int r)
{
    uint *box = NULL;
    size_t nb = 0, cb = 0, seeded = 0;
    float lim = (float)s->W * s->cell;
    int bad = 0;
    for (size_t t = 0; t < nc && !bad; t++) {
        float f = s->F[cand[t]], phi = s->phi[cand[t]];
        if (hole ? f >= 0.0f || phi < lim : f <= 0.0f || phi > -lim)
            continue;
        int i, j, k;
        ls_coords(s, cand[t], &i, &j, &k);
        bad = box_nodes(s, i, j, k, r, &box, &nb, &cb);
        seeded++;
    }
    /* The new values wait in their own array: redistancing's tmp must
     * stay +inf between its calls. */
    float *next = bad ? NULL : malloc((nb + 1) * sizeof *next);
    bad = bad || !next;
    if (!bad) {
        ls_speed_nodes(s, box, nb);
        const size_t step[3] = { 1, (size_t)s->n[0], (size_t)s->n[0] * (size_t)s->n[1] };
        for (size_t t = 0; t < nb; t++) {
            size_t q = box[t];
            int ok = hole ? s->phi[q] >= lim : s->phi[q] <= -lim;
            for (int a = 0; a < 3 && ok; a++)
                ok = s->st[q - step[a]] == 3 && s->st[q + step[a]] == 3;
            next[t] = ok ? phi_from_speed(s, q) : s->phi[q];
        }
        for (size_t t = 0; t < nb; t++)
            s->phi[box[t]] = next[t];
    }
    free(next);
    for (size_t t = 0; t < nb; t++)
        s->st[box[t]] = 0;
    free(box);
    return bad ? (size_t)-1 : seeded;
}

/* Fluid beyond the band: a particle whose nearest node lies outside the
 * surface by more than the band, with F > 0 there (a drop that left the
 * body faster than the front follows, fluid the viewer added). Around
 * each, nodes still beyond the band outside get phi from F's sign as on a
 * first frame; the box reaches 3 particle radii past the particle. Returns
 * the seeding particles, or (size_t)-1 out of memory. */
size_t ls_seed(ls_state *s, const float4 *pos, size_t n)
{
    uint *cand = NULL;
    size_t nc = 0, cc = 0;
    float lim = -(float)s->W * s->cell;
    int bad = 0;
    for (size_t p = 0; p < n && !bad; p++) {
        int i = (int)lroundf(pos[p].x / s->cell - (float)s->o[0]);
        int j = (int)lroundf(pos[p].y / s->cell - (float)s->o[1]);
        int k = (int)lroundf(pos[p].z / s->cell - (float)s->o[2]);
        if (ls_inner(s, i, j, k) && s->phi[ls_idx(s, i, j, k)] <= lim)
            bad = ls_push(&cand, &nc, &cc, (uint)ls_idx(s, i, j, k));
    }
    ls_speed_nodes(s, cand, bad ? 0 : nc);
    int r = (int)ceilf(3.0f * sqrtf(s->fd.rbar2) * s->fd.max_stretch / s->cell) + 1;
    size_t seeded = bad ? (size_t)-1 : seed_boxes(s, cand, nc, 0, r + 1);
    free(cand);
    return seeded;
}

/* A hole beyond the band: a node deep inside (phi at least the band) where
 * F < 0, air the fluid opened (a cavity 5 spacings wide in a block stayed
 * the block's mesh in every later frame; a review). Every second node
 * along each axis is looked at (a hole narrower than 2 cells, under a
 * spacing at the default cell, may go unseen; the dam break's frames 200
 * steps apart, continued, took 118 ms more a frame looking at every node
 * and 45 ms at every second, of 3.3 s a frame). F's sign there is summed
 * until it is known >= 0, which deep inside the fluid takes the row
 * through the node alone (ls_speed_all's bound); nodes found negative
 * were summed whole and are cached. Around each, the nodes still deep
 * inside get phi from F's sign, in a box as wide as ls_seed's. */
size_t ls_seed_holes(ls_state *s)
{
    float lim = (float)s->W * s->cell;
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = LS_RIM; k < s->n[2] - LS_RIM; k += 2)
        for (int j = LS_RIM; j < s->n[1] - LS_RIM; j += 2)
            for (int i = LS_RIM; i < s->n[0] - LS_RIM; i += 2) {
                size_t q = ls_idx(s, i, j, k);
                int partial;
                if (s->phi[q] < lim || s->have[q])
                    continue;   /* the band's side, or summed whole already */
                float f = node_speed_bounded(s, q, 1, &partial);
                if (!partial) {   /* summed whole */
                    s->F[q] = f;
                    s->have[q] = 1;
                }
            }
    uint *cand = NULL;
    size_t nc = 0, cc = 0;
    int bad = 0;
    for (size_t q = 0; q < s->nn && !bad; q++)
        if (s->phi[q] >= lim && s->have[q] && s->F[q] < 0.0f)
            bad = ls_push(&cand, &nc, &cc, (uint)q);
    int r = (int)ceilf(3.0f * sqrtf(s->fd.rbar2) * s->fd.max_stretch / s->cell) + 1;
    size_t seeded = bad ? (size_t)-1 : seed_boxes(s, cand, nc, 1, r + 1);
    free(cand);
    return seeded;
}
