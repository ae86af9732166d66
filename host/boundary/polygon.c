/* polygon.c - planar polygon obstacles (polygon.h): frame, checks,
 * sampling of the layers, inside test of the slab behind.
 *
 * The samples are a square lattice in the polygon's own plane rather than
 * a triangulation's barycentric points: a lattice keeps the spacing
 * regular across the whole polygon, convex or not, and its rows continue
 * the edge samples wherever an edge runs along a lattice axis (every edge
 * of an axis-aligned corridor at a multiple of the spacing).
 *
 * Invariant: the vertices are read as given and every computation is in
 * double in a fixed order, rounded to float once per sample.
 */
#include "polygon.h"
#include "sampler.h"

#include <math.h>
#include <stdio.h>

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void normalize3(double a[3])
{
    double l = sqrt(dot3(a, a));
    for (int k = 0; k < 3; k++)
        a[k] = l > 0.0 ? a[k] / l : 0.0;
}

/* Newell's normal (twice the area vector) and the bounding diagonal. */
static void newell(const fcl_obstacle *o, double nrm[3], double *extent)
{
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    nrm[0] = nrm[1] = nrm[2] = 0.0;
    for (int i = 0; i < o->npoly; i++) {
        const float *a = o->poly[i], *b = o->poly[(i + 1) % o->npoly];
        nrm[0] += ((double)a[1] - b[1]) * ((double)a[2] + b[2]);
        nrm[1] += ((double)a[2] - b[2]) * ((double)a[0] + b[0]);
        nrm[2] += ((double)a[0] - b[0]) * ((double)a[1] + b[1]);
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], a[k]);
            hi[k] = fmax(hi[k], a[k]);
        }
    }
    double e[3] = { hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2] };
    *extent = o->npoly > 0 ? sqrt(dot3(e, e)) : 0.0;
}

void polygon_frame(const fcl_obstacle *o, fcl_polygon_frame *f)
{
    double w[3], e[3];
    newell(o, f->n, &f->extent);
    f->area = 0.5 * sqrt(dot3(f->n, f->n));
    normalize3(f->n);
    f->nv = o->npoly;
    f->lat[0] = f->lat[1] = 0.0;
    f->aligned = 0;
    for (int i = 0; i < o->npoly; i++)
        for (int k = 0; k < 3; k++)
            f->xy3[i][k] = o->poly[i][k];
    for (int k = 0; k < 3; k++) {
        f->o[k] = o->poly[0][k];
        e[k] = (double)o->poly[1 % o->npoly][k] - o->poly[0][k];
    }
    /* u: the first edge with its off-plane part removed (zero only for a
     * polygon polygon_check refuses). */
    double en = dot3(e, f->n);
    for (int k = 0; k < 3; k++)
        f->u[k] = e[k] - en * f->n[k];
    normalize3(f->u);
    cross3(f->n, f->u, f->v);
    for (int i = 0; i < o->npoly; i++) {
        for (int k = 0; k < 3; k++)
            w[k] = (double)o->poly[i][k] - f->o[k];
        f->xy[i][0] = dot3(w, f->u);
        f->xy[i][1] = dot3(w, f->v);
    }
}

/* t modulo d in [0, d) (lattice_mod); lattice_rem: the same, 0 within
 * 1e-3 d of a multiple: vertices and the domain are floats (0.115 against
 * a lattice at 0.005 + k 0.01 left 5e-7 d), and a shift under 1e-3 d
 * changes no sum. */
static double lattice_mod(double t, double d)
{
    double r = fmod(t, d);
    return r < 0.0 ? r + d : r;
}

static double lattice_rem(double t, double d)
{
    double r = lattice_mod(t, d);
    return r < 1e-3 * d || d - r < 1e-3 * d ? 0.0 : r;
}

/* The axis a unit vector runs along, or -1. */
static int axis_of(const double a[3])
{
    for (int k = 0; k < 3; k++)
        if (fabs(a[k]) > 1.0 - 1e-12)
            return k;
    return -1;
}

