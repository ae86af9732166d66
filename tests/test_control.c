/* test_control.c - control particles of fluid-control targets
 * (host/solvers/pbf/control_sample.h) and their skeleton binding and
 * skinning (control_skin.h): box and sphere meshes closed and outward,
 * the refinement closed with every edge within the voxel, the averaged
 * surface particles within half a voxel of the mesh and closer to the
 * true sphere than voxel centers, interior particles inside, counts
 * bracketed by the shape's volume, the voxel limit, the cache (read back
 * identically, damaged files rewritten); skinning rigid with one bone,
 * weights summing to 1, bad skeletons refused by key and value.
 */
#include "fcl_test.h"

#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "../host/solvers/pbf/control_sample.h"
#include "../host/solvers/pbf/control_skin.h"
#include "../host/scene/targets.h"

static int parse(const char *json, fcl_skeleton *sk, char *err, size_t errlen);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---- mesh helpers */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Closed and consistently oriented: every directed edge a->b appears once
 * and its reverse b->a once. */
static int closed_oriented(const fcl_mesh *m)
{
    size_t n = 3 * m->ntri;
    uint64_t *e = malloc(n * sizeof *e + 8);
    for (size_t t = 0; t < m->ntri; t++)
        for (int k = 0; k < 3; k++)
            e[3 * t + k] = (uint64_t)m->tri[3 * t + k] << 32 | m->tri[3 * t + (k + 1) % 3];
    qsort(e, n, sizeof *e, cmp_u64);
    int ok = 1;
    for (size_t i = 0; ok && i < n; i++) {
        uint64_t rev = e[i] << 32 | e[i] >> 32;
        ok = (i == 0 || e[i] != e[i - 1]) && bsearch(&rev, e, n, sizeof *e, cmp_u64) != NULL;
    }
    free(e);
    return ok;
}

/* Signed volume (divergence theorem): positive for an outward mesh. */
static double mesh_volume(const fcl_mesh *m)
{
    double v = 0.0;
    for (size_t t = 0; t < m->ntri; t++) {
        const float *a = m->v + 3 * m->tri[3 * t], *b = m->v + 3 * m->tri[3 * t + 1], *c = m->v + 3 * m->tri[3 * t + 2];
        v += (a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) - a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
              a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0])) / 6.0;
    }
    return v;
}

static double max_edge(const fcl_mesh *m)
{
    double mx = 0.0;
    for (size_t t = 0; t < m->ntri; t++)
        for (int k = 0; k < 3; k++) {
            const float *a = m->v + 3 * m->tri[3 * t + k], *b = m->v + 3 * m->tri[3 * t + (k + 1) % 3];
            double d = sqrt(((double)a[0] - b[0]) * ((double)a[0] - b[0]) + ((double)a[1] - b[1]) * ((double)a[1] - b[1]) +
                            ((double)a[2] - b[2]) * ((double)a[2] - b[2]));
            mx = fmax(mx, d);
        }
    return mx;
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Distance from p to triangle abc (Ericson, Real-Time Collision Detection
 * 5.1.5: the closest point by Voronoi regions). */
static double tri_dist(const double p[3], const float *fa, const float *fb, const float *fc)
{
    double a[3] = { fa[0], fa[1], fa[2] }, ab[3], ac[3], ap[3], q[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = fb[k] - a[k], ac[k] = fc[k] - a[k], ap[k] = p[k] - a[k];
    }
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap), bp[3], cp[3];
    for (int k = 0; k < 3; k++)
        bp[k] = p[k] - fb[k], cp[k] = p[k] - fc[k];
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp), d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2, s = 0.0, t = 0.0;
    if (d1 <= 0 && d2 <= 0)
        s = 0, t = 0;
    else if (d3 >= 0 && d4 <= d3)
        s = 1, t = 0;
    else if (d6 >= 0 && d5 <= d6)
        s = 0, t = 1;
    else if (vc <= 0 && d1 >= 0 && d3 <= 0)
        s = d1 / (d1 - d3), t = 0;
    else if (vb <= 0 && d2 >= 0 && d6 <= 0)
        s = 0, t = d2 / (d2 - d6);
    else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        s = 1 - w, t = w;
    } else {
        double den = 1.0 / (va + vb + vc);
        s = vb * den, t = vc * den;
    }
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + s * ab[k] + t * ac[k] - p[k];
    return sqrt(dot3(q, q));
}

static double mesh_dist(const fcl_mesh *m, const float4 *p)
{
    double x[3] = { p->x, p->y, p->z }, d = INFINITY;
    for (size_t t = 0; t < m->ntri; t++)
        d = fmin(d, tri_dist(x, m->v + 3 * m->tri[3 * t], m->v + 3 * m->tri[3 * t + 1], m->v + 3 * m->tri[3 * t + 2]));
    return d;
}

static size_t count_label(const fcl_ctl_points *p, int label)
{
    size_t n = 0, nvox = (size_t)p->dims[0] * p->dims[1] * p->dims[2];
    for (size_t i = 0; i < nvox; i++)
        n += p->label[i] == label;
    return n;
}

/* ---- sampling */

