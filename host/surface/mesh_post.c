/* mesh_post.c - optional post-processing of a marching-cubes mesh: Taubin
 * smoothing (mesh_smooth.c), then edge collapses ordered by quadric error
 * (Garland & Heckbert 1997), then vertex normals again; and what both
 * share (mesh_post_impl.h: face cross products, normals, half-edge rings).
 * Invariant: a closed, consistently oriented 2-manifold stays one.
 * Smoothing moves vertices only. A collapse is made only when the link
 * condition holds (the two ends share exactly the two opposite vertices),
 * the mesh there is not a tetrahedron, and no remaining triangle turns over
 * or becomes worse than a sliver; vertices on a boundary, a non-manifold
 * edge or a pinched fan (input that is not closed) never move. Every buffer
 * is allocated before the mesh is touched, so a failure leaves it as it was.
 */
#include "mesh_post.h"
#include "mesh_post_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A collapse may not turn a remaining triangle's normal by more than
 * acos(0.2) = 78 degrees, nor leave it with quality 2 sqrt(3) |cross| /
 * (sum of squared edges) below 0.02 (1 = equilateral) unless it was worse
 * before: marching cubes' own slivers may improve, none is made. */
#define FLIP_COS 0.2
#define MIN_QUALITY 0.02
#define DEAD_TRI UINT32_MAX
enum { V_DEAD = 1, V_LOCKED = 2 };

/* (b - a) x (c - a) of triangle t in double: it points out of the fluid
 * (counter-clockwise from outside) and its length is twice the area. */
void mp_face_cross(const float4 *v, const uint *t, double x[3])
{
    const float4 a = v[t[0]], b = v[t[1]], c = v[t[2]];
    double u[3] = { b.x - a.x, b.y - a.y, b.z - a.z }, w[3] = { c.x - a.x, c.y - a.y, c.z - a.z };
    x[0] = u[1] * w[2] - u[2] * w[1];
    x[1] = u[2] * w[0] - u[0] * w[2];
    x[2] = u[0] * w[1] - u[1] * w[0];
}

/* Unit vertex normals: the sum of the incident triangles' cross products,
 * which weights each face normal by its area. Accumulated in m->n itself
 * so that no buffer is needed; a vertex without area gets (0, 0, 0). */
void mp_vertex_normals(mc_mesh *m)
{
    memset(m->n, 0, m->nv * sizeof *m->n);
    for (size_t t = 0; t < m->nt; t++) {
        double x[3];
        mp_face_cross(m->v, &m->tri[3 * t], x);
        for (int k = 0; k < 3; k++) {
            float4 *n = &m->n[m->tri[3 * t + k]];
            n->x += (float)x[0];
            n->y += (float)x[1];
            n->z += (float)x[2];
        }
    }
    for (size_t i = 0; i < m->nv; i++) {
        float4 *n = &m->n[i];
        float l = sqrtf(n->x * n->x + n->y * n->y + n->z * n->z);
        float s = l > 0.0f ? 1.0f / l : 0.0f;
        *n = fcl_f4(n->x * s, n->y * s, n->z * s, 0.0f);
    }
}

/* Safe twice: mp_ring_build frees on failure, and its caller's error path
 * again (a double free once; a review). */
void mp_ring_free(mp_ring *r)
{
    free(r->start);
    free(r->nb);
    free(r->pv);
    r->start = r->nb = r->pv = NULL;
}

int mp_ring_build(const mc_mesh *m, mp_ring *r)
{
    r->start = calloc(m->nv + 1, sizeof(uint));
    r->nb = malloc(3 * m->nt * sizeof(uint));
    r->pv = malloc(3 * m->nt * sizeof(uint));
    if (!r->start || !r->nb || !r->pv) {
        mp_ring_free(r);
        return -1;
    }
    /* Counts, inclusive prefix sums (start[i] = end of i's run), then each
     * run filled backwards so that start[i] ends at its beginning. */
    for (size_t e = 0; e < 3 * m->nt; e++)
        r->start[m->tri[e]]++;
    for (size_t i = 1; i <= m->nv; i++)
        r->start[i] += r->start[i - 1];
    for (size_t t = 0; t < m->nt; t++)
        for (int k = 0; k < 3; k++) {
            uint e = --r->start[m->tri[3 * t + k]];
            r->nb[e] = m->tri[3 * t + (k + 1) % 3];
            r->pv[e] = m->tri[3 * t + (k + 2) % 3];
        }
    return 0;
}