void polygon_align(fcl_polygon_frame *f, const double at[3], double d)
{
    f->aligned = 0;
    f->lat[0] = f->lat[1] = 0.0;
    int na = axis_of(f->n);
    double off = 0.0;
    for (int k = 0; k < 3; k++)
        off += (at[k] - f->o[k]) * f->n[k];
    if (!(d > 0.0) || na < 0 || lattice_rem(off, d) != 0.0)
        return;   /* only a polygon in a plane of the lattice */
    /* Rows along an axis, whichever way the first edge runs. */
    for (int k = 0; k < 3; k++)
        f->u[k] = k == (na + 1) % 3 ? 1.0 : 0.0;
    cross3(f->n, f->u, f->v);
    for (int i = 0; i < f->nv; i++) {
        double w[3] = { f->xy3[i][0] - f->o[0], f->xy3[i][1] - f->o[1], f->xy3[i][2] - f->o[2] };
        f->xy[i][0] = dot3(w, f->u);
        f->xy[i][1] = dot3(w, f->v);
    }
    const double *e[2] = { f->u, f->v };
    for (int q = 0; q < 2; q++) {
        double t = 0.0;
        for (int k = 0; k < 3; k++)
            t += (at[k] - f->o[k]) * e[q][k];
        f->lat[q] = lattice_mod(t, d);
    }
    f->aligned = 1;
}

/* Twice the signed area of triangle a, b, c. */
static double orient(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Whether the segments ab and cd meet (touching within tol counts). */
static int segments_meet(const double *a, const double *b, const double *c, const double *d, double tol)
{
    /* orient() is an area: tol times the segment's length makes it a
     * distance from its line, as in the touching test below. */
    double o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b);
    double t1 = tol * hypot(b[0] - a[0], b[1] - a[1]), t2 = tol * hypot(d[0] - c[0], d[1] - c[1]);
    if (((o1 > t1 && o2 < -t1) || (o1 < -t1 && o2 > t1)) && ((o3 > t2 && o4 < -t2) || (o3 < -t2 && o4 > t2)))
        return 1;
    /* Collinear or touching: a point of one within tol of the other. */
    const double *seg[4][3] = { { a, b, c }, { a, b, d }, { c, d, a }, { c, d, b } };
    double o[4] = { o1, o2, o3, o4 };
    for (int k = 0; k < 4; k++) {
        const double *p = seg[k][0], *q = seg[k][1], *r = seg[k][2];
        double l = hypot(q[0] - p[0], q[1] - p[1]);
        if (fabs(o[k]) <= tol * l && r[0] >= fmin(p[0], q[0]) - tol && r[0] <= fmax(p[0], q[0]) + tol &&
            r[1] >= fmin(p[1], q[1]) - tol && r[1] <= fmax(p[1], q[1]) + tol)
            return 1;
    }
    return 0;
}

/* The first two edges that meet other than at their shared vertex: the
 * samples (even-odd) and the slabs (ear-clipped triangles) read a
 * self-intersecting outline differently. 0 when the polygon is simple. */
static int crossing(const fcl_polygon_frame *f, int *e1, int *e2)
{
    double tol = 1e-9 * f->extent;
    for (int i = 0; i < f->nv; i++)
        for (int j = i + 2; j < f->nv; j++) {
            if (i == 0 && j == f->nv - 1)
                continue;   /* they share vertex 0 */
            if (segments_meet(f->xy[i], f->xy[(i + 1) % f->nv], f->xy[j], f->xy[(j + 1) % f->nv], tol)) {
                *e1 = i;
                *e2 = j;
                return 1;
            }
        }
    return 0;
}

/* The largest distance of a vertex from the line through vertex 0 and
 * the vertex farthest from it. */
static double off_line(const fcl_obstacle *o)
{
    int far = 0;
    double best = 0.0, e[3], w[3];
    for (int i = 1; i < o->npoly; i++) {
        double d2 = 0.0;
        for (int k = 0; k < 3; k++)
            d2 += ((double)o->poly[i][k] - o->poly[0][k]) * ((double)o->poly[i][k] - o->poly[0][k]);
        far = d2 > best ? i : far;
        best = fmax(best, d2);
    }
    for (int k = 0; k < 3; k++)
        e[k] = ((double)o->poly[far][k] - o->poly[0][k]) / (best > 0.0 ? sqrt(best) : 1.0);
    double most = 0.0;
    for (int i = 1; i < o->npoly; i++) {
        for (int k = 0; k < 3; k++)
            w[k] = (double)o->poly[i][k] - o->poly[0][k];
        double t = dot3(w, e), r2 = dot3(w, w) - t * t;
        most = fmax(most, sqrt(fmax(r2, 0.0)));
    }
    return most;
}

