/* test_mac.c - the mac solver (host/solvers/mac, kernels/mac*.cl):
 * - projection: a random face field in a closed 16^3 box full of fluid,
 *   projected once, has max |div u| dx / max |u| <= 1e-5 over the fluid
 *   cells; every solid face's normal velocity is exactly 0; a second
 *   projection changes no face by more than 1e-5 max |u| (idempotent;
 *   from zero pressure, its b is rounding noise, so it stops at
 *   mac.cg_max_iter and says so on stderr; where the CG drifts past |b|
 *   on such noise, as the GPU code does, its pressure is discarded);
 * - preconditioners: a random field in a 32^3 box, closed and full or
 *   half full (free surface), projected with Jacobi-CG and with
 *   multigrid-preconditioned CG, the residual read every iteration: both
 *   reach |r|/|b| <= 1e-6 and max|div u| dx / max|u| <= 1e-5, multigrid
 *   in at least 3x fewer iterations (10.8x and 9.3x measured), on both
 *   backends; on OpenCL one V-cycle of each solve gives the same bits with
 *   its coarsest level run by one work item (CPU devices) and by one
 *   work-group (GPUs);
 * - density correction: one projection of a resting pool with markers
 *   bunched in one deep cell: every fluid cell's outflow is its target
 *   (within 1e-5 of max |u|), the bunched cell's is positive, none within
 *   two cells of the surface (both backends); the same with the box
 *   full (no air): no cell gets a target; a full box in shear is never
 *   faster than in its first step (holes in the liquid are liquid);
 * - hydrostatic pool: a pool 8 cells deep in a 16^3 grid (the issue asks
 *   64^3; 16^3 keeps the test at seconds, the README gives larger ones)
 *   over 2 s: the largest marker speed and face speed <= 1e-4 m/s (the
 *   issue asks 1e-3; 1.22e-5 and 2.52e-5 measured), the bottom cells'
 *   pressure within 2 % of rho g (H - dx / 2) (-0.19 % measured);
 * - surface.method grid: after a drop into a pool every vertex lies in
 *   the domain (solid cells read outside at least as far as their fluid
 *   neighbors are inside); the solver's own level set of a resting pool
 *   meshed into a closed 2-manifold, volume within 2 %, top within 0.1
 *   cell of the surface height, the same on both backends; a particle
 *   solver refused; the viewer's overlay is the middle slice's 16 x 8
 *   fluid cells;
 * - the viewer's force (sim_interact) on a resting pool, with each
 *   transfer: markers near the ray move along it, those far away barely;
 * - frame 0's grid shows an obstacle set after the simulation was made; a
 *   16^3 pool pierced by a sphere at its surface stays at rest (8.2e-6
 *   m/s after 60 steps), native and OpenCL the same bits on a CPU device
 *   (within 1e-4 of the domain on a GPU);
 * - a marker beside a sphere the floor cuts, pushed out of it toward the
 *   floor, stays in the domain (the push is clamped to the box again),
 *   both backends;
 * - FLIP markers at the domain's walls (a dam break, 60 steps, both
 *   backends): none at a wall's clamp moves into it;
 * - the marking (the native backend 16 markers at a time): after a drop's
 *   20 steps, every cell's marker count and flag as a host count gives;
 * - backends: a drop into a pool on a 16^3 grid, 20 steps of 0.01 s,
 *   with each transfer (the seed's advection, FLIP), native and OpenCL:
 *   every marker the same bits as its twin (by id) on a CPU device, within
 *   1e-4 of the domain size on a GPU; the same substep count;
 * - a Jacobi-CG whose residual is read only after 1000 iterations, long
 *   past convergence, leaves a finite pressure (both backends);
 * - bad input, refused with exit 2 and a message naming the key: a cell
 *   size that disagrees with particles.spacing and the particles per
 *   cell, one that leaves fewer than 2 cells on an axis, a grid too large
 *   for the device, particles per cell below 1 (the parameter table).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fcl_test.h"
#include "mesh_checks.h"
#include "../host/solvers/mac/mac.h"
#include "output.h"
#include "params.h"
#include "scene.h"
#include "sim.h"
#include "sim_checks.h"

static void mac_params(fcl_params *p, double size, double spacing)
{
    params_defaults(p);
    snprintf(p->sim_solver, sizeof p->sim_solver, "mac");
    for (int a = 0; a < 3; a++) {
        p->domain_min[a] = 0.0f;
        p->domain_max[a] = (float)size;
    }
    p->particles_spacing = (float)spacing;
    snprintf(p->boundary_walls, sizeof p->boundary_walls, "mirror");
    p->sim_dt = 0.01f;
}

/* Markers on a lattice filling [lo, hi) (cube corners), appended to pos. */
static size_t lattice(float4 *pos, size_t n, const float lo[3], const float hi[3], double d)
{
    for (double z = lo[2] + d / 2; z < hi[2]; z += d)
        for (double y = lo[1] + d / 2; y < hi[1]; y += d)
            for (double x = lo[0] + d / 2; x < hi[0]; x += d)
                pos[n++] = fcl_f4((float)x, (float)y, (float)z, 0.0f);
    return n;
}

typedef struct grid_view {
    float4 *v;
    uint *flags;
    float *p;
} grid_view;

static void read_grid(fcl_sim *s, grid_view *g)
{
    mac *d = mac_of(s);
    size_t n = d->m.ncell;
    g->v = realloc(g->v, n * 16);
    g->flags = realloc(g->flags, n * 4);
    g->p = realloc(g->p, n * 4);
    s->be->ops->buf_read(s->be, d->vel[d->cur], 0, n * 16, g->v);
    s->be->ops->buf_read(s->be, d->flags, 0, n * 4, g->flags);
    s->be->ops->buf_read(s->be, d->p, 0, n * 4, g->p);
}

static float comp(float4 v, int a)
{
    return a == 0 ? v.x : (a == 1 ? v.y : v.z);
}

/* max |flux| over fluid cells, max |u| over faces next to fluid, and the
 * largest normal speed on a solid face of a fluid cell. */
static void divergence(const fcl_mac_info *m, const grid_view *g, double *flux, double *umax, double *solid)
{
    size_t st[3] = { 1, m->sy, m->sz };
    *flux = *umax = *solid = 0.0;
    for (size_t c = 0; c < m->ncell; c++) {
        if (g->flags[c] != 1u)
            continue;
        double f = 0.0;
        for (int a = 0; a < 3; a++) {
            float lo = comp(g->v[c], a), hi = comp(g->v[c + st[a]], a);
            f += hi - lo;
            *umax = fmax(*umax, fmax(fabs(lo), fabs(hi)));
            if (g->flags[c - st[a]] == 2u)
                *solid = fmax(*solid, fabs(lo));
            if (g->flags[c + st[a]] == 2u)
                *solid = fmax(*solid, fabs(hi));
        }
        *flux = fmax(*flux, fabs(f));
    }
}