/* ---- Decimation --------------------------------------------------------- */

/* A candidate collapse of edge (a, b); stale entries are not removed but
 * recognised when popped (an end dead, or the cost no longer the edge's). */
typedef struct hitem {
    float cost;
    uint a, b;
} hitem;

/* Quadrics: per vertex the upper triangle of the 4x4 plane quadric
 * (xx xy xz xd yy yz yd zz zd dd, area-weighted) and the area summed. */
enum { QN = 11 };

typedef struct dec {
    mc_mesh *m;
    double *q;
    uint8_t *flag;   /* V_DEAD, V_LOCKED */
    uint *fs, *fn;   /* vertex i's triangles: pool[fs[i] .. fs[i] + fn[i]),
                        dead ones among them until the list is rewritten */
    uint *pool, *spare;
    size_t npool, cap;
    hitem *heap;
    size_t nheap, hcap;
    uint *mark, stamp;
    size_t alive;    /* triangles left */
    double max_err2; /* area-weighted mean squared distance allowed */
} dec;

static void dec_free(dec *d)
{
    free(d->q);
    free(d->flag);
    free(d->fs);
    free(d->fn);
    free(d->pool);
    free(d->spare);
    free(d->heap);
    free(d->mark);
}

static int dec_alloc(dec *d, mc_mesh *m)
{
    memset(d, 0, sizeof *d);
    d->m = m;
    /* Face lists hold 3 entries per live triangle; the slack of nt lets
     * collapses append rewritten lists before a compaction is due. The
     * heap holds every edge (1.5 nt) twice over before stale entries are
     * weeded out. */
    d->cap = 4 * m->nt + 64;
    d->hcap = 3 * m->nt + 64;
    d->q = calloc(m->nv * QN, sizeof *d->q);
    d->flag = calloc(m->nv, 1);
    d->fs = malloc(m->nv * sizeof(uint));
    d->fn = calloc(m->nv, sizeof(uint));
    d->pool = malloc(d->cap * sizeof(uint));
    d->spare = malloc(d->cap * sizeof(uint));
    d->heap = malloc(d->hcap * sizeof(hitem));
    d->mark = calloc(m->nv, sizeof(uint));
    d->alive = m->nt;
    if (d->q && d->flag && d->fs && d->fn && d->pool && d->spare && d->heap && d->mark)
        return 0;
    dec_free(d);
    return -1;
}

/* Each triangle's plane n.x + c = 0 (unit n), weighted by its area, added
 * to its three vertices' quadrics; and the vertex-triangle lists. */
static void dec_quadrics(dec *d)
{
    const mc_mesh *m = d->m;
    for (size_t t = 0; t < m->nt; t++) {
        double x[3];
        mp_face_cross(m->v, &m->tri[3 * t], x);
        double l = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        for (int k = 0; k < 3; k++)
            d->fn[m->tri[3 * t + k]]++;
        if (l == 0.0)
            continue;
        const float4 a = m->v[m->tri[3 * t]];
        double n[3] = { x[0] / l, x[1] / l, x[2] / l }, c = -(n[0] * a.x + n[1] * a.y + n[2] * a.z), w = 0.5 * l;
        double k4[QN] = { n[0] * n[0], n[0] * n[1], n[0] * n[2], n[0] * c, n[1] * n[1], n[1] * n[2], n[1] * c,
                          n[2] * n[2], n[2] * c, c * c, 1.0 };
        for (int k = 0; k < 3; k++) {
            double *q = &d->q[QN * (size_t)m->tri[3 * t + k]];
            for (int j = 0; j < QN; j++)
                q[j] += w * k4[j];
        }
    }
    size_t s = 0;
    for (size_t i = 0; i < m->nv; i++) {
        d->fs[i] = (uint)s;
        s += d->fn[i];
        d->fn[i] = 0;
    }
    for (size_t t = 0; t < m->nt; t++)
        for (int k = 0; k < 3; k++) {
            uint v = m->tri[3 * t + k];
            d->pool[d->fs[v] + d->fn[v]++] = (uint)t;
        }
    d->npool = s;
}

