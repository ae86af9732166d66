/* boundary_carve.c - removing the fluid particles that start inside an
 * obstacle or too close to a boundary sample (boundary_carve of
 * boundary.h).
 *
 * Inside a mesh: a non-zero winding number, its crossings by the ray
 * from the particle along +x counted by the triangles' facing (parity
 * left the overlap of two closed parts of one file outside: 60 fluid
 * particles stayed in the solid; a review). Triangles are bucketed on a
 * grid over their (y, z) extent, so a particle looks at the few triangles
 * over its own cell. A ray through
 * an edge or a vertex is decided as if the particle were moved by an
 * infinitesimal (simulation of simplicity), with each edge evaluated the
 * same way in both of its triangles, so it counts exactly once.
 * In a polygon's slab: polygon.h. Near a sample: a hash grid of the
 * samples (of every layer) with cells as wide as the gap.
 *
 * Invariant: the survivors are exactly the particles that pass both tests,
 * in their original order.
 */
#include "boundary.h"
#include "boundary_mesh.h"
#include "polygon.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- meshes: triangles bucketed by their extent in (y, z) */

/* Monotonic in y (a subtraction and a scaling, then a clamp), so a point
 * inside a triangle's extent falls in one of that extent's cells. */
static int cell_of(double x, double lo, double scale, int n)
{
    double c = (x - lo) * scale;
    return c < 0.0 ? 0 : c >= n ? n - 1 : (int)c;
}

static void tri_cells(const boundary_locator *L, unsigned t, int c[4])
{
    const float *v = L->m->v;
    const unsigned *i = L->m->tri + 3 * t;
    float ylo = fminf(v[3 * i[0] + 1], fminf(v[3 * i[1] + 1], v[3 * i[2] + 1]));
    float yhi = fmaxf(v[3 * i[0] + 1], fmaxf(v[3 * i[1] + 1], v[3 * i[2] + 1]));
    float zlo = fminf(v[3 * i[0] + 2], fminf(v[3 * i[1] + 2], v[3 * i[2] + 2]));
    float zhi = fmaxf(v[3 * i[0] + 2], fmaxf(v[3 * i[1] + 2], v[3 * i[2] + 2]));
    c[0] = cell_of(ylo, L->lo[1], L->sy, L->ny);
    c[1] = cell_of(yhi, L->lo[1], L->sy, L->ny);
    c[2] = cell_of(zlo, L->lo[2], L->sz, L->nz);
    c[3] = cell_of(zhi, L->lo[2], L->sz, L->nz);
}

static void locator_bounds(boundary_locator *L, const fcl_mesh *m)
{
    for (int k = 0; k < 3; k++) {
        L->lo[k] = INFINITY;
        L->hi[k] = -INFINITY;
    }
    for (size_t v = 0; v < m->nv; v++)
        for (int k = 0; k < 3; k++) {
            L->lo[k] = fminf(L->lo[k], m->v[3 * v + k]);
            L->hi[k] = fmaxf(L->hi[k], m->v[3 * v + k]);
        }
    /* About one cell per triangle, square-ish cells over the (y, z) box. */
    int n = (int)ceil(sqrt((double)m->ntri));
    n = n < 1 ? 1 : n > 1024 ? 1024 : n;
    double ly = (double)L->hi[1] - L->lo[1], lz = (double)L->hi[2] - L->lo[2];
    L->ny = L->nz = n;
    L->sy = ly > 0.0 ? n / ly : 0.0;
    L->sz = lz > 0.0 ? n / lz : 0.0;
}

int boundary_locator_build(boundary_locator *L, const fcl_mesh *m)
{
    memset(L, 0, sizeof *L);
    L->m = m;
    locator_bounds(L, m);
    size_t cells = (size_t)L->ny * L->nz, total = 0;
    L->start = calloc(cells + 1, sizeof *L->start);
    if (!L->start)
        return -1;
    int c[4];
    for (unsigned t = 0; t < m->ntri; t++) {
        tri_cells(L, t, c);
        total += (size_t)(c[1] - c[0] + 1) * (size_t)(c[3] - c[2] + 1);
        for (int y = c[0]; y <= c[1]; y++)
            for (int z = c[2]; z <= c[3]; z++)
                L->start[(size_t)y * L->nz + z]++;
    }
    L->items = total < UINT32_MAX ? malloc((total + 1) * sizeof *L->items) : NULL;
    if (!L->items)
        return -1;
    /* start[k] becomes the end of cell k; filling each cell from its end
     * down leaves it at the cell's front, triangles in ascending order. */
    for (size_t k = 1; k < cells; k++)
        L->start[k] += L->start[k - 1];
    L->start[cells] = (unsigned)total;
    for (unsigned t = (unsigned)m->ntri; t-- > 0;) {
        tri_cells(L, t, c);
        for (int y = c[0]; y <= c[1]; y++)
            for (int z = c[2]; z <= c[3]; z++)
                L->items[--L->start[(size_t)y * L->nz + z]] = t;
    }
    return 0;
}

