/* sampler.c - sampling the surfaces of boundary solids (see sampler.h).
 * Boxes and spheres are sampled in closed form. Meshes are sampled from
 * candidates (vertices, points along edges, triangle lattices) that pass
 * through a hash grid which drops any candidate within gap d of a point
 * already taken (gap 0.5; mps asks 0.8, sampler_mesh_gap).
 *
 * Invariant: arithmetic is done in double and rounded to float once, in a
 * fixed order, so the same input gives bit-identical samples.
 */
#include "sampler.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- boxes and spheres */

static size_t grid_count(float len, float d)
{
    long n = lround((double)len / d) + 1;
    return n < 2 ? 2 : (size_t)n;
}

/* Point i of n spanning lo..hi exactly (both ends hit without rounding). */
static float grid_at(float lo, float hi, size_t i, size_t n)
{
    double t = (double)i / (double)(n - 1);
    return (float)(lo * (1.0 - t) + hi * t);
}

int sampler_clip_has(const float *clip, float x, float y, float z)
{
    return !clip || (x >= clip[0] && y >= clip[1] && z >= clip[2] && x <= clip[3] && y <= clip[4] && z <= clip[5]);
}

/* The indices of n points spanning lo..hi that may lie in [a, b]: a
 * superset (one point either side), each then tested exactly. */
static void index_span(float lo, float hi, size_t n, float a, float b, size_t *i0, size_t *i1)
{
    double step = ((double)hi - lo) / (double)(n - 1);
    /* A box of no or negative extent along the axis (mps's box_to_walls
     * can raise min past max: two planes) is walked whole, each point
     * tested (the span came out empty and dropped such a box). */
    if (!(step > 0.0) || !isfinite(step)) {
        *i0 = 0, *i1 = n - 1;
        return;
    }
    double f = floor((a - lo) / step) - 1.0, l = ceil((b - lo) / step) + 1.0;
    *i0 = f <= 0.0 ? 0 : f >= (double)(n - 1) ? n - 1 : (size_t)f;
    *i1 = l <= 0.0 ? 0 : l >= (double)(n - 1) ? n - 1 : (size_t)l;
    if (l < 0.0 || f > (double)(n - 1))   /* nothing of lo..hi in [a, b] */
        *i0 = 1, *i1 = 0;
}

size_t sampler_box(const float lo[3], const float hi[3], float d, const float *clip, float4 *out)
{
    size_t n[3], from[3], to[3], c = 0;
    for (int k = 0; k < 3; k++) {
        n[k] = grid_count(hi[k] - lo[k], d);
        from[k] = 0, to[k] = n[k] - 1;
        if (clip)
            index_span(lo[k], hi[k], n[k], clip[k], clip[3 + k], &from[k], &to[k]);
    }
    for (size_t k = from[2]; k <= to[2] && from[2] <= to[2]; k++)
        for (size_t j = from[1]; j <= to[1] && from[1] <= to[1]; j++) {
            /* Away from the y and z faces only the two x faces are surface. */
            int rim = k == 0 || k == n[2] - 1 || j == 0 || j == n[1] - 1;
            for (size_t i = rim ? from[0] : 0; i <= (rim ? to[0] : n[0] - 1) && from[0] <= to[0];
                 i += rim ? 1 : n[0] - 1) {
                float x = grid_at(lo[0], hi[0], i, n[0]), y = grid_at(lo[1], hi[1], j, n[1]),
                      z = grid_at(lo[2], hi[2], k, n[2]);
                if (!sampler_clip_has(clip, x, y, z))
                    continue;
                if (out)
                    out[c] = fcl_f4(x, y, z, 0.0f);
                c++;
            }
        }
    return c;
}

double sampler_box_bound(const float lo[3], const float hi[3], float d, const float *clip)
{
    double all = 1.0, inner = 1.0;
    for (int k = 0; k < 3; k++) {
        size_t n = grid_count(hi[k] - lo[k], d), from = 0, to = n - 1;
        if (clip)
            index_span(lo[k], hi[k], n, clip[k], clip[3 + k], &from, &to);
        if (from > to)
            return 0.0;
        /* The span's points, and those of them off both faces (1..n-2). */
        size_t a = from > 1 ? from : 1, b = to < n - 2 ? to : n - 2;
        all *= (double)(to - from + 1);
        inner *= n >= 3 && a <= b ? (double)(b - a + 1) : 0.0;
    }
    return all - inner;
}

