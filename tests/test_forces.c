/* test_forces.c - the non-pressure force methods of kernels/forces.cl,
 * on the OpenCL backend (PoCL without a GPU), or on the native CPU
 * backend when no OpenCL device exists. The scene: a 16 x 12 x 8 block
 * of 1536 particles (spacing 12.5 mm; 0.2 x 0.15 x 0.1 m, so its shape
 * has a measurable aspect ratio, where a cube's would already be 1) in
 * zero gravity, in the middle of a 0.5 m box with mirror walls that it
 * never reaches; every solver and model default but tension_model.
 *  - normals: Akinci's n is 0 inside (limit |n| < 1e-4; measured 3.9e-6)
 *    and along the inward face normal on the outer layer of a face
 *    (limit 1e-3 off it; measured 2.2e-4, |n| = 1.05); over the step's
 *    lists and by the cell walk the same bits;
 *  (a) with tension_model akinci (cohesion 0.1) the block rounds up: after
 *    0.8 s (wcsph 3200 steps; dfsph 174 CFL steps, to 0.805 s) its radius of
 *    gyration has fallen by at least 8 % (measured 11.3 % wcsph, 10.0 %
 *    dfsph) and the spread ratio, the standard deviation of the positions
 *    along the most over the least spread axis, from 2.01 below 1.4
 *    (measured 1.19, 1.26; the drop then oscillates about a sphere);
 *  (b) in the same runs the total momentum stays below 1e-6 of
 *    m N v_max, v_max the largest speed of the run (measured 2.5e-9, 6.3e-9:
 *    the pair force is antisymmetric, float rounding only);
 *  (c) with tension_model none over the same 0.8 s the radius of gyration
 *    and the spread ratio change by less than 0.05 % (measured 9.3e-5 % and
 *    4.5e-4 % wcsph, 0.011 % and 0.021 % dfsph);
 *  (d) the native CPU and OpenCL backends agree on the positions with
 *    akinci: wcsph after 40 steps to 1e-4 spacings (rounding only;
 *    measured 1.7e-5: the native AVX-512 build sums WCSPH's fluid forces
 *    16 lanes at a time, in another order than PoCL), dfsph after 10
 *    steps to 1e-2 spacings (its solvers stop on averages that round
 *    differently; measured 0, with 0.39 mm moved).
 */
#include <string.h>

#include "fcl_test.h"
#include "scene.h"
#include "setup.h"
#include "sim.h"

/* A 16 x 12 x 8 block (0.2 x 0.15 x 0.1 m) in the middle of a 0.5 m box
 * with mirror walls, in zero gravity; run for ROUND_TIME. */
enum { BLOCK_N = 16 * 12 * 8 };
#define SPACING 0.0125
#define ROUND_TIME 0.8
static const char *scene_fmt =
    "{ \"sim\": {\"solver\": \"%s\", \"gravity\": [0,0,0]}, \"material\": {\"tension_model\": \"%s\"},"
    "  \"boundary\": {\"walls\": \"mirror\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.5,0.5,0.5]},"
    "  \"particles\": {\"spacing\": %g},"
    "  \"fluid\": [ {\"type\": \"box\", \"min\": [0.15,0.175,0.2], \"max\": [0.35,0.325,0.3]} ] }";

static int make(fcl_sim *s, fcl_scene *sc, fcl_backend *be, const char *solver, const char *model)
{
    char text[1024], err[1024];
    fcl_initial in;
    snprintf(text, sizeof text, scene_fmt, solver, model, SPACING);
    if (scene_parse(sc, text, "test scene", err, sizeof err) != 0 ||
        setup_initial(sc, &sc->params, be, &in, err, sizeof err) != 0) {
        printf("FAIL scene: %s\n", err);
        return -1;
    }
    int rc = sim_create(s, be, &sc->params, in.pos, in.vel, in.n, in.b.pos, in.b.n, err, sizeof err);
    if (rc)
        printf("FAIL sim: %s\n", err);
    setup_free(&in);
    return rc;
}

