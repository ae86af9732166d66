/* control_sample.c - control particles from a target mesh (seed 001 §3.1):
 * box and icosphere meshes, the seed's refinement (split the longest edge
 * until every edge fits a voxel), the voxel labels (surface voxels from
 * the refined vertices, voxels the mesh crosses, a flood fill from the
 * padding for the outside, the rest interior) and the particles. The
 * cache is in control_sample_cache.c.
 *
 * Invariant: the refined mesh is closed and oriented when the input is
 * (midpoints are shared per edge), and the flood fill cannot leak into
 * the shape: every voxel the mesh touches walls it (exact
 * triangle-box overlap), so a path of face-adjacent voxels from the
 * padding to an inside point meets a wall first.
 */
#include "control_sample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The label of a voxel not yet decided (before the fill). */
#define UNKNOWN 255

/* ---- growable arrays and the edge -> midpoint map */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Open addressing; a key is (lower index << 32 | higher index), never 0
 * because the two indices differ, so 0 marks an empty slot. */
typedef struct edge_map {
    uint64_t *keys;
    uint32_t *vals;
    size_t cap, n;      /* cap a power of two, n < cap / 2 */
} edge_map;

static size_t slot_of(const edge_map *e, uint64_t key)
{
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (e->cap - 1);
    while (e->keys[i] && e->keys[i] != key)
        i = (i + 1) & (e->cap - 1);
    return i;
}

static int map_grow(edge_map *e)
{
    edge_map g = { calloc(e->cap ? 2 * e->cap : 1024, 8), NULL, e->cap ? 2 * e->cap : 1024, e->n };
    g.vals = malloc(g.cap * sizeof *g.vals);
    if (!g.keys || !g.vals) {
        free(g.keys);
        free(g.vals);
        return -1;
    }
    for (size_t i = 0; i < e->cap; i++)
        if (e->keys[i]) {
            size_t s = slot_of(&g, e->keys[i]);
            g.keys[s] = e->keys[i];
            g.vals[s] = e->vals[i];
        }
    free(e->keys);
    free(e->vals);
    *e = g;
    return 0;
}

/* A growing vertex array with an edge map: midpoint(a, b) is created once
 * per undirected edge, so both triangles of an edge get the same vertex. */
typedef struct vbuf {
    float *v;
    size_t nv, cap;
    edge_map map;
    int sphere;             /* push midpoints onto the unit sphere */
} vbuf;

/* Index of the midpoint of edge (a, b), or -1 when out of memory. */
static long long midpoint(vbuf *b, unsigned a, unsigned c)
{
    uint64_t key = a < c ? (uint64_t)a << 32 | c : (uint64_t)c << 32 | a;
    if ((b->map.n + 1) * 2 > b->map.cap && map_grow(&b->map) != 0)
        return -1;
    size_t s = slot_of(&b->map, key);
    if (b->map.keys[s])
        return b->map.vals[s];
    if (b->nv >= 0xffffffffu || grow((void **)&b->v, &b->cap, 3 * (b->nv + 1), sizeof *b->v) != 0)
        return -1;
    /* The same expression whichever triangle asks first (a + c == c + a). */
    double m[3], len = 0.0;
    for (int k = 0; k < 3; k++) {
        m[k] = 0.5 * ((double)b->v[3 * a + k] + (double)b->v[3 * c + k]);
        len += m[k] * m[k];
    }
    len = b->sphere ? sqrt(len) : 1.0;
    for (int k = 0; k < 3; k++)
        b->v[3 * b->nv + k] = (float)(m[k] / len);
    b->map.keys[s] = key;
    b->map.vals[s] = (uint32_t)b->nv;
    b->map.n++;
    return (long long)b->nv++;
}

/* ---- refinement */

static double edge2(const float *v, unsigned a, unsigned b)
{
    double s = 0.0;
    for (int k = 0; k < 3; k++) {
        double d = (double)v[3 * b + k] - (double)v[3 * a + k];
        s += d * d;
    }
    return s;
}

