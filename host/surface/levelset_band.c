/* levelset_band.c - the level set's narrow band: the front (nodes with a
 * 6-neighbor across the zero set, kept in node order) and the PDE step
 * on the front (levelset_redistance.c rebuilds the band around it).
 * dphi/dt = |grad phi| (F + beta r kappa), phi > 0 inside: where F > 0
 * (near particles) phi grows and the front moves out, where F < 0 it
 * moves in; kappa = div(grad phi / |grad phi|) is negative on a convex
 * surface, so the curvature term shrinks bumps (mean-curvature flow).
 * Invariant: only front nodes are moved by the PDE; every other band node
 * is the upwind distance from the front nodes' values, which
 * redistancing leaves as they are, so it never moves the zero set (each
 * crossing edge joins two front nodes); F enters as F at the closest
 * point of the front, so a converged front has a zero speed and phi
 * stays a distance (the extension velocity of the level-set literature).
 */
#include "levelset_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lists start small: redistancing keeps one per pair of threads. */
int ls_grow(uint **a, size_t *cap)
{
    size_t c = *cap ? 2 * *cap : 64;
    uint *b = realloc(*a, c * sizeof *b);
    if (!b)
        return -1;
    *a = b;
    *cap = c;
    return 0;
}

static int inside(float v)
{
    return v >= 0.0f;
}

static int is_front(const ls_state *s, size_t q)
{
    int i, j, k;
    ls_coords(s, q, &i, &j, &k);
    if (!ls_inner(s, i, j, k))
        return 0;
    const size_t step[3] = { 1, (size_t)s->n[0], (size_t)s->n[0] * (size_t)s->n[1] };
    int in = inside(s->phi[q]);
    for (int a = 0; a < 3; a++)
        if (inside(s->phi[q - step[a]]) != in || inside(s->phi[q + step[a]]) != in)
            return 1;
    return 0;
}

/* The front among the listed nodes, in node order (the band's order
 * depends on the threads; the mesh's triangles follow the front's). */
int ls_find_front(ls_state *s, const uint *nodes, size_t count)
{
    s->nfront = 0;
    unsigned char *hit = malloc(count + 1);
    if (!hit)
        return -1;
#pragma omp parallel for schedule(static)
    for (size_t t = 0; t < count; t++)
        hit[t] = (unsigned char)is_front(s, nodes[t]);
    int rc = 0;
    for (size_t t = 0; t < count && rc == 0; t++)
        if (hit[t])
            rc = ls_push(&s->front, &s->nfront, &s->cap_front, nodes[t]);
    free(hit);
    uint *tmp = rc == 0 ? malloc((s->nfront + 1) * sizeof *tmp) : NULL;
    if (!tmp)
        return -1;
    ls_sort_nodes(s->front, tmp, s->nfront, s->nn);
    free(tmp);
    return 0;
}

/* The front over the whole grid (after the first frame's start, a new
 * grid or seeding), and the band becomes the front. */
int ls_find_front_all(ls_state *s)
{
    s->nfront = 0;
    for (size_t q = 0; q < s->nn; q++)
        if (is_front(s, q) && ls_push(&s->front, &s->nfront, &s->cap_front, (uint)q) != 0)
            return -1;
    return 0;
}

/* Derivatives of phi at inner node q (central; h = cell). */
typedef struct ls_deriv {
    float g[3];    /* gradient */
    float up[3];   /* phi(q + e_a) - phi(q), over h */
    float dn[3];   /* phi(q) - phi(q - e_a), over h */
    float kappa;   /* div(grad phi / |grad phi|), at most 1/h in size */
} ls_deriv;

static void derivs(const ls_state *s, size_t q, ls_deriv *d)
{
    const size_t st[3] = { 1, (size_t)s->n[0], (size_t)s->n[0] * (size_t)s->n[1] };
    const float *p = s->phi, h = s->cell, c = p[q];
    float xx[3], xy[3]; /* second derivatives: aa, and (a, a+1) */
    for (int a = 0; a < 3; a++) {
        float lo = p[q - st[a]], hi = p[q + st[a]];
        d->up[a] = (hi - c) / h;
        d->dn[a] = (c - lo) / h;
        d->g[a] = 0.5f * (hi - lo) / h;
        xx[a] = (hi - 2.0f * c + lo) / (h * h);
        size_t b = st[(a + 1) % 3], e = st[a];
        xy[a] = (p[q + e + b] - p[q + e - b] - p[q - e + b] + p[q - e - b]) / (4.0f * h * h);
    }
    float gx = d->g[0], gy = d->g[1], gz = d->g[2], g2 = gx * gx + gy * gy + gz * gz;
    float num = xx[0] * (gy * gy + gz * gz) + xx[1] * (gx * gx + gz * gz) + xx[2] * (gx * gx + gy * gy) -
                2.0f * (gx * gy * xy[0] + gy * gz * xy[1] + gz * gx * xy[2]);
    float k = g2 > 1e-12f ? num / (g2 * sqrtf(g2)) : 0.0f;
    d->kappa = fminf(fmaxf(k, -1.0f / h), 1.0f / h);
}