/* Shape and momentum of the fluid: radius of gyration, the spread
 * (standard deviation) along the most over the least spread axis, and
 * the total momentum. */
typedef struct shape {
    double t, rg, ratio, p[3];
} shape;

static void measure(fcl_sim *s, shape *sh)
{
    size_t n = s->n;
    float4 *x = malloc(n * 16), *v = malloc(n * 16);
    sim_download(s, x, v, NULL, NULL, NULL);
    double c[3] = { 0, 0, 0 }, var[3] = { 0, 0, 0 };
    sh->t = s->time;
    sh->p[0] = sh->p[1] = sh->p[2] = 0.0;
    for (size_t i = 0; i < n; i++) {
        c[0] += x[i].x; c[1] += x[i].y; c[2] += x[i].z;
        sh->p[0] += s->mass * v[i].x; sh->p[1] += s->mass * v[i].y; sh->p[2] += s->mass * v[i].z;
    }
    for (int a = 0; a < 3; a++)
        c[a] /= (double)n;
    for (size_t i = 0; i < n; i++) {
        double d[3] = { x[i].x - c[0], x[i].y - c[1], x[i].z - c[2] };
        for (int a = 0; a < 3; a++)
            var[a] += d[a] * d[a] / (double)n;
    }
    double lo = fmin(var[0], fmin(var[1], var[2])), hi = fmax(var[0], fmax(var[1], var[2]));
    sh->rg = sqrt(var[0] + var[1] + var[2]);
    sh->ratio = sqrt(hi / lo);
    free(x);
    free(v);
}

/* Steps to simulated time t; the largest speed seen goes to *vmax.
 * Returns the steps run, or -1 on a failed step or a blow-up. */
static long run_until(fcl_sim *s, double t, double *vmax)
{
    long k = 0;
    while (s->time < t) {
        if (sim_step(s) != 0 || s->stats.bad_id >= 0)
            return -1;
        *vmax = fmax(*vmax, s->stats.max_speed);
        k++;
    }
    return k;
}

/* Akinci normals on the resting block (WCSPH's first density): inside,
 * more than h from every face, the lattice is symmetric and n = 0 to
 * rounding; a particle in the outer layer of one face and more than h
 * from the others has n along that face's inward normal. (The second
 * layer's n points outward, about a quarter as long: the outer layer's
 * lower density gives its particles larger volumes m / rho_j.) */
static void test_normals(fcl_backend *be)
{
    fcl_sim s;
    fcl_scene sc;
    if (make(&s, &sc, be, "wcsph", "akinci") != 0)
        return;
    size_t n = s.n;
    float4 *x = malloc(n * 16), *nv = malloc(n * 16);
    int ok = sim_normals(&s) == 0 && sim_download(&s, x, NULL, NULL, NULL, NULL) == 0 &&
             s.be->ops->buf_read(s.be, s.normals, 0, n * 16, nv) == 0;
    CHECK(ok, "normals pass failed");
    /* Over the lists (above) and by the cell walk (lists made too short
     * for sim_normals to take): the same sums, bit for bit. */
    float4 *walk = malloc(n * 16);
    float keep = s.nl.fl.r;
    s.nl.fl.r = 0.0f;
    ok = ok && s.nl.fcount && sim_normals(&s) == 0 && s.be->ops->buf_read(s.be, s.normals, 0, n * 16, walk) == 0;
    s.nl.fl.r = keep;
    CHECK(ok && memcmp(walk, nv, n * 16) == 0, "normals over the lists differ from the cell walk's");
    free(walk);
    const float lo[3] = { 0.15f, 0.175f, 0.2f }, hi[3] = { 0.35f, 0.325f, 0.3f };
    double inner = 0.0, off = 0.0, face_min = 1e30, face_max = 0.0;
    for (size_t i = 0; ok && i < n; i++) {
        float p[3] = { x[i].x, x[i].y, x[i].z }, v[3] = { nv[i].x, nv[i].y, nv[i].z }, in[3] = { 0, 0, 0 };
        int outer = 0, near = 0;
        for (int a = 0; a < 3; a++) {
            float d = fminf(p[a] - lo[a], hi[a] - p[a]);
            in[a] = d < s.spacing ? (p[a] - lo[a] < hi[a] - p[a] ? 1.0f : -1.0f) : 0.0f;
            outer += d < s.spacing;
            near += d < s.h;
        }
        double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (near == 0)
            inner = fmax(inner, len);
        if (outer != 1 || near != 1)
            continue;
        double along = v[0] * in[0] + v[1] * in[1] + v[2] * in[2];
        off = fmax(off, sqrt(fmax(len * len - along * along, 0.0)) / len);
        face_min = fmin(face_min, along);
        face_max = fmax(face_max, along);
    }
    printf("normals: %zu particles; inside |n| <= %.3g; outer face layer n . inward %.4f .. %.4f, "
           "off the face normal by %.3g\n", n, inner, face_min, face_max, off);
    CHECK(inner < 1e-4, "interior normal |n| = %g, expected 0", inner);
    CHECK(face_max > 0.0 && face_min > 0.0 && off < 1e-3, "outer-layer normals: n . inward %g .. %g, off by %g", face_min,
          face_max, off);
    free(x);
    free(nv);
    sim_destroy(&s);
    scene_free(&sc);
}