/* Longest-edge bisection of triangle i until it fits; the second half of
 * each split is appended and refined when the caller's loop reaches it. */
static int refine_one(vbuf *b, unsigned **tri, size_t *ntri, size_t *cap, size_t i, double max2)
{
    for (;;) {
        unsigned *t = *tri + 3 * i;
        int k = 0;
        double l[3] = { edge2(b->v, t[0], t[1]), edge2(b->v, t[1], t[2]), edge2(b->v, t[2], t[0]) };
        if (l[1] > l[k])
            k = 1;
        if (l[2] > l[k])
            k = 2;
        if (!(l[k] > max2))
            return 0;
        if (*ntri >= CTL_MAX_TRIANGLES)
            return 1;
        unsigned a = t[k], c = t[(k + 1) % 3], o = t[(k + 2) % 3];
        long long m = midpoint(b, a, c);
        if (m < 0 || grow((void **)tri, cap, 3 * (*ntri + 1), sizeof **tri) != 0)
            return -1;
        t = *tri + 3 * i;
        /* a -> c -> o becomes a -> m -> o and m -> c -> o: same winding. */
        unsigned *u = *tri + 3 * (*ntri)++;
        u[0] = (unsigned)m, u[1] = c, u[2] = o;
        t[0] = a, t[1] = (unsigned)m, t[2] = o;
    }
}

static int mesh_finite(const fcl_mesh *m, char *err, size_t errlen)
{
    for (size_t i = 0; i < 3 * m->nv; i++)
        if (!isfinite(m->v[i])) {
            snprintf(err, errlen, "control sampling: vertex %zu of the mesh is not finite", i / 3);
            return -1;
        }
    return 0;
}

int ctl_mesh_refine(const fcl_mesh *m, double max_edge, fcl_mesh *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!(max_edge > 0.0) || !isfinite(max_edge)) {
        snprintf(err, errlen, "control sampling: expected a positive voxel size, got %g", max_edge);
        return -1;
    }
    if (mesh_finite(m, err, errlen) != 0)
        return -1;
    vbuf b = { malloc(3 * m->nv * sizeof(float) + 1), m->nv, 3 * m->nv, { 0 }, 0 };
    size_t ntri = m->ntri, cap = 3 * m->ntri;
    unsigned *tri = malloc(3 * m->ntri * sizeof *tri + 1);
    int rc = b.v && tri ? 0 : -1;
    if (rc == 0) {
        memcpy(b.v, m->v, 3 * m->nv * sizeof(float));
        memcpy(tri, m->tri, 3 * m->ntri * sizeof *tri);
    }
    for (size_t i = 0; rc == 0 && i < ntri; i++)
        rc = refine_one(&b, &tri, &ntri, &cap, i, max_edge * max_edge);
    free(b.map.keys);
    free(b.map.vals);
    if (rc != 0) {
        if (rc > 0)
            snprintf(err, errlen, "control sampling: refining the mesh to edges of at most %g (the voxel size) "
                     "needs more than %zu triangles: expected a smaller target or a larger control.spacing (the "
                     "voxel, in control radii H)", max_edge, (size_t)CTL_MAX_TRIANGLES);
        else
            snprintf(err, errlen, "control sampling: out of memory refining the mesh (%zu triangles)", ntri);
        free(b.v);
        free(tri);
        return -1;
    }
    out->v = b.v, out->nv = b.nv, out->tri = tri, out->ntri = ntri;
    return 0;
}

/* ---- box and sphere targets */

