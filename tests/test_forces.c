/* test_forces.c - the non-pressure force methods of kernels/forces.cl.
 *
 * MEASURED: numbers pending.
 */
#include "fcl_test.h"
#include "scene.h"
#include "setup.h"
#include "sim.h"

/* A 16 x 12 x 8 block (1536 particles, 0.2 x 0.15 x 0.1 m) in the middle
 * of a 0.5 m box with mirror walls, in zero gravity. */
static const char *scene_fmt =
    "{ \"sim\": {\"solver\": \"%s\", \"gravity\": [0,0,0]}, \"material\": {\"tension_model\": \"%s\"},"
    "  \"boundary\": {\"walls\": \"mirror\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.5,0.5,0.5]},"
    "  \"particles\": {\"spacing\": 0.0125},"
    "  \"fluid\": [ {\"type\": \"box\", \"min\": [0.15,0.175,0.2], \"max\": [0.35,0.325,0.3]} ] }";

static int make(fcl_sim *s, fcl_scene *sc, fcl_backend *be, const char *solver, const char *model)
{
    char text[1024], err[1024];
    fcl_initial in;
    snprintf(text, sizeof text, scene_fmt, solver, model);
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
    double rg, ratio, p[3];
} shape;

static void measure(fcl_sim *s, shape *sh)
{
    size_t n = s->n;
    float4 *x = malloc(n * 16), *v = malloc(n * 16);
    sim_download(s, x, v, NULL, NULL, NULL);
    double c[3] = { 0, 0, 0 }, var[3] = { 0, 0, 0 };
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
 * rounding; a particle within h of exactly one face has n along that
 * face's inward normal. */
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
    const float lo[3] = { 0.15f, 0.175f, 0.2f }, hi[3] = { 0.35f, 0.325f, 0.3f };
    double inner = 0.0, off = 0.0, face_min = 1e30, face_max = 0.0;
    for (size_t i = 0; ok && i < n; i++) {
        float p[3] = { x[i].x, x[i].y, x[i].z }, v[3] = { nv[i].x, nv[i].y, nv[i].z }, in[3] = { 0, 0, 0 };
        int faces = 0;
        for (int a = 0; a < 3; a++) {
            if (p[a] - lo[a] < s.h) { in[a] = 1.0f; faces++; }
            if (hi[a] - p[a] < s.h) { in[a] = -1.0f; faces++; }
        }
        double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (faces == 0)
            inner = fmax(inner, len);
        if (faces != 1)
            continue;
        double along = v[0] * in[0] + v[1] * in[1] + v[2] * in[2];
        off = fmax(off, sqrt(fmax(len * len - along * along, 0.0)) / len);
        CHECK(along > 0.0, "particle %zu: normal (%g, %g, %g) points out of the fluid", i, v[0], v[1], v[2]);
        face_min = fmin(face_min, along);
        face_max = fmax(face_max, along);
    }
    printf("normals: %zu particles; inside |n| <= %.3g; one-face particles |n| %.3f .. %.3f, off the face "
           "normal by %.3g\n", n, inner, face_min, face_max, off);
    CHECK(inner < 1e-4, "interior normal |n| = %g, expected 0", inner);
    CHECK(off < 1e-3, "a face particle's normal is off its face normal by %g", off);
    free(x);
    free(nv);
    sim_destroy(&s);
    scene_free(&sc);
}

static void run_shape(fcl_backend *be, const char *solver, const char *model, double t)
{
    fcl_sim s;
    fcl_scene sc;
    if (make(&s, &sc, be, solver, model) != 0)
        return;
    shape a, b;
    double vmax = 0.0;
    measure(&s, &a);
    for (int k = 1; k <= 8; k++) {
        long steps = run_until(&s, t * k / 8, &vmax);
        measure(&s, &b);
        double scale = s.mass * (double)s.n * fmax(vmax, 1e-6);
        double dp = fmax(fabs(b.p[0]), fmax(fabs(b.p[1]), fabs(b.p[2]))) / scale;
        printf("%s %s: step %ld t %.3f s: rg %.5f -> %.5f (%.4f %%), ratio %.5f -> %.5f, vmax %.4f, P %.3g (%ld)\n",
               solver, model, s.step, s.time, a.rg, b.rg, 100.0 * (b.rg / a.rg - 1.0), a.ratio, b.ratio, vmax,
               dp, steps);
    }
    sim_destroy(&s);
    scene_free(&sc);
}

int main(void)
{
    fcl_backend *be = ft_backend(1);
    if (!be && !(be = ft_backend(0)))
        return 77;
    printf("backend: %s\n", be->name);
    test_normals(be);
    run_shape(be, "dfsph", "akinci", 1.6);
    run_shape(be, "dfsph", "none", 0.4);
    run_shape(be, "wcsph", "none", 0.4);
    backend_destroy(be);
    return ft_done();
}