/* Godunov's upwind |grad phi| for dphi/dt = a |grad phi|: a > 0 moves the
 * front outward (toward -grad phi), so differences come from inside. */
static float upwind_norm(const ls_deriv *d, float a)
{
    float s = 0.0f;
    for (int k = 0; k < 3; k++) {
        float u = a > 0.0f ? fmaxf(d->up[k], 0.0f) : fminf(d->up[k], 0.0f);
        float w = a > 0.0f ? fminf(d->dn[k], 0.0f) : fmaxf(d->dn[k], 0.0f);
        s += u * u + w * w;
    }
    return sqrtf(s);
}

/* The closest point of the front to node q, x - phi grad phi / |grad phi|^2. */
static void closest(const ls_state *s, size_t q, const ls_deriv *d, float x[3])
{
    int ijk[3];
    ls_coords(s, q, &ijk[0], &ijk[1], &ijk[2]);
    float g2 = d->g[0] * d->g[0] + d->g[1] * d->g[1] + d->g[2] * d->g[2];
    float phi = fminf(fmaxf(s->phi[q], -1.5f * s->cell), 1.5f * s->cell);
    for (int a = 0; a < 3; a++)
        x[a] = s->cell * (float)(s->o[a] + ijk[a]) - (g2 > 1e-12f ? phi * d->g[a] / g2 : 0.0f);
}

/* F must be cached on the 8 nodes around each front node's closest point. */
static int cache_speeds(ls_state *s, float *cp)
{
    uint *need = malloc((8 * s->nfront + 1) * sizeof *need);
    if (!need)
        return -1;
    for (size_t t = 0; t < s->nfront; t++) {
        int c[3];
        for (int a = 0; a < 3; a++) {
            float f = floorf(cp[3 * t + a] / s->cell - (float)s->o[a]);
            c[a] = (int)fminf(fmaxf(f, 0.0f), (float)(s->n[a] - 2));
        }
        for (int e = 0; e < 8; e++)
            need[8 * t + e] = (uint)ls_idx(s, c[0] + (e & 1), c[1] + ((e >> 1) & 1), c[2] + (e >> 2));
    }
    ls_speed_nodes(s, need, 8 * s->nfront);
    free(need);
    return 0;
}

/* One explicit step of the front nodes (Jacobi: all rates from the old
 * phi): upwind F |grad phi| with F at the closest point, plus
 * beta_r kappa |grad phi| by central differences. dt shrinks for this
 * step if a node would move more than half a cell. Returns the largest
 * move in cells, or -1 out of memory. */
double ls_step(ls_state *s, float beta_r, float dt)
{
    size_t nf = s->nfront;
    float *cp = malloc((3 * nf + 1) * sizeof *cp), *rate = malloc((nf + 1) * sizeof *rate);
    if (!cp || !rate) {
        free(cp);
        free(rate);
        return -1.0;
    }
#pragma omp parallel for schedule(static)
    for (size_t t = 0; t < nf; t++) {
        ls_deriv d;
        derivs(s, s->front[t], &d);
        closest(s, s->front[t], &d, cp + 3 * t);
    }
    double top = 0.0;
    if (cache_speeds(s, cp) == 0) {
#pragma omp parallel for schedule(static) reduction(max : top)
        for (size_t t = 0; t < nf; t++) {
            ls_deriv d;
            derivs(s, s->front[t], &d);
            float a = ls_speed_interp(s, cp[3 * t], cp[3 * t + 1], cp[3 * t + 2]);
            float gc = sqrtf(d.g[0] * d.g[0] + d.g[1] * d.g[1] + d.g[2] * d.g[2]);
            rate[t] = a * upwind_norm(&d, a) + beta_r * d.kappa * gc;
            top = fmax(top, fabsf(rate[t]));
        }
    } else {
        top = -1.0;
    }
    if (top > 0.0 && dt * top > 0.5 * s->cell)
        dt = (float)(0.5 * s->cell / top);
    for (size_t t = 0; t < nf && top > 0.0; t++)
        s->phi[s->front[t]] += dt * rate[t];
    free(cp);
    free(rate);
    return top < 0.0 ? -1.0 : dt * top / s->cell;
}