/* Every face of the grid (solid ones too) a random velocity in [-1, 1]. */
static void random_field(fcl_sim *s, unsigned seed)
{
    mac *d = mac_of(s);
    size_t nc = d->m.ncell;
    float4 *rnd = malloc(nc * 16);
    for (size_t c = 0; c < nc; c++)
        rnd[c] = fcl_f4(ft_rand(&seed, -1, 1), ft_rand(&seed, -1, 1), ft_rand(&seed, -1, 1), 0.0f);
    s->be->ops->buf_write(s->be, d->vel[d->cur], 0, nc * 16, rnd);
    free(rnd);
}

/* The projection tests' parameters: a 0.64 m box of 4 cm cells, no
 * gravity, a tight solve. */
static void projection_params(fcl_params *p)
{
    mac_params(p, 0.64, 0.02);
    p->sim_gravity[1] = 0.0f;
    p->mac_cg_tolerance = 1e-7f;
    p->mac_cg_max_iter = 400;
}

static void test_projection(fcl_backend *be)
{
    fcl_params p;
    projection_params(&p);
    float lo[3] = { 0, 0, 0 }, hi[3] = { 0.64f, 0.64f, 0.64f };
    float4 *pos = malloc(32 * 32 * 32 * 16), *vel = calloc(32 * 32 * 32, 16);
    size_t n = lattice(pos, 0, lo, hi, 0.02);
    fcl_sim s;
    char err[1024] = "";
    int rc = sim_create(&s, be, &p, pos, vel, n, NULL, 0, err, sizeof err);
    CHECK(rc == 0, "projection on %s: %s", be->kind, err);
    if (rc != 0)
        return;
    mac *d = mac_of(&s);
    size_t nc = d->m.ncell;
    random_field(&s, 7);
    grid_view g = { 0 }, g2 = { 0 };
    double flux, umax, solid, f2, u2, s2;
    CHECK(mac_project_only(&s, 0.01, 0.0) == 0, "projection on %s: %s", be->kind, s.error);
    long it1 = d->last.iters;
    read_grid(&s, &g);
    divergence(&d->m, &g, &flux, &umax, &solid);
    printf("projection on %s: %ld iterations, |r|/|b| %.2e, max|div u| dx / max|u| = %.2e, solid faces %.1e\n",
           be->kind, it1, d->last.rel_resid, flux / umax, solid);
    CHECK(flux / umax <= 1e-5, "projection on %s: max|div u| dx / max|u| = %.3g > 1e-5", be->kind, flux / umax);
    CHECK(solid == 0.0, "projection on %s: a solid face carries %.3g m/s", be->kind, solid);
    /* Idempotent: a second projection changes nothing. It starts from the
     * first one's pressure (the warm start; the test once set it off in
     * its own copy of the table, which the simulation does not read, and
     * from zero pressure the solve keeps zero: its right-hand side is
     * float noise, which a relative tolerance cannot meet). The solve runs
     * to mac.cg_max_iter and keeps what it found only if that lowered the
     * residual (|r|/|b| below 1), which is asserted, so the field is the
     * solve's and not the first one's kept (a review). */
    CHECK(mac_project_only(&s, 0.01, 0.0) == 0, "second projection on %s: %s", be->kind, s.error);
    printf("second projection on %s: %ld iterations, |r|/|b| %.3g\n", be->kind, d->last.iters, d->last.rel_resid);
    CHECK(d->last.iters > 0 && d->last.rel_resid < 1.0, "second projection on %s: %ld iterations, |r|/|b| %.3g: "
          "its result was not kept", be->kind, d->last.iters, d->last.rel_resid);
    read_grid(&s, &g2);
    divergence(&d->m, &g2, &f2, &u2, &s2);
    double change = 0.0;
    for (size_t c = 0; c < nc; c++)
        for (int a = 0; a < 3; a++)
            change = fmax(change, fabs(comp(g2.v[c], a) - comp(g.v[c], a)));
    printf("second projection on %s: max change / max|u| = %.2e\n", be->kind, change / umax);
    CHECK(change / umax <= 1e-5, "projection on %s is not idempotent: a face changed by %.3g of max|u|", be->kind,
          change / umax);
    free(g.v); free(g.flags); free(g.p); free(g2.v); free(g2.flags); free(g2.p);
    free(pos); free(vel);
    sim_destroy(&s);
}

/* The density correction: a resting pool (16^3 cells, 8 deep, no
 * gravity) with 8 more markers bunched about one deep cell's center, one
 * projection with kappa 0.1 from rest: every fluid cell's net outflow is
 * its target tgt dx / dt (within 1e-5 of max |u|), the bunched cell's
 * target is kappa (density - 1 - band) > 0, and no cell within two
 * cells of the surface has one. full: the box filled (no air), where no
 * cell gets a target and the projection is divergence-free. */
static void test_density_target(fcl_backend *be, int full)
{
    fcl_params p;
    projection_params(&p);
    float lo[3] = { 0, 0, 0 }, hi[3] = { 0.64f, full ? 0.64f : 0.32f, 0.64f };
    const char *what = full ? "density target in a full box" : "density target";
    float4 *pos = malloc((16 * 16 * 16 * 8 + 8) * 16), *vel = calloc(16 * 16 * 16 * 8 + 8, 16);
    size_t n = lattice(pos, 0, lo, hi, 0.02);
    for (int q = 0; q < 8; q++)   /* interior cell (8, 4, 8) of 4 cm: center (0.30, 0.14, 0.30) */
        pos[n++] = fcl_f4(0.30f + 0.005f * (q & 1 ? 1 : -1), 0.14f + 0.005f * (q & 2 ? 1 : -1),
                          0.30f + 0.005f * (q & 4 ? 1 : -1), 0.0f);
    fcl_sim s;
    char err[1024] = "";
    int rc = sim_create(&s, be, &p, pos, vel, n, NULL, 0, err, sizeof err);
    CHECK(rc == 0, "%s on %s: %s", what, be->kind, err);
    if (rc == 0) {
        mac *d = mac_of(&s);
        const fcl_mac_info *m = &d->m;
        CHECK(mac_project_only(&s, 0.01, 0.1) == 0, "%s on %s: %s", what, be->kind, s.error);
        grid_view g = { 0 };
        read_grid(&s, &g);
        float *tgt = malloc((size_t)m->ncell * 4);
        be->ops->buf_read(be, d->tgt, 0, (size_t)m->ncell * 4, tgt);
        size_t st[3] = { 1, m->sy, m->sz }, bunch = 8 + m->sy * 4 + (size_t)m->sz * 8;
        double umax = 0.0, worst = 0.0, shallow = 0.0, flux_b = 0.0, any = 0.0;
        for (int pass = 0; pass < 2; pass++)
            for (size_t c = 0; c < m->ncell; c++) {
                if (g.flags[c] != 1u)
                    continue;
                double f = 0.0;
                for (int a = 0; a < 3; a++) {
                    double l = comp(g.v[c], a), h = comp(g.v[c + st[a]], a);
                    f += h - l;
                    umax = pass ? umax : fmax(umax, fmax(fabs(l), fabs(h)));
                }
                flux_b = c == bunch ? f : flux_b;
                worst = pass ? fmax(worst, fabs(f - tgt[c] * m->dx / m->dt) / umax) : worst;
                shallow = (c % m->sz) / m->sy >= 7 ? fmax(shallow, fabs(tgt[c])) : shallow;
                any = fmax(any, fabs(tgt[c]));
            }
        printf("%s on %s: bunched cell's target %.4f (outflow %.4f m/s), max |outflow - target dx/dt| / "
               "max|u| = %.2e, largest target within two cells of the surface %g\n", what, be->kind, tgt[bunch],
               flux_b, worst, shallow);
        /* Full: no air, so no free surface takes up a target's volume and
         * none is given (a box of moving liquid blew up with them). */
        CHECK(full ? any == 0.0 : tgt[bunch] > 0.0f, "%s on %s: the bunched cell's target is %g (largest %g)", what,
              be->kind, tgt[bunch], any);
        CHECK(worst <= 1e-5, "%s on %s: a cell's outflow misses its target by %.3g of max|u|", what, be->kind,
              worst);
        CHECK(shallow == 0.0, "%s on %s: a cell near the surface has target %g", what, be->kind, shallow);
        free(tgt);
        free(g.v); free(g.flags); free(g.p);
        sim_destroy(&s);
    }
    free(pos);
    free(vel);
}