/* Positions by particle id after `steps` steps with akinci tension on
 * backend be; the displacement from the start goes to *moved (max). */
static float4 *run_positions(fcl_backend *be, const char *solver, int steps, double *moved)
{
    fcl_sim s;
    fcl_scene sc;
    if (make(&s, &sc, be, solver, "akinci") != 0)
        return NULL;
    size_t n = s.n;
    float4 *x0 = malloc(n * 16), *x = malloc(n * 16), *out = malloc(n * 16);
    unsigned *id = malloc(n * 4);
    sim_download(&s, x0, NULL, NULL, NULL, id);
    for (size_t k = 0; k < n; k++)
        out[id[k]] = x0[k];
    for (int k = 0; k < steps; k++)
        sim_step(&s);
    sim_download(&s, x, NULL, NULL, NULL, id);
    *moved = 0.0;
    for (size_t k = 0; k < n; k++) {
        float4 a = out[id[k]], b = x[k];
        *moved = fmax(*moved, sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)));
    }
    for (size_t k = 0; k < n; k++)
        out[id[k]] = x[k];
    free(x0); free(x); free(id);
    sim_destroy(&s);
    scene_free(&sc);
    return out;
}

/* (d) the native CPU and OpenCL backends from the same start: the
 * largest position difference, in spacings, must stay below tol. */
static void test_agree(fcl_backend *cpu, fcl_backend *ocl, const char *solver, int steps, double tol)
{
    double m_cpu = 0.0, m_ocl = 0.0, d = 0.0;
    float4 *a = run_positions(cpu, solver, steps, &m_cpu), *b = run_positions(ocl, solver, steps, &m_ocl);
    size_t n = a && b ? BLOCK_N : 0;
    for (size_t i = 0; i < n; i++)
        d = fmax(d, sqrt((a[i].x - b[i].x) * (a[i].x - b[i].x) + (a[i].y - b[i].y) * (a[i].y - b[i].y) +
                         (a[i].z - b[i].z) * (a[i].z - b[i].z)));
    printf("%s akinci, cpu vs opencl after %d steps: largest displacement %.4g m, positions differ by %.3g m "
           "(%.3g spacings)\n", solver, steps, m_cpu, d, d / SPACING);
    CHECK(n > 0 && d < tol * SPACING, "%s: cpu and opencl positions differ by %.3g spacings, limit %.3g", solver,
          d / SPACING, tol);
    free(a);
    free(b);
}