/* Lock vertices whose fan is not a closed disk: a half-edge listed twice
 * (non-manifold edge), a third vertex with no half-edge back (boundary), or
 * a walk around the fan that does not visit every triangle (pinch). */
static void dec_locks(dec *d, const mp_ring *r)
{
    for (size_t i = 0; i < d->m->nv; i++) {
        uint e0 = r->start[i], n = r->start[i + 1] - e0, steps = 0, cur = e0, ok = n > 0;
        for (uint e = e0; ok && e < e0 + n; e++)
            for (uint f = e + 1; f < e0 + n; f++)
                ok &= r->nb[e] != r->nb[f];
        while (ok && steps < n) {
            uint next = UINT32_MAX;
            for (uint e = e0; e < e0 + n; e++)
                if (r->nb[e] == r->pv[cur])
                    next = e;
            ok = next != UINT32_MAX;
            cur = next;
            steps++;
            if (cur == e0)
                break;
        }
        if (!ok || cur != e0 || steps != n)
            d->flag[i] |= V_LOCKED;
    }
}

/* The quadric's value at p: p^T A p + 2 b.p + c. */
static double qeval(const double *q, const double p[3])
{
    const double x = p[0], y = p[1], z = p[2];
    return q[0] * x * x + 2.0 * q[1] * x * y + 2.0 * q[2] * x * z + 2.0 * q[3] * x + q[4] * y * y +
           2.0 * q[5] * y * z + 2.0 * q[6] * y + q[7] * z * z + 2.0 * q[8] * z + q[9];
}

/* Best of the two ends and the midpoint, for a quadric without a single
 * well-placed minimum. */
static double best_of_three(const double *q, const double pa[3], const double pb[3], double p[3])
{
    double c[3][3], best = INFINITY;
    for (int k = 0; k < 3; k++) {
        c[2][k] = 0.5 * (pa[k] + pb[k]);
        c[0][k] = pa[k];
        c[1][k] = pb[k];
    }
    for (int j = 0; j < 3; j++) {
        double e = qeval(q, c[j]);
        if (e < best) {
            best = e;
            memcpy(p, c[j], sizeof c[j]);
        }
    }
    return best;
}

/* Where the merged vertex of edge (a, b) goes, and its error under
 * Qa + Qb (weight sum in *w): the quadric's minimum when its 3x3 part is
 * well conditioned and the minimum lies within an edge length of the
 * midpoint; else the best of the ends and the midpoint (a flat or
 * cylindrical patch has a plane or line of minima, and Cramer's rule would
 * pick a point of it from round-off). */