/* Vertex skip's distance from the plane of o's other vertices (Newell's
 * normal through their centroid); *others, the farthest of those from it. */
static double off_others(const fcl_obstacle *o, int skip, double *others)
{
    fcl_obstacle r = *o;
    double n[3], ext, c[3] = { 0.0, 0.0, 0.0 }, w[3];
    r.npoly = 0;
    for (int i = 0; i < o->npoly; i++)
        if (i != skip) {
            for (int k = 0; k < 3; k++) {
                r.poly[r.npoly][k] = o->poly[i][k];
                c[k] += o->poly[i][k] / (double)(o->npoly - 1);
            }
            r.npoly++;
        }
    newell(&r, n, &ext);
    normalize3(n);
    *others = 0.0;
    for (int i = 0; i < r.npoly; i++) {
        for (int k = 0; k < 3; k++)
            w[k] = (double)r.poly[i][k] - c[k];
        *others = fmax(*others, fabs(dot3(w, n)));
    }
    for (int k = 0; k < 3; k++)
        w[k] = (double)o->poly[skip][k] - c[k];
    return fabs(dot3(w, n));
}

/* A polygon off its plane: the vertex whose removal leaves the others
 * planar, farthest from their plane (of a quadrilateral's four, each is
 * as far from the plane of the other three), with that distance; else the
 * first vertex off the plane through vertex 0. The first off the plane
 * through vertex 0 was named before: of a square with one corner 1 mm
 * off, a corner in the plane of vertex 0 and the other, at 0.5 mm (a
 * review). */
static void not_planar(const fcl_obstacle *o, const fcl_polygon_frame *f, double tol, char *msg, size_t len)
{
    int worst = -1;
    double far = 0.0;
    for (int i = 0; i < o->npoly; i++) {
        double others, d = off_others(o, i, &others);
        if (others <= tol && d > far) {
            far = d;
            worst = i;
        }
    }
    if (worst >= 0) {
        snprintf(msg, len, "vertices[%d]: expected a planar polygon (every vertex within %g m, 1e-4 of its extent, of "
                 "the plane of the others), got [%g, %g, %g] at %g m from the plane of the other %d", worst, tol,
                 o->poly[worst][0], o->poly[worst][1], o->poly[worst][2], far, o->npoly - 1);
        return;
    }
    for (int i = 0; i < o->npoly; i++) {
        double w[3] = { (double)o->poly[i][0] - f->o[0], (double)o->poly[i][1] - f->o[1],
                        (double)o->poly[i][2] - f->o[2] };
        double off = fabs(dot3(w, f->n));
        if (off > tol) {
            snprintf(msg, len, "vertices[%d]: expected a planar polygon (every vertex within %g m, 1e-4 of its "
                     "extent, of the plane), got [%g, %g, %g] at %g m from it (and no one vertex off the others' "
                     "plane: several are)", i, tol, o->poly[i][0], o->poly[i][1], o->poly[i][2], off);
            return;
        }
    }
}