/* One V-cycle of the solve just made (its levels and flags) on a random
 * residual, run as a CPU device's (the coarsest level by one work item)
 * and as a GPU's (by one work-group, mac_mg_coarsest_wg): the same bits,
 * the cells' arithmetic being the same. */
static void vcycle_variants(fcl_sim *s, fcl_backend *be, double fill)
{
    mac *d = mac_of(s);
    size_t nc = d->m.ncell;
    float *r = malloc(nc * 4), *z[2] = { malloc(nc * 4), malloc(nc * 4) };
    uint *flags = malloc(nc * 4);
    int keep = be->serial_groups, rc = be->ops->buf_read(be, d->flags, 0, nc * 4, flags);
    unsigned x = 12345u;
    for (size_t c = 0; c < nc; c++) {
        x = x * 1664525u + 1013904223u;
        r[c] = flags[c] == 1u ? (float)(x >> 8) / 16777216.0f - 0.5f : 0.0f;
    }
    rc |= be->ops->buf_write(be, d->rhs, 0, nc * 4, r);
    for (int v = 0; v < 2 && rc == 0; v++) {
        be->serial_groups = 1 - v;
        rc = mac_mg_apply(&d->mg, be, d->rhs, d->p) != 0 || be->ops->buf_read(be, d->p, 0, nc * 4, z[v]) != 0;
    }
    be->serial_groups = keep;
    size_t differ = 0;
    for (size_t c = 0; rc == 0 && c < nc; c++)
        differ += memcmp(&z[0][c], &z[1][c], 4) != 0;
    printf("V-cycle on %s, box filled to %.0f %% (%d levels): the coarsest level by one work item and by one "
           "work-group, %zu of %zu cells differ\n", be->kind, 100.0 * fill, d->mg.levels, differ, nc);
    CHECK(rc == 0 && differ == 0, "V-cycle, box filled to %.0f %%: coarsest by a work item and a work-group differ "
          "at %zu of %zu cells (rc %d)", 100.0 * fill, differ, nc, rc);
    free(r); free(z[0]); free(z[1]); free(flags);
}

/* One projection of a random field in a 32^3 box filled to `fill` of its
 * height (1: closed, the pressure defined up to a constant; below: a
 * free surface, ghost fluid) with the given preconditioner, the residual
 * read every iteration: the iterations and the divergence left. */
static int project_random(fcl_backend *be, const char *precond, double fill, long *iters, double *div)
{
    fcl_params p;
    mac_params(&p, 0.64, 0.01);
    p.sim_gravity[1] = 0.0f;
    p.mac_cg_tolerance = 1e-6f;
    p.mac_cg_max_iter = 2000;
    p.mac_cg_check_every = 1;
    snprintf(p.mac_preconditioner, sizeof p.mac_preconditioner, "%s", precond);
    float lo[3] = { 0, 0, 0 }, hi[3] = { 0.64f, (float)(0.64 * fill), 0.64f };
    float4 *pos = malloc((size_t)64 * 64 * 64 * 16), *vel = calloc((size_t)64 * 64 * 64, 16);
    size_t n = lattice(pos, 0, lo, hi, 0.01);
    fcl_sim s;
    char err[1024] = "";
    int rc = sim_create(&s, be, &p, pos, vel, n, NULL, 0, err, sizeof err);
    CHECK(rc == 0, "%s projection on %s: %s", precond, be->kind, err);
    if (rc == 0) {
        mac *d = mac_of(&s);
        random_field(&s, 11);
        rc = mac_project_only(&s, 0.01, 0.0);
        CHECK(rc == 0 && d->last.converged, "%s projection on %s: %s, |r|/|b| %.3g after %ld iterations", precond,
              be->kind, s.error, d->last.rel_resid, d->last.iters);
        grid_view g = { 0 };
        double flux, umax, solid;
        read_grid(&s, &g);
        divergence(&d->m, &g, &flux, &umax, &solid);
        *iters = d->last.iters;
        *div = flux / umax;
        free(g.v); free(g.flags); free(g.p);
        if (strcmp(precond, "mg") == 0 && strcmp(be->kind, "opencl") == 0)
            vcycle_variants(&s, be, fill);
        sim_destroy(&s);
    }
    free(pos);
    free(vel);
    return rc;
}

/* Multigrid against Jacobi on a closed box and a half-full one: both
 * reach the tolerance and leave the fluid divergence-free; multigrid in
 * at least 3 times fewer iterations (measured: see the README). */
static void test_preconditioners(fcl_backend *be)
{
    const double fills[2] = { 1.0, 0.5 };
    for (int f = 0; f < 2; f++) {
        long ij = 0, im = 0;
        double dj = 1.0, dm = 1.0;
        if (project_random(be, "jacobi", fills[f], &ij, &dj) != 0 || project_random(be, "mg", fills[f], &im, &dm) != 0)
            continue;
        printf("32^3 box filled to %.0f %% on %s: Jacobi-CG %ld iterations (div %.2e), MGPCG %ld (div %.2e): "
               "%.1fx fewer\n", 100.0 * fills[f], be->kind, ij, dj, im, dm, (double)ij / (double)im);
        CHECK(dj <= 1e-5 && dm <= 1e-5, "filled to %.0f %%: max|div u| dx / max|u| %.3g (jacobi), %.3g (mg) > 1e-5",
              100.0 * fills[f], dj, dm);
        CHECK(ij >= 3 * im, "filled to %.0f %%: multigrid %ld iterations, Jacobi %ld: fewer than 3x fewer",
              100.0 * fills[f], im, ij);
    }
}