static void test_meshes(void)
{
    const float c[3] = { 0.3f, 0.2f, 0.25f }, lo[3] = { 0, 0, 0 }, hi[3] = { 0.2f, 0.1f, 0.15f };
    fcl_mesh s, b, r;
    CHECK(ctl_mesh_sphere(c, 0.1f, 3, &s) == 0 && s.ntri == 1280 && s.nv == 642, "icosphere: %zu triangles, %zu vertices",
          s.ntri, s.nv);
    double vs = mesh_volume(&s), vt = 4.0 / 3.0 * M_PI * 1e-3;
    CHECK(closed_oriented(&s) && vs > 0.98 * vt && vs < vt, "icosphere closed and outward, volume %g of %g", vs, vt);
    CHECK(ctl_mesh_box(lo, hi, &b) == 0 && closed_oriented(&b) && fabs(mesh_volume(&b) - 0.003) < 1e-9,
          "box closed and outward, volume %g", mesh_volume(&b));
    char err[512];
    CHECK(ctl_mesh_refine(&s, 0.0125, &r, err, sizeof err) == 0, "refine: %s", err);
    double me = max_edge(&r);
    printf("sphere r 0.1: %zu -> %zu triangles refined to edges <= 0.0125 (longest %.5f)\n", s.ntri, r.ntri, me);
    CHECK(closed_oriented(&r) && me <= 0.0125 && fabs(mesh_volume(&r) - vs) < 1e-6 * vs,
          "refined sphere closed, oriented, same volume (%g vs %g), longest edge %g", mesh_volume(&r), vs, me);
    obj_free(&r);
    CHECK(ctl_mesh_refine(&b, 0.01, &r, err, sizeof err) == 0 && closed_oriented(&r) && max_edge(&r) <= 0.01,
          "refined box closed, longest edge %g", max_edge(&r));
    obj_free(&r);
    CHECK(ctl_mesh_sphere(c, -1.0f, 2, &r) != 0 && ctl_mesh_box(hi, lo, &r) != 0, "bad sphere and box refused");
    obj_free(&s);
    obj_free(&b);
}

static void test_sphere_sampling(void)
{
    const float c[3] = { 0.3f, 0.2f, 0.25f };
    const double R = 0.1, vox = 0.0125;
    fcl_mesh m;
    fcl_ctl_points pa, pc;
    char err[512] = "";
    ctl_mesh_sphere(c, (float)R, 3, &m);
    CHECK(ctl_sample_mesh(&m, vox, CTL_SAMPLE_AVERAGE, &pa, err, sizeof err) == 0, "sample: %s", err);
    CHECK(ctl_sample_mesh(&m, vox, CTL_SAMPLE_CENTERS, &pc, err, sizeof err) == 0, "sample centers: %s", err);
    CHECK(pa.nsurface == pc.nsurface && pa.ninterior == pc.ninterior, "variants share the voxels");
    double dmax = 0.0, mean_a = 0.0, mean_c = 0.0, max_c = 0.0;
    for (size_t i = 0; i < pa.nsurface; i++) {
        dmax = fmax(dmax, mesh_dist(&m, &pa.pos[i]));
        double ra = sqrt(pow(pa.pos[i].x - c[0], 2) + pow(pa.pos[i].y - c[1], 2) + pow(pa.pos[i].z - c[2], 2));
        double rc = sqrt(pow(pc.pos[i].x - c[0], 2) + pow(pc.pos[i].y - c[1], 2) + pow(pc.pos[i].z - c[2], 2));
        mean_a += fabs(ra - R) / pa.nsurface;
        mean_c += fabs(rc - R) / pc.nsurface;
        max_c = fmax(max_c, fabs(rc - R));
    }
    printf("sphere r %g, voxel %g: %zu surface + %zu interior particles (%zu crossed voxels)\n", R, vox, pa.nsurface,
           pa.ninterior, count_label(&pa, CTL_VOXEL_CROSSED));
    printf("  averaged: max distance to the mesh %.3g voxel, mean |r - R| %.3g voxel; centers: mean %.3g, max %.3g voxel\n",
           dmax / vox, mean_a / vox, mean_c / vox, max_c / vox);
    CHECK(dmax <= 0.5 * vox, "averaged surface particles within half a voxel of the mesh: %g voxel", dmax / vox);
    CHECK(mean_a < 0.5 * mean_c, "averaged closer to the sphere than centers: %g vs %g", mean_a, mean_c);
    double rin = 0.0;
    for (size_t i = pa.nsurface; i < pa.n; i++)
        rin = fmax(rin, sqrt(pow(pa.pos[i].x - c[0], 2) + pow(pa.pos[i].y - c[1], 2) + pow(pa.pos[i].z - c[2], 2)));
    CHECK(rin < R, "interior particles inside the sphere: farthest at %g of %g", rin, R);
    /* Interior voxels lie wholly inside the mesh, and the non-outside ones
     * cover it: the mesh's volume is bracketed exactly. */
    double v3 = vox * vox * vox, vm = mesh_volume(&m);
    size_t ncross = count_label(&pa, CTL_VOXEL_CROSSED);
    double est = (pa.ninterior + 0.5 * (pa.nsurface + ncross)) * v3;
    printf("  volume %.4g: interior voxels %.4g, all inside voxels %.4g, interior + half the rest %.4g (%+.1f %%)\n", vm,
           pa.ninterior * v3, (pa.n + ncross) * v3, est, 100.0 * (est / vm - 1.0));
    CHECK(pa.ninterior * v3 <= vm && (pa.n + ncross) * v3 >= vm, "volume bracketed by the voxels");
    CHECK(fabs(est / vm - 1.0) < 0.1, "interior + half the surface voxels within 10 %% of the volume");
    /* Voxels wholly inside the sphere less the mesh's sagitta (< 0.03
     * voxel here) are interior; those wholly outside it are outside. */
    int wrong = 0;
    for (int z = 0; z < pa.dims[2]; z++)
        for (int y = 0; y < pa.dims[1]; y++)
            for (int x = 0; x < pa.dims[0]; x++) {
                double q[3] = { pa.origin[0] + (x + 0.5) * vox - c[0], pa.origin[1] + (y + 0.5) * vox - c[1],
                                pa.origin[2] + (z + 0.5) * vox - c[2] };
                double rq = sqrt(dot3(q, q));
                int l = pa.label[x + pa.dims[0] * (y + pa.dims[1] * z)];
                wrong += (rq < R - 0.9 * vox && l != CTL_VOXEL_INTERIOR) || (rq > R + 0.9 * vox && l != CTL_VOXEL_OUTSIDE);
            }
    CHECK(wrong == 0, "sphere labels: %d voxels more than 0.9 voxel inside not interior or outside not outside", wrong);
    for (size_t i = 0; i < pa.n; i++)
        CHECK(pa.pos[i].w == 0.0f && pa.label[pa.voxel_of[i]] == (i < pa.nsurface ? CTL_VOXEL_SURFACE : CTL_VOXEL_INTERIOR),
              "particle %zu: w %g, label %d", i, pa.pos[i].w, pa.label[pa.voxel_of[i]]);
    ctl_points_free(&pa);
    ctl_points_free(&pc);
    obj_free(&m);
}