static double edge_cost(const dec *d, uint a, uint b, double p[3], double *w)
{
    double q[QN];
    for (int j = 0; j < QN; j++)
        q[j] = d->q[QN * (size_t)a + j] + d->q[QN * (size_t)b + j];
    *w = q[10];
    const float4 va = d->m->v[a], vb = d->m->v[b];
    const double pa[3] = { va.x, va.y, va.z }, pb[3] = { vb.x, vb.y, vb.z };
    double c0 = q[4] * q[7] - q[5] * q[5], c1 = q[2] * q[5] - q[1] * q[7], c2 = q[1] * q[5] - q[2] * q[4];
    double det = q[0] * c0 + q[1] * c1 + q[2] * c2, tr = q[0] + q[4] + q[7];
    if (fabs(det) > 1e-9 * tr * tr * tr) {
        /* p = -A^-1 b by the adjugate (A symmetric). */
        double c4 = q[0] * q[7] - q[2] * q[2], c5 = q[1] * q[2] - q[0] * q[5], c8 = q[0] * q[4] - q[1] * q[1];
        p[0] = -(c0 * q[3] + c1 * q[6] + c2 * q[8]) / det;
        p[1] = -(c1 * q[3] + c4 * q[6] + c5 * q[8]) / det;
        p[2] = -(c2 * q[3] + c5 * q[6] + c8 * q[8]) / det;
        double l2 = 0.0, m2 = 0.0;
        for (int k = 0; k < 3; k++) {
            l2 += (pa[k] - pb[k]) * (pa[k] - pb[k]);
            m2 += (p[k] - 0.5 * (pa[k] + pb[k])) * (p[k] - 0.5 * (pa[k] + pb[k]));
        }
        if (m2 <= l2)
            return fmax(0.0, qeval(q, p));
    }
    return fmax(0.0, best_of_three(q, pa, pb, p));
}

static void sift_down(hitem *h, size_t n, size_t i)
{
    hitem x = h[i];
    for (size_t c; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && h[c + 1].cost < h[c].cost)
            c++;
        if (!(h[c].cost < x.cost))
            break;
        h[i] = h[c];
    }
    h[i] = x;
}

static void heapify(dec *d)
{
    for (size_t i = d->nheap / 2; i-- > 0;)
        sift_down(d->heap, d->nheap, i);
}

/* An entry is current when both ends live and the cost is still the
 * edge's; a change to either end pushed a fresh entry for it. */
static int current(const dec *d, const hitem *h, double p[3], double *w)
{
    if ((d->flag[h->a] | d->flag[h->b]) & V_DEAD)
        return 0;
    return (float)edge_cost(d, h->a, h->b, p, w) == h->cost;
}

/* A full heap sheds its stale entries (a sweep, then heapify); an entry
 * that still does not fit is dropped, and that edge is not collapsed. */
static void heap_push(dec *d, float cost, uint a, uint b)
{
    if (d->nheap == d->hcap) {
        size_t k = 0;
        double p[3], w;
        for (size_t i = 0; i < d->nheap; i++)
            if (current(d, &d->heap[i], p, &w))
                d->heap[k++] = d->heap[i];
        d->nheap = k;
        heapify(d);
        if (k == d->hcap)
            return;
    }
    size_t i = d->nheap++;
    for (; i > 0 && cost < d->heap[(i - 1) / 2].cost; i = (i - 1) / 2)
        d->heap[i] = d->heap[(i - 1) / 2];
    d->heap[i] = (hitem){ cost, a, b };
}

static hitem heap_pop(dec *d)
{
    hitem top = d->heap[0];
    d->heap[0] = d->heap[--d->nheap];
    sift_down(d->heap, d->nheap, 0);
    return top;
}

/* Candidate collapses of every edge of the mesh (each once, from its
 * lower end), in one heap build. */
static void dec_seed(dec *d, const mp_ring *r)
{
    for (size_t a = 0; a < d->m->nv; a++)
        for (uint e = r->start[a]; e < r->start[a + 1]; e++) {
            uint b = r->nb[e];
            double p[3], w;
            if (a < b && !((d->flag[a] | d->flag[b]) & V_LOCKED) && d->nheap < d->hcap)
                d->heap[d->nheap++] = (hitem){ (float)edge_cost(d, (uint)a, b, p, &w), (uint)a, b };
        }
    heapify(d);
}

static int has(const uint *t, uint v)
{
    return t[0] == v || t[1] == v || t[2] == v;
}

static uint third(const uint *t, uint a, uint b)
{
    return t[0] != a && t[0] != b ? t[0] : t[1] != a && t[1] != b ? t[1] : t[2];
}