/* The mean pressure of the bottom layer of fluid cells. */
static double bottom_pressure(const fcl_mac_info *m, const grid_view *g)
{
    double sum = 0.0;
    long cnt = 0;
    for (uint k = 1; k <= m->nz; k++)
        for (uint i = 1; i <= m->nx; i++) {
            size_t c = i + m->sy * 1 + (size_t)m->sz * k;
            if (g->flags[c] == 1u) {
                sum += g->p[c];
                cnt++;
            }
        }
    return cnt ? sum / cnt : 0.0;
}

/* A resting pool 8 cells deep in a 16^3 grid (0.64 m box, markers 2 cm
 * apart, 8 per 4 cm cell) under p; its markers' count into *n. 0, or
 * sim_create's code with err. */
static int pool(fcl_backend *be, const fcl_params *p, fcl_sim *s, size_t *n, char *err, size_t errlen)
{
    float lo[3] = { 0, 0, 0 }, hi[3] = { 0.64f, 0.32f, 0.64f };
    float4 *pos = malloc(32 * 16 * 32 * 16), *vel = calloc(32 * 16 * 32, 16);
    *n = lattice(pos, 0, lo, hi, 0.02);
    int rc = sim_create(s, be, p, pos, vel, *n, NULL, 0, err, errlen);
    free(pos);
    free(vel);
    return rc;
}

/* The pool with the default parameters in *p (which the simulation keeps
 * a pointer to); 0, or the failure checked under what. */
static int pool_ready(fcl_backend *be, fcl_params *p, fcl_sim *s, const char *what)
{
    size_t n;
    char err[1024] = "";
    mac_params(p, 0.64, 0.02);
    int rc = pool(be, p, s, &n, err, sizeof err);
    CHECK(rc == 0, "%s on %s: %s", what, be->kind, err);
    return rc;
}

/* A NaN in one face's y component in the middle of a resting pool (16^3,
 * 8 deep): the step fails naming a face that is not finite (the maximum's
 * reduction kept a NaN only as its right operand and the speed pass lost
 * a y or z one: the step's blow-up check never saw it; a review). */
static void test_nan_face(fcl_backend *be)
{
    fcl_params p;
    fcl_sim s;
    if (pool_ready(be, &p, &s, "nan face") != 0)
        return;
    mac *d = mac_of(&s);
    size_t c = 8 + d->m.sy * 4 + d->m.sz * 8;
    float nan_ = NAN;
    int rc = be->ops->buf_write(be, d->vel[d->cur], c * 16 + 4, 4, &nan_);
    int step = rc == 0 ? sim_step(&s) : -1;
    printf("a NaN face in a pool on %s: step returns %d: %s\n", be->kind, step, s.error);
    CHECK(rc == 0 && step != 0 && strstr(s.error, "not finite"),
          "a NaN face in a pool on %s: step returned %d, error '%s' (want a failure naming a face not finite)",
          be->kind, step, s.error);
    sim_destroy(&s);
}

/* A marker at rest beside a sphere that the floor cuts (center 2 cm up,
 * radius 5 cm, grown by half a spacing), 3 mm up and 3.5 cm out: the
 * sphere pushes it out along its radius, 4.0 mm below the floor, and the
 * clamp into the box comes again after that push (it came before: a
 * marker stood 6.3e-5 m under the floor in a dam break past such a
 * sphere, on both backends; a review). No gravity: it moves by the push
 * alone. */
static void test_pushed_through_floor(fcl_backend *be)
{
    fcl_params p;
    fcl_sim s;
    char err[512] = "";
    mac_params(&p, 0.32, 0.01);
    p.sim_gravity[1] = 0.0f;
    float4 pos = fcl_f4(0.195f, 0.003f, 0.16f, 0.0f), vel = fcl_f4(0.0f, 0.0f, 0.0f, 0.0f), got = pos;
    static const fcl_obstacle ball = { .kind = FCL_SHAPE_SPHERE, .center = { 0.16f, 0.02f, 0.16f }, .radius = 0.05f };
    int rc = sim_create(&s, be, &p, &pos, &vel, 1, NULL, 0, err, sizeof err);
    rc = rc == 0 ? sim_set_solids(&s, &ball, 1) : rc;
    rc = rc == 0 ? sim_step(&s) : rc;
    rc = rc == 0 ? sim_download(&s, &got, NULL, NULL, NULL, NULL) : rc;
    printf("a marker pushed out of a sphere the floor cuts, on %s: at (%.5f, %.5f, %.5f)\n", be->kind, got.x, got.y,
           got.z);
    CHECK(rc == 0 && got.y >= 0.0f && got.x > 0.196f, "a marker pushed out of a sphere the floor cuts, on %s: at "
          "(%.5f, %.5f, %.5f) (rc %d %s; want y >= 0, pushed out along x past 0.196)", be->kind, got.x, got.y, got.z,
          rc, err);
    sim_destroy(&s);
}

/* FLIP markers stopped by the domain's walls: a dam break (2 cm cells,
 * mac.transfer flip), 60 steps; after every step no marker at a wall's
 * clamp (within 1e-6 m of it) moves into that wall (a wall takes a FLIP
 * marker's normal speed as an obstacle does, by domain.restitution; they
 * kept up to 1.5 m/s into the wall, and the restitution acted at obstacles
 * alone; a review). */
static void test_flip_walls(fcl_backend *be)
{
    static const char *const text =
        "{\"sim\": {\"solver\": \"mac\", \"dt\": 0.01}, \"domain\": {\"min\": [0, 0, 0], \"max\": [0.48, 0.32, 0.16]},"
        " \"particles\": {\"spacing\": 0.01, \"support\": 2.0}, \"mac\": {\"transfer\": \"flip\"},"
        " \"fluid\": [{\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.16, 0.24, 0.16]}]}";
    fcl_sim s;
    fcl_scene sc;
    fcl_initial in;
    if (sc_make(be, &s, &sc, &in, text) != 0)
        return;
    const float hi[3] = { 0.48f, 0.32f, 0.16f }, e = mac_of(&s)->m.margin;
    float4 *p = malloc(s.n * 16 + 16), *v = malloc(s.n * 16 + 16);
    double worst = 0.0;
    long at_wall = 0;
    int rc = 0;
    for (int k = 0; k < 60 && rc == 0; k++) {
        rc = sim_step(&s) != 0 || sim_download(&s, p, v, NULL, NULL, NULL) != 0;
        for (size_t i = 0; rc == 0 && i < s.n; i++) {
            const float x[3] = { p[i].x, p[i].y, p[i].z }, u[3] = { v[i].x, v[i].y, v[i].z };
            for (int a = 0; a < 3; a++) {
                if (x[a] <= e + 1e-6f) {
                    at_wall++;
                    worst = fmax(worst, -u[a]);
                }
                if (x[a] >= hi[a] - e - 1e-6f) {
                    at_wall++;
                    worst = fmax(worst, u[a]);
                }
            }
        }
    }
    printf("FLIP markers at the walls on %s, 60 steps: %ld contacts, fastest into its wall %.3g m/s\n", be->kind,
           at_wall, worst);
    CHECK(rc == 0 && at_wall > 100 && worst <= 1e-6, "FLIP markers at the walls on %s: %ld contacts, one moving %.3g m/s "
          "into its wall (limit 0)", be->kind, at_wall, worst);
    free(p);
    free(v);
    sc_free(&s, &sc, &in);
}