/* Whether a sphere of radius r about c may have points in clip: its
 * surface passes between the box's nearest and farthest points (a spacing
 * of slack for rounding). For a clip wholly inside a sphere 10^5 m wide
 * the band of heights alone would walk 1.8e9 points of its equator to
 * keep none. */
static int sphere_meets(const float c[3], float r, float d, const float *clip)
{
    double near2 = 0.0, far2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double lo = (double)clip[k] - c[k], hi = (double)clip[3 + k] - c[k];
        double n = lo > 0.0 ? lo : hi < 0.0 ? -hi : 0.0, f = fmax(fabs(lo), fabs(hi));
        near2 += n * n;
        far2 += f * f;
    }
    double in = (double)r - d, out = (double)r + d;
    return near2 <= out * out && (in <= 0.0 || far2 >= in * in);
}

double sampler_sphere_bound(const float center[3], float r, float d, const float *clip)
{
    const double pi = 3.14159265358979323846;
    double want = 4.0 * pi * (double)r * r / ((double)d * d);
    double n = want < 1.0 ? 1.0 : floor(want + 0.5);
    if (!clip || !(r > 0.0f))
        return n;
    if (!sphere_meets(center, r, d, clip))
        return 0.0;
    /* The band of heights sampler_sphere visits, widened by a point; and
     * the points' share of the sphere inside the clip, whose area is at
     * most the clip's own (a convex body's surface inside a convex box),
     * twice over for the lattice's unevenness. */
    double ya = ((double)clip[1] - center[1]) / r, yb = ((double)clip[4] - center[1]) / r;
    double a = fmax(0.0, floor((1.0 - yb) * 0.5 * n - 0.5) - 1.0), b = fmin(n - 1.0, ceil((1.0 - ya) * 0.5 * n - 0.5) + 1.0);
    double e[3] = { (double)clip[3] - clip[0], (double)clip[4] - clip[1], (double)clip[5] - clip[2] };
    double box = 2.0 * (e[0] * e[1] + e[1] * e[2] + e[0] * e[2]) * n / (4.0 * pi * (double)r * r);
    return b < a ? 0.0 : fmin(b - a + 1.0, 2.0 * box + 64.0);
}

size_t sampler_sphere(const float center[3], float r, float d, const float *clip, float4 *out)
{
    const double pi = 3.14159265358979323846;
    double want = 4.0 * pi * (double)r * r / ((double)d * d);
    size_t n = want < 1.0 ? 1 : (size_t)llround(want), i0 = 0, i1 = n - 1, c = 0;
    if (!clip && !out)
        return n;
    if (clip && r > 0.0f && !sphere_meets(center, r, d, clip))
        return 0;
    /* Point i's height is center + r (1 - (2 i + 1) / n): only the band
     * of i whose heights may lie in the clip is visited. */
    if (clip && r > 0.0f) {
        double ya = ((double)clip[1] - center[1]) / r, yb = ((double)clip[4] - center[1]) / r;
        double a = floor((1.0 - yb) * 0.5 * (double)n - 0.5) - 1.0, b = ceil((1.0 - ya) * 0.5 * (double)n - 0.5) + 1.0;
        if (b < 0.0 || a > (double)(n - 1))
            return 0;
        i0 = a <= 0.0 ? 0 : (size_t)a;
        i1 = b >= (double)(n - 1) ? n - 1 : (size_t)b;
    }
    /* Fibonacci lattice: equal-area bands in y, successive points turned by
     * the golden angle, which spreads them without clusters or seams. */
    double turn = pi * (3.0 - sqrt(5.0));
    for (size_t i = i0; i <= i1; i++) {
        double y = 1.0 - (2.0 * (double)i + 1.0) / (double)n;
        double rho = sqrt(fmax(0.0, 1.0 - y * y)), phi = turn * (double)i;
        float4 q = fcl_f4((float)(center[0] + r * rho * cos(phi)), (float)(center[1] + r * y),
                          (float)(center[2] + r * rho * sin(phi)), 0.0f);
        if (!sampler_clip_has(clip, q.x, q.y, q.z))
            continue;
        if (out)
            out[c] = q;
        c++;
    }
    return c;
}