/* Link condition: a and b share exactly two triangles, whose third
 * vertices c and e are the only neighbors they share; and not a
 * tetrahedron (triangles a c e and b c e both there), which would collapse
 * into two triangles back to back. */
static int link_ok(dec *d, uint a, uint b)
{
    const uint *tri = d->m->tri, *fa = &d->pool[d->fs[a]], *fb = &d->pool[d->fs[b]];
    /* Two fresh stamps: s marks a's ring, s + 1 the shared neighbors. */
    uint s = d->stamp + 1, opp[2], nshared = 0, common = 0, tet = 0;
    d->stamp += 2;
    for (uint k = 0; k < d->fn[a]; k++) {
        const uint *t = &tri[3 * (size_t)fa[k]];
        if (t[0] == DEAD_TRI)
            continue;
        for (int j = 0; j < 3; j++)
            d->mark[t[j]] = s;
        if (has(t, b) && nshared < 2)
            opp[nshared] = third(t, a, b);
        nshared += has(t, b);
    }
    if (nshared != 2)
        return 0;
    for (uint k = 0; k < d->fn[b]; k++) {
        const uint *t = &tri[3 * (size_t)fb[k]];
        for (int j = 0; t[0] != DEAD_TRI && j < 3; j++)
            if (t[j] != a && t[j] != b && d->mark[t[j]] == s) {
                d->mark[t[j]] = s + 1;
                common++;
            }
    }
    for (int side = 0; side < 2; side++) {
        uint v = side ? b : a, o = side ? a : b;
        const uint *f = &d->pool[d->fs[v]];
        for (uint k = 0; k < d->fn[v]; k++) {
            const uint *t = &tri[3 * (size_t)f[k]];
            tet += t[0] != DEAD_TRI && !has(t, o) && has(t, opp[0]) && has(t, opp[1]);
        }
    }
    return common == 2 && tet < 2;
}

/* quality 2 sqrt(3) |x| / (sum of squared edges), x the cross product. */
static double quality(const double *p0, const double *p1, const double *p2, double x[3])
{
    double u[3], w[3], l2 = 0.0;
    for (int k = 0; k < 3; k++) {
        u[k] = p1[k] - p0[k];
        w[k] = p2[k] - p0[k];
        l2 += u[k] * u[k] + w[k] * w[k] + (p2[k] - p1[k]) * (p2[k] - p1[k]);
    }
    x[0] = u[1] * w[2] - u[2] * w[1];
    x[1] = u[2] * w[0] - u[0] * w[2];
    x[2] = u[0] * w[1] - u[1] * w[0];
    double xl = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    return l2 > 0.0 ? 2.0 * sqrt(3.0) * xl / l2 : 0.0;
}

/* Whether moving v (one end; o the other) to p keeps each of its
 * triangles that survives (those without o) facing the same way and no
 * worse than a sliver (FLIP_COS, MIN_QUALITY). */
static int fan_ok(const dec *d, uint v, uint o, const double p[3])
{
    const uint *f = &d->pool[d->fs[v]];
    for (uint k = 0; k < d->fn[v]; k++) {
        const uint *t = &d->m->tri[3 * (size_t)f[k]];
        if (t[0] == DEAD_TRI || has(t, o))
            continue;
        double before[3][3], after[3][3], x0[3], x1[3];
        for (int j = 0; j < 3; j++) {
            const float4 q = d->m->v[t[j]];
            before[j][0] = after[j][0] = q.x;
            before[j][1] = after[j][1] = q.y;
            before[j][2] = after[j][2] = q.z;
            if (t[j] == v)
                memcpy(after[j], p, sizeof after[j]);
        }
        double q0 = quality(before[0], before[1], before[2], x0), q1 = quality(after[0], after[1], after[2], x1);
        double dot = x0[0] * x1[0] + x0[1] * x1[1] + x0[2] * x1[2];
        double n0 = sqrt(x0[0] * x0[0] + x0[1] * x0[1] + x0[2] * x0[2]);
        double n1 = sqrt(x1[0] * x1[0] + x1[1] * x1[1] + x1[2] * x1[2]);
        if ((q1 < MIN_QUALITY && !(q1 > q0)) || (n0 > 0.0 && dot <= FLIP_COS * n0 * n1))
            return 0;
    }
    return 1;
}