/* Frame 0's grid (before any step) with a box obstacle set after the
 * simulation was made, as the command line does: its 4 x 4 x 4 cells are
 * solid in the output (they once read air until the first step). */
static void test_first_grid(fcl_backend *be)
{
    fcl_params p;
    fcl_sim s;
    int rc = pool_ready(be, &p, &s, "first grid");
    if (rc != 0)
        return;
    static const fcl_obstacle box = { .kind = FCL_SHAPE_BOX, .min = { 0.2f, 0.4f, 0.2f }, .max = { 0.36f, 0.56f, 0.36f } };
    grid_view g = { 0 };
    read_grid(&s, &g);
    size_t before = 0, after = 0;
    for (size_t c = 0; c < mac_of(&s)->m.ncell; c++)
        before += g.flags[c] == 2u;
    fcl_grid_frame gf;
    rc = sim_set_solids(&s, &box, 1) != 0 || s.solver->grid_fields(&s, &gf) != 0;
    read_grid(&s, &g);
    for (size_t c = 0; c < mac_of(&s)->m.ncell; c++)
        after += g.flags[c] == 2u;
    printf("first grid on %s: %zu solid cells more with a box obstacle before any step (expected 64)\n", be->kind,
           after - before);
    CHECK(rc == 0 && after - before == 64, "first grid on %s: %zu more solid cells with a 4 x 4 x 4-cell box, "
          "expected 64", be->kind, after - before);
    free(g.v); free(g.flags); free(g.p);
    sim_destroy(&s);
}

/* A 16^3 pool 8 cells deep pierced by a sphere at its surface (radius
 * 2.5 cells; markers carved 0.75 spacings clear of it, as the command
 * line seeds them) stays at rest: no markers inside the obstacle once read
 * as a density deficit in the level set beside it, which put the surface
 * too low there, and the pool flowed (0.31 m/s after 60 steps). The
 * largest face speed of the last step, and *last the markers. */
static double pierced_pool(fcl_backend *be, float4 *last, size_t *nlast)
{
    fcl_params p;
    mac_params(&p, 0.32, 0.01);
    static const fcl_obstacle ball = { .kind = FCL_SHAPE_SPHERE, .center = { 0.16f, 0.16f, 0.16f }, .radius = 0.05f };
    float lo[3] = { 0, 0, 0 }, hi[3] = { 0.32f, 0.16f, 0.32f };
    float4 *pos = malloc(32 * 16 * 32 * 16), *vel = calloc(32 * 16 * 32, 16);
    size_t n = lattice(pos, 0, lo, hi, 0.01), kept = 0;
    for (size_t i = 0; i < n; i++) {
        float dx = pos[i].x - 0.16f, dy = pos[i].y - 0.16f, dz = pos[i].z - 0.16f;
        if (sqrtf(dx * dx + dy * dy + dz * dz) >= 0.05f + 0.0075f)
            pos[kept++] = pos[i];
    }
    fcl_sim s;
    char err[1024] = "";
    int rc = sim_create(&s, be, &p, pos, vel, kept, NULL, 0, err, sizeof err);
    rc = rc ? rc : sim_set_solids(&s, &ball, 1);
    CHECK(rc == 0, "pierced pool on %s: %s", be->kind, err);
    double fmax_ = -1.0;
    for (int k = 0; k < 60 && rc == 0; k++) {
        rc = sim_step(&s);
        fmax_ = sim_stat(&s, "max_face_speed");
    }
    CHECK(rc == 0, "pierced pool on %s: a step failed", be->kind);
    uint *id = malloc(kept * 4);
    if (rc == 0 && sim_download(&s, pos, NULL, NULL, NULL, id) == 0)
        for (size_t i = 0; i < kept; i++)
            last[id[i]] = pos[i];
    *nlast = kept;
    free(id);
    free(pos);
    free(vel);
    sim_destroy(&s);
    return rc == 0 ? fmax_ : -1.0;
}

/* The largest coordinate difference of n markers, over size. */
static double markers_apart(const float4 *a, const float4 *b, size_t n, double size)
{
    double dmax = 0.0;
    for (size_t i = 0; i < n; i++)
        dmax = fmax(dmax, fmax(fabs(a[i].x - b[i].x), fmax(fabs(a[i].y - b[i].y), fabs(a[i].z - b[i].z))));
    return dmax / size;
}

static void test_pierced_pool(fcl_backend *cpu, fcl_backend *ocl)
{
    float4 *a = malloc(32 * 16 * 32 * 16), *b = malloc(32 * 16 * 32 * 16);
    size_t na = 0, nb = 0;
    double fa = pierced_pool(cpu, a, &na), fb = ocl ? pierced_pool(ocl, b, &nb) : fa;
    printf("pool pierced by a sphere after 60 steps: largest face speed %.2e m/s (native), %.2e (OpenCL)\n", fa, fb);
    CHECK(fa >= 0.0 && fa <= 1e-3 && fb >= 0.0 && fb <= 1e-3,
          "a pool pierced by a sphere moves: %.3g and %.3g m/s after 60 steps (limit 1e-3)", fa, fb);
    if (ocl) {
        int bits = ft_same_bits_expected(ocl);
        double apart = na == nb ? markers_apart(a, b, na, 0.32) : 1.0;
        CHECK(na == nb && (bits ? memcmp(a, b, na * 16) == 0 : apart <= 1e-4),
              "pierced pool: native and OpenCL markers differ (%.3g of the domain; limit %s)", apart,
              bits ? "the same bits on a CPU device" : "1e-4");
    }
    free(a);
    free(b);
}

static void test_pool(fcl_backend *be)
{
    fcl_params p;
    fcl_sim s;
    int rc = pool_ready(be, &p, &s, "pool");
    if (rc != 0)
        return;
    double vmax = 0.0, fmax_ = 0.0;
    for (int k = 0; k < 200 && rc == 0; k++) {
        rc = sim_step(&s);
        vmax = fmax(vmax, s.stats.max_speed);   /* the largest over the 2 s */
        fmax_ = fmax(fmax_, sim_stat(&s, "max_face_speed"));
    }
    CHECK(rc == 0, "pool on %s: step failed", be->kind);
    mac *d = mac_of(&s);
    grid_view g = { 0 };
    read_grid(&s, &g);
    double pb = bottom_pressure(&d->m, &g), dx = d->m.dx, want = 1000.0 * 9.81 * (0.32 - dx / 2);
    printf("pool on %s over 2 s: largest marker speed %.2e m/s, face speed %.2e m/s, bottom pressure %.1f Pa vs "
           "rho g (H - dx/2) = %.1f Pa (%+.2f %%), %g CG iterations in the last step\n",
           be->kind, vmax, fmax_, pb, want, 100.0 * (pb / want - 1.0), sim_stat(&s, "cg_iterations"));
    CHECK(vmax <= 1e-4 && fmax_ <= 1e-4, "pool on %s: speeds %.3g (markers), %.3g (faces) m/s > 1e-4", be->kind,
          vmax, fmax_);
    CHECK(fabs(pb / want - 1.0) <= 0.02, "pool on %s: bottom pressure %.1f Pa, expected %.1f within 2 %%", be->kind,
          pb, want);
    free(g.v); free(g.flags); free(g.p);
    sim_destroy(&s);
}

