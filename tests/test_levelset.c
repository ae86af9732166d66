/* test_levelset.c - the level-set surface (surface.method levelset,
 * host/surface/levelset*.c) with the parameter table's defaults, on the
 * native CPU backend and, when there is one, OpenCL (the marching cubes
 * runs on the backend):
 * - a ball of ~14k particles (concentric shells, every particle d^3 of
 *   volume) gives a closed 2-manifold whose area and volume are within
 *   1 % of the sphere of volume N d^3;
 * - the PDE's sign: a seed sphere of 3 cells inside that ball grows to the
 *   F = 0 surface (the same surface as a first frame's, within a tenth of
 *   a cell on average, and area and volume within 1 %);
 * - temporal coherence: two frames of a resting pool (independent jitter
 *   of 0.02 d), the second continued from the first, give surfaces within
 *   a tenth of a level-set cell (the first mesh's vertices against the
 *   second's phi, a signed distance);
 * - a grid over the memory bound is refused before any allocation,
 *   naming surface.ls_cell (FCL_EXIT_INPUT).
 */
#include <string.h>

#include "fcl_test.h"
#include "levelset.h"
#include "mesh_checks.h"
#include "params.h"
#include "sim.h"

static const float D = 0.02f; /* particle spacing */

static mc_config config(void)
{
    fcl_params p;
    mc_config c;
    params_defaults(&p);
    p.particles_spacing = D;
    mc_config_from_params(&c, &p);
    c.method = MC_METHOD_LEVELSET;
    return c;
}

/* Largest and mean |phi| of x->ls at the mesh's vertices, in cells. */
static void distance(const mc_ctx *x, const mc_mesh *m, float cell, double *max, double *mean)
{
    *max = *mean = 0.0;
    for (size_t i = 0; i < m->nv; i++) {
        double d = fabs(ls_phi_at(x, m->v[i].x, m->v[i].y, m->v[i].z)) / cell;
        *max = fmax(*max, d);
        *mean += d / (double)(m->nv ? m->nv : 1);
    }
}

static void test_ball(fcl_backend *be)
{
    size_t n;
    float4 *p = shell_ball(15, D, &n);
    double v0 = (double)n * D * D * D, r0 = cbrt(3.0 * v0 / (4.0 * M_PI)), a0 = 4.0 * M_PI * r0 * r0;
    mc_config c = config();
    mc_ctx x, y;
    mc_mesh m = { 0 }, g = { 0 };
    char err[1024] = "";
    int rc = mc_init(&x, be, err, sizeof err);
    if (rc == 0)
        rc = mc_reconstruct(&x, &c, p, NULL, n, &m, err, sizeof err);
    CHECK(rc == 0, "%s: level-set ball: %s", be->kind, err);
    double a, v;
    area_volume(&m, &a, &v);
    printf("%s level-set ball of %zu particles (R %.4f m), cell %.2f d: %zu triangles, volume %+.3f %%, area "
           "%+.3f %%, %d iterations, %.1f ms speed, %.1f ms iterations, %.1f ms mesh\n", be->kind, n, r0, c.ls_cell,
           m.nt, 100 * (v / v0 - 1), 100 * (a / a0 - 1), x.last.ls_iterations, x.last.ls_ms_speed,
           x.last.ls_ms_iterate, x.last.ls_ms_mesh);
    CHECK(closed_manifold(&m) && v > 0.0, "%s: level-set ball is not a closed outward 2-manifold", be->kind);
    CHECK(fabs(v / v0 - 1) < 0.01 && fabs(a / a0 - 1) < 0.01, "%s: level-set ball: volume %+.3f %%, area %+.3f %% "
          "(limit 1 %%)", be->kind, 100 * (v / v0 - 1), 100 * (a / a0 - 1));
    /* The sign: a seed sphere of 3 cells grows to the same surface. */
    const float ctr[3] = { 0.3f, 0.4f, 0.5f };
    mc_input in = mc_input_host(p, NULL, n);
    rc = mc_init(&y, be, err, sizeof err);
    c.ls_max_iter = 300;
    if (rc == 0)
        rc = ls_start_sphere(&y, &c, &in, ctr, 3.0f * c.ls_cell * D, err, sizeof err);
    if (rc == 0)
        rc = mc_reconstruct(&y, &c, p, NULL, n, &g, err, sizeof err);
    CHECK(rc == 0, "%s: growing seed: %s", be->kind, err);
    double ag, vg, dmax, dmean;
    area_volume(&g, &ag, &vg);
    distance(&x, &g, c.ls_cell * D, &dmax, &dmean);
    printf("%s seed sphere of 3 cells grown in %d iterations (%s): volume %+.3f %%, area %+.3f %% of the first "
           "frame's; its vertices %.4f cells from that surface on average, %.4f at most\n", be->kind,
           y.last.ls_iterations, y.last.ls_converged ? "converged" : "not converged", 100 * (vg / v - 1),
           100 * (ag / a - 1), dmean, dmax);
    CHECK(closed_manifold(&g) && fabs(vg / v - 1) < 0.01 && fabs(ag / a - 1) < 0.01 &&
          dmean < 0.1, "%s: the seed sphere did not grow to the F = 0 surface", be->kind);
    mc_mesh_free(&m);
    mc_mesh_free(&g);
    mc_free(&x);
    mc_free(&y);
    free(p);
}