/* Distance from p to the surface of box [lo, hi] (p inside or out). */
static double box_dist(const float *lo, const float *hi, const float4 *p)
{
    double x[3] = { p->x, p->y, p->z }, out = 0.0, in = INFINITY;
    for (int k = 0; k < 3; k++) {
        double e = fmax(fmax(lo[k] - x[k], x[k] - hi[k]), 0.0);
        out += e * e;
        in = fmin(in, fmin(x[k] - lo[k], hi[k] - x[k]));
    }
    return out > 0.0 ? sqrt(out) : in;
}

static void test_box_sampling(void)
{
    const float lo[3] = { 0.01f, -0.02f, 0.0f }, hi[3] = { 0.21f, 0.083f, 0.147f };
    const double vox = 0.0125, vol = 0.2 * 0.103 * 0.147;
    fcl_mesh m;
    fcl_ctl_points p;
    char err[512] = "";
    ctl_mesh_box(lo, hi, &m);
    CHECK(ctl_sample_mesh(&m, vox, CTL_SAMPLE_AVERAGE, &p, err, sizeof err) == 0, "box: %s", err);
    /* A vertex no triangle uses (OBJ files may have them) adds nothing. */
    fcl_mesh ms = m;
    fcl_ctl_points q;
    ms.v = malloc(27 * sizeof *ms.v);
    memcpy(ms.v, m.v, 24 * sizeof *ms.v);
    ms.v[24] = 0.1f, ms.v[25] = 0.03f, ms.v[26] = 0.07f;
    ms.nv = 9;
    CHECK(ctl_sample_mesh(&ms, vox, CTL_SAMPLE_AVERAGE, &q, err, sizeof err) == 0 && q.nsurface == p.nsurface &&
              q.ninterior == p.ninterior, "stray vertex ignored: %zu + %zu", q.nsurface, q.ninterior);
    ctl_points_free(&q);
    free(ms.v);
    double dmax = 0.0, v3 = vox * vox * vox;
    for (size_t i = 0; i < p.nsurface; i++)
        dmax = fmax(dmax, box_dist(lo, hi, &p.pos[i]));
    int inside = 1;
    for (size_t i = p.nsurface; i < p.n; i++)
        inside &= p.pos[i].x > lo[0] && p.pos[i].x < hi[0] && p.pos[i].y > lo[1] && p.pos[i].y < hi[1] &&
                  p.pos[i].z > lo[2] && p.pos[i].z < hi[2];
    size_t ncross = count_label(&p, CTL_VOXEL_CROSSED);
    double est = (p.ninterior + 0.5 * (p.nsurface + ncross)) * v3;
    printf("box 0.2 x 0.103 x 0.147, voxel %g: %zu surface + %zu interior, %zu crossed; max distance to the faces "
           "%.3g voxel; interior + half the rest %.4g of %.4g (%+.1f %%)\n", vox, p.nsurface, p.ninterior, ncross,
           dmax / vox, est, vol, 100.0 * (est / vol - 1.0));
    CHECK(dmax <= 0.5 * vox, "box surface particles within half a voxel: %g", dmax / vox);
    CHECK(inside, "box interior particles inside");
    CHECK(p.ninterior * v3 <= vol && (p.n + ncross) * v3 >= vol, "box volume bracketed");
    /* Exact for a box: the overlap of each voxel with it is a product of
     * intervals; outside voxels have none, interior ones are whole, and the
     * overlaps of the others add up to the box. */
    int bad = 0;
    double sum = 0.0;
    for (int z = 0; z < p.dims[2]; z++)
        for (int y = 0; y < p.dims[1]; y++)
            for (int x = 0; x < p.dims[0]; x++) {
                int ijk[3] = { x, y, z };
                double f = 1.0;
                for (int k = 0; k < 3; k++) {
                    double a = p.origin[k] + ijk[k] * vox;
                    f *= fmax(0.0, fmin(a + vox, hi[k]) - fmax(a, lo[k])) / vox;
                }
                int l = p.label[x + p.dims[0] * (y + p.dims[1] * z)];
                bad += (l == CTL_VOXEL_OUTSIDE && f > 1e-6) || (l == CTL_VOXEL_INTERIOR && f < 1.0 - 1e-6);
                sum += l == CTL_VOXEL_OUTSIDE ? 0.0 : f * v3;
            }
    CHECK(bad == 0 && fabs(sum - vol) < 1e-6 * vol, "box labels: %d wrong, overlaps add to %.6g of %.6g", bad, sum, vol);
    ctl_points_free(&p);
    obj_free(&m);
}

/* A concave, thin-walled target: the glass of glass_pour.json (outer
 * radius 5 cm, wall 8 mm, base 1 cm, height 12 cm, a 48-gon, open at the
 * top), at a voxel of 2 mm. The cup's cavity must be reached by the fill
 * through its mouth, and the interior must lie in the walls and base. */