int ctl_mesh_box(const float lo[3], const float hi[3], fcl_mesh *m)
{
    /* Corner i has x from bit 0, y from bit 1, z from bit 2; each face is
     * two triangles wound counter-clockwise seen from outside. */
    static const unsigned faces[12][3] = { { 0, 2, 3 }, { 0, 3, 1 }, { 4, 5, 7 }, { 4, 7, 6 },
                                           { 0, 1, 5 }, { 0, 5, 4 }, { 2, 6, 7 }, { 2, 7, 3 },
                                           { 0, 4, 6 }, { 0, 6, 2 }, { 1, 3, 7 }, { 1, 7, 5 } };
    memset(m, 0, sizeof *m);
    for (int k = 0; k < 3; k++)
        if (!(lo[k] < hi[k]) || !isfinite(lo[k]) || !isfinite(hi[k]))
            return -1;
    m->v = malloc(24 * sizeof *m->v);
    m->tri = malloc(36 * sizeof *m->tri);
    if (!m->v || !m->tri) {
        obj_free(m);
        return -1;
    }
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++)
            m->v[3 * i + k] = (i >> k & 1) ? hi[k] : lo[k];
    memcpy(m->tri, faces, sizeof faces);
    m->nv = 8, m->ntri = 12;
    return 0;
}

/* Split every triangle of a unit-sphere mesh in four, midpoints on the
 * sphere; a -> b -> c keeps its winding in all four children. */
static int subdivide(vbuf *b, unsigned **tri, size_t *ntri)
{
    unsigned *t = malloc(12 * *ntri * sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < *ntri; i++) {
        unsigned a = (*tri)[3 * i], c = (*tri)[3 * i + 1], d = (*tri)[3 * i + 2];
        long long ac = midpoint(b, a, c), cd = midpoint(b, c, d), da = midpoint(b, d, a);
        if (ac < 0 || cd < 0 || da < 0) {
            free(t);
            return -1;
        }
        unsigned q[12] = { a, (unsigned)ac, (unsigned)da, (unsigned)ac, c, (unsigned)cd,
                           (unsigned)da, (unsigned)cd, d, (unsigned)ac, (unsigned)cd, (unsigned)da };
        memcpy(t + 12 * i, q, sizeof q);
    }
    free(*tri);
    *tri = t;
    *ntri *= 4;
    return 0;
}

int ctl_mesh_sphere(const float c[3], float r, int subdivisions, fcl_mesh *m)
{
    /* The icosahedron: golden-ratio rectangles, faces counter-clockwise
     * seen from outside. */
    static const double ico[12][3] = { { -1, 1.618033988749895, 0 }, { 1, 1.618033988749895, 0 },
                                       { -1, -1.618033988749895, 0 }, { 1, -1.618033988749895, 0 },
                                       { 0, -1, 1.618033988749895 }, { 0, 1, 1.618033988749895 },
                                       { 0, -1, -1.618033988749895 }, { 0, 1, -1.618033988749895 },
                                       { 1.618033988749895, 0, -1 }, { 1.618033988749895, 0, 1 },
                                       { -1.618033988749895, 0, -1 }, { -1.618033988749895, 0, 1 } };
    static const unsigned faces[20][3] = { { 0, 11, 5 }, { 0, 5, 1 },  { 0, 1, 7 },   { 0, 7, 10 }, { 0, 10, 11 },
                                           { 1, 5, 9 },  { 5, 11, 4 }, { 11, 10, 2 }, { 10, 7, 6 }, { 7, 1, 8 },
                                           { 3, 9, 4 },  { 3, 4, 2 },  { 3, 2, 6 },   { 3, 6, 8 },  { 3, 8, 9 },
                                           { 4, 9, 5 },  { 2, 4, 11 }, { 6, 2, 10 },  { 8, 6, 7 },  { 9, 8, 1 } };
    memset(m, 0, sizeof *m);
    if (!(r > 0.0f) || !isfinite(r) || subdivisions < 0 || subdivisions > 7)
        return -1;
    vbuf b = { malloc(36 * sizeof(float)), 12, 36, { 0 }, 1 };
    size_t ntri = 20;
    unsigned *tri = malloc(sizeof faces);
    int ok = b.v && tri;
    for (int i = 0; ok && i < 12; i++)
        for (int k = 0; k < 3; k++)
            b.v[3 * i + k] = (float)(ico[i][k] / sqrt(1.0 + 1.618033988749895 * 1.618033988749895));
    if (ok)
        memcpy(tri, faces, sizeof faces);
    for (int s = 0; ok && s < subdivisions; s++)
        ok = subdivide(&b, &tri, &ntri) == 0;
    free(b.map.keys);
    free(b.map.vals);
    if (!ok) {
        free(b.v);
        free(tri);
        return -1;
    }
    for (size_t i = 0; i < b.nv; i++)
        for (int k = 0; k < 3; k++)
            b.v[3 * i + k] = (float)((double)c[k] + (double)r * b.v[3 * i + k]);
    m->v = b.v, m->nv = b.nv, m->tri = tri, m->ntri = ntri;
    return 0;
}