/* Side of p's (y, z) against the projected edge i -> j, as if p had moved
 * by (eps, eps^2) for an infinitesimal eps: exactly on the edge line, the
 * sign of eps's coefficient decides. Computed from the edge's lower vertex
 * index, so both triangles of an edge get the same number, negated. *e is
 * the unperturbed value (twice an area), used as barycentric weight. */
static int edge_side(const float *v, unsigned i, unsigned j, const float4 *p, double *e)
{
    unsigned a = i < j ? i : j, b = i < j ? j : i;
    double dy = (double)v[3 * b + 1] - v[3 * a + 1], dz = (double)v[3 * b + 2] - v[3 * a + 2];
    double ev = dy * ((double)p->z - v[3 * a + 2]) - dz * ((double)p->y - v[3 * a + 1]);
    int s = ev > 0 ? 1 : ev < 0 ? -1 : dz < 0 ? 1 : dz > 0 ? -1 : dy > 0 ? 1 : dy < 0 ? -1 : 0;
    *e = i < j ? ev : -ev;
    return i < j ? s : -s;
}

/* Does the ray from p along +x cross triangle t? 0, or +-1 by the side
 * the triangle faces (the sign of its normal's x, as the edges' common
 * sign gives it). */
static int ray_crosses(const fcl_mesh *m, unsigned t, const float4 *p)
{
    const unsigned *i = m->tri + 3 * t;
    double w[3];
    int s0 = edge_side(m->v, i[1], i[2], p, &w[0]);
    int s1 = edge_side(m->v, i[2], i[0], p, &w[1]);
    int s2 = edge_side(m->v, i[0], i[1], p, &w[2]);
    if (s0 == 0 || s0 != s1 || s1 != s2)
        return 0;
    double sum = w[0] + w[1] + w[2];
    if (sum == 0.0)
        return 0;
    double x = (w[0] * m->v[3 * i[0]] + w[1] * m->v[3 * i[1]] + w[2] * m->v[3 * i[2]]) / sum;
    return x > p->x ? s0 : 0;
}

int boundary_mesh_inside(const boundary_locator *L, const float4 *p)
{
    if (!(p->x >= L->lo[0] && p->x <= L->hi[0] && p->y >= L->lo[1] && p->y <= L->hi[1] && p->z >= L->lo[2] &&
          p->z <= L->hi[2]))
        return 0;
    size_t c = (size_t)cell_of(p->y, L->lo[1], L->sy, L->ny) * L->nz + cell_of(p->z, L->lo[2], L->sz, L->nz);
    int winding = 0;
    for (unsigned k = L->start[c]; k < L->start[c + 1]; k++)
        winding += ray_crosses(L->m, L->items[k], p);
    return winding != 0;
}

void boundary_locator_free(boundary_locator *L)
{
    free(L->start);
    free(L->items);
    memset(L, 0, sizeof *L);
}

/* ---- samples: a hash grid with cells as wide as the gap */

typedef struct sample_grid {
    const float4 *pts;
    unsigned *start;          /* buckets + 1 offsets into idx, bucket after bucket */
    unsigned *idx;
    uint64_t mask;
    double inv;               /* 1 / cell size */
} sample_grid;

static uint64_t bucket_of(const sample_grid *g, int64_t x, int64_t y, int64_t z)
{
    return ((uint64_t)x * 73856093u ^ (uint64_t)y * 19349663u ^ (uint64_t)z * 83492791u) & g->mask;
}

static uint64_t bucket_at(const sample_grid *g, const float4 *p, int dx, int dy, int dz)
{
    return bucket_of(g, (int64_t)floor(p->x * g->inv) + dx, (int64_t)floor(p->y * g->inv) + dy,
                     (int64_t)floor(p->z * g->inv) + dz);
}

/* Counting sort of the samples by bucket. */
static int sample_grid_build(sample_grid *g, const float4 *pts, size_t n, float cell)
{
    size_t buckets = 1024;
    while (buckets < n)
        buckets *= 2;
    memset(g, 0, sizeof *g);
    g->pts = pts;
    g->mask = buckets - 1;
    g->inv = 1.0 / cell;
    g->start = calloc(buckets + 1, sizeof *g->start);
    g->idx = n < UINT32_MAX ? malloc((n + 1) * sizeof *g->idx) : NULL;
    if (!g->start || !g->idx)
        return -1;
    for (size_t i = 0; i < n; i++)
        g->start[bucket_at(g, &pts[i], 0, 0, 0)]++;
    /* As in locator_build: ends first, then filled down to the fronts. */
    for (size_t b = 1; b < buckets; b++)
        g->start[b] += g->start[b - 1];
    g->start[buckets] = (unsigned)n;
    for (size_t i = n; i-- > 0;)
        g->idx[--g->start[bucket_at(g, &pts[i], 0, 0, 0)]] = (unsigned)i;
    return 0;
}