static void test_glass(void)
{
    const double vox = 0.002, ro = 0.05, ri = 0.042, base = 0.01, top = 0.12;
    fcl_mesh m;
    fcl_ctl_points p;
    char err[512] = "";
    CHECK(obj_load("embedded:glass.obj", (size_t)1 << 30, &m, err, sizeof err) == 0, "glass: %s", err);
    double t0 = now();
    CHECK(ctl_sample_mesh(&m, vox, CTL_SAMPLE_AVERAGE, &p, err, sizeof err) == 0, "glass: %s", err);
    double t1 = now();
    size_t in_cavity = 0, outside_solid = 0;
    for (size_t i = 0; i < p.n; i++) {
        double x = p.pos[i].x, y = p.pos[i].y, z = p.pos[i].z, rho = sqrt(x * x + z * z);
        /* The 48-gon lies within 0.11 mm inside the circles. */
        in_cavity += rho < ri - vox && y > base + vox && y < top;
        if (i >= p.nsurface)
            outside_solid += !(y > 0 && y < top && rho < ro && (y < base || rho > ri - 2e-4));
    }
    size_t ncross = count_label(&p, CTL_VOXEL_CROSSED);
    double v3 = vox * vox * vox, vol = mesh_volume(&m);
    double est = (p.ninterior + 0.5 * (p.nsurface + ncross)) * v3;
    printf("glass, voxel %g: %zu surface + %zu interior particles, %zu crossed voxels (%d x %d x %d grid) in %.1f ms; "
           "volume %.4g, interior + half the rest %.4g (%+.1f %%)\n", vox, p.nsurface, p.ninterior, ncross, p.dims[0],
           p.dims[1], p.dims[2], 1e3 * (t1 - t0), vol, est, 100.0 * (est / vol - 1.0));
    /* Three bones up the wall at x = 4.6 cm: the binding's cost at this size. */
    const char *json = "{\"joints\": [[0.046, 0.005, 0], [0.046, 0.04, 0], [0.046, 0.08, 0], [0.046, 0.115, 0]],"
                       "\"bones\": [[0, 1], [1, 2], [2, 3]], \"keys\": [{\"t\": 0, \"rotate\": [[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]}]}";
    fcl_skeleton sk;
    float *w = malloc(3 * p.n * sizeof *w);
    CHECK(parse(json, &sk, err, sizeof err) == 0, "glass skeleton: %s", err);
    t0 = now();
    CHECK(ctl_skin_weights(&sk, &p, CTL_SKIN_ALPHA_DEFAULT, w, NULL, err, sizeof err) == 0, "glass weights: %s", err);
    t1 = now();
    double worst = 0.0;
    for (size_t j = 0; j < p.n; j++)
        worst = fmax(worst, fabs((double)w[3 * j] + w[3 * j + 1] + w[3 * j + 2] - 1.0));
    printf("glass, 3 bones: weights in %.1f ms, |sum - 1| at most %.2e\n", 1e3 * (t1 - t0), worst);
    CHECK(worst <= 1e-6, "glass weights sum to 1: %g", worst);
    free(w);
    skeleton_free(&sk);
    CHECK(in_cavity == 0, "glass: %zu particles in the cup's cavity", in_cavity);
    CHECK(outside_solid == 0, "glass: %zu interior particles outside the walls and base", outside_solid);
    CHECK(p.ninterior * v3 <= vol && (p.n + ncross) * v3 >= vol, "glass volume bracketed");
    ctl_points_free(&p);
    obj_free(&m);
}

static void test_limits(void)
{
    const float c[3] = { 0, 0, 0 };
    fcl_mesh m;
    fcl_ctl_points p;
    char err[512] = "";
    ctl_mesh_sphere(c, 0.1f, 2, &m);
    CHECK(ctl_sample_mesh(&m, 1e-4, CTL_SAMPLE_AVERAGE, &p, err, sizeof err) != 0 &&
              strstr(err, "voxel size of 0.0001") && strstr(err, "voxels") && p.pos == NULL && p.label == NULL,
          "a grid over the limit is refused: %s", err);
    printf("refused: %s\n", err);
    /* A particle budget: the exact count passes, one fewer is refused
     * before the interior is made, naming the count. */
    fcl_ctl_points q;
    CHECK(ctl_sample_mesh(&m, 0.01, CTL_SAMPLE_AVERAGE, &q, err, sizeof err) == 0 && q.n > q.nsurface,
          "the 0.1 m ball at 1 cm: %s", err);
    CHECK(ctl_sample_mesh_max(&m, 0.01, CTL_SAMPLE_AVERAGE, q.n, &p, err, sizeof err) == 0 && p.n == q.n,
          "a budget of exactly %zu particles passes: %s", q.n, err);
    ctl_points_free(&p);
    char want[64];
    snprintf(want, sizeof want, "%zu control particles (%zu on the surface)", q.n, q.nsurface);
    CHECK(ctl_sample_mesh_max(&m, 0.01, CTL_SAMPLE_AVERAGE, q.n - 1, &p, err, sizeof err) != 0 && strstr(err, want) &&
              strstr(err, "control.spacing") && p.pos == NULL && p.label == NULL,
          "one particle over the budget is refused: %s", err);
    printf("refused: %s\n", err);
    ctl_points_free(&q);
    CHECK(ctl_sample_mesh(&m, 0.0, CTL_SAMPLE_AVERAGE, &p, err, sizeof err) != 0 && strstr(err, "voxel size"),
          "voxel 0 refused: %s", err);
    CHECK(ctl_sample_mesh(&m, NAN, CTL_SAMPLE_AVERAGE, &p, err, sizeof err) != 0, "voxel NaN refused: %s", err);
    m.v[4] = INFINITY;
    CHECK(ctl_sample_mesh(&m, 0.01, CTL_SAMPLE_AVERAGE, &p, err, sizeof err) != 0 && strstr(err, "vertex 1"),
          "non-finite vertex refused: %s", err);
    obj_free(&m);
}

/* ---- cache */

static int same_points(const fcl_ctl_points *a, const fcl_ctl_points *b)
{
    size_t nvox = (size_t)a->dims[0] * a->dims[1] * a->dims[2];
    return a->n == b->n && a->nsurface == b->nsurface && a->ninterior == b->ninterior && a->voxel == b->voxel &&
           memcmp(a->origin, b->origin, sizeof a->origin) == 0 && memcmp(a->dims, b->dims, sizeof a->dims) == 0 &&
           memcmp(a->pos, b->pos, a->n * sizeof *a->pos) == 0 &&
           memcmp(a->voxel_of, b->voxel_of, a->n * sizeof *a->voxel_of) == 0 && memcmp(a->label, b->label, nvox) == 0;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(*len + 1);
    if (fread(b, 1, *len, f) != *len)
        *len = 0;
    fclose(f);
    return b;
}

static void spit(const char *path, const char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    fwrite(b, 1, len, f);
    fclose(f);
}

/* The one cache file in dir. */
static int cache_file(const char *dir, char *path, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "control-", 8) == 0) {
            snprintf(path, len, "%s/%s", dir, e->d_name);
            n++;
        }
    if (d)
        closedir(d);
    return n;
}

