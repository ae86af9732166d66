/* mesh_smooth.c - Taubin lambda/mu smoothing of a marching-cubes mesh
 * (Taubin 1995) for mesh_post.c: feature-preserving neighbor weights, a
 * fold guard (no pair turns an edge's faces further past perpendicular),
 * each closed piece's volume given back.
 * Invariant: vertices move, the triangles stay: a closed, consistently
 * oriented 2-manifold stays one. Every buffer is allocated before the
 * mesh is touched, so a failure leaves it as it was.
 */
#include "mesh_post_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Taubin's pass band: lambda = 0.5 and 1/lambda + 1/mu = k_PB = 0.02
 * (mu = -0.505). Curvature frequencies below k_PB pass, higher ones are
 * damped; a lambda step alone would shrink every curved surface. Below
 * k_PB the gain is above 1 (by 6.6e-4 at most at k_PB 0.1, 2.5e-5 at 0.02),
 * which compounds: at 0.1, 1,000 pairs folded a cube's corners to 171
 * degrees with feature weights (113 at 0.02; 90.0, its edges' own, with
 * the fold guard below; test_mesh_post). */
#define TAUBIN_LAMBDA 0.5f
#define TAUBIN_KPB 0.02f

/* Weight of half-edge i -> j: max(0, n_i . n_j)^k. Across a crease the
 * normals disagree and the weight falls (cos 45 deg ^ 8 = 0.06), so the
 * umbrella does not pull the crease in; k = 0 is the plain umbrella. */
static void feature_weights(const mc_mesh *m, const mp_ring *r, float k, float *w)
{
    for (size_t i = 0; i < m->nv; i++)
        for (uint e = r->start[i]; e < r->start[i + 1]; e++) {
            const float4 a = m->n[i], b = m->n[r->nb[e]];
            float c = a.x * b.x + a.y * b.y + a.z * b.z;
            w[e] = k == 0.0f ? 1.0f : c > 0.0f ? powf(c, k) : 0.0f;
        }
}

/* out = in + s L(in), L the weighted umbrella sum_j w_ij (x_j - x_i) / n_i
 * over the n_i ring neighbors. Dividing by n_i rather than sum_j w_ij keeps
 * L at most the plain umbrella (so Taubin's pass band stays valid) and lets
 * a vertex whose neighbors disagree move less, instead of being pulled
 * wholly towards the few that agree. */
static void umbrella_step(size_t nv, const mp_ring *r, const float *w, const float4 *in, float4 *out, float s)
{
    for (size_t i = 0; i < nv; i++) {
        uint e0 = r->start[i], e1 = r->start[i + 1];
        float dx = 0.0f, dy = 0.0f, dz = 0.0f;
        for (uint e = e0; e < e1; e++) {
            const float4 q = in[r->nb[e]];
            dx += w[e] * (q.x - in[i].x);
            dy += w[e] * (q.y - in[i].y);
            dz += w[e] * (q.z - in[i].z);
        }
        float f = e1 > e0 ? s / (float)(e1 - e0) : 0.0f;
        out[i] = fcl_f4(in[i].x + f * dx, in[i].y + f * dy, in[i].z + f * dz, 0.0f);
    }
}

/* The closed pieces' volumes, to give back after smoothing: Taubin's
 * filter passes the lowest frequencies with a gain a little above 1
 * (TAUBIN_KPB), which compounds: at k_PB 0.1 a noisy sphere grew 5.8 %
 * in volume in 1,000 pairs and a cube 41 %. comp[i] is
 * vertex i's piece (connected by triangles), ref[c] a vertex of piece c
 * (the tetrahedra's apex: sums stay small far from the origin), open[c]
 * 1 when c has an edge with one side only (its volume means nothing). */
typedef struct pieces {
    uint *comp, *ref;
    uint8_t *open;
    double *vol, *area;
    size_t n;
} pieces;

static void pieces_free(pieces *p)
{
    free(p->comp);
    free(p->ref);
    free(p->open);
    free(p->vol);
    free(p->area);
}