/* surface.method grid on a pool 8 cells deep in a 16^3 grid after 5
 * steps: the solver's level set meshed (mc_grid_mesh) is a closed
 * 2-manifold, shut at the walls; its volume within 2 % of the pool's
 * (marching cubes cuts the box's 12 edges); every upward-facing vertex
 * within a tenth of a cell of the surface height H. Its volume and
 * triangles go to *vol and *nt for the backends' comparison. */
static void test_grid_mesh(fcl_backend *be, double *vol, size_t *nt)
{
    fcl_params p;
    mac_params(&p, 0.64, 0.02);
    fcl_sim s;
    size_t n;
    char err[1024] = "";
    mc_ctx x;
    memset(&x, 0, sizeof x);
    if (pool(be, &p, &s, &n, err, sizeof err) != 0) {
        CHECK(0, "grid mesh of a pool on %s: %s", be->kind, err);
        return;
    }
    int rc = mc_init(&x, be, err, sizeof err);
    for (int k = 0; k < 5 && rc == 0; k++)
        rc = sim_step(&s);
    mc_config c;
    snprintf(p.surface_method, sizeof p.surface_method, "grid");
    mc_config_from_params(&c, &p);
    mc_input in = mc_input_sim(&s);
    mc_mesh m = { 0 };
    rc = rc ? rc : mc_reconstruct_in(&x, &c, &in, &m, err, sizeof err);
    CHECK(rc == 0, "grid mesh of a pool on %s: %s", be->kind, err);
    double area, dx = mac_of(&s)->m.dx, H = 0.32, top = 0.0;
    area_volume(&m, &area, vol);
    long up = 0;
    for (size_t i = 0; i < m.nv; i++)
        if (m.n[i].y > 0.9f) {
            top = fmax(top, fabs(m.v[i].y - H));
            up++;
        }
    double want = 0.64 * 0.32 * 0.64;
    *nt = m.nt;
    printf("grid mesh of a pool on %s: %zu triangles, closed %d, volume %.6f m^3 vs %.6f (%+.2f %%), %ld "
           "upward vertices within %.2e cells of H\n", be->kind, m.nt, closed_manifold(&m), *vol, want,
           100.0 * (*vol / want - 1.0), up, top / dx);
    CHECK(rc == 0 && m.nt > 0 && closed_manifold(&m), "grid mesh of a pool on %s: not a closed 2-manifold", be->kind);
    CHECK(fabs(*vol / want - 1.0) <= 0.02, "grid mesh of a pool on %s: volume %.6f, expected %.6f within 2 %%",
          be->kind, *vol, want);
    CHECK(up > 0 && top <= 0.1 * dx, "grid mesh of a pool on %s: top %.3g cells off H", be->kind, top / dx);
    /* The viewer's overlay: the middle z slice's fluid cells, 16 x 8 of
     * them, each at a fluid cell's center (w = 1) below H. */
    const float *pts = NULL;
    size_t no = s.solver->overlay ? s.solver->overlay(&s, &pts) : 0;
    long bad = 0;
    for (size_t i = 0; i < no; i++)
        bad += pts[4 * i + 3] != 1.0f || pts[4 * i + 1] > H || fabsf(pts[4 * i + 2] - 0.34f) > 1e-5f;
    CHECK(no == 128 && bad == 0, "overlay of a pool on %s: %zu points, %ld wrong", be->kind, no, bad);
    /* A particle solver keeps no level set: refused, naming the key. */
    snprintf(p.sim_solver, sizeof p.sim_solver, "wcsph");
    CHECK(mc_method_check(&p, 0, err, sizeof err) == FCL_EXIT_INPUT && strstr(err, "surface.method"),
          "surface.method grid with wcsph: '%s'", err);
    mc_mesh_free(&m);
    mc_free(&x);
    sim_destroy(&s);
}

/* surface.method grid after a ball of fluid fell into a 16 cm pool (16^3
 * cells of 2 cm, 30 steps): every vertex within the domain. The solid
 * cells once read |iso| whatever their neighbors, and cells of bunched
 * markers beside the walls put the mesh 5.5 mm (0.27 cells) past them. */
static void test_grid_mesh_walls(fcl_backend *be)
{
    fcl_params p;
    mac_params(&p, 0.32, 0.01);
    float lo[3] = { 0, 0, 0 }, hi[3] = { 0.32f, 0.16f, 0.32f };
    float4 *pos = malloc(40000 * 16), *vel = calloc(40000, 16);
    size_t n = lattice(pos, 0, lo, hi, 0.01);
    for (float z = 0.125f; z < 0.2f; z += 0.01f)
        for (float y = 0.215f; y < 0.29f; y += 0.01f)
            for (float x = 0.125f; x < 0.2f; x += 0.01f)
                if ((x - 0.16f) * (x - 0.16f) + (y - 0.25f) * (y - 0.25f) + (z - 0.16f) * (z - 0.16f) < 0.0016f)
                    pos[n++] = fcl_f4(x, y, z, 0.0f);
    fcl_sim s;
    mc_ctx x;
    char err[1024] = "";
    memset(&x, 0, sizeof x);
    int rc = sim_create(&s, be, &p, pos, vel, n, NULL, 0, err, sizeof err), made = rc == 0;
    rc = rc ? rc : mc_init(&x, be, err, sizeof err);
    for (int k = 0; k < 30 && rc == 0; k++)
        rc = sim_step(&s);
    mc_config c;
    snprintf(p.surface_method, sizeof p.surface_method, "grid");
    mc_config_from_params(&c, &p);
    mc_input in = made ? mc_input_sim(&s) : (mc_input){ 0 };
    mc_mesh m = { 0 };
    rc = rc ? rc : mc_reconstruct_in(&x, &c, &in, &m, err, sizeof err);
    CHECK(rc == 0, "grid mesh after a drop on %s: %s", be->kind, err);
    double out = 0.0;
    for (size_t i = 0; i < m.nv; i++) {
        const float v[3] = { m.v[i].x, m.v[i].y, m.v[i].z };
        for (int a = 0; a < 3; a++)
            out = fmax(out, fmax(-v[a], v[a] - 0.32));
    }
    printf("grid mesh after a drop into a pool on %s: %zu triangles, farthest vertex %.2e m outside the domain\n",
           be->kind, m.nt, out);
    CHECK(rc == 0 && m.nt > 0 && out <= 1e-6, "grid mesh after a drop on %s: a vertex %.3g m outside the domain",
          be->kind, out);
    mc_mesh_free(&m);
    mc_free(&x);
    free(pos);
    free(vel);
    if (made)
        sim_destroy(&s);
}