int polygon_check(const fcl_obstacle *o, char *msg, size_t len)
{
    fcl_polygon_frame f;
    if (o->npoly < 3) {
        snprintf(msg, len, "vertices: expected at least 3 vertices [x, y, z], got %d", o->npoly);
        return -1;
    }
    polygon_frame(o, &f);
    double tiny = 1e-6 * f.extent;
    for (int i = 0; i < o->npoly; i++)
        for (int j = i + 1; j < o->npoly; j++) {
            double d[3] = { (double)o->poly[j][0] - o->poly[i][0], (double)o->poly[j][1] - o->poly[i][1],
                            (double)o->poly[j][2] - o->poly[i][2] };
            if (sqrt(dot3(d, d)) <= tiny) {
                snprintf(msg, len, "vertices[%d]: expected distinct vertices, got [%g, %g, %g] again (as "
                         "vertices[%d])", j, o->poly[j][0], o->poly[j][1], o->poly[j][2], i);
                return -1;
            }
        }
    if (!(f.area > 1e-8 * f.extent * f.extent)) {
        /* A bowtie's two lobes cancel: its vertices are not on a line. */
        int line = off_line(o) <= 1e-6 * f.extent;
        snprintf(msg, len, "vertices: expected a polygon of non-zero area, got %g m^2 (%s)", f.area,
                 line ? "its vertices lie on a line" : "its edges cross or fold back, and the parts' areas cancel");
        return -1;
    }
    double tol = 1e-4 * f.extent;
    for (int i = 0; i < o->npoly; i++) {
        double w[3] = { (double)o->poly[i][0] - f.o[0], (double)o->poly[i][1] - f.o[1],
                        (double)o->poly[i][2] - f.o[2] };
        if (fabs(dot3(w, f.n)) > tol) {
            not_planar(o, &f, tol, msg, len);
            return -1;
        }
    }
    int e1, e2;
    if (crossing(&f, &e1, &e2)) {
        snprintf(msg, len, "vertices: expected a simple polygon, got edges %d (vertices[%d] to [%d]) and %d "
                 "(vertices[%d] to [%d]) meeting", e1, e1, (e1 + 1) % o->npoly, e2, e2, (e2 + 1) % o->npoly);
        return -1;
    }
    return 0;
}

/* Even-odd rule: crossings of the ray from (x, y) along +u. */
static int inside2(const fcl_polygon_frame *f, double x, double y)
{
    int odd = 0;
    for (int i = 0, j = f->nv - 1; i < f->nv; j = i++) {
        const double *a = f->xy[i], *b = f->xy[j];
        if ((a[1] > y) != (b[1] > y) && x < a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1]))
            odd ^= 1;
    }
    return odd;
}

/* Squared distance from (x, y) to the polygon's outline. */
static double edge_dist2(const fcl_polygon_frame *f, double x, double y)
{
    double best = INFINITY;
    for (int i = 0, j = f->nv - 1; i < f->nv; j = i++) {
        const double *a = f->xy[j], *b = f->xy[i];
        double ex = b[0] - a[0], ey = b[1] - a[1], l2 = ex * ex + ey * ey;
        double t = l2 > 0.0 ? ((x - a[0]) * ex + (y - a[1]) * ey) / l2 : 0.0;
        t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
        double dx = x - a[0] - t * ex, dy = y - a[1] - t * ey;
        best = fmin(best, dx * dx + dy * dy);
    }
    return best;
}

/* The point (x, y) of the plane, moved back by `back`, as sample c if
 * it lies in clip (sampler.h); 1 when it does. */
static int put(const fcl_polygon_frame *f, double x, double y, double back, const float *clip, float4 *out,
               size_t c)
{
    double p[3];
    for (int k = 0; k < 3; k++)
        p[k] = f->o[k] + x * f->u[k] + y * f->v[k] - back * f->n[k];
    float4 q = fcl_f4((float)p[0], (float)p[1], (float)p[2], 0.0f);
    if (!sampler_clip_has(clip, q.x, q.y, q.z))
        return 0;
    if (out)
        out[c] = q;
    return 1;
}

/* The range of the plane's coordinate along axis e (f->u or f->v) over
 * the clip box's corners: no lattice point outside it lies in the box. */
static void clip_range(const fcl_polygon_frame *f, const double *e, const float *clip, double *lo, double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (int c = 0; c < 8; c++) {
        double t = 0.0;
        for (int k = 0; k < 3; k++)
            t += ((double)clip[(c >> k & 1) ? 3 + k : k] - f->o[k]) * e[k];
        *lo = fmin(*lo, t), *hi = fmax(*hi, t);
    }
}

/* Pieces of length <= d along a length, as sampler.c cuts mesh edges. */
static long pieces(double len, double d)
{
    double s = ceil(len / d - 1e-4);
    return s < 1.0 ? 1 : (long)s;
}

/* The polygon's (u, v) bounds, grown by g and cut to the clip's shadow
 * on the plane (grown by d). */