static uint uf_find(uint *up, uint i)
{
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

/* Pieces by union-find over the triangles' edges (ref doubles as the
 * forest), numbered in vertex order; open from the half-edges of r. */
static void pieces_label(const mc_mesh *m, const mp_ring *r, pieces *p)
{
    for (uint i = 0; i < (uint)m->nv; i++)
        p->ref[i] = i;
    for (size_t e = 0; e < 3 * m->nt; e++) {
        uint a = uf_find(p->ref, m->tri[e]), b = uf_find(p->ref, m->tri[e - e % 3 + (e + 1) % 3]);
        p->ref[a > b ? a : b] = a < b ? a : b;
    }
    p->n = 0;
    for (uint i = 0; i < (uint)m->nv; i++) {
        uint root = uf_find(p->ref, i);
        p->comp[i] = root == i ? (uint)p->n++ : p->comp[root];   /* the root, the least index, comes first */
    }
    for (uint i = (uint)m->nv; i-- > 0;)
        p->ref[p->comp[i]] = i;
    memset(p->open, 0, p->n);
    for (uint i = 0; i < (uint)m->nv; i++)
        for (uint e = r->start[i]; e < r->start[i + 1]; e++) {
            uint j = r->nb[e], back = 0;
            for (uint f = r->start[j]; f < r->start[j + 1]; f++)
                back |= r->nb[f] == i;
            p->open[p->comp[i]] |= back == 0u;
        }
}

/* Each piece's volume (tetrahedra to its ref vertex) into p->vol, and
 * its area into p->area. */
static void pieces_measure(const mc_mesh *m, pieces *p)
{
    memset(p->vol, 0, p->n * sizeof *p->vol);
    memset(p->area, 0, p->n * sizeof *p->area);
    for (size_t t = 0; t < m->nt; t++) {
        const uint *q = &m->tri[3 * t];
        uint c = p->comp[q[0]];
        const float4 o = m->v[p->ref[c]], a = m->v[q[0]];
        double x[3];
        mp_face_cross(m->v, q, x);
        p->vol[c] += ((a.x - o.x) * x[0] + (a.y - o.y) * x[1] + (a.z - o.z) * x[2]) / 6.0;
        p->area[c] += 0.5 * sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    }
}

/* The offset that gives piece c its volume v0 back to first order (dV =
 * area x offset, a cavity's volume and offset negative: its normals point
 * into it), or 0: open, or one the smoothing changed by more than first
 * order, whose offset would pass a quarter of its thickness 3 |V0| / A0
 * (a sphere's radius). A piece of one particle's 8 triangles shrinks to
 * a speck under plain weights, and its offset, over an area near 0, blew
 * it up to 0.61 m across in 10 pairs and 50 km in 30; then, measured by
 * V0 > 0, cavities were left as smoothed (+3.6 % in 1,000 pairs; reviews). */
static double piece_offset(const pieces *p, uint c, const double *v0, const double *a0)
{
    double d = p->area[c] > 0.0 ? (v0[c] - p->vol[c]) / p->area[c] : 0.0;
    return !p->open[c] && v0[c] != 0.0 && fabs(d) <= 0.25 * 3.0 * fabs(v0[c]) / a0[c] ? d : 0.0;
}

/* Moves each closed piece along its vertex normals by piece_offset;
 * twice, for the curvature's second order. */
static void pieces_restore(mc_mesh *m, pieces *p, const double *v0, const double *a0)
{
    for (int pass = 0; pass < 2; pass++) {
        pieces_measure(m, p);
        mp_vertex_normals(m);
        for (size_t i = 0; i < m->nv; i++) {
            uint c = p->comp[i];
            double d = piece_offset(p, c, v0, a0);
            m->v[i] = fcl_f4(m->v[i].x + (float)(d * m->n[i].x), m->v[i].y + (float)(d * m->n[i].y),
                             m->v[i].z + (float)(d * m->n[i].z), 0.0f);
        }
    }
}

/* The fold guard. A fold grows a little each Taubin pair where a thin
 * sheet's two sides or a sharp ridge close in: 1,000 pairs folded 0.18 %
 * of the spiky dam break's 74,032 triangles at 0.2 s past perpendicular
 * to a neighbor (worst 116 degrees between their normals). After each
 * pair, and after the volume's return, the vertices of every edge whose
 * two faces turned past perpendicular, and further than before, go back
 * to where the pair (or the return) found them.
 * twin[e]: half-edge j -> i of e = i -> j (UINT32_MAX on an open edge);
 * cosb[e]: the cosine between e's faces before the pair, cosa[e] after. */
typedef struct fold_guard {
    uint *twin, *from;
    uint *edges, nedges;    /* each closed edge once: its half-edge i -> j with i < j */
    float *cosb, *cosa;
    float4 *prev;
    uint8_t *mark;
    uint *vstart, *vedge;   /* vertex v's edges (as i, j or a third vertex): vedge[vstart[v] .. vstart[v + 1]) */
    uint *stamp, now;       /* an edge rechecked in this round has stamp now */
    uint *back, *going, nback; /* the vertices the next round puts back; going: this round's */
} fold_guard;

static void guard_free(fold_guard *g)
{
    free(g->twin);
    free(g->from);
    free(g->edges);
    free(g->cosb);
    free(g->cosa);
    free(g->prev);
    free(g->mark);
    free(g->vstart);
    free(g->vedge);
    free(g->stamp);
    free(g->back);
    free(g->going);
}

/* Cosine between the faces (i, j, a) and (j, i, b) of edge i -> j where
 * it is negative, else 1: the guard compares folds only (no root and no
 * division for the other edges, most of them). */
static float edge_cos(const float4 *v, uint i, uint j, uint a, uint b)
{
    const float4 p = v[i], q = v[j], x = v[a], y = v[b];
    float u[3] = { q.x - p.x, q.y - p.y, q.z - p.z }, s[3] = { x.x - p.x, x.y - p.y, x.z - p.z };
    float t[3] = { y.x - p.x, y.y - p.y, y.z - p.z };
    float n1[3] = { u[1] * s[2] - u[2] * s[1], u[2] * s[0] - u[0] * s[2], u[0] * s[1] - u[1] * s[0] };
    float n2[3] = { t[1] * u[2] - t[2] * u[1], t[2] * u[0] - t[0] * u[2], t[0] * u[1] - t[1] * u[0] };
    float d = n1[0] * n2[0] + n1[1] * n2[1] + n1[2] * n2[2];
    if (d >= 0.0f)
        return 1.0f;
    float l = sqrtf((n1[0] * n1[0] + n1[1] * n1[1] + n1[2] * n1[2]) * (n2[0] * n2[0] + n2[1] * n2[1] + n2[2] * n2[2]));
    return l > 0.0f ? d / l : 1.0f;
}

/* Edge e = i -> j of twin f (i < j, closed) again: its cosine into cosa,
 * and with check its four vertices marked and listed to go back where it
 * folds past perpendicular and further than cosb says it was. */
static void guard_edge(fold_guard *g, const mc_mesh *m, const mp_ring *r, uint e, int check)
{
    uint i = g->from[e], j = r->nb[e], f = g->twin[e];
    float c = edge_cos(m->v, i, j, r->pv[e], r->pv[f]);
    g->cosa[e] = c;
    if (!check || !(c < 0.0f && c < g->cosb[e]))
        return;
    const uint v[4] = { i, j, r->pv[e], r->pv[f] };
    for (int k = 0; k < 4; k++)
        if (!g->mark[v[k]]) {
            g->mark[v[k]] = 1;
            g->back[g->nback++] = v[k];
        }
}

/* Every edge once (check as guard_edge). */
static void guard_edges(fold_guard *g, const mc_mesh *m, const mp_ring *r, int check)
{
    for (uint k = 0; k < g->nedges; k++)
        guard_edge(g, m, r, g->edges[k], check);
}

/* The edges each vertex bears on, as an end or a third vertex, so that a
 * round after the first rechecks only those of the vertices put back
 * (every edge a round was a full pass: 1,000 pairs on a splashy surface
 * took 3.5 times as long as without the guard; a review). */
static int guard_index(fold_guard *g, const mc_mesh *m, const mp_ring *r)
{
    size_t ne = r->start[m->nv];
    g->vstart = calloc(m->nv + 2, sizeof *g->vstart);
    g->vedge = malloc((4 * ne + 1) * sizeof *g->vedge);
    g->stamp = calloc(ne + 1, sizeof *g->stamp);
    g->back = malloc((m->nv + 1) * sizeof *g->back);
    g->going = malloc((m->nv + 1) * sizeof *g->going);
    if (!g->vstart || !g->vedge || !g->stamp || !g->back || !g->going)
        return -1;
    for (int fill = 0; fill < 2; fill++) {
        for (uint k = 0; k < g->nedges; k++) {
            uint e = g->edges[k];
            const uint v[4] = { g->from[e], r->nb[e], r->pv[e], r->pv[g->twin[e]] };
            for (int k = 0; k < 4; k++) {
                if (fill)
                    g->vedge[g->vstart[v[k]]++] = e;
                else
                    g->vstart[v[k] + 1]++;
            }
        }
        if (!fill)   /* counts to starts at vstart[v]; filling moves each to the next's */
            for (size_t v = 1; v <= m->nv; v++)
                g->vstart[v] += g->vstart[v - 1];
    }
    for (size_t v = m->nv; v > 0; v--)
        g->vstart[v] = g->vstart[v - 1];
    g->vstart[0] = 0;
    return 0;
}

static int guard_init(fold_guard *g, const mc_mesh *m, const mp_ring *r)
{
    size_t ne = r->start[m->nv];
    g->twin = malloc((ne + 1) * sizeof *g->twin);
    g->from = malloc((ne + 1) * sizeof *g->from);
    g->cosb = malloc((ne + 1) * sizeof *g->cosb);
    g->cosa = malloc((ne + 1) * sizeof *g->cosa);
    g->prev = malloc((m->nv + 1) * sizeof *g->prev);
    g->mark = calloc(m->nv + 1, 1);
    g->edges = malloc((ne + 1) * sizeof *g->edges);
    if (!g->twin || !g->from || !g->cosb || !g->cosa || !g->prev || !g->mark || !g->edges)
        return -1;
    for (uint i = 0; i < (uint)m->nv; i++)
        for (uint e = r->start[i]; e < r->start[i + 1]; e++) {
            uint j = r->nb[e];
            g->from[e] = i;
            g->twin[e] = UINT32_MAX;
            for (uint f = r->start[j]; f < r->start[j + 1]; f++)
                if (r->nb[f] == i)
                    g->twin[e] = f;
            if (i < j && g->twin[e] != UINT32_MAX)
                g->edges[g->nedges++] = e;
        }
    if (guard_index(g, m, r) != 0)
        return -1;
    guard_edges(g, m, r, 0);
    memcpy(g->cosb, g->cosa, (ne + 1) * sizeof *g->cosb);
    return 0;
}

/* After a pair: the listed vertices back to g->prev, and the edges they
 * bear on checked again, until none folds further (a vertex put back may
 * fold one beside it; at most 8 rounds); cosa then holds every edge's
 * cosine at the positions kept, and becomes cosb. */
static void guard_apply(fold_guard *g, mc_mesh *m, const mp_ring *r)
{
    g->nback = 0;
    guard_edges(g, m, r, 1);
    for (int round = 0; round < 8 && g->nback > 0; round++) {
        uint n = g->nback, *going = g->back;
        g->back = g->going;
        g->going = going;
        for (uint k = 0; k < n; k++) {
            m->v[going[k]] = g->prev[going[k]];
            g->mark[going[k]] = 0;
        }
        g->nback = 0;
        if (++g->now == 0) {   /* the stamps wrapped: start them afresh */
            memset(g->stamp, 0, r->start[m->nv] * sizeof *g->stamp);
            g->now = 1;
        }
        for (uint k = 0; k < n; k++) {
            uint v = going[k];
            for (uint x = g->vstart[v]; x < g->vstart[v + 1]; x++) {
                uint e = g->vedge[x];
                if (g->stamp[e] != g->now) {
                    g->stamp[e] = g->now;
                    guard_edge(g, m, r, e, round < 7);
                }
            }
        }
    }
    float *t = g->cosb;
    g->cosb = g->cosa;
    g->cosa = t;
}

/* Taubin: per iteration a lambda step then a mu step with the same
 * weights, from the normals of the current shape, under the fold guard;
 * each closed piece's volume given back (pieces); normals again at the
 * end. */
int mesh_smooth(mc_mesh *m, int iterations, float feature)
{
    mp_ring r = { 0 };
    pieces p = { 0 };
    fold_guard g = { 0 };
    float *w = malloc(3 * m->nt * sizeof *w);
    float4 *tmp = malloc(m->nv * sizeof *tmp);
    double *v0 = malloc(2 * m->nv * sizeof *v0), *a0 = v0 + m->nv;
    p.comp = malloc(m->nv * sizeof *p.comp);
    p.ref = malloc(m->nv * sizeof *p.ref);
    p.open = malloc(m->nv);
    p.vol = malloc(m->nv * sizeof *p.vol);
    p.area = malloc(m->nv * sizeof *p.area);
    if (!w || !tmp || !v0 || !p.comp || !p.ref || !p.open || !p.vol || !p.area || mp_ring_build(m, &r) != 0 ||
        guard_init(&g, m, &r) != 0) {
        free(w);
        free(tmp);
        free(v0);
        pieces_free(&p);
        mp_ring_free(&r);
        guard_free(&g);
        return -1;
    }
    pieces_label(m, &r, &p);
    pieces_measure(m, &p);
    memcpy(v0, p.vol, p.n * sizeof *v0);
    memcpy(a0, p.area, p.n * sizeof *a0);
    const float mu = 1.0f / (TAUBIN_KPB - 1.0f / TAUBIN_LAMBDA);
    for (int it = 0; it < iterations; it++) {
        if (feature != 0.0f)
            mp_vertex_normals(m);
        feature_weights(m, &r, feature, w);
        memcpy(g.prev, m->v, m->nv * sizeof *m->v);
        umbrella_step(m->nv, &r, w, m->v, tmp, TAUBIN_LAMBDA);
        umbrella_step(m->nv, &r, w, tmp, m->v, mu);
        guard_apply(&g, m, &r);
    }
    /* The volume's return under the guard too: a droplet that shrank
     * and was pushed back out along its normals folded edges the pairs
     * had kept (to 156 degrees on a splashy frame; a review). */
    memcpy(g.prev, m->v, m->nv * sizeof *m->v);
    pieces_restore(m, &p, v0, a0);
    guard_apply(&g, m, &r);
    mp_vertex_normals(m);
    mp_ring_free(&r);
    pieces_free(&p);
    guard_free(&g);
    free(w);
    free(tmp);
    free(v0);
    return 0;
}