/* ---- the voxel grid */

/* At least 1.5 voxels of padding on each side, so the outer layer lies
 * half a voxel from the mesh and the fill always starts in it. */
static int grid_setup(const fcl_mesh *m, double voxel, fcl_ctl_points *p, char *err, size_t errlen)
{
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY }, dims[3];
    for (size_t i = 0; i < m->nv; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], m->v[3 * i + k]);
            hi[k] = fmax(hi[k], m->v[3 * i + k]);
        }
    double count = 1.0;
    for (int k = 0; k < 3; k++) {
        dims[k] = ceil((hi[k] - lo[k]) / voxel) + 3.0;
        count *= dims[k];
    }
    if (!(count <= (double)CTL_MAX_VOXELS)) {
        snprintf(err, errlen, "control sampling: a target spanning [%g, %g, %g] - [%g, %g, %g] at a voxel size of "
                 "%g m gives %.0f voxels (%.0f x %.0f x %.0f), more than the limit of %zu: expected a smaller "
                 "target or a larger control.spacing (the voxel, in control radii H)", lo[0], lo[1], lo[2], hi[0],
                 hi[1], hi[2], voxel, count, dims[0], dims[1], dims[2], (size_t)CTL_MAX_VOXELS);
        return -1;
    }
    for (int k = 0; k < 3; k++) {
        p->dims[k] = (int)dims[k];
        p->origin[k] = 0.5 * (lo[k] + hi[k]) - 0.5 * dims[k] * voxel;
    }
    p->voxel = voxel;
    p->label = malloc((size_t)count);
    if (!p->label) {
        snprintf(err, errlen, "control sampling: out of memory for %.0f voxels", count);
        return -1;
    }
    memset(p->label, UNKNOWN, (size_t)count);
    return 0;
}

static int cell_of(const fcl_ctl_points *p, int k, double x)
{
    double c = floor((x - p->origin[k]) / p->voxel);
    return c < 0 ? 0 : c > p->dims[k] - 1 ? p->dims[k] - 1 : (int)c;
}

static size_t vox_index(const fcl_ctl_points *p, int i, int j, int k)
{
    return (size_t)i + (size_t)p->dims[0] * ((size_t)j + (size_t)p->dims[1] * k);
}

/* ---- triangle-box overlap (separating axes, Akenine-Möller 2001) */

/* 1 when the axis separates the triangle v (relative to the box center)
 * from the cube of half-size h: closed sets, so touching overlaps. */
static int separated(const double ax[3], double v[3][3], double h)
{
    double p0 = ax[0] * v[0][0] + ax[1] * v[0][1] + ax[2] * v[0][2];
    double p1 = ax[0] * v[1][0] + ax[1] * v[1][1] + ax[2] * v[1][2];
    double p2 = ax[0] * v[2][0] + ax[1] * v[2][1] + ax[2] * v[2][2];
    double r = h * (fabs(ax[0]) + fabs(ax[1]) + fabs(ax[2]));
    return fmin(p0, fmin(p1, p2)) > r || fmax(p0, fmax(p1, p2)) < -r;
}