/* Rewrite every live vertex's list of live triangles into the spare pool
 * (3 per live triangle, so it fits) and swap the pools. */
static void pool_compact(dec *d)
{
    size_t s = 0;
    for (size_t i = 0; i < d->m->nv; i++) {
        uint k0 = d->fs[i], n = d->fn[i];
        d->fs[i] = (uint)s;
        d->fn[i] = 0;
        for (uint k = 0; !(d->flag[i] & V_DEAD) && k < n; k++)
            if (d->m->tri[3 * (size_t)d->pool[k0 + k]] != DEAD_TRI)
                d->spare[s + d->fn[i]++] = d->pool[k0 + k];
        s += d->fn[i];
    }
    uint *t = d->pool;
    d->pool = d->spare;
    d->spare = t;
    d->npool = s;
}

/* b into a at p: the two shared triangles die, b's others take a, and a's
 * list becomes both lists' live triangles, appended to the pool. */
static void collapse(dec *d, uint a, uint b, const double p[3])
{
    if (d->npool + d->fn[a] + d->fn[b] > d->cap)
        pool_compact(d);
    uint *tri = d->m->tri, s = (uint)d->npool, n = 0;
    for (int side = 0; side < 2; side++) {
        uint v = side ? b : a, k0 = d->fs[v];
        for (uint k = 0; k < d->fn[v]; k++) {
            uint f = d->pool[k0 + k], *t = &tri[3 * (size_t)f];
            if (t[0] == DEAD_TRI)
                continue;
            if (has(t, a) && has(t, b)) {
                t[0] = DEAD_TRI;
                d->alive--;
                continue;
            }
            for (int j = 0; j < 3; j++)
                t[j] = t[j] == b ? a : t[j];
            d->pool[s + n++] = f;
        }
    }
    d->fs[a] = s;
    d->fn[a] = n;
    d->npool = s + n;
    d->flag[b] |= V_DEAD;
    for (int j = 0; j < QN; j++)
        d->q[QN * (size_t)a + j] += d->q[QN * (size_t)b + j];
    d->m->v[a] = fcl_f4((float)p[0], (float)p[1], (float)p[2], 0.0f);
}

/* Fresh candidates for every edge of a, each neighbor once. */
static void requeue(dec *d, uint a)
{
    uint s = ++d->stamp;
    const uint *f = &d->pool[d->fs[a]];
    for (uint k = 0; k < d->fn[a]; k++) {
        const uint *t = &d->m->tri[3 * (size_t)f[k]];
        for (int j = 0; j < 3; j++) {
            uint v = t[j];
            double p[3], w;
            if (v == a || d->mark[v] == s || (d->flag[v] & V_LOCKED))
                continue;
            d->mark[v] = s;
            heap_push(d, (float)edge_cost(d, a, v, p, &w), a, v);
        }
    }
}

/* Live triangles and the vertices they use, renumbered in their old order
 * and moved down in place; then normals. */
static void compact_mesh(dec *d)
{
    mc_mesh *m = d->m;
    uint *map = d->mark;
    size_t nv = 0, nt = 0;
    memset(map, 0xff, m->nv * sizeof *map);
    for (size_t t = 0; t < m->nt; t++)
        for (int j = 0; m->tri[3 * t] != DEAD_TRI && j < 3; j++)
            map[m->tri[3 * t + j]] = 0;
    for (size_t i = 0; i < m->nv; i++)
        if (map[i] == 0) {
            m->v[nv] = m->v[i];
            map[i] = (uint)nv++;
        }
    for (size_t t = 0; t < m->nt; t++)
        if (m->tri[3 * t] != DEAD_TRI) {
            for (int j = 0; j < 3; j++)
                m->tri[3 * nt + j] = map[m->tri[3 * t + j]];
            nt++;
        }
    m->nv = nv;
    m->nt = nt;
    mp_vertex_normals(m);
}