/* Damage one way, read again: not from the cache, same points, and the
 * file rewritten to its original bytes. */
static void damaged(const fcl_mesh *m, const char *dir, const char *path, const char *orig, size_t len,
                    const fcl_ctl_points *ref, const char *how, size_t at, int truncate)
{
    char *b = malloc(len), err[512] = "";
    memcpy(b, orig, len);
    if (!truncate)
        b[at] ^= 0x40;
    spit(path, b, truncate ? at : len);
    fcl_ctl_points p;
    int from = -1;
    CHECK(ctl_sample_cached(m, 0.0125, dir, 0, &p, &from, err, sizeof err) == 0 && from == 0 && same_points(&p, ref),
          "cache %s: from_cache %d (expected 0), same points %d", how, from, same_points(&p, ref));
    size_t l2 = 0;
    char *again = slurp(path, &l2);
    CHECK(again && l2 == len && memcmp(again, orig, len) == 0, "cache %s: file rewritten (%zu bytes of %zu)", how, l2, len);
    free(again);
    free(b);
    ctl_points_free(&p);
}

static void test_cache(void)
{
    const float c[3] = { 0.3f, 0.2f, 0.25f };
    char dir[] = "/tmp/fcl_test_control_XXXXXX", path[1024] = "", err[512] = "";
    CHECK(mkdtemp(dir) != NULL, "scratch folder");
    fcl_mesh m;
    fcl_ctl_points a, b, ref;
    int from = -1;
    ctl_mesh_sphere(c, 0.1f, 3, &m);
    ctl_sample_mesh(&m, 0.0125, CTL_SAMPLE_AVERAGE, &ref, err, sizeof err);
    CHECK(ctl_sample_cached(&m, 0.0125, dir, 0, &a, &from, err, sizeof err) == 0 && from == 0, "first: computed");
    CHECK(cache_file(dir, path, sizeof path) == 1, "one cache file written");
    CHECK(ctl_sample_cached(&m, 0.0125, dir, 0, &b, &from, err, sizeof err) == 0 && from == 1, "second: from the cache");
    CHECK(same_points(&a, &b) && same_points(&a, &ref), "cached points identical");
    size_t len = 0;
    char *orig = slurp(path, &len);
    size_t nvox = (size_t)a.dims[0] * a.dims[1] * a.dims[2], head = 88;
    printf("cache file %zu bytes (%zu voxels, %zu particles)\n", len, nvox, a.n);
    CHECK(len == head + nvox + 20 * a.n + 8, "cache file size %zu", len);
    damaged(&m, dir, path, orig, len, &ref, "truncated", len - 7, 1);
    damaged(&m, dir, path, orig, len, &ref, "with a flipped label", head + a.voxel_of[3], 0);
    damaged(&m, dir, path, orig, len, &ref, "with a particle moved out of its voxel", head + nvox + 16 * 5 + 2, 0);
    /* A low mantissa bit: the particle stays in its voxel, where every
     * field's check passed it; the checksum does not. */
    damaged(&m, dir, path, orig, len, &ref, "with a particle moved within its voxel", head + nvox + 16 * 5, 0);
    damaged(&m, dir, path, orig, len, &ref, "with a flipped checksum", len - 3, 0);
    damaged(&m, dir, path, orig, len, &ref, "with a flipped voxel index", head + nvox + 16 * a.n + 4 * 7 + 1, 0);
    damaged(&m, dir, path, orig, len, &ref, "with a flipped voxel size", 70, 0);
    damaged(&m, dir, path, orig, len, &ref, "with flipped dimensions", 72, 0);
    damaged(&m, dir, path, orig, len, &ref, "with a flipped key", 9, 0);
    /* A FIFO at the cache's name is passed over, not opened: fopen of it
     * blocked the run for good (the boundary cache already checked). */
    fcl_ctl_points d;
    unlink(path);
    CHECK(mkfifo(path, 0600) == 0, "mkfifo %s", path);
    CHECK(ctl_sample_cached(&m, 0.0125, dir, 0, &d, &from, err, sizeof err) == 0 && from == 0 && same_points(&d, &ref),
          "a FIFO at the cache's name: from_cache %d (expected 0)", from);
    ctl_points_free(&d);
    unlink(path);
    /* Another voxel size or mesh is another file. */
    CHECK(ctl_sample_cached(&m, 0.02, dir, 0, &d, &from, err, sizeof err) == 0 && from == 0, "other voxel: computed");
    ctl_points_free(&d);
    CHECK(ctl_sample_cached(&m, 0.0125, "off", 0, &d, &from, err, sizeof err) == 0 && from == 0 && same_points(&d, &ref),
          "cache off: computed");
    ctl_points_free(&d);
    free(orig);
    ctl_points_free(&a);
    ctl_points_free(&b);
    ctl_points_free(&ref);
    obj_free(&m);
    ft_remove_tree(dir);
}

/* ---- skinning */

static int parse(const char *json, fcl_skeleton *sk, char *err, size_t errlen)
{
    cJSON *j = cJSON_Parse(json);
    if (!j) {
        snprintf(err, errlen, "test JSON does not parse");
        return -1;
    }
    int rc = skeleton_parse(j, "scene.json", "target.skeleton", sk, err, errlen);
    cJSON_Delete(j);
    return rc;
}

/* Rotation by deg degrees about the axis (Rodrigues), independent of the
 * module's quaternions. */
static void rodrigues(const double *axis, double deg, const double *x, double *out)
{
    double n = sqrt(dot3(axis, axis)), k[3] = { axis[0] / n, axis[1] / n, axis[2] / n }, th = deg * M_PI / 180.0;
    double kx[3] = { k[1] * x[2] - k[2] * x[1], k[2] * x[0] - k[0] * x[2], k[0] * x[1] - k[1] * x[0] }, kd = dot3(k, x);
    for (int i = 0; i < 3; i++)
        out[i] = x[i] * cos(th) + kx[i] * sin(th) + k[i] * kd * (1.0 - cos(th));
}