static void cross(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* The 13 axes: the box's 3 normals, the triangle's normal and the 9
 * cross products of box and triangle edges. */
static int tri_box(const double center[3], double h, const float *a, const float *b, const float *c)
{
    double v[3][3], e[3][3], ax[3];
    for (int k = 0; k < 3; k++) {
        v[0][k] = a[k] - center[k];
        v[1][k] = b[k] - center[k];
        v[2][k] = c[k] - center[k];
    }
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++)
            e[i][k] = v[(i + 1) % 3][k] - v[i][k];
    for (int k = 0; k < 3; k++) {
        double u[3] = { k == 0, k == 1, k == 2 };
        if (separated(u, v, h))
            return 0;
        for (int i = 0; i < 3; i++) {
            cross(u, e[i], ax);
            if (separated(ax, v, h))
                return 0;
        }
    }
    cross(e[0], e[1], ax);
    return !separated(ax, v, h);
}

/* ---- labels */

/* Voxels the refined mesh touches but holds no vertex of become CROSSED
 * (walls for the fill). Surface voxels are labelled before this. */
static void mark_crossed(const fcl_mesh *r, fcl_ctl_points *p)
{
    /* A hair over half a voxel: rounding must not open a gap in the wall. */
    double h = 0.5 * p->voxel * (1.0 + 1e-7);
    for (size_t t = 0; t < r->ntri; t++) {
        const float *a = r->v + 3 * r->tri[3 * t], *b = r->v + 3 * r->tri[3 * t + 1], *c = r->v + 3 * r->tri[3 * t + 2];
        int lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            lo[k] = cell_of(p, k, fmin(a[k], fmin(b[k], c[k])));
            hi[k] = cell_of(p, k, fmax(a[k], fmax(b[k], c[k])));
        }
        for (int z = lo[2]; z <= hi[2]; z++)
            for (int y = lo[1]; y <= hi[1]; y++)
                for (int x = lo[0]; x <= hi[0]; x++) {
                    size_t i = vox_index(p, x, y, z);
                    double ctr[3] = { p->origin[0] + (x + 0.5) * p->voxel, p->origin[1] + (y + 0.5) * p->voxel,
                                      p->origin[2] + (z + 0.5) * p->voxel };
                    if (p->label[i] == UNKNOWN && tri_box(ctr, h, a, b, c))
                        p->label[i] = CTL_VOXEL_CROSSED;
                }
    }
}

/* A ring buffer of voxel indices that doubles when full: a BFS frontier
 * is a surface of the grid, far smaller than the grid. */
typedef struct ring {
    uint32_t *q;
    size_t cap, head, n;
} ring;

static int ring_push(ring *r, uint32_t v)
{
    if (r->n == r->cap) {
        size_t c = r->cap ? 2 * r->cap : 4096;
        uint32_t *q = malloc(c * sizeof *q);
        if (!q)
            return -1;
        for (size_t i = 0; i < r->n; i++)
            q[i] = r->q[(r->head + i) & (r->cap - 1)];
        free(r->q);
        r->q = q, r->cap = c, r->head = 0;
    }
    r->q[(r->head + r->n++) & (r->cap - 1)] = v;
    return 0;
}

/* Seed fill over the 6-neighborhood from voxel 0 (in the padding): every
 * UNKNOWN voxel reached becomes OUTSIDE; those left are enclosed. */
static int fill_outside(fcl_ctl_points *p)
{
    const int *d = p->dims;
    ring r = { 0 };
    p->label[0] = CTL_VOXEL_OUTSIDE;
    int ok = ring_push(&r, 0) == 0;
    while (ok && r.n) {
        uint32_t v = r.q[r.head];
        r.head = (r.head + 1) & (r.cap - 1), r.n--;
        int x = (int)(v % (uint32_t)d[0]), y = (int)(v / (uint32_t)d[0] % (uint32_t)d[1]);
        int z = (int)(v / ((uint32_t)d[0] * (uint32_t)d[1]));
        int nb[6][3] = { { x - 1, y, z }, { x + 1, y, z }, { x, y - 1, z },
                         { x, y + 1, z }, { x, y, z - 1 }, { x, y, z + 1 } };
        for (int k = 0; ok && k < 6; k++) {
            if (nb[k][0] < 0 || nb[k][1] < 0 || nb[k][2] < 0 || nb[k][0] >= d[0] || nb[k][1] >= d[1] ||
                nb[k][2] >= d[2])
                continue;
            size_t i = vox_index(p, nb[k][0], nb[k][1], nb[k][2]);
            if (p->label[i] == UNKNOWN) {
                p->label[i] = CTL_VOXEL_OUTSIDE;
                ok = ring_push(&r, (uint32_t)i) == 0;
            }
        }
    }
    free(r.q);
    return ok ? 0 : -1;
}