/* ---- meshes: candidates thinned through a hash grid */

typedef struct thinner {
    float4 *pts;          /* points taken so far */
    size_t n;
    unsigned *head;       /* bucket -> 1 + first point in it, 0 if none */
    unsigned *next;       /* point -> 1 + next point in its bucket */
    uint64_t mask;
    double r2, inv;       /* squared rejection radius; 1 / cell size */
} thinner;

static int thin_init(thinner *t, size_t cap, double r)
{
    size_t buckets = 1024;
    while (buckets < cap)
        buckets *= 2;
    memset(t, 0, sizeof *t);
    t->pts = malloc((cap + 1) * sizeof *t->pts);
    t->next = malloc((cap + 1) * sizeof *t->next);
    t->head = calloc(buckets, sizeof *t->head);
    t->mask = buckets - 1;
    t->r2 = r * r;
    t->inv = 1.0 / r;
    return t->pts && t->next && t->head ? 0 : -1;
}

static uint64_t bucket_of(int64_t x, int64_t y, int64_t z, uint64_t mask)
{
    return ((uint64_t)x * 73856093u ^ (uint64_t)y * 19349663u ^ (uint64_t)z * 83492791u) & mask;
}

/* Take p unless a point already taken lies within the rejection radius.
 * Cells are as wide as that radius, so the 27 around p hold all rivals. */
static void thin_add(thinner *t, const double p[3])
{
    int64_t c[3];
    for (int k = 0; k < 3; k++)
        c[k] = (int64_t)floor(p[k] * t->inv);
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                uint64_t b = bucket_of(c[0] + dx, c[1] + dy, c[2] + dz, t->mask);
                for (unsigned s = t->head[b]; s; s = t->next[s - 1]) {
                    const float4 *q = &t->pts[s - 1];
                    double ex = q->x - p[0], ey = q->y - p[1], ez = q->z - p[2];
                    if (ex * ex + ey * ey + ez * ez < t->r2)
                        return;
                }
            }
    uint64_t b = bucket_of(c[0], c[1], c[2], t->mask);
    t->pts[t->n] = fcl_f4((float)p[0], (float)p[1], (float)p[2], 0.0f);
    t->next[t->n] = t->head[b];
    t->head[b] = (unsigned)++t->n;
}

/* Pieces of length <= d along a length; the small allowance keeps an edge
 * of exactly k spacings (up to rounding) at k pieces. */
static size_t pieces(double len, double d)
{
    double s = ceil(len / d - 1e-4);
    return s < 1.0 ? 1 : (size_t)s;
}

static double dist(const float *a, const float *b)
{
    double x = (double)a[0] - b[0], y = (double)a[1] - b[1], z = (double)a[2] - b[2];
    return sqrt(x * x + y * y + z * z);
}

/* Lattice divisions of triangle t: its longest edge in pieces <= d, so
 * every small lattice triangle (similar to t) has edges <= d. */
static size_t tri_pieces(const fcl_mesh *m, size_t t, double d)
{
    const float *a = m->v + 3 * m->tri[3 * t], *b = m->v + 3 * m->tri[3 * t + 1], *c = m->v + 3 * m->tri[3 * t + 2];
    return pieces(fmax(dist(a, b), fmax(dist(b, c), dist(c, a))), d);
}

/* Upper bound on the candidates: every vertex, edge point, lattice point. */
static double candidates(const fcl_mesh *m, const unsigned *edges, size_t ne, double d)
{
    double c = (double)m->nv;
    for (size_t e = 0; e < ne; e++)
        c += (double)pieces(dist(m->v + 3 * edges[2 * e], m->v + 3 * edges[2 * e + 1]), d) - 1.0;
    for (size_t t = 0; t < m->ntri; t++) {
        double n = (double)tri_pieces(m, t, d);
        c += n > 2.0 ? (n - 1.0) * (n - 2.0) / 2.0 : 0.0;
    }
    return c;
}

static void lerp3(double out[3], const float *a, const float *b, double s)
{
    for (int k = 0; k < 3; k++)
        out[k] = a[k] + s * ((double)b[k] - a[k]);
}