/* The block run to simulated time t under `model`: shapes at the start
 * (*a) and end (*b), and the largest speed seen. Returns steps or -1. */
static long run_shape(fcl_backend *be, const char *solver, const char *model, double t, shape *a, shape *b,
                      double *vmax, double *mass, size_t *n)
{
    fcl_sim s;
    fcl_scene sc;
    if (make(&s, &sc, be, solver, model) != 0)
        return -1;
    *vmax = 0.0;
    measure(&s, a);
    long steps = run_until(&s, t, vmax);
    measure(&s, b);
    *mass = s.mass;
    *n = s.n;
    sim_destroy(&s);
    scene_free(&sc);
    return steps;
}

/* (a) rounding and (b) momentum with akinci; limits in the banner. */
static void test_rounding(fcl_backend *be, const char *solver)
{
    shape a, b;
    double vmax, mass;
    size_t n;
    long steps = run_shape(be, solver, "akinci", ROUND_TIME, &a, &b, &vmax, &mass, &n);
    CHECK(steps >= 0, "%s akinci: the run failed or blew up", solver);
    if (steps < 0)
        return;
    double drop = 1.0 - b.rg / a.rg;
    double dp = fmax(fabs(b.p[0]), fmax(fabs(b.p[1]), fabs(b.p[2]))) / (mass * (double)n * vmax);
    printf("%s akinci: %ld steps to t = %.3f s: radius of gyration %.5f -> %.5f m (-%.2f %%), spread ratio "
           "%.4f -> %.4f, max speed %.3f m/s, |P| %.3g of m N v_max\n", solver, steps, b.t, a.rg, b.rg,
           100.0 * drop, a.ratio, b.ratio, vmax, dp);
    CHECK(drop > 0.08, "%s akinci: radius of gyration fell by %.2f %%, expected at least 8 %%", solver,
          100.0 * drop);
    CHECK(b.ratio < 1.4, "%s akinci: spread ratio %.4f (from %.4f), expected below 1.4", solver, b.ratio, a.ratio);
    CHECK(dp < 1e-6, "%s akinci: momentum %.3g of m N v_max, expected below 1e-6", solver, dp);
}

/* (c) without tension the block keeps its shape over the same time. */
static void test_no_tension(fcl_backend *be, const char *solver)
{
    shape a, b;
    double vmax, mass;
    size_t n;
    long steps = run_shape(be, solver, "none", ROUND_TIME, &a, &b, &vmax, &mass, &n);
    CHECK(steps >= 0, "%s none: the run failed or blew up", solver);
    if (steps < 0)
        return;
    double drg = fabs(b.rg / a.rg - 1.0), dratio = fabs(b.ratio / a.ratio - 1.0);
    printf("%s none: %ld steps to t = %.3f s: radius of gyration changed by %.2g %%, spread ratio by %.2g %%, "
           "max speed %.2g m/s\n", solver, steps, b.t, 100.0 * drg, 100.0 * dratio, vmax);
    CHECK(drg < 5e-4 && dratio < 5e-4, "%s none: radius of gyration changed by %.3g %%, spread ratio by "
          "%.3g %%, expected below 0.05 %%", solver, 100.0 * drg, 100.0 * dratio);
}

int main(void)
{
    fcl_backend *be = ft_backend(1);
    if (!be && !(be = ft_backend(0)))
        return 77;
    printf("backend: %s\n", be->name);
    test_normals(be);
    test_rounding(be, "wcsph");
    test_rounding(be, "dfsph");
    test_no_tension(be, "wcsph");
    test_no_tension(be, "dfsph");
    fcl_backend *cpu = strcmp(be->kind, "cpu") != 0 ? ft_backend(0) : NULL;
    if (cpu) {
        test_agree(cpu, be, "wcsph", 40, 1e-4);
        test_agree(cpu, be, "dfsph", 10, 1e-2);
        backend_destroy(cpu);
    }
    backend_destroy(be);
    return ft_done();
}
