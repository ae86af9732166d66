/* levelset_band.c - the level set's narrow band: the front (nodes with a
 * 6-neighbor across the zero set), redistancing of the band by fast
 * marching from the front, and the PDE step on the front.
 * dphi/dt = |grad phi| (F + beta r kappa), phi > 0 inside: where F > 0
 * (near particles) phi grows and the front moves out, where F < 0 it
 * moves in; kappa = div(grad phi / |grad phi|) is negative on a convex
 * surface, so the curvature term shrinks bumps (mean-curvature flow).
 * Invariant: only front nodes are moved by the PDE; every other band node
 * is the fast-marching distance from the front nodes' values, which fast
 * marching leaves as they are, so redistancing never moves the zero set
 * (each crossing edge joins two front nodes); F enters as F at the
 * closest point of the front, so a converged front has a zero speed and
 * phi stays a distance (the extension velocity of the level-set
 * literature).
 */
#include "levelset_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ls_push(uint **a, size_t *len, size_t *cap, uint v)
{
    if (*len == *cap) {
        size_t c = *cap ? 2 * *cap : 4096;
        uint *b = realloc(*a, c * sizeof *b);
        if (!b)
            return -1;
        *a = b;
        *cap = c;
    }
    (*a)[(*len)++] = v;
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

/* The front among the listed nodes. */
int ls_find_front(ls_state *s, const uint *nodes, size_t count)
{
    s->nfront = 0;
    for (size_t t = 0; t < count; t++)
        if (is_front(s, nodes[t]) && ls_push(&s->front, &s->nfront, &s->cap_front, nodes[t]) != 0)
            return -1;
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

static int heap_push(ls_state *s, float key, uint node)
{
    if (s->nheap == s->cap_heap) {
        size_t c = s->cap_heap ? 2 * s->cap_heap : 4096;
        ls_heap_item *h = realloc(s->heap, c * sizeof *h);
        if (!h)
            return -1;
        s->heap = h;
        s->cap_heap = c;
    }
    size_t i = s->nheap++;
    while (i > 0 && s->heap[(i - 1) / 2].key > key) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = (ls_heap_item){ key, node };
    return 0;
}

static ls_heap_item heap_pop(ls_state *s)
{
    ls_heap_item top = s->heap[0], last = s->heap[--s->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->nheap)
            break;
        if (c + 1 < s->nheap && s->heap[c + 1].key < s->heap[c].key)
            c++;
        if (s->heap[c].key >= last.key)
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->nheap)
        s->heap[i] = last;
    return top;
}

/* First-order upwind solution of |grad u| = 1 at node q from its known
 * neighbors' distances (tmp). */
static float eikonal(const ls_state *s, size_t q)
{
    const size_t step[3] = { 1, (size_t)s->n[0], (size_t)s->n[0] * (size_t)s->n[1] };
    float m[3], h = s->cell;
    int nm = 0;
    for (int a = 0; a < 3; a++) {
        float best = INFINITY;
        if (s->st[q - step[a]] == 2)
            best = s->tmp[q - step[a]];
        if (s->st[q + step[a]] == 2)
            best = fminf(best, s->tmp[q + step[a]]);
        if (best < INFINITY)
            m[nm++] = best;
    }
    for (int a = 1; a < nm; a++) /* sort, at most 3 */
        for (int b = a; b > 0 && m[b] < m[b - 1]; b--) {
            float t = m[b];
            m[b] = m[b - 1];
            m[b - 1] = t;
        }
    float u = m[0] + h;
    if (nm > 1 && u > m[1]) {
        float d = m[0] - m[1];
        u = 0.5f * (m[0] + m[1] + sqrtf(fmaxf(2.0f * h * h - d * d, 0.0f)));
        if (nm > 2 && u > m[2]) {
            float sum = m[0] + m[1] + m[2], sq = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
            u = (sum + sqrtf(fmaxf(sum * sum - 3.0f * (sq - h * h), 0.0f))) / 3.0f;
        }
    }
    return u;
}

/* New tentative distances for the neighbors of a node just known. */
static int relax(ls_state *s, size_t q)
{
    int i, j, k;
    ls_coords(s, q, &i, &j, &k);
    const int d[6][3] = { { -1, 0, 0 }, { 1, 0, 0 }, { 0, -1, 0 }, { 0, 1, 0 }, { 0, 0, -1 }, { 0, 0, 1 } };
    for (int e = 0; e < 6; e++) {
        int a = i + d[e][0], b = j + d[e][1], c = k + d[e][2];
        if (!ls_inner(s, a, b, c))
            continue;
        size_t r = ls_idx(s, a, b, c);
        if (s->st[r] == 2)
            continue;
        float u = eikonal(s, r);
        if (s->st[r] == 1 && u >= s->tmp[r])
            continue;
        if (s->st[r] == 0 && ls_push(&s->touched, &s->ntouched, &s->cap_touched, (uint)r) != 0)
            return -1;
        s->st[r] = 1;
        s->tmp[r] = u;
        if (heap_push(s, u, (uint)r) != 0)
            return -1;
    }
    return 0;
}

/* Nodes of the previous band that the new one lost, and trial nodes left
 * beyond it, go to +-far; the marks are cleared. */
static void settle(ls_state *s, const uint *old, size_t nold)
{
    for (size_t t = 0; t < nold; t++)
        if (s->st[old[t]] != 2)
            s->phi[old[t]] = inside(s->phi[old[t]]) ? s->far : -s->far;
    for (size_t t = 0; t < s->ntouched; t++)
        if (s->st[s->touched[t]] != 2)
            s->phi[s->touched[t]] = inside(s->phi[s->touched[t]]) ? s->far : -s->far;
    for (size_t t = 0; t < s->ntouched; t++)
        s->st[s->touched[t]] = 0;
    for (size_t t = 0; t < s->nfront; t++)
        s->st[s->front[t]] = 0;
    s->ntouched = 0;
    s->nheap = 0;
}

/* Fast marching out of the front to the band's half-width, on both sides
 * at once (distances are unsigned; a non-front node's neighbors all share
 * its sign). The band becomes the front and the nodes reached. */
int ls_redistance(ls_state *s)
{
    uint *old = s->band;
    size_t nold = s->nband;
    s->band = NULL;
    s->nband = s->cap_band = 0;
    float lim = (float)s->W * s->cell;
    int rc = 0;
    for (size_t t = 0; t < s->nfront && rc == 0; t++) {
        s->st[s->front[t]] = 2;
        s->tmp[s->front[t]] = fabsf(s->phi[s->front[t]]);
        rc = ls_push(&s->band, &s->nband, &s->cap_band, s->front[t]);
    }
    for (size_t t = 0; t < s->nfront && rc == 0; t++)
        rc = relax(s, s->front[t]);
    while (rc == 0 && s->nheap > 0) {
        ls_heap_item it = heap_pop(s);
        if (s->st[it.node] == 2)
            continue;
        if (it.key > lim)
            break;
        s->st[it.node] = 2;
        s->phi[it.node] = inside(s->phi[it.node]) ? it.key : -it.key;
        rc = ls_push(&s->band, &s->nband, &s->cap_band, it.node);
        if (rc == 0)
            rc = relax(s, it.node);
    }
    settle(s, old, nold);
    free(old);
    return rc;
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