/* ---- particles */

typedef struct vox_vert {
    uint32_t vox;
    uint32_t vert;
} vox_vert;

static int by_voxel(const void *a, const void *b)
{
    const vox_vert *x = a, *y = b;
    return x->vox != y->vox ? (x->vox < y->vox ? -1 : 1) : (x->vert < y->vert ? -1 : x->vert > y->vert);
}

static void voxel_center(const fcl_ctl_points *p, uint32_t v, float4 *out)
{
    uint32_t d0 = (uint32_t)p->dims[0], d1 = (uint32_t)p->dims[1];
    out->x = (float)(p->origin[0] + (v % d0 + 0.5) * p->voxel);
    out->y = (float)(p->origin[1] + (v / d0 % d1 + 0.5) * p->voxel);
    out->z = (float)(p->origin[2] + (v / (d0 * d1) + 0.5) * p->voxel);
    out->w = 0.0f;
}

/* The refined vertices sorted by voxel; one surface particle per run of
 * equal voxels, in voxel order (so the output does not depend on the
 * order of the mesh's vertices beyond float rounding of the sums). */
static int surface_particles(const fcl_mesh *r, fcl_ctl_points *p, int variant, vox_vert **sorted)
{
    vox_vert *s = malloc(r->nv * sizeof *s + sizeof *s);
    unsigned char *used = calloc(r->nv + 1, 1);
    if (!s || !used) {
        free(s);
        free(used);
        return -1;
    }
    /* Only vertices of triangles: an OBJ file may list stray ones. */
    for (size_t t = 0; t < 3 * r->ntri; t++)
        used[r->tri[t]] = 1;
    size_t nv = 0;
    for (size_t i = 0; i < r->nv; i++) {
        const float *v = r->v + 3 * i;
        if (!used[i])
            continue;
        s[nv].vox = (uint32_t)vox_index(p, cell_of(p, 0, v[0]), cell_of(p, 1, v[1]), cell_of(p, 2, v[2]));
        s[nv].vert = (uint32_t)i;
        p->label[s[nv++].vox] = CTL_VOXEL_SURFACE;
    }
    free(used);
    qsort(s, nv, sizeof *s, by_voxel);
    *sorted = s;
    size_t n = 0;
    for (size_t i = 0; i < nv; i++)
        n += i == 0 || s[i].vox != s[i - 1].vox;
    p->pos = malloc(n * sizeof *p->pos + sizeof *p->pos);
    p->voxel_of = malloc(n * sizeof *p->voxel_of + sizeof *p->voxel_of);
    if (!p->pos || !p->voxel_of)
        return -1;
    for (size_t i = 0, j; i < nv; i = j) {
        double sum[3] = { 0, 0, 0 };
        for (j = i; j < nv && s[j].vox == s[i].vox; j++)
            for (int k = 0; k < 3; k++)
                sum[k] += r->v[3 * s[j].vert + k];
        float4 *q = &p->pos[p->nsurface];
        if (variant == CTL_SAMPLE_CENTERS)
            voxel_center(p, s[i].vox, q);
        else
            *q = (float4){ (float)(sum[0] / (double)(j - i)), (float)(sum[1] / (double)(j - i)),
                           (float)(sum[2] / (double)(j - i)), 0.0f };
        p->voxel_of[p->nsurface++] = s[i].vox;
    }
    return 0;
}

/* The voxels left UNKNOWN after the fill are enclosed: INTERIOR, one
 * particle at each center, appended after the surface particles. */