/* The viewer's force on a resting pool (16^3 grid, 8 cells deep), with
 * each transfer: a vertical ray through the middle, radius 0.1 m, dv 0.5
 * m/s along x, then one step: the markers within half the radius of the
 * ray move along +x on average, those beyond twice the radius barely. */
static void test_interact(fcl_backend *be, const char *transfer)
{
    fcl_params p;
    mac_params(&p, 0.64, 0.02);
    snprintf(p.mac_transfer, sizeof p.mac_transfer, "%s", transfer);
    fcl_sim s;
    size_t n;
    char err[1024] = "";
    if (pool(be, &p, &s, &n, err, sizeof err) != 0) {
        CHECK(0, "interact (%s): %s", transfer, err);
        return;
    }
    float4 *pos = malloc(n * 16 + 16), *vel = malloc(n * 16 + 16);
    const float o[3] = { 0.32f, 0.6f, 0.32f }, dir[3] = { 0, -1, 0 }, dv[3] = { 0.5f, 0, 0 };
    int rc = sim_interact(&s, o, dir, dv, 0.1f) || sim_step(&s) || sim_download(&s, pos, vel, NULL, NULL, NULL);
    CHECK(rc == 0, "interact (%s): a step failed", transfer);
    double near = 0.0, far = 0.0;
    long nn = 0, nf = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        double r = hypot(pos[i].x - 0.32, pos[i].z - 0.32);
        if (r < 0.05) {
            near += vel[i].x;
            nn++;
        } else if (r > 0.2) {
            far = fmax(far, fabs(vel[i].x));
            nf++;
        }
    }
    near /= nn > 0 ? nn : 1;
    printf("viewer's force on a pool (%s): mean u of %ld markers near the ray %.3f m/s, largest |u| of %ld far "
           "ones %.3f m/s\n", transfer, nn, near, nf, far);
    CHECK(near > 0.1 && far < 0.5 * near, "interact (%s): near the ray %.3g m/s, far %.3g m/s", transfer, near, far);
    free(pos);
    free(vel);
    sim_destroy(&s);
}

/* Interior cell index (1..n) of x along one axis, as mac_axis_cell. */
static uint axis_cell(float x, float o, uint n, float inv_dx)
{
    float g = (x - o) * inv_dx;
    g = g >= 0.0f ? g : 0.0f;
    return g < (float)n ? 1u + (uint)g : n;
}

/* The step's marking against a count on the host: every cell's markers
 * (the reseeding's counts) exactly, a cell fluid (flag 1) exactly where it
 * holds a marker and is not solid (flag 2), air (0) elsewhere. */
static void check_marks(fcl_sim *s, const float4 *pos, size_t n)
{
    mac *d = mac_of(s);
    const fcl_mac_info *m = &d->m;
    uint *want = calloc(m->ncell, 4), *count = malloc((size_t)m->ncell * 4), *flags = malloc((size_t)m->ncell * 4);
    for (size_t i = 0; i < n; i++) {
        uint ci = axis_cell(pos[i].x, m->origin.x, m->nx, m->inv_dx), cj = axis_cell(pos[i].y, m->origin.y, m->ny, m->inv_dx);
        want[ci + m->sy * cj + m->sz * axis_cell(pos[i].z, m->origin.z, m->nz, m->inv_dx)]++;
    }
    int ok = s->be->ops->buf_read(s->be, d->count, 0, (size_t)m->ncell * 4, count) == 0 &&
             s->be->ops->buf_read(s->be, d->flags, 0, (size_t)m->ncell * 4, flags) == 0;
    size_t bad_count = 0, bad_flag = 0;
    for (uint c = 0; ok && c < m->ncell; c++) {
        bad_count += count[c] != want[c];
        bad_flag += flags[c] != 2u && flags[c] != (want[c] ? 1u : 0u);
    }
    CHECK(ok && bad_count == 0 && bad_flag == 0, "marking on %s: %zu cells with another marker count, %zu with "
          "another flag, of %u", s->be->kind, bad_count, bad_flag, m->ncell);
    free(want);
    free(count);
    free(flags);
}

/* A drop into a pool for 20 steps; positions by id into out. */
static int drop(fcl_backend *be, const char *transfer, float4 *out, size_t *nout, double *substeps)
{
    fcl_params p;
    mac_params(&p, 0.64, 0.02);
    snprintf(p.mac_transfer, sizeof p.mac_transfer, "%s", transfer);
    float lo[3] = { 0, 0, 0 }, hi[3] = { 0.64f, 0.16f, 0.64f }, blo[3] = { 0.24f, 0.36f, 0.24f },
          bhi[3] = { 0.40f, 0.52f, 0.40f };
    float4 *pos = malloc(40000 * 16), *vel = calloc(40000, 16);
    size_t n0 = lattice(pos, 0, lo, hi, 0.02), n = lattice(pos, n0, blo, bhi, 0.02);
    for (size_t i = n0; i < n; i++)
        vel[i] = fcl_f4(0.3f, -1.5f, 0.0f, 0.0f);
    fcl_sim s;
    char err[1024] = "";
    int rc = sim_create(&s, be, &p, pos, vel, n, NULL, 0, err, sizeof err);
    CHECK(rc == 0, "drop on %s: %s", be->kind, err);
    *substeps = 0.0;
    for (int k = 0; k < 20 && rc == 0; k++) {
        rc = sim_step(&s);
        *substeps += sim_stat(&s, "substeps");
    }
    CHECK(rc == 0, "drop on %s: step failed", be->kind);
    uint *id = malloc(n * 4);
    if (rc == 0) {
        sim_download(&s, pos, NULL, NULL, NULL, id);
        check_marks(&s, pos, n);
        for (size_t i = 0; i < n; i++)
            out[id[i]] = pos[i];
    }
    *nout = n;
    free(id); free(pos); free(vel);
    if (rc == 0)
        sim_destroy(&s);
    return rc;
}

static void test_backends(fcl_backend *cpu, fcl_backend *ocl, const char *transfer)
{
    float4 *a = malloc(40000 * 16), *b = malloc(40000 * 16);
    size_t na, nb;
    double sa, sb;
    if (drop(cpu, transfer, a, &na, &sa) == 0 && drop(ocl, transfer, b, &nb, &sb) == 0) {
        double dmax = markers_apart(a, b, na, 1.0);
        printf("drop (%s), native vs OpenCL after 20 steps: positions within %.2e of the domain, substeps %g vs %g\n",
               transfer, dmax / 0.64, sa, sb);
        int same_bits = ft_same_bits_expected(ocl);
        CHECK((same_bits ? dmax == 0.0 : dmax / 0.64 <= 1e-4) && sa == sb,
              "backends differ (%s): positions %.3g of the domain (limit %s), substeps %g vs %g", transfer, dmax / 0.64,
              same_bits ? "0 on a CPU device" : "1e-4", sa, sb);
    }
    free(a);
    free(b);
}