/* A resting pool, 40 x 40 x 10 spacings, each particle jittered by up to
 * amp d in every direction. */
static float4 *pool(unsigned seed, float amp, size_t *n)
{
    float4 *p = malloc(40 * 40 * 10 * sizeof *p);
    *n = 0;
    for (int z = 0; z < 40; z++)
        for (int y = 0; y < 10; y++)
            for (int x = 0; x < 40; x++)
                p[(*n)++] = fcl_f4((x + ft_rand(&seed, -amp, amp)) * D, (y + ft_rand(&seed, -amp, amp)) * D,
                                   (z + ft_rand(&seed, -amp, amp)) * D, 0.0f);
    return p;
}

static void test_coherence(fcl_backend *be)
{
    size_t n;
    float4 *p1 = pool(7u, 0.02f, &n), *p2 = pool(8u, 0.02f, &n), *v = calloc(n, sizeof *v);
    mc_config c = config();
    mc_ctx x;
    mc_mesh m1 = { 0 }, m2 = { 0 };
    char err[1024] = "";
    int rc = mc_init(&x, be, err, sizeof err);
    if (rc == 0)
        rc = mc_reconstruct(&x, &c, p1, v, n, &m1, err, sizeof err);
    int it1 = x.last.ls_iterations;
    double ms1 = x.last.ls_ms_speed + x.last.ls_ms_iterate;
    if (rc == 0)
        rc = mc_reconstruct(&x, &c, p2, v, n, &m2, err, sizeof err);
    CHECK(rc == 0, "%s: pool frames: %s", be->kind, err);
    double dmax, dmean;
    distance(&x, &m1, c.ls_cell * D, &dmax, &dmean);
    printf("%s resting pool of %zu particles: first frame %d iterations (%.1f ms), second %s, %d iterations "
           "(%.1f ms); first surface %.4f cells from the second on average, %.4f at most\n", be->kind, n, it1, ms1,
           x.last.ls_continued ? "continued" : "NOT continued", x.last.ls_iterations,
           x.last.ls_ms_speed + x.last.ls_ms_iterate, dmean, dmax);
    CHECK(x.last.ls_continued && closed_manifold(&m1) && closed_manifold(&m2),
          "%s: pool meshes not closed or second frame not continued", be->kind);
    CHECK(dmax < 0.1, "%s: consecutive frames of a resting pool differ by %.4f cells (limit 0.1)", be->kind, dmax);
    mc_mesh_free(&m1);
    mc_mesh_free(&m2);
    mc_free(&x);
    free(p1);
    free(p2);
    free(v);
}

/* Two particles 1000 m apart at a level-set cell of 0.05 d: a grid of
 * some 1e6 x 300 x 300 nodes, refused before allocation. */
static void test_too_large(fcl_backend *be)
{
    float4 p[2] = { fcl_f4(0.0f, 0.0f, 0.0f, 0.0f), fcl_f4(1000.0f, 0.0f, 0.0f, 0.0f) };
    mc_config c = config();
    c.ls_cell = 0.05f;
    mc_ctx x;
    mc_mesh m = { 0 };
    char err[1024] = "";
    int rc = mc_init(&x, be, err, sizeof err);
    if (rc == 0)
        rc = mc_reconstruct(&x, &c, p, NULL, 2, &m, err, sizeof err);
    printf("%s: %s\n", be->kind, err);
    CHECK(rc == FCL_EXIT_INPUT && strstr(err, "surface.ls_cell") && x.ls == NULL,
          "%s: an oversized level-set grid was not refused (rc %d)", be->kind, rc);
    mc_mesh_free(&m);
    mc_free(&x);
}

int main(void)
{
    int ran = 0;
    for (int i = 0; i < 2; i++) {
        fcl_backend *be = ft_backend(i);
        if (!be)
            continue;
        ran = 1;
        test_ball(be);
        if (i == 0) { /* the level set itself is host code: once is enough */
            test_coherence(be);
            test_too_large(be);
        }
        backend_destroy(be);
    }
    return ran ? ft_done() : 77;
}