/* One bone: keys at 0 s (30 degrees about a tilted axis, shifted) and
 * 1 s (120 degrees, shifted more). Every particle must move by
 * T(t) T(0)^-1: y -> R(a_t) R(a_0)^-1 (y - J - tr_0) + J + tr_t. */
static void test_rigid(void)
{
    const char *json = "{\"joints\": [[0.3, 0.12, 0.25], [0.3, 0.28, 0.25]], \"bones\": [[0, 1]], \"keys\": ["
                       "{\"t\": 0, \"rotate\": [[1, 2, 2, 30]], \"translate\": [[0.01, 0, -0.02]]},"
                       "{\"t\": 1, \"rotate\": [[1, 2, 2, 120]], \"translate\": [[0.11, 0.05, 0]]}]}";
    const float c[3] = { 0.3f, 0.2f, 0.25f };
    const double axis[3] = { 1, 2, 2 }, J[3] = { 0.3f, 0.12f, 0.25f };
    fcl_skeleton sk;
    fcl_mesh m;
    fcl_ctl_points p;
    char err[512] = "";
    CHECK(parse(json, &sk, err, sizeof err) == 0, "rigid skeleton: %s", err);
    ctl_mesh_sphere(c, 0.1f, 3, &m);
    ctl_sample_mesh(&m, 0.0125, CTL_SAMPLE_AVERAGE, &p, err, sizeof err);
    float *w = malloc(p.n * sizeof *w);
    float4 *out = malloc(p.n * sizeof *out);
    CHECK(ctl_skin_weights(&sk, &p, CTL_SKIN_ALPHA_DEFAULT, w, NULL, err, sizeof err) == 0, "weights: %s", err);
    int ones = 1;
    for (size_t j = 0; j < p.n; j++)
        ones &= w[j] == 1.0f;
    CHECK(ones, "one bone: every weight 1");
    const double times[4] = { -1.0, 0.0, 0.5, 2.0 }, angle[4] = { 30, 30, 75, 120 };
    const double tr[4][3] = { { 0.01, 0, -0.02 }, { 0.01, 0, -0.02 }, { 0.06, 0.025, -0.01 }, { 0.11, 0.05, 0 } };
    for (int k = 0; k < 4; k++) {
        ctl_skin_apply(&sk, w, p.pos, p.n, times[k], out);
        double worst = 0.0;
        for (size_t j = 0; j < p.n; j++) {
            double y[3] = { p.pos[j].x - J[0] - 0.01, p.pos[j].y - J[1], p.pos[j].z - J[2] + 0.02 }, u[3], e[3];
            rodrigues(axis, -30.0, y, u);
            rodrigues(axis, angle[k], u, e);
            double got[3] = { out[j].x, out[j].y, out[j].z }, d = 0.0;
            for (int i = 0; i < 3; i++) {
                e[i] += J[i] + tr[k][i];
                d += (got[i] - e[i]) * (got[i] - e[i]);
            }
            worst = fmax(worst, sqrt(d / dot3(e, e)));
        }
        printf("one bone at t = %4.1f s (%3.0f degrees): largest relative deviation from the rigid motion %.2e\n",
               times[k], angle[k] - 30.0, worst);
        CHECK(worst < 1e-6, "t = %g: rigid within 1e-6 relative, got %g", times[k], worst);
    }
    free(w);
    free(out);
    ctl_points_free(&p);
    obj_free(&m);
    skeleton_free(&sk);
}

/* The rotation angle between two rotation matrices, degrees, from
 * |A - B|_F = 2 sqrt(2) sin(angle / 2) (accurate for small angles, where
 * the trace's acos is not). */
static double angle_between(const float a[9], const float b[9])
{
    double f = 0.0;
    for (int i = 0; i < 9; i++)
        f += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    return 2.0 * asin(fmin(1.0, sqrt(f) / (2.0 * sqrt(2.0)))) * 180.0 / M_PI;
}

/* A rigid path's rotations: each key's own at its time (keys about the z,
 * x and y axes; the pose at a key once took the next key's axis, a jump),
 * continuous through the keys, the geodesic half-way between keys about
 * different axes, and a spin of two turns about one axis kept. */
static void test_paths(void)
{
    fcl_target_key keys[4] = { { 0.0, { 0 }, { 0, 0, 1 }, 90 }, { 1.0, { 0 }, { 1, 0, 0 }, 90 },
                               { 2.0, { 0 }, { 0, 1, 0 }, 90 }, { 3.0, { 0 }, { 0, 1, 0 }, 810 } };
    fcl_target g = { .keys = keys, .nkeys = 4 };
    float r[9], own[9], before[9], tr[3], mid[9], ra[9], rb[9];
    double worst = 0.0, jump = 0.0;
    for (int k = 0; k < 3; k++) {
        fcl_target_key one = keys[k];
        fcl_target alone = { .keys = &one, .nkeys = 1 };
        target_pose(&alone, 0.0, own, tr);
        target_pose(&g, keys[k].t, r, tr);
        worst = fmax(worst, angle_between(r, own));
        if (k > 0) {
            target_pose(&g, keys[k].t - 1e-6, before, tr);
            jump = fmax(jump, angle_between(before, r));
        }
    }
    target_pose(&g, 0.0, ra, tr);
    target_pose(&g, 0.5, mid, tr);
    target_pose(&g, 1.0, rb, tr);
    double half_a = angle_between(ra, mid), half_b = angle_between(mid, rb), whole = angle_between(ra, rb);
    target_pose(&g, 2.0 + 0.25, r, tr);    /* 90 + 720 / 4 = 270 degrees about y */
    fcl_target_key y270 = { 0.0, { 0 }, { 0, 1, 0 }, 270 };
    fcl_target spin = { .keys = &y270, .nkeys = 1 };
    target_pose(&spin, 0.0, own, tr);
    double turn = angle_between(r, own);
    printf("rigid path: at the keys within %.2e degrees of their own rotations, %.2e degrees across a key in 1e-6 s; "
           "half-way between z 90 and x 90: %.4f + %.4f of %.4f degrees; a two-turn spin at a quarter %.2e degrees off\n",
           worst, jump, half_a, half_b, whole, turn);
    CHECK(worst < 1e-3, "a path's pose at its keys: %g degrees from the keys' rotations (limit 1e-3)", worst);
    CHECK(jump < 1e-2, "a path's pose jumps by %g degrees at a key (limit 1e-2 in 1e-6 s)", jump);
    CHECK(fabs(half_a - half_b) < 1e-3 && fabs(half_a + half_b - whole) < 1e-3,
          "half-way between keys about different axes: %g + %g degrees of %g, expected halves of the geodesic", half_a,
          half_b, whole);
    CHECK(turn < 1e-3, "a spin about one axis at a quarter of two turns: %g degrees from 270 (limit 1e-3)", turn);
}