static void lattice_bounds(const fcl_polygon_frame *f, double d, double g, const float *clip, double lo[2],
                           double hi[2])
{
    lo[0] = lo[1] = INFINITY;
    hi[0] = hi[1] = -INFINITY;
    for (int i = 0; i < f->nv; i++)
        for (int q = 0; q < 2; q++) {
            lo[q] = fmin(lo[q], f->xy[i][q] - g);
            hi[q] = fmax(hi[q], f->xy[i][q] + g);
        }
    if (!clip)
        return;
    double cl[2], ch[2];
    clip_range(f, f->u, clip, &cl[0], &ch[0]);
    clip_range(f, f->v, clip, &cl[1], &ch[1]);
    for (int q = 0; q < 2; q++)
        lo[q] = fmax(lo[q], cl[q] - d), hi[q] = fmin(hi[q], ch[q] + d);
}

/* On the fluid lattice (polygon_align): its points inside the polygon or
 * within half a spacing of it, and no outline samples, which lay off it
 * (the first row by the floor was an edge's, half a spacing off, and a
 * face-to-face partition's n* read a gap there). Half a spacing: every
 * edge is met by a row within d/2 whatever its place (a strip between two
 * rows once took none), and a row on an edge stays whichever way a float
 * vertex rounds (0.295f lies below 0.295). */
static size_t sample_on_lattice(const fcl_polygon_frame *f, float d, double back, const float *clip, float4 *out)
{
    double lo[2], hi[2], ou = f->lat[0], ov = f->lat[1], reach = 0.5 * (double)d * (1.0 + 1e-6);
    size_t c = 0;
    lattice_bounds(f, d, reach, clip, lo, hi);
    long i0 = (long)ceil((lo[0] - ou) / d), i1 = (long)floor((hi[0] - ou) / d);
    long j0 = (long)ceil((lo[1] - ov) / d), j1 = (long)floor((hi[1] - ov) / d);
    for (long j = j0; j <= j1; j++)
        for (long i = i0; i <= i1; i++) {
            double x = ou + (double)i * d, y = ov + (double)j * d;
            if (inside2(f, x, y) || edge_dist2(f, x, y) <= reach * reach)
                c += (size_t)put(f, x, y, back, clip, out, c);
        }
    return c;
}

size_t polygon_sample(const fcl_polygon_frame *f, float d, int k, const float *clip, float4 *out)
{
    double back = (double)k * d, lo[2], hi[2];
    if (f->aligned)
        return sample_on_lattice(f, d, back, clip, out);
    size_t c = 0;
    for (int i = 0; i < f->nv; i++) {
        const double *a = f->xy[i], *b = f->xy[(i + 1) % f->nv];
        long n = pieces(hypot(b[0] - a[0], b[1] - a[1]), d);
        for (long s = 0; s < n; s++) {
            double t = (double)s / (double)n;
            c += (size_t)put(f, a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), back, clip, out, c);
        }
    }
    /* Lattice points on or within 3/4 d of an edge would crowd its
     * samples (nearest neighbours below 0.8 d; at d/2, 5 to 8 % of a
     * slanted polygon's samples were). */
    double r2 = 0.5625 * (double)d * d;
    lattice_bounds(f, d, 0.0, clip, lo, hi);
    long i0 = (long)ceil(lo[0] / d), i1 = (long)floor(hi[0] / d);
    long j0 = (long)ceil(lo[1] / d), j1 = (long)floor(hi[1] / d);
    for (long j = j0; j <= j1; j++)
        for (long i = i0; i <= i1; i++) {
            double x = (double)i * d, y = (double)j * d;
            if (inside2(f, x, y) && edge_dist2(f, x, y) >= r2)
                c += (size_t)put(f, x, y, back, clip, out, c);
        }
    return c;
}