static int sample_near(const sample_grid *g, const float4 *p, double r2)
{
    if (!isfinite(p->x) || !isfinite(p->y) || !isfinite(p->z))
        return 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                uint64_t b = bucket_at(g, p, dx, dy, dz);
                for (unsigned k = g->start[b]; k < g->start[b + 1]; k++) {
                    const float4 *q = &g->pts[g->idx[k]];
                    double ex = (double)q->x - p->x, ey = (double)q->y - p->y, ez = (double)q->z - p->z;
                    if (ex * ex + ey * ey + ez * ez < r2)
                        return 1;
                }
            }
    return 0;
}

/* ---- carving */

/* What the inside tests need per obstacle, built once per carve. */
typedef struct solids {
    boundary_locator *L;         /* meshes */
    fcl_polygon_frame *F;        /* polygons */
    double *depth;               /* polygons: the slab's depth */
    double front;                /* polygons: the carving gap in front */
} solids;

static int solids_build(solids *S, const fcl_boundary *b, float gap)
{
    S->front = gap > 0.0f ? gap : 0.0;
    size_t n = (size_t)b->nobstacles + 1;
    S->L = calloc(n, sizeof *S->L);
    S->F = calloc(n, sizeof *S->F);
    S->depth = calloc(n, sizeof *S->depth);
    int ok = S->L && S->F && S->depth;
    for (int i = 0; ok && i < b->nobstacles; i++) {
        const fcl_obstacle *o = &b->obstacles[i];
        if (o->kind == FCL_SHAPE_MESH)
            ok = boundary_locator_build(&S->L[i], &b->meshes[i]) == 0;
        if (o->kind != FCL_SHAPE_POLYGON)
            continue;
        polygon_frame(o, &S->F[i]);
        S->depth[i] = o->thickness > 0.0f ? (double)o->thickness : (double)b->layers * b->spacing;
    }
    return ok ? 0 : -1;
}

static void solids_free(solids *S, int n)
{
    for (int i = 0; S->L && i < n; i++)
        boundary_locator_free(&S->L[i]);
    free(S->L);
    free(S->F);
    free(S->depth);
}

static int in_obstacle(const fcl_boundary *b, const solids *S, const float4 *p)
{
    for (int i = 0; i < b->nobstacles; i++) {
        const fcl_obstacle *o = &b->obstacles[i];
        const float x[3] = { p->x, p->y, p->z };
        if (o->kind == FCL_SHAPE_BOX || o->kind == FCL_SHAPE_SPHERE) {
            /* A box grown by the gap, as a polygon's front is: its samples
             * lie on its faces on their own lattice, and fluid half a
             * spacing from a face was over 0.75 from every sample and
             * kept, starting compressed (a block abutting a box: dfsph 24.6
             * m/s in 20 steps, mps a blow-up at step 2; a review). A
             * sphere too, but for mps: fluid 0.46 spacings from a 2.5 d
             * sphere's surface, between its samples, read +11 % and dfsph
             * threw it at 3.6-5.0 m/s in the first step (0.007 grown; a
             * review); mps counts samples as particles, and grown it left
             * the nearest fluid under-dense (n/n0 - 1 -5.1 % -> -10.6 %). */
            int grow = o->kind == FCL_SHAPE_BOX || b->grow_spheres;
            if (scene_in_shape(o, x, grow ? S->front : 0.0))
                return 1;
        } else if (o->kind == FCL_SHAPE_POLYGON) {
            if (polygon_inside(&S->F[i], S->front, S->depth[i], p))
                return 1;
        } else if (boundary_mesh_inside(&S->L[i], p)) {
            return 1;
        }
    }
    return 0;
}

size_t boundary_carve(const fcl_boundary *b, float4 *pos, float4 *vel, size_t n, float gap)
{
    int near = gap > 0.0f && b->n > 0, ok = 1;
    double gap2 = (double)gap * gap;
    sample_grid g = { 0 };
    solids S = { 0 };
    unsigned char *drop = malloc(n + 1);
    ok = drop && (!near || sample_grid_build(&g, b->pos, b->n, gap) == 0) && solids_build(&S, b, gap) == 0;
    size_t kept = 0;
    if (ok) {
#pragma omp parallel for schedule(dynamic, 4096)
        for (long long i = 0; i < (long long)n; i++)
            drop[i] = (unsigned char)(in_obstacle(b, &S, &pos[i]) || (near && sample_near(&g, &pos[i], gap2)));
        for (size_t i = 0; i < n; i++) {
            if (drop[i])
                continue;
            pos[kept] = pos[i];
            if (vel)
                vel[kept] = vel[i];
            kept++;
        }
    }
    solids_free(&S, b->nobstacles);
    free(drop);
    free(g.start);
    free(g.idx);
    return ok ? kept : (size_t)-1;
}