/* sim_create with one parameter changed must give exit 2 naming key. */
static void refused(fcl_backend *be, fcl_params *p, const char *what, const char *key)
{
    float lo[3] = { 0, 0, 0 }, hi[3] = { 0.1f, 0.1f, 0.1f };
    float4 *pos = malloc(1000 * 16), *vel = calloc(1000, 16);
    size_t n = lattice(pos, 0, lo, hi, p->particles_spacing);
    fcl_sim s;
    char err[1024] = "";
    int rc = sim_create(&s, be, p, pos, vel, n, NULL, 0, err, sizeof err);
    printf("%s: %d '%s'\n", what, rc, err);
    CHECK(rc == FCL_EXIT_INPUT && strstr(err, key), "%s gave %d: '%s'", what, rc, err);
    sim_destroy(&s);
    free(pos);
    free(vel);
}

static void test_bad_input(fcl_backend *be)
{
    fcl_params p;
    char err[512] = "";
    mac_params(&p, 0.64, 0.02);
    p.mac_cell_size = 0.05f;
    refused(be, &p, "cell size against spacing and particles per cell", "mac.cell_size");
    mac_params(&p, 0.64, 0.02);
    p.domain_max[2] = 0.05f;
    refused(be, &p, "fewer than 2 cells", "mac.cell_size");
    /* 1 particle per cell at 1 cm in 12 m: 1200^3 cells, a particle grid
     * of 4 cm cells (support 4) that fits. */
    mac_params(&p, 12.0, 0.01);
    p.particles_support = 4.0f;
    p.mac_particles_per_cell = 1.0f;
    refused(be, &p, "a grid too large", "mac.cell_size");
    mac_params(&p, 0.64, 0.02);
    p.domain_max[0] = 0.63f;   /* 15.75 cells of 4 cm: a wall would move */
    refused(be, &p, "a domain of no whole number of cells", "domain.max");
    int rc = params_assign(&p, "mac.particles_per_cell=0.5", err, sizeof err);
    printf("particles per cell 0.5: %d '%s'\n", rc, err);
    CHECK(rc != 0 && strstr(err, "mac.particles_per_cell"), "particles per cell 0.5 gave %d: '%s'", rc, err);
}

/* A closed 32 x 16 x 32 cm box full of liquid in two layers sliding past
 * each other at -1 and +1 m/s (16 x 8 x 16 cells of 2 cm, 8 markers a
 * cell), 100 steps of 10 ms: the shear decays, and no step may be faster
 * than the first. The markers leave holes along the shear (cells no
 * marker reached, enclosed by liquid); taken as air, each was a free
 * surface at p = 0 that the liquid's divergence error drained through,
 * and the speed jumped to 2.16 m/s at step 38 here (from a scene's
 * lattice to 4.59 m/s at step 37; a review). Holes of one or two cells are
 * liquid now (mac_hole_mark): at most 1.242 m/s after the first step's
 * 1.226 (limit 1.1 times that). */
static void test_full_shear(fcl_backend *be)
{
    fcl_params p;
    mac_params(&p, 0.32, 0.01);
    p.domain_max[1] = 0.16f;
    float lo[3] = { 0, 0, 0 }, hi[3] = { 0.32f, 0.16f, 0.32f };
    float4 *pos = malloc(32 * 16 * 32 * 16), *vel = malloc(32 * 16 * 32 * 16);
    size_t n = lattice(pos, 0, lo, hi, 0.01);
    for (size_t i = 0; i < n; i++)
        vel[i] = fcl_f4(pos[i].y < 0.08f ? -1.0f : 1.0f, 0.0f, 0.0f, 0.0f);
    fcl_sim s;
    char err[1024] = "";
    int rc = sim_create(&s, be, &p, pos, vel, n, NULL, 0, err, sizeof err), made = rc == 0;
    double first = 0.0, later = 0.0;
    int at = 0;
    for (int k = 0; rc == 0 && k < 100; k++) {
        rc = sim_step(&s);
        double v = s.stats.max_speed;
        first = k == 0 ? v : first;
        if (k > 0 && v > later)
            later = v, at = k + 1;
    }
    printf("full box in shear on %s: first step %.3f m/s, largest after %.3f m/s (step %d)\n", be->kind, first, later,
           at);
    CHECK(rc == 0 && later <= 1.1 * first, "full box in shear on %s: step %d at %.3f m/s, over 1.1 times the first "
          "step's %.3f (%s)", be->kind, at, later, first, rc ? (made ? s.error : err) : "");
    if (made)
        sim_destroy(&s);
    free(pos);
    free(vel);
}

int main(void)
{
    fcl_backend *cpu = ft_backend(0), *ocl = ft_backend(1);
    if (!cpu)
        return 77;
    test_bad_input(cpu);
    test_projection(cpu);
    if (ocl)
        test_projection(ocl);
    test_preconditioners(cpu);
    if (ocl)
        test_preconditioners(ocl);
    sc_check_cg_past_convergence(cpu, "mac", ", \"dt\": 0.005", 3);   /* NaN in step 1 before */
    if (ocl)
        sc_check_cg_past_convergence(ocl, "mac", ", \"dt\": 0.005", 3);
    for (int full = 0; full < 2; full++) {
        test_density_target(cpu, full);
        if (ocl)
            test_density_target(ocl, full);
    }
    test_pool(cpu);
    test_nan_face(cpu);
    if (ocl)
        test_nan_face(ocl);
    test_full_shear(cpu);
    if (ocl)
        test_full_shear(ocl);
    test_first_grid(cpu);
    test_pierced_pool(cpu, ocl);
    test_pushed_through_floor(cpu);
    test_flip_walls(cpu);
    if (ocl)
        test_flip_walls(ocl);
    if (ocl)
        test_pushed_through_floor(ocl);
    double vc = 0.0, vo = 0.0;
    size_t tc = 0, to = 0;
    test_grid_mesh(cpu, &vc, &tc);
    test_grid_mesh_walls(cpu);
    if (ocl) {
        test_grid_mesh(ocl, &vo, &to);
        CHECK(tc == to && fabs(vo - vc) <= 1e-6 * vc, "grid mesh: %zu and %zu triangles, volumes %.9g and %.9g",
              tc, to, vc, vo);
    }
    test_interact(cpu, "advect");
    test_interact(cpu, "flip");
    if (ocl) {
        test_backends(cpu, ocl, "advect");
        test_backends(cpu, ocl, "flip");
    }
    backend_destroy(cpu);
    backend_destroy(ocl);
    return ft_done();
}