static int interior_particles(fcl_ctl_points *p)
{
    size_t nvox = (size_t)p->dims[0] * p->dims[1] * p->dims[2], n = 0;
    for (size_t i = 0; i < nvox; i++)
        n += p->label[i] == UNKNOWN;
    float4 *pos = realloc(p->pos, (p->nsurface + n) * sizeof *pos + sizeof *pos);
    if (pos)
        p->pos = pos;
    uint32_t *vo = realloc(p->voxel_of, (p->nsurface + n) * sizeof *vo + sizeof *vo);
    if (vo)
        p->voxel_of = vo;
    if (!pos || !vo)
        return -1;
    for (size_t i = 0; i < nvox; i++)
        if (p->label[i] == UNKNOWN) {
            p->label[i] = CTL_VOXEL_INTERIOR;
            voxel_center(p, (uint32_t)i, &p->pos[p->nsurface + p->ninterior]);
            p->voxel_of[p->nsurface + p->ninterior++] = (uint32_t)i;
        }
    p->n = p->nsurface + p->ninterior;
    return 0;
}

/* Particles the labels call for: the surface's, and the voxels the fill
 * left UNKNOWN (interior_particles' count). */
static size_t points_needed(const fcl_ctl_points *p)
{
    size_t nvox = (size_t)p->dims[0] * p->dims[1] * p->dims[2], n = p->nsurface;
    for (size_t i = 0; i < nvox; i++)
        n += p->label[i] == UNKNOWN;
    return n;
}

int ctl_sample_mesh(const fcl_mesh *m, double voxel, int variant, fcl_ctl_points *out, char *err, size_t errlen)
{
    return ctl_sample_mesh_max(m, voxel, variant, 0, out, err, errlen);
}

int ctl_sample_mesh_max(const fcl_mesh *m, double voxel, int variant, size_t max_points, fcl_ctl_points *out,
                        char *err, size_t errlen)
{
    fcl_mesh r = { 0 };
    vox_vert *sorted = NULL;
    memset(out, 0, sizeof *out);
    if (variant != CTL_SAMPLE_AVERAGE && variant != CTL_SAMPLE_CENTERS) {
        snprintf(err, errlen, "control sampling: unknown variant %d", variant);
        return -1;
    }
    if (m->ntri == 0) {
        snprintf(err, errlen, "control sampling: the mesh has no triangles");
        return -1;
    }
    /* The grid is checked (cheaply) before the refinement can grow; the
     * refined mesh has the same bounds (midpoints lie between vertices). */
    if (!(voxel > 0.0) || !isfinite(voxel)) {
        snprintf(err, errlen, "control sampling: expected a positive voxel size, got %g", voxel);
        return -1;
    }
    if (mesh_finite(m, err, errlen) != 0 || grid_setup(m, voxel, out, err, errlen) != 0 ||
        ctl_mesh_refine(m, voxel, &r, err, errlen) != 0) {
        obj_free(&r);
        ctl_points_free(out);
        return -1;
    }
    int ok = surface_particles(&r, out, variant, &sorted) == 0;
    size_t need = 0;
    if (ok) {
        mark_crossed(&r, out);
        ok = fill_outside(out) == 0;
    }
    if (ok && max_points && (need = points_needed(out)) > max_points) {
        free(sorted);
        obj_free(&r);
        snprintf(err, errlen, "control sampling: %zu control particles (%zu on the surface) at a voxel size of %g m, "
                 "more than the %zu the device's memory takes: expected a smaller target or a larger "
                 "control.spacing (the voxel, in control radii H)", need, out->nsurface, voxel, max_points);
        ctl_points_free(out);
        return -1;
    }
    ok = ok && interior_particles(out) == 0;
    free(sorted);
    obj_free(&r);
    if (!ok) {
        snprintf(err, errlen, "control sampling: out of memory (voxel size %g, %d x %d x %d voxels)", voxel,
                 out->dims[0], out->dims[1], out->dims[2]);
        ctl_points_free(out);
        return -1;
    }
    return 0;
}

void ctl_points_free(fcl_ctl_points *p)
{
    free(p->pos);
    free(p->voxel_of);
    free(p->label);
    memset(p, 0, sizeof *p);
}
