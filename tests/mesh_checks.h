/* mesh_checks.h - properties of marching-cubes meshes the surface tests
 * measure: closed and consistently wound, area and enclosed volume, and
 * equality of two meshes up to vertex order.
 * Invariant: header-only, static inline, for tests only.
 */
#ifndef FCL_MESH_CHECKS_H
#define FCL_MESH_CHECKS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mc.h"

static inline int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Closed and consistently wound: every directed edge once, its reverse
 * once (so each edge has exactly two triangles, opposite turns), no
 * triangle repeating a vertex, and every vertex used. */
static inline int closed_manifold(const mc_mesh *m)
{
    size_t ne = 3 * m->nt;
    uint64_t *e = malloc((ne + 1) * sizeof *e);
    char *used = calloc(m->nv + 1, 1);
    for (size_t t = 0; t < m->nt; t++)
        for (int k = 0; k < 3; k++) {
            e[3 * t + k] = (uint64_t)m->tri[3 * t + k] << 32 | m->tri[3 * t + (k + 1) % 3];
            used[m->tri[3 * t + k] < m->nv ? m->tri[3 * t + k] : m->nv] = 1;
        }
    qsort(e, ne, sizeof *e, cmp_u64);
    int ok = ne > 0 && !used[m->nv];
    for (size_t i = 0; ok && i < m->nv; i++)
        ok = used[i];
    for (size_t i = 0; ok && i < ne; i++) {
        uint64_t rev = e[i] << 32 | e[i] >> 32;
        ok = (i + 1 == ne || e[i + 1] != e[i]) && (uint32_t)e[i] != (uint32_t)(e[i] >> 32) &&
             bsearch(&rev, e, ne, sizeof *e, cmp_u64) != NULL;
    }
    free(e);
    free(used);
    return ok;
}

/* A ball of concentric shells around (0.3, 0.4, 0.5), shell k at radius
 * (k + 1/2) d holding round(4 pi r^2 / d^2) points on a Fibonacci spiral:
 * every particle has volume about d^3, like a lattice ball, but the outer
 * layer is a sphere at the particle scale. */
static inline float4 *shell_ball(int shells, float d, size_t *n)
{
    float4 *p = malloc(4 * 4000 * (size_t)shells * sizeof *p);
    *n = 0;
    for (int k = 0; k < shells; k++) {
        double r = (k + 0.5) * d;
        int m = (int)lround(4.0 * M_PI * r * r / ((double)d * d));
        for (int i = 0; i < m; i++) {
            double y = 1.0 - 2.0 * (i + 0.5) / m, q = sqrt(1.0 - y * y), th = i * 2.399963229728653;
            p[(*n)++] = fcl_f4(0.3f + (float)(r * q * cos(th)), 0.4f + (float)(r * y),
                               0.5f + (float)(r * q * sin(th)), 0.0f);
        }
    }
    return p;
}

static inline void area_volume(const mc_mesh *m, double *area, double *vol)
{
    *area = *vol = 0.0;
    for (size_t t = 0; t < m->nt; t++) {
        const float4 *a = &m->v[m->tri[3 * t]], *b = &m->v[m->tri[3 * t + 1]], *c = &m->v[m->tri[3 * t + 2]];
        double u[3] = { b->x - a->x, b->y - a->y, b->z - a->z }, w[3] = { c->x - a->x, c->y - a->y, c->z - a->z };
        double x[3] = { u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0] };
        *area += 0.5 * sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        *vol += (a->x * x[0] + a->y * x[1] + a->z * x[2]) / 6.0;
    }
}

/* Vertex i before vertex j in (x, y, z, nx, ny, nz) order, bitwise. */
static const mc_mesh *mesh_sort_ctx;
static inline int mesh_cmp_vertex(const void *a, const void *b)
{
    const mc_mesh *m = mesh_sort_ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    int c = memcmp(&m->v[i], &m->v[j], 3 * sizeof(float));
    return c ? c : memcmp(&m->n[i], &m->n[j], 3 * sizeof(float));
}

/* Each triangle as the sorted ranks of its vertices in sorted order, the
 * list sorted: two meshes are the same surface when these agree. */
static inline uint64_t *mesh_canonical_triangles(const mc_mesh *m, uint32_t *order)
{
    uint32_t *rank = malloc((m->nv + 1) * sizeof *rank);
    uint64_t *t = malloc((m->nt + 1) * sizeof *t);
    for (uint32_t i = 0; i < m->nv; i++)
        order[i] = i;
    mesh_sort_ctx = m;
    qsort(order, m->nv, sizeof *order, mesh_cmp_vertex);
    for (uint32_t i = 0; i < m->nv; i++)
        rank[order[i]] = i;
    for (size_t k = 0; k < m->nt; k++) {
        uint64_t a = rank[m->tri[3 * k]], b = rank[m->tri[3 * k + 1]], c = rank[m->tri[3 * k + 2]], s;
        if (a > b) s = a, a = b, b = s;
        if (b > c) s = b, b = c, c = s;
        if (a > b) s = a, a = b, b = s;
        t[k] = a << 42 | b << 21 | c;
    }
    qsort(t, m->nt, sizeof *t, cmp_u64);
    free(rank);
    return t;
}

/* Whether a and b hold the same vertices (positions and normals, bit for
 * bit) and the same triangles, in any order. */
static inline int mesh_same(const mc_mesh *a, const mc_mesh *b)
{
    if (a->nv != b->nv || a->nt != b->nt)
        return 0;
    uint32_t *oa = malloc((a->nv + 1) * sizeof *oa), *ob = malloc((b->nv + 1) * sizeof *ob);
    uint64_t *ta = mesh_canonical_triangles(a, oa), *tb = mesh_canonical_triangles(b, ob);
    int same = memcmp(ta, tb, a->nt * sizeof *ta) == 0;
    for (size_t i = 0; same && i < a->nv; i++)
        same = memcmp(&a->v[oa[i]], &b->v[ob[i]], 3 * sizeof(float)) == 0 &&
               memcmp(&a->n[oa[i]], &b->n[ob[i]], 3 * sizeof(float)) == 0;
    free(oa), free(ob), free(ta), free(tb);
    return same;
}

#endif