/* Two bones along a sphere's x axis: weights sum to 1 and favor the
 * nearer bone. */
static void test_two_bones(void)
{
    const char *json = "{\"joints\": [[0.2, 0.2, 0.25], [0.3, 0.2, 0.25], [0.4, 0.2, 0.25]], \"bones\": [[0, 1], [1, 2]],"
                       "\"keys\": [{\"t\": 0, \"rotate\": [[0, 0, 1, 0], [0, 0, 1, 0]]},"
                       "{\"t\": 1, \"rotate\": [[0, 0, 1, 0], [0, 0, 1, 40]]}]}";
    const float c[3] = { 0.3f, 0.2f, 0.25f };
    fcl_skeleton sk;
    fcl_mesh m;
    fcl_ctl_points p;
    char err[512] = "";
    CHECK(parse(json, &sk, err, sizeof err) == 0, "two-bone skeleton: %s", err);
    ctl_mesh_sphere(c, 0.1f, 3, &m);
    ctl_sample_mesh(&m, 0.0125, CTL_SAMPLE_AVERAGE, &p, err, sizeof err);
    float *w = malloc(2 * p.n * sizeof *w);
    size_t fell = 1;
    CHECK(ctl_skin_weights(&sk, &p, CTL_SKIN_ALPHA_DEFAULT, w, &fell, err, sizeof err) == 0 && fell == 0,
          "weights: %s (%zu particles by straight-line distance, expected 0)", err, fell);
    /* The same bones 0.2 m above the ball reach none of it through its
     * voxels: every particle falls back to straight-line distance, and the
     * count says so (the run notes it; it was silent). */
    fcl_skeleton far;
    char jfar[512];
    snprintf(jfar, sizeof jfar, "%s", json);
    for (char *q = jfar; (q = strstr(q, "0.2, 0.25]")) != NULL; q++)
        memcpy(q, "0.4", 3);
    float *wf = malloc(2 * p.n * sizeof *wf);
    CHECK(parse(jfar, &far, err, sizeof err) == 0 &&
          ctl_skin_weights(&far, &p, CTL_SKIN_ALPHA_DEFAULT, wf, &fell, err, sizeof err) == 0 && fell == p.n,
          "bones above the ball: %zu of %zu particles by straight-line distance, expected all (%s)", fell, p.n, err);
    skeleton_free(&far);
    free(wf);
    double worst = 0.0, left = 1.0, right = 1.0;
    int sides = 1;
    for (size_t j = 0; j < p.n; j++) {
        worst = fmax(worst, fabs((double)w[2 * j] + w[2 * j + 1] - 1.0));
        sides &= w[2 * j] >= 0.0f && w[2 * j + 1] >= 0.0f;
        if (p.pos[j].x < 0.27f)
            left = fmin(left, w[2 * j]), sides &= w[2 * j] > w[2 * j + 1];
        if (p.pos[j].x > 0.33f)
            right = fmin(right, w[2 * j + 1]), sides &= w[2 * j + 1] > w[2 * j];
    }
    printf("two bones, %zu particles: |sum - 1| at most %.2e; smallest own-bone weight beyond 0.03 m of the middle "
           "joint: %.3f (left), %.3f (right)\n", p.n, worst, left, right);
    CHECK(worst <= 1e-6, "weights sum to 1 within 1e-6: %g", worst);
    CHECK(sides, "weights non-negative, the nearer bone heavier on each side");
    free(w);
    ctl_points_free(&p);
    obj_free(&m);
    skeleton_free(&sk);
}

/* Two boxes three voxels apart as one mesh: bone 0 lies in box A, bone 1
 * outside both. Geodesics do not cross the gap, so box A is bound to
 * bone 0 alone, and box B, which no bone reaches, falls back to
 * Euclidean distances. */