/* Vertices first (those the triangles use; a repeat is at distance 0 and
 * dropped), then the inner points of every edge, each edge once. */
static void add_vertices_edges(thinner *t, const fcl_mesh *m, const unsigned *edges, size_t ne, double d)
{
    double p[3];
    for (size_t i = 0; i < 3 * m->ntri; i++) {
        for (int k = 0; k < 3; k++)
            p[k] = m->v[3 * m->tri[i] + k];
        thin_add(t, p);
    }
    for (size_t e = 0; e < ne; e++) {
        const float *a = m->v + 3 * edges[2 * e], *b = m->v + 3 * edges[2 * e + 1];
        size_t n = pieces(dist(a, b), d);
        for (size_t k = 1; k < n; k++) {
            lerp3(p, a, b, (double)k / (double)n);
            thin_add(t, p);
        }
    }
}

/* Inner points a + (i/n)(b - a) + (j/n)(c - a), i, j >= 1, i + j < n. */
static void add_interiors(thinner *t, const fcl_mesh *m, double d)
{
    for (size_t tr = 0; tr < m->ntri; tr++) {
        const float *a = m->v + 3 * m->tri[3 * tr], *b = m->v + 3 * m->tri[3 * tr + 1];
        const float *c = m->v + 3 * m->tri[3 * tr + 2];
        size_t n = tri_pieces(m, tr, d);
        for (size_t i = 1; i + 1 < n; i++)
            for (size_t j = 1; i + j < n; j++) {
                double s = (double)i / (double)n, u = (double)j / (double)n, p[3];
                for (int k = 0; k < 3; k++)
                    p[k] = a[k] + s * ((double)b[k] - a[k]) + u * ((double)c[k] - a[k]);
                thin_add(t, p);
            }
    }
}

double sampler_mesh_min(const fcl_mesh *m, float d, double gap)
{
    double area = 0.0;
    for (size_t t = 0; t < m->ntri; t++) {
        const float *a = m->v + 3 * m->tri[3 * t], *b = m->v + 3 * m->tri[3 * t + 1], *c = m->v + 3 * m->tri[3 * t + 2];
        double u[3], v[3];
        for (int k = 0; k < 3; k++) {
            u[k] = (double)b[k] - a[k];
            v[k] = (double)c[k] - a[k];
        }
        double x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2], z = u[0] * v[1] - u[1] * v[0];
        area += 0.5 * sqrt(x * x + y * y + z * z);
    }
    /* Every surface point lies within d / sqrt(3) of a candidate and every
     * candidate within gap d of a kept point, so balls of radius
     * (0.58 + gap) d (1.08 d at the usual gap) around the kept points cover
     * the surface; a ball holds pi r^2 of a flat surface, and up to about 4
     * times that where the surface folds. */
    double r = (0.58 + gap) * d;
    return area / (4.0 * 3.14159265358979 * r * r);
}

double sampler_mesh_candidates(const fcl_mesh *m, float d)
{
    unsigned *edges;
    size_t ne = obj_edges(m, &edges);
    if (ne == (size_t)-1)
        return -1.0;
    double c = candidates(m, edges, ne, d);
    free(edges);
    return c;
}

int sampler_mesh_gap(const fcl_mesh *m, float d, double gap, float4 **out, size_t *n)
{
    unsigned *edges;
    thinner t = { 0 };
    *out = NULL;
    *n = 0;
    size_t ne = obj_edges(m, &edges);
    if (ne == (size_t)-1)
        return -1;
    double cand = candidates(m, edges, ne, d);
    int rc = cand < 2147483648.0 ? thin_init(&t, (size_t)cand, gap * d) : -1;
    if (rc == 0) {
        add_vertices_edges(&t, m, edges, ne, d);
        add_interiors(&t, m, d);
        float4 *shrunk = realloc(t.pts, (t.n + 1) * sizeof *t.pts);
        *out = shrunk ? shrunk : t.pts;
        *n = t.n;
        t.pts = NULL;
    }
    free(t.pts);
    free(t.head);
    free(t.next);
    free(edges);
    return rc;
}

int sampler_mesh(const fcl_mesh *m, float d, float4 **out, size_t *n)
{
    return sampler_mesh_gap(m, d, 0.5, out, n);
}