/* Twice the signed area of a, b, c in the polygon's (u, v) plane. */
static double turn(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Whether vertex i of the remaining ring (prev p, next q) is an ear: a
 * convex corner (the polygon runs counter-clockwise in (u, v), its normal
 * being u x v) with no other remaining vertex inside or on it. */
static int is_ear(const fcl_polygon_frame *f, const int *ring, int m, int k)
{
    const double *a = f->xy[ring[(k + m - 1) % m]], *b = f->xy[ring[k]], *c = f->xy[ring[(k + 1) % m]];
    if (!(turn(a, b, c) > 0.0))
        return 0;
    for (int j = 0; j < m; j++) {
        const double *q = f->xy[ring[j]];
        if (j == k || j == (k + 1) % m || j == (k + m - 1) % m || q == a || q == b || q == c)
            continue;
        if (turn(a, b, q) >= 0.0 && turn(b, c, q) >= 0.0 && turn(c, a, q) >= 0.0)
            return 0;
    }
    return 1;
}

int polygon_triangulate(const fcl_polygon_frame *f, int tri[][3])
{
    int ring[FCL_POLY_MAX], m = f->nv, nt = 0;
    for (int i = 0; i < m; i++)
        ring[i] = i;
    while (m > 3) {
        int k = 0;
        while (k < m && !is_ear(f, ring, m, k))
            k++;
        /* Rounding can hide every ear of a nearly degenerate ring; any
         * corner then closes it (a sliver). */
        k = k < m ? k : 0;
        tri[nt][0] = ring[(k + m - 1) % m];
        tri[nt][1] = ring[k];
        tri[nt][2] = ring[(k + 1) % m];
        nt++;
        for (int j = k; j + 1 < m; j++)
            ring[j] = ring[j + 1];
        m--;
    }
    tri[nt][0] = ring[0];
    tri[nt][1] = ring[1];
    tri[nt][2] = ring[2];
    return nt + 1;
}

/* The share t0..t1 of the segment a..b within the rectangle lo..hi
 * (Liang and Barsky); 0 when it misses. */
static double segment_share(const double *a, const double *b, const double lo[2], const double hi[2])
{
    double t0 = 0.0, t1 = 1.0;
    for (int q = 0; q < 2; q++) {
        double e = b[q] - a[q];
        if (e == 0.0) {
            if (a[q] < lo[q] || a[q] > hi[q])
                return 0.0;
            continue;
        }
        double ta = (lo[q] - a[q]) / e, tb = (hi[q] - a[q]) / e;
        t0 = fmax(t0, fmin(ta, tb));
        t1 = fmin(t1, fmax(ta, tb));
    }
    return t1 > t0 ? t1 - t0 : 0.0;
}

double polygon_sample_max(const fcl_polygon_frame *f, double d, const float *clip)
{
    double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY }, edges = 0.0, cl[2], ch[2];
    for (int i = 0; i < f->nv; i++)
        for (int q = 0; q < 2; q++) {
            lo[q] = fmin(lo[q], f->xy[i][q]);
            hi[q] = fmax(hi[q], f->xy[i][q]);
        }
    /* The lattice polygon_sample walks: within the clip's shadow on the
     * plane, a spacing wider; and each edge's points there, two more for
     * the ends (a 100 m edge counted 10^4 points at 1 cm whole). */
    if (clip) {
        clip_range(f, f->u, clip, &cl[0], &ch[0]);
        clip_range(f, f->v, clip, &cl[1], &ch[1]);
        for (int q = 0; q < 2; q++)
            cl[q] -= d, ch[q] += d;
    }
    for (int i = 0; i < f->nv; i++) {
        const double *a = f->xy[i], *b = f->xy[(i + 1) % f->nv];
        double n = (double)pieces(hypot(b[0] - a[0], b[1] - a[1]), d);
        edges += clip ? fmin(n, ceil(n * segment_share(a, b, cl, ch)) + 2.0) : n;
    }
    for (int q = 0; clip && q < 2; q++)
        lo[q] = fmax(lo[q], cl[q]), hi[q] = fmin(hi[q], ch[q]);
    if (hi[0] < lo[0] || hi[1] < lo[1])
        return edges;
    /* + 3: sample_on_lattice's rows reach half a spacing past the edges */
    return edges + (floor((hi[0] - lo[0]) / d) + 3.0) * (floor((hi[1] - lo[1]) / d) + 3.0);
}

int polygon_inside(const fcl_polygon_frame *f, double front, double depth, const float4 *p)
{
    double w[3] = { (double)p->x - f->o[0], (double)p->y - f->o[1], (double)p->z - f->o[2] };
    double s = dot3(w, f->n);
    return s < front && s > -depth && inside2(f, dot3(w, f->u), dot3(w, f->v));
}