static void test_geodesic(void)
{
    const float alo[3] = { 0, 0, 0 }, ahi[3] = { 0.1f, 0.1f, 0.1f }, blo[3] = { 0.1375f, 0, 0 },
                bhi[3] = { 0.2375f, 0.1f, 0.1f };
    const char *json = "{\"joints\": [[0.02, 0.05, 0.05], [0.08, 0.05, 0.05], [0.1, 0.3, 0.05], [0.2, 0.3, 0.05]],"
                       "\"bones\": [[0, 1], [2, 3]], \"keys\": [{\"t\": 0, \"rotate\": [[1, 0, 0, 0], [1, 0, 0, 0]]}]}";
    fcl_mesh a, b, m;
    fcl_skeleton sk;
    fcl_ctl_points p;
    char err[512] = "";
    ctl_mesh_box(alo, ahi, &a);
    ctl_mesh_box(blo, bhi, &b);
    m.nv = 16, m.ntri = 24;
    m.v = malloc(48 * sizeof *m.v);
    m.tri = malloc(72 * sizeof *m.tri);
    memcpy(m.v, a.v, 24 * sizeof *m.v);
    memcpy(m.v + 24, b.v, 24 * sizeof *m.v);
    for (int i = 0; i < 36; i++)
        m.tri[i] = a.tri[i], m.tri[36 + i] = b.tri[i] + 8;
    CHECK(closed_oriented(&m) && parse(json, &sk, err, sizeof err) == 0, "two boxes, skeleton: %s", err);
    CHECK(ctl_sample_mesh(&m, 0.0125, CTL_SAMPLE_AVERAGE, &p, err, sizeof err) == 0, "two boxes: %s", err);
    float *w = malloc(2 * p.n * sizeof *w);
    CHECK(ctl_skin_weights(&sk, &p, CTL_SKIN_ALPHA_DEFAULT, w, NULL, err, sizeof err) == 0, "weights: %s", err);
    size_t na = 0, nb = 0, bad = 0;
    double wb1 = 0.0;
    for (size_t j = 0; j < p.n; j++) {
        int inb = p.pos[j].x > 0.12f;
        na += !inb, nb += inb;
        if (!inb)
            bad += w[2 * j] != 1.0f || w[2 * j + 1] != 0.0f;
        else {
            bad += !(w[2 * j] > 0.0f && w[2 * j + 1] > 0.0f) || fabs((double)w[2 * j] + w[2 * j + 1] - 1.0) > 1e-6;
            wb1 += w[2 * j + 1] / (double)p.n;
        }
    }
    printf("two boxes: %zu particles in A bound to bone 0 alone, %zu in B on Euclidean fallback (mean weight of the "
           "outside bone there %.3f)\n", na, nb, wb1 * (double)p.n / (double)(nb ? nb : 1));
    CHECK(na > 0 && nb > 0 && bad == 0, "geodesic binding and fallback: %zu wrong", bad);
    CHECK(ctl_skin_weights(&sk, &p, 1.5, w, NULL, err, sizeof err) != 0 && strstr(err, "1.5"), "alpha 1.5 refused: %s", err);
    free(w);
    ctl_points_free(&p);
    obj_free(&a);
    obj_free(&b);
    obj_free(&m);
    skeleton_free(&sk);
}

static void test_bad_skeletons(void)
{
    static const char *const cases[][3] = {
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [[0,2]], \"keys\": [{\"t\": 0, \"rotate\": [[0,0,1,0]]}]}",
          "target.skeleton.bones[0][1]", "got 2" },
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [[0,0.5]], \"keys\": [{\"t\": 0, \"rotate\": [[0,0,1,0]]}]}",
          "target.skeleton.bones[0][1]", "got 0.5" },
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [[1,1]], \"keys\": [{\"t\": 0, \"rotate\": [[0,0,1,0]]}]}",
          "target.skeleton.bones[0][1]", "a joint other than" },
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [[0,1]], \"keys\": [{\"t\": 0.5, \"rotate\": [[0,0,1,0]]},"
          "{\"t\": 0.25, \"rotate\": [[0,0,1,0]]}]}", "target.skeleton.keys[1].t", "got 0.25" },
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [[0,1]], \"keys\": [{\"t\": 0, \"rotate\": [[0,0,1,0],[0,0,1,0]]}]}",
          "target.skeleton.keys[0].rotate", "one per bone" },
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [[0,1]], \"keys\": [{\"t\": 0, \"rotate\": [[0,0,0,10]]}]}",
          "target.skeleton.keys[0].rotate[0]", "not zero, got [0, 0, 0, 10]" },
        { "{\"joints\": [[0,0,0],[1,0,1e999]], \"bones\": [[0,1]], \"keys\": [{\"t\": 0, \"rotate\": [[0,0,1,0]]}]}",
          "target.skeleton.joints[1][2]", "got inf" },
        { "{\"joints\": [[0,0,0],[1,0,\"a\"]], \"bones\": [[0,1]], \"keys\": [{\"t\": 0, \"rotate\": [[0,0,1,0]]}]}",
          "target.skeleton.joints[1][2]", "got 'a'" },
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [[0,1]], \"keys\": [{\"t\": 0, \"rotate\": [[0,0,1,0]],"
          "\"translate\": [[1,2]]}]}", "target.skeleton.keys[0].translate[0]", "[x, y, z]" },
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [], \"keys\": [{\"t\": 0, \"rotate\": [[0,0,1,0]]}]}",
          "target.skeleton.bones", "an array of 1 to 256 bones, got 0" },
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [[0,1]]}", "target.skeleton.keys", "got nothing" },
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bone\": [[0,1]], \"keys\": []}", "target.skeleton.bone",
          "one of the keys joints bones keys" },
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [[0,1]], \"keys\": [{\"t\": 0, \"rotate\": [[0,0,1,0]], \"s\": 1}]}",
          "target.skeleton.keys[0].s", "one of the keys t rotate translate" },
        /* Keys given twice (the first won without a word; a review). */
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [[0,1]], \"bones\": [[1,0]], \"keys\": [{\"t\": 0, "
          "\"rotate\": [[0,0,1,0]]}]}", "target.skeleton.bones", "each key once (given twice)" },
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [[0,1]], \"keys\": [{\"t\": 0, \"rotate\": [[0,0,1,0]], "
          "\"rotate\": [[0,0,1,30]]}]}", "target.skeleton.keys[0].rotate", "each key once (given twice)" },
        { "[1, 2]", "target.skeleton", "an object" },
        { "{\"joints\": [[0,0,0],[1,0,0]], \"bones\": [[0,1]], \"keys\": [{\"t\": 0, \"rotate\": [[0,0,1,0]],"
          "\"translate\": [[0,1e39,0]]}]}", "target.skeleton.keys[0].translate[0][1]", "within +-1e6, got 1e+39" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fcl_skeleton sk;
        char err[512] = "";
        int rc = parse(cases[i][0], &sk, err, sizeof err);
        char want[200];
        snprintf(want, sizeof want, "scene.json: %s:", cases[i][1]);
        CHECK(rc != 0 && strstr(err, want) && strstr(err, cases[i][2]) && sk.joints == NULL,
              "bad skeleton %zu: want '%s' and '%s', got '%s'", i, want, cases[i][2], err);
        if (i == 0 || i == 3)
            printf("refused: %s\n", err);
    }
}

int main(void)
{
    test_meshes();
    test_sphere_sampling();
    test_box_sampling();
    test_glass();
    test_limits();
    test_cache();
    test_rigid();
    test_paths();
    test_two_bones();
    test_geodesic();
    test_bad_skeletons();
    return ft_done();
}