/* Collapse the cheapest valid edge until at most `target` triangles are
 * left (0: no count target) or no candidate is left; a collapse whose
 * area-weighted mean squared distance to the planes it merges passes
 * max_err2 is skipped. */
static int decimate(mc_mesh *m, size_t target, double max_err2)
{
    dec d;
    mp_ring r = { 0 };
    if (dec_alloc(&d, m) != 0)
        return -1;
    if (mp_ring_build(m, &r) != 0) {
        dec_free(&d);
        return -1;
    }
    d.max_err2 = max_err2;
    dec_quadrics(&d);
    dec_locks(&d, &r);
    dec_seed(&d, &r);
    mp_ring_free(&r);
    while (d.alive > target && d.nheap > 0) {
        hitem h = heap_pop(&d);
        double p[3], w;
        if (!current(&d, &h, p, &w) || (double)h.cost > max_err2 * w || !link_ok(&d, h.a, h.b) ||
            !fan_ok(&d, h.a, h.b, p) || !fan_ok(&d, h.b, h.a, p))
            continue;
        collapse(&d, h.a, h.b, p);
        requeue(&d, h.a);
    }
    compact_mesh(&d);
    dec_free(&d);
    return 0;
}

/* ---- Entry point -------------------------------------------------------- */

/* The first value out of range, by its parameter's name; NULL if none.
 * NaN fails every comparison, so each test is written to fail on it. */
static const char *out_of_range(const mesh_post_config *c)
{
    if (!(c->smooth_iterations >= 0))
        return "surface.smooth_iterations";
    if (!(c->smooth_feature >= 0.0f && c->smooth_feature <= 1e3f))
        return "surface.smooth_feature";
    if (!(c->decimate >= 0.0f && c->decimate <= 1.0f))
        return "surface.decimate";
    if (!(c->decimate_error >= 0.0f && c->decimate_error < 1e30f))
        return "surface.decimate_error";
    if (c->decimate_error > 0.0f && !(c->cell > 0.0f && c->cell < 1e30f))
        return "the mesh cell";
    return NULL;
}

int mesh_postprocess(mc_mesh *m, const mesh_post_config *c, char *err, size_t errlen)
{
    const char *bad = out_of_range(c);
    if (bad) {
        snprintf(err, errlen, "mesh post-processing: %s is out of range (smooth_iterations %d, smooth_feature %g, "
                 "decimate %g, decimate_error %g, cell %g)", bad, c->smooth_iterations, c->smooth_feature,
                 c->decimate, c->decimate_error, c->cell);
        return -2;
    }
    int cut = (c->decimate > 0.0f && c->decimate < 1.0f) || c->decimate_error > 0.0f;
    if (m->nt == 0 || (c->smooth_iterations == 0 && !cut))
        return 0;
    if (m->nv >= UINT32_MAX || 4 * m->nt + 64 >= UINT32_MAX) {
        snprintf(err, errlen, "mesh post-processing: a mesh of %zu triangles is too large", m->nt);
        return -2;
    }
    if (c->smooth_iterations > 0 && mesh_smooth(m, c->smooth_iterations, c->smooth_feature) != 0) {
        snprintf(err, errlen, "mesh post-processing: out of memory smoothing %zu vertices", m->nv);
        return -1;
    }
    double e = c->decimate_error > 0.0f ? (double)c->decimate_error * c->cell : INFINITY;
    size_t target = c->decimate > 0.0f && c->decimate < 1.0f ? (size_t)ceil(c->decimate * (double)m->nt) : 0;
    if (cut && decimate(m, target, e * e) != 0) {
        snprintf(err, errlen, "mesh post-processing: out of memory decimating %zu triangles", m->nt);
        return -1;
    }
    return 0;
}
