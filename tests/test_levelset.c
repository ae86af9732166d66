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
 * - each field (smooth, binary) at its own radius meshes the ball and a
 *   resting block at N d^3 (1.5 and 4 %), converged;
 * - temporal coherence: two frames of a resting pool (independent jitter
 *   of 0.02 d), the second continued from the first, give surfaces within
 *   a tenth of a level-set cell (the first mesh's vertices against the
 *   second's phi, a signed distance); a block moved, a ball dropped off
 *   it and a cavity opened in it, continued from the block, mesh as
 *   afresh (within 0.02 cells on average, 0.1 at most, both ways);
 * - a grid over the memory bound is refused before any allocation,
 *   naming surface.ls_cell (FCL_EXIT_INPUT);
 * - redistancing (levelset_redistance.c) against a tilted plane, where
 *   the first-order upwind distance is exact: every band node within
 *   1e-4 cells of its distance, the band exactly the nodes within the
 *   half-width, once each, the rest +-far, the front untouched, the marks
 *   reset; on a jittered front, the same bits with 1 and 3 threads, and a
 *   second pass (at 2) changes none.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "fcl_test.h"
#include "levelset.h"
#include "levelset_impl.h"
#include "mesh_checks.h"
#include "params.h"
#include "sim.h"

static const float D = 0.02f; /* particle spacing */

static mc_config config_at(const char *field, float spacing)
{
    fcl_params p;
    mc_config c;
    params_defaults(&p);
    p.particles_spacing = spacing;
    snprintf(p.surface_ls_field, sizeof p.surface_ls_field, "%s", field);
    mc_config_from_params(&c, &p);
    c.method = MC_METHOD_LEVELSET;
    return c;
}

static mc_config config_of(const char *field)
{
    return config_at(field, D);
}

static mc_config config(void)
{
    return config_of("smooth");
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
    printf("%s seed sphere of 3 cells grown in %d iterations (%s, %s): volume %+.3f %%, area %+.3f %% of the first "
           "frame's; its vertices %.4f cells from that surface on average, %.4f at most\n", be->kind,
           y.last.ls_iterations, y.last.ls_continued ? "continued from the sphere" : "NOT continued",
           y.last.ls_converged ? "converged" : y.last.ls_stalled ? "stalled" : "not converged", 100 * (vg / v - 1),
           100 * (ag / a - 1), dmean, dmax);
    CHECK(y.last.ls_continued && closed_manifold(&g) && fabs(vg / v - 1) < 0.01 && fabs(ag / a - 1) < 0.01 &&
          dmean < 0.1, "%s: the seed sphere did not grow to the F = 0 surface (continued from it: %d)", be->kind,
          y.last.ls_continued);
    mc_mesh_free(&m);
    mc_mesh_free(&g);
    mc_free(&x);
    mc_free(&y);
    free(p);
}

/* One reconstruction of n particles at spacing d under c: 0, with its
 * volume over n d^3, whether the mesh is a closed 2-manifold, and the
 * level set's figures. */
static int reconstruct(fcl_backend *be, const mc_config *c, const float4 *p, size_t n, double d, double *vol,
                       int *closed, mc_stats *st)
{
    mc_ctx x;
    mc_mesh m = { 0 };
    char err[1024] = "";
    double a, v = 0.0;
    int rc = mc_init(&x, be, err, sizeof err);
    if (rc == 0)
        rc = mc_reconstruct(&x, c, p, NULL, n, &m, err, sizeof err);
    if (rc == 0)
        area_volume(&m, &a, &v);
    *vol = v / ((double)n * d * d * d);
    *closed = rc == 0 && closed_manifold(&m);
    *st = x.last;
    if (rc != 0)
        printf("level set: %s\n", err);
    mc_mesh_free(&m);
    mc_free(&x);
    return rc;
}

/* One frame of n particles under field's defaults: 0, with its volume
 * over n d^3, whether it converged and in how many iterations. */
static int frame_volume(fcl_backend *be, const char *field, float cell, const float4 *p, size_t n, double *vol,
                        int *converged, int *iterations)
{
    mc_config c = config_of(field);
    c.ls_cell = cell;
    mc_stats st;
    int closed, rc = reconstruct(be, &c, p, n, D, vol, &closed, &st);
    *converged = st.ls_converged && closed;
    *iterations = st.ls_iterations;
    return rc;
}

/* Each field at its own radius (surface.ls_radius 0): the ball and a
 * resting 20 x 10 x 20 block, whose gaps between 4 and between 8
 * particles line up in rows, mesh closed, converged, at the volume of N
 * d^3 (limits: ball 1.5 %, block 4 %; measured -0.2 % and -2.7 % smooth,
 * +0.7 % and -0.5 % binary); at surface.ls_cell 2 the block within 10 %
 * (-7.6 % smooth, -8.4 % binary). The binary field without its ramp, at
 * the radius both shared (0.62), tunnelled the block to 0.60 of its volume
 * and never converged on the ball (still 0.023 cells an iteration at
 * 200); with a ramp two level-set cells wide it meshed the block at +72 %
 * at ls_cell 2. */
static void test_fields(fcl_backend *be)
{
    size_t nb, nk = 0;
    float4 *ball = shell_ball(15, D, &nb), *blk = malloc(20 * 10 * 20 * sizeof *blk);
    for (int z = 0; z < 20; z++)
        for (int y = 0; y < 10; y++)
            for (int x = 0; x < 20; x++)
                blk[nk++] = fcl_f4(0.1f + (float)x * D, 0.1f + (float)y * D, 0.1f + (float)z * D, 0.0f);
    const char *fields[2] = { "smooth", "binary" };
    for (int f = 0; f < 2; f++) {
        double vb, vk;
        int cb, ck, ib, ik;
        int rc = frame_volume(be, fields[f], 0.5f, ball, nb, &vb, &cb, &ib) |
                 frame_volume(be, fields[f], 0.5f, blk, nk, &vk, &ck, &ik);
        printf("%s field at its own radius %.2f: ball volume %+.2f %% (%s in %d iterations), block %+.2f %% (%s in %d)\n",
               fields[f], config_of(fields[f]).ls_radius, 100 * (vb - 1), cb ? "converged" : "NOT converged", ib,
               100 * (vk - 1), ck ? "converged" : "NOT converged", ik);
        CHECK(rc == 0 && cb && ck && fabs(vb - 1) < 0.015 && fabs(vk - 1) < 0.04, "%s field: ball %+.3f %% (limit 1.5), "
              "block %+.3f %% (limit 4), converged and closed: %d and %d", fields[f], 100 * (vb - 1), 100 * (vk - 1),
              cb, ck);
        /* A coarse grid, two spacings a cell: the block within 10 %. */
        rc = frame_volume(be, fields[f], 2.0f, blk, nk, &vk, &ck, &ik);
        printf("%s field, surface.ls_cell 2: block %+.2f %% (%d iterations)\n", fields[f], 100 * (vk - 1), ik);
        CHECK(rc == 0 && fabs(vk - 1) < 0.1, "%s field at ls_cell 2: block %+.3f %% (limit 10)", fields[f],
              100 * (vk - 1));
    }
    free(ball);
    free(blk);
}

/* The stall rule (ls_stalled) on step sequences: a period-4 jitter
 * (0.0087, 0.0087, 0.0028, 0.0015 cells, as below) is stalled at the
 * first iteration the rule can see 48, and a geometric settling at 5 %
 * and at 0.5 % an iteration from 0.04 cells, or a front travelling at the
 * half-cell cap, are not over 300. */
static int first_stall(int kind)
{
    static const double jitter[4] = { 0.0087, 0.0087, 0.0028, 0.0015 };
    double hist[LS_STALL_HIST];
    float level;
    for (int it = 0; it < 300; it++) {
        double ch = kind == 0 ? jitter[it % 4] : kind == 1 ? 0.04 * pow(0.95, it) : kind == 2 ? 0.04 * pow(0.995, it)
                                                                                              : 0.5;
        if (ls_stalled(hist, it, ch, &level))
            return it;
    }
    return -1;
}

static void test_stall_rule(void)
{
    int at[4];
    for (int k = 0; k < 4; k++)
        at[k] = first_stall(k);
    printf("stall rule: jitter stalled at iteration %d; settling at 5 %% and 0.5 %%, travel at the cap: %d, %d, %d "
           "(-1: never)\n", at[0], at[1], at[2], at[3]);
    CHECK(at[0] == LS_STALL_HIST - 1 && at[1] == -1 && at[2] == -1 && at[3] == -1,
          "stall rule: jitter at %d (expected %d), settling and travel at %d, %d, %d (expected never)", at[0],
          LS_STALL_HIST - 1, at[1], at[2], at[3]);
}

/* A front that jitters in place stops there (levelset.c, ls_stalled):
 * the binary field at surface.ls_radius 0.5, below its own 0.55, on a
 * resting block with a ball above it kept its largest step near 0.0087
 * cells, 9 times the tolerance, to the last of 1,000 iterations; it now
 * stops well before, marked stalled and not converged, with the same
 * mesh (-10.8 % of N d^3 either way), closed. At the field's own radius
 * the same particles converge (in 411 iterations, more than the default
 * 200 allow). */
static void test_stall(fcl_backend *be)
{
    /* As a scene's lattices place them at 1 cm: the block from (0.1, 0,
     * 0.1) to (0.3, 0.1, 0.3), the ball of radius 6 spacings about (0.2,
     * 0.2, 0.2) on its own lattice (of the points 6 spacings out, the
     * scene's float test keeps the three on the positive axes). */
    const float d = 0.01f;
    size_t nk = 0;
    float4 *blk = malloc((20 * 10 * 20 + 13 * 13 * 13) * sizeof *blk);
    for (int z = 0; z < 20; z++)
        for (int y = 0; y < 10; y++)
            for (int x = 0; x < 20; x++)
                blk[nk++] = fcl_f4(0.105f + (float)x * d, 0.005f + (float)y * d, 0.105f + (float)z * d, 0.0f);
    for (int z = -6; z <= 6; z++)
        for (int y = -6; y <= 6; y++)
            for (int x = -6; x <= 6; x++)
                if (x * x + y * y + z * z < 36 || (x == 6) + (y == 6) + (z == 6) == 1)
                    blk[nk++] = fcl_f4(0.2f + (float)x * d, 0.2f + (float)y * d, 0.2f + (float)z * d, 0.0f);
    for (int r = 0; r < 2; r++) {
        mc_config c = config_at("binary", d);
        c.ls_radius = r ? 0.5f : c.ls_radius;
        c.ls_max_iter = 1000;
        mc_stats st;
        double v;
        int closed, rc = reconstruct(be, &c, blk, nk, d, &v, &closed, &st);
        printf("binary field at radius %.2f, block and ball: %d iterations, %s, largest step %.4g cells (last 48: %.4g), "
               "volume %+.2f %%\n", c.ls_radius, st.ls_iterations, st.ls_converged ? "converged" :
               st.ls_stalled ? "stalled" : "NOT converged", st.ls_change, st.ls_jitter, 100 * (v - 1));
        if (r)
            CHECK(rc == 0 && st.ls_stalled && !st.ls_converged && st.ls_iterations < 500 && closed,
                  "binary at 0.5: %d iterations (limit 500), stalled %d, converged %d, volume %+.3f %%",
                  st.ls_iterations, st.ls_stalled, st.ls_converged, 100 * (v - 1));
        else
            CHECK(rc == 0 && st.ls_converged && !st.ls_stalled, "binary at its own radius: stalled %d, converged %d",
                  st.ls_stalled, st.ls_converged);
    }
    free(blk);
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

/* A 20^3 block at spacing D, offset by (ox, oy, oz) spacings, less the
 * particles within `hole` spacings of its center, plus (drop) a ball of 3
 * spacings' radius `drop` spacings beyond its +x face. */
static float4 *block(float ox, float oy, float oz, float hole, float drop, size_t *n)
{
    float4 *p = malloc((8000 + 200) * sizeof *p);
    *n = 0;
    for (int z = 0; z < 20; z++)
        for (int y = 0; y < 20; y++)
            for (int x = 0; x < 20; x++) {
                float dx = (float)x - 9.5f, dy = (float)y - 9.5f, dz = (float)z - 9.5f;
                if (dx * dx + dy * dy + dz * dz >= hole * hole)
                    p[(*n)++] = fcl_f4((x + ox) * D, (y + oy) * D, (z + oz) * D, 0.0f);
            }
    for (int z = -3; drop > 0.0f && z <= 3; z++)
        for (int y = -3; y <= 3; y++)
            for (int x = -3; x <= 3; x++)
                if (x * x + y * y + z * z <= 9)
                    p[(*n)++] = fcl_f4((19.0f + drop + 3.0f + x + ox) * D, (9.5f + y + oy) * D, (9.5f + z + oz) * D,
                                       0.0f);
    return p;
}

/* A frame continued from a resting block against the same frame meshed
 * afresh, where the continued level set must change beyond its band: the
 * block moved 2.5 spacings (phi carried onto the moved grid), a ball
 * dropped 4 spacings off it (fluid seeded outside), and a cavity of 5
 * spacings' radius opened at its center (a hole seeded inside: the
 * continued mesh stayed the solid block's, 6 % over in volume, in every
 * later frame; a review). The two surfaces lie within 0.02 cells of each
 * other on average and 0.1 at most (each mesh's vertices against the
 * other's phi, the larger), the volumes within 0.1 %. */
static void test_continued(fcl_backend *be)
{
    static const struct { const char *what; float move, hole, drop; } cases[] = {
        { "moved 2.5 spacings", 2.5f, 0.0f, 0.0f }, { "a ball dropped 4 spacings off", 0.0f, 0.0f, 4.0f },
        { "a cavity opened inside", 0.0f, 5.0f, 0.0f } };
    mc_config c = config();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t n1, n2;
        float4 *p1 = block(0.0f, 0.0f, 0.0f, 0.0f, 0.0f, &n1);
        float4 *p2 = block(cases[k].move, 0.0f, 0.0f, cases[k].hole, cases[k].drop, &n2);
        mc_ctx xc, xf;
        mc_mesh m1 = { 0 }, mc = { 0 }, mf = { 0 };
        char err[1024] = "";
        int rc = mc_init(&xc, be, err, sizeof err) != 0 || mc_init(&xf, be, err, sizeof err) != 0;
        rc = rc || mc_reconstruct(&xc, &c, p1, NULL, n1, &m1, err, sizeof err) != 0 ||
             mc_reconstruct(&xc, &c, p2, NULL, n2, &mc, err, sizeof err) != 0 ||
             mc_reconstruct(&xf, &c, p2, NULL, n2, &mf, err, sizeof err) != 0;
        CHECK(rc == 0, "%s: continued block, %s: %s", be->kind, cases[k].what, err);
        double ac, vc = 0.0, af, vf = 1.0, dmax = 1.0, dmean = 1.0, rmax = 1.0, rmean = 1.0;
        if (rc == 0) {
            area_volume(&mc, &ac, &vc);
            area_volume(&mf, &af, &vf);
            distance(&xf, &mc, c.ls_cell * D, &dmax, &dmean);
            distance(&xc, &mf, c.ls_cell * D, &rmax, &rmean);   /* both ways: a surface one mesh lacks */
            dmax = fmax(dmax, rmax);
            dmean = fmax(dmean, rmean);
        }
        printf("%s block, %s: continued %s, %zu triangles, volume %.6f m3 in %d iterations; afresh %zu, %.6f m3 "
               "(%+.3f %%); the surfaces %.4f cells apart on average, %.4f at most\n", be->kind,
               cases[k].what, xc.last.ls_continued ? "yes" : "NO", mc.nt, vc, xc.last.ls_iterations, mf.nt, vf,
               100.0 * (vc / vf - 1.0), dmean, dmax);
        CHECK(xc.last.ls_continued && closed_manifold(&mc), "%s: block, %s: not continued or not closed", be->kind,
              cases[k].what);
        CHECK(fabs(vc / vf - 1.0) <= 0.001 && dmean <= 0.02 && dmax <= 0.1, "%s: block, %s: the continued and fresh "
              "surfaces are %.4f cells apart on average (limit 0.02), %.4f at most (0.1), volume %+.3f %% (0.1 %%)",
              be->kind, cases[k].what, dmean, dmax, 100.0 * (vc / vf - 1.0));
        mc_mesh_free(&m1);
        mc_mesh_free(&mc);
        mc_mesh_free(&mf);
        mc_free(&xc);
        mc_free(&xf);
        free(p1);
        free(p2);
    }
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

/* A 5^3 block 1e5 m from the origin, where float coordinates step by
 * 0.012 m against a level-set cell of 0.01 m: refused naming
 * surface.ls_cell (it ran 200 iterations without converging; a
 * review); the same block at 100 m meshes, converged, within 5 % of the
 * volume it has at the origin. */
static void test_far(fcl_backend *be)
{
    double vol[3];
    const float at[3] = { 0.0f, 100.0f, 1e5f };
    int conv = 1;
    for (int k = 0; k < 3; k++) {
        float4 p[125];
        for (int i = 0; i < 125; i++)
            p[i] = fcl_f4(at[k] + (float)(i % 5) * D, (float)(i / 5 % 5) * D, (float)(i / 25) * D, 0.0f);
        mc_config c = config();
        mc_ctx x;
        mc_mesh m = { 0 };
        char err[1024] = "";
        double a;
        int rc = mc_init(&x, be, err, sizeof err);
        if (rc == 0)
            rc = mc_reconstruct(&x, &c, p, NULL, 125, &m, err, sizeof err);
        area_volume(&m, &a, &vol[k]);
        if (k < 2) {
            conv &= rc == 0 && x.last.ls_converged && closed_manifold(&m);
            printf("%s: a 5^3 block at x = %g m: %zu triangles, volume %.4g m^3 (N d^3 %.4g), %s\n", be->kind,
                   at[k], m.nt, vol[k], 125.0 * D * D * D, conv ? "converged" : "NOT converged");
        } else {
            printf("%s: a 5^3 block at x = 1e5 m: %s\n", be->kind, err);
            CHECK(rc == FCL_EXIT_INPUT && strstr(err, "surface.ls_cell") && strstr(err, "from the origin"),
                  "%s: a block 1e5 m out was not refused (rc %d)", be->kind, rc);
        }
        mc_mesh_free(&m);
        mc_free(&x);
    }
    CHECK(conv && fabs(vol[1] / vol[0] - 1.0) < 0.05, "%s: the block at 100 m: converged %d, volume %.4g against "
          "%.4g at the origin (limit 5 %%)", be->kind, conv, vol[1], vol[0]);
}

/* The signed distance (cells) of node q to the plane n . x = c through
 * 0.3 cells beyond the grid's center, n = (1, 2, 3) / sqrt(14). */
static double plane_distance(const ls_state *s, size_t q)
{
    int i, j, k;
    ls_coords(s, q, &i, &j, &k);
    return (120.0 - (i + 2.0 * j + 3.0 * k)) / sqrt(14.0) + 0.3;
}

/* A 40^3 grid as redistancing finds it: phi that distance (in m) on the
 * front (ls_find_front_all), +-far by its sign everywhere else, the rim
 * too (at -far, as regrid leaves it, the plane's inner side would meet it
 * in a front at +far); jitter > 0 moves every value by up to that many
 * cells (a seeded pseudo-random sequence). NULL out of memory. */
static ls_state *plane_state(double jitter)
{
    ls_state *s = calloc(1, sizeof *s);
    s->cell = 0.01f;
    s->W = 3;
    s->far = 4.0f * s->cell;
    s->n[0] = s->n[1] = s->n[2] = 40;
    s->nn = 40 * 40 * 40;
    s->phi = malloc(s->nn * sizeof *s->phi);
    s->tmp = malloc(s->nn * sizeof *s->tmp);
    s->st = calloc(s->nn, 1);
    s->queued = calloc(s->nn / 8 + 1, 1);
    unsigned char *on_front = calloc(s->nn, 1);
    unsigned seed = 12345u;
    for (size_t q = 0; q < s->nn; q++) {
        seed = seed * 1664525u + 1013904223u;
        double d = plane_distance(s, q) + jitter * ((seed >> 8) / 16777216.0 - 0.5) * 2.0;
        s->phi[q] = (float)fmax(fmin(d * s->cell, s->far), -s->far);
        s->tmp[q] = INFINITY;
    }
    if (ls_find_front_all(s) != 0) {
        free(on_front);
        ls_free(s);
        return NULL;
    }
    for (size_t t = 0; t < s->nfront; t++)
        on_front[s->front[t]] = 1;
    for (size_t q = 0; q < s->nn; q++)
        if (!on_front[q])
            s->phi[q] = s->phi[q] >= 0.0f ? s->far : -s->far;
    free(on_front);
    return s;
}

/* What a redistancing call must leave: the band list the nodes off
 * +-far, once each; tmp +inf (-inf on the rim), st and the queued bits 0.
 * The count of faults. */
static size_t band_faults(const ls_state *s)
{
    size_t faults = 0, off_far = 0;
    unsigned char *seen = calloc(s->nn, 1);
    for (size_t t = 0; t < s->nband; t++) {
        uint q = s->band[t];
        faults += seen[q]++ != 0 || !(fabsf(s->phi[q]) < s->far);
    }
    for (size_t q = 0; q < s->nn; q++) {
        off_far += fabsf(s->phi[q]) < s->far;
        int i, j, k;
        ls_coords(s, q, &i, &j, &k);
        faults += s->tmp[q] != (ls_inner(s, i, j, k) ? INFINITY : -INFINITY) || s->st[q] != 0 ||
                  s->queued[q / 8] != 0;
    }
    free(seen);
    return faults + (off_far != s->nband);
}

static void test_redistance(void)
{
    ls_state *s = plane_state(0.0);
    int rc = s == NULL;
    if (rc) {
        CHECK(0, "redistance: out of memory");
        return;
    }
    float *front = malloc((s->nfront + 1) * sizeof *front);
    for (size_t t = 0; t < s->nfront; t++)
        front[t] = s->phi[s->front[t]];
    rc = rc || ls_redistance(s);
    CHECK(rc == 0, "redistance: out of memory");
    double worst = 0.0;
    size_t checked = 0, wrong_band = 0, moved = 0;
    for (size_t t = 0; t < s->nfront; t++)
        moved += s->phi[s->front[t]] != front[t];
    for (size_t q = 0; q < s->nn; q++) {
        int i, j, k;
        ls_coords(s, q, &i, &j, &k);
        int m = 8; /* the upwind chains (and their front nodes) inside the inner nodes: 5 left 7e-3 cells */
        if (i < m || j < m || k < m || i >= s->n[0] - m || j >= s->n[1] - m || k >= s->n[2] - m)
            continue;
        double d = plane_distance(s, q), a = fabs(d);
        if (fabs(a - s->W) < 1e-3)
            continue; /* at the half-width: either way */
        if (a < s->W) {
            worst = fmax(worst, fabs(s->phi[q] / s->cell - d));
            checked++;
        } else {
            wrong_band += fabs(s->phi[q]) != s->far || (s->phi[q] > 0) != (d > 0);
        }
    }
    printf("redistance, a tilted plane: %zu band nodes (%zu front) checked, largest error %.2e cells; "
           "%zu nodes beyond the band not at +-far; %zu front values moved\n", checked, s->nfront, worst,
           wrong_band, moved);
    size_t faults = band_faults(s);
    CHECK(checked > 4000 && worst < 1e-4 && wrong_band == 0 && moved == 0 && faults == 0,
          "redistance of a plane: error %.2e cells over %zu nodes, %zu outside the band wrong, %zu front values "
          "moved, %zu faults in the band list or the marks", worst, checked, wrong_band, moved, faults);
    free(front);
    ls_free(s);

    /* A jittered front: the same bits whatever the thread count, and a
     * second pass changes nothing. */
    ls_state *a = plane_state(0.4), *b = plane_state(0.4);
    int threads = omp_get_max_threads();
    if (!a || !b) {
        CHECK(0, "redistance: out of memory");
        return;
    }
    omp_set_num_threads(1);
    rc = ls_redistance(a);
    omp_set_num_threads(3);
    rc = rc || ls_redistance(b);
    size_t differ = 0, again = 0;
    for (size_t q = 0; q < a->nn; q++)
        differ += memcmp(&a->phi[q], &b->phi[q], sizeof(float)) != 0;
    float *before = malloc(b->nn * sizeof *before);
    memcpy(before, b->phi, b->nn * sizeof *before);
    omp_set_num_threads(2); /* the same state, another thread count */
    rc = rc || ls_find_front(b, b->band, b->nband) || ls_redistance(b);
    for (size_t q = 0; q < b->nn; q++)
        again += memcmp(&before[q], &b->phi[q], sizeof(float)) != 0;
    omp_set_num_threads(threads);
    size_t faults2 = band_faults(a) + band_faults(b);
    printf("redistance, a jittered plane: %zu band nodes; %zu differ between 1 and 3 threads, %zu change in a "
           "second pass (2 threads); %zu faults in the band lists or the marks\n", b->nband, differ, again, faults2);
    CHECK(rc == 0 && differ == 0 && again == 0 && faults2 == 0, "redistance: %zu nodes differ between 1 and 3 threads, "
          "%zu change in a second pass, %zu faults (rc %d)", differ, again, faults2, rc);
    free(before);
    ls_free(a);
    ls_free(b);
}

int main(void)
{
    test_redistance();
    test_stall_rule();
    int ran = 0;
    for (int i = 0; i < 2; i++) {
        fcl_backend *be = ft_backend(i);
        if (!be)
            continue;
        ran = 1;
        test_ball(be);
        if (i == 0) { /* the level set itself is host code: once is enough */
            test_coherence(be);
            test_continued(be);
            test_fields(be);
            test_stall(be);
            test_too_large(be);
            test_far(be);
        }
        backend_destroy(be);
    }
    return ran ? ft_done() : 77;
}
