/* test_dfsph.c - physical checks of the dfsph solver with boundary
 * particles (walls and obstacles), on the native CPU backend (the fastest
 * here; test_backends checks that OpenCL computes the same):
 *  - hydrostatic column: after settling, the average density error and
 *    the pressure at half depth against rho g (H - y);
 *  - dam break at the adaptive step against a box and a sphere obstacle:
 *    no NaN, no particle inside an obstacle or outside the domain, no
 *    step at dfsph.max_iter;
 *  - Bender & Koschier's stability test: a cube of 27,000 particles
 *    thrown at the floor at 5 m/s stays finite, above the floor, with a
 *    bounded density error;
 *  - dfsph.viscosity: a Taylor-Green cell in a closed box with mirror
 *    walls loses its kinetic energy at the rate 4 nu k^2 of the exact
 *    solution.
 * Measured figures are printed; the limits are stated at each CHECK.
 * The column's pressure is checked against the 5 %, with
 * rho g (H - y) taken as the weight of the fluid above (see the test).
 */
#include "fcl_test.h"
#include "scene.h"
#include "setup.h"
#include "sim.h"
#include "sim_checks.h"

static fcl_backend *be;

/* A scene from text, with its boundary, on `be`. */
static int make(fcl_sim *s, fcl_scene *sc, fcl_initial *in, const char *text)
{
    return sc_make(be, s, sc, in, text);
}

/* Steps at dfsph.max_iter in the last run_until. */
static long steps_maxed;

/* Steps until the simulated time reaches t; returns steps run, or -1 on a
 * failed step or a blow-up. */
static long run_until(fcl_sim *s, double t, double *max_err)
{
    long k = 0;
    steps_maxed = 0;
    while (s->time < t) {
        if (sim_step(s) != 0 || s->stats.bad_id >= 0)
            return -1;
        if (max_err && s->stats.max_density_err > *max_err)
            *max_err = s->stats.max_density_err;
        steps_maxed += sim_stat(s, "density_iterations") >= s->prm->dfsph_max_iter;
        k++;
    }
    return k;
}

/* The column is 8 particles wide, so walls matter: the pressure is
 * compared on the 4 x 4 particles of each layer that have no wall within
 * the support radius. It runs at the solver's defaults. Until the density
 * solver's warm start took a share (dfsph.warm_share 0.85) instead of all
 * of last step's pressure, it ran with XSPH 0.5 and dt_max 1 ms: at the
 * defaults the column kept bouncing (with warm_share 1 here: 922 of 1536
 * particles faster than 5 cm/s at the end; 0 at 0.85), so fewer than
 * 1 % may be that fast. The average density error is measured on the
 * densities after each step, the solver's stop on its linear prediction
 * (eta 0.01 %); at the default step they differ by up to a fifth
 * (0.0099 % at 0.85, 0.0107 % at 1), hence the limit 0.0125 %.
 * rho g (H - y) is the weight of the fluid above y per unit area, each
 * particle a slab of thickness d: exact for any arrangement of the
 * layers. The starting cubic lattice rearranges into 23 layers 0.013 m
 * apart within about a second, which moves the top particle; the ratio
 * with H half a spacing above the top particle is printed too. Each
 * step's pressure is that step's impulse, and the settled column still
 * breathes: 0.1 s windows from t = 0.9 to 1.9 s ranged over 0.95-1.13
 * (one window above 1.05). So the pressure is averaged over 400 steps
 * (0.4 s) after 1.2 s of settling, and the windows' spread is printed. */
static double weight_above(const float4 *p, size_t n, float y, float d, float mass, float area)
{
    double slabs = 0.0;
    for (size_t j = 0; j < n; j++) {
        double f = (p[j].y + 0.5 * d - y) / d;
        slabs += f < 0.0 ? 0.0 : (f > 1.0 ? 1.0 : f);
    }
    return mass * 9.81 * slabs / area;
}

static void test_hydrostatic(void)
{
    fcl_sim s;
    fcl_scene sc;
    fcl_initial in;
    const char *text = "{ \"sim\": {\"solver\": \"dfsph\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.1,0.4,0.1]},"
                       "\"particles\": {\"spacing\": 0.0125},"
                       "\"material\": {\"tension_model\": \"none\"},"
                       "\"fluid\": [ {\"type\": \"box\", \"min\": [0,0,0], \"max\": [0.1,0.3,0.1]} ] }";
    if (make(&s, &sc, &in, text) != 0)
        return;
    long k = run_until(&s, 1.2, NULL);
    size_t n = s.n;
    float4 *p = malloc(n * 16);
    float *prs = malloc(n * 4);
    float d = sc.params.particles_spacing;
    double avg = 0.0, iters = 0.0, sum = 0.0, want = 0.0, want_top = 0.0, lo = 0.025, hi = 0.075;
    double wsum = 0.0, wwant = 0.0, wlo = 1e9, whi = -1e9;
    int m = 0, maxed = 0;
    for (; m < 400 && k >= 0; m++) {
        CHECK(sim_step(&s) == 0, "hydrostatic step");
        avg += s.stats.avg_density_err;
        iters += (double)sim_stat(&s, "density_iterations");
        maxed += sim_stat(&s, "density_iterations") >= sc.params.dfsph_max_iter;
        sim_download(&s, p, NULL, NULL, prs, NULL);
        float top = 0.0f;
        for (size_t i = 0; i < n; i++)
            top = fmaxf(top, p[i].y);
        double H = top + 0.5 * d;
        for (size_t i = 0; i < n; i++)
            if (fabs(p[i].y - 0.5 * H) < d && p[i].x > lo && p[i].x < hi && p[i].z > lo && p[i].z < hi) {
                double w = weight_above(p, n, p[i].y, d, s.c.mass, 0.1f * 0.1f);
                sum += prs[i];
                want += w;
                wsum += prs[i];
                wwant += w;
                want_top += 1000.0 * 9.81 * (H - p[i].y);
            }
        if (m % 100 == 99 && wwant > 0.0) {
            wlo = fmin(wlo, wsum / wwant);
            whi = fmax(whi, wsum / wwant);
            wsum = wwant = 0.0;
        }
    }
    avg /= m ? m : 1;
    float4 *v = malloc(n * 16);
    size_t fast = 0;
    sim_download(&s, NULL, v, NULL, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        fast += v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z > 0.05f * 0.05f;
    free(v);
    double ratio = want > 0.0 ? sum / want : 0.0, ratio_top = want_top > 0.0 ? sum / want_top : 0.0;
    printf("hydrostatic: %zu particles, %ld + 400 steps to t = %.3f s; over the last 400: average density error "
           "%.4f %%, %.1f density iterations (%d steps at the maximum); interior pressure at half depth %.3f of "
           "rho g (H - y) from the weight above (0.1 s windows %.3f to %.3f; %.3f with H half a spacing above the "
           "top particle); %zu particles faster than 5 cm/s at the end\n", n, k, s.time, avg, iters / 400.0, maxed,
           ratio, wlo, whi, ratio_top, fast);
    CHECK(k >= 0, "hydrostatic column blew up");
    CHECK(avg < 0.0125, "average density error %.4f %% after settling, limit 0.0125 %%", avg);
    CHECK(maxed == 0, "%d of 400 steps stopped at dfsph.max_iter", maxed);
    CHECK(fast < n / 100, "%zu of %zu particles faster than 5 cm/s after settling, limit 1 %%", fast, n);
    CHECK(fabs(ratio - 1.0) < 0.05, "interior pressure at half depth is %.3f of rho g (H - y), limit 5 %%", ratio);
    free(p);
    free(prs);
    sc_free(&s, &sc, &in);
}

static void test_dam_break_obstacles(void)
{
    fcl_sim s;
    fcl_scene sc;
    fcl_initial in;
    const char *text =
        "{ \"sim\": {\"solver\": \"dfsph\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.8,0.4,0.2]},"
        "\"particles\": {\"spacing\": 0.0125},"
        "\"fluid\": [ {\"type\": \"box\", \"min\": [0,0,0], \"max\": [0.2,0.3,0.2]} ],"
        "\"obstacles\": [ {\"type\": \"box\", \"min\": [0.4,0,0.06], \"max\": [0.45,0.12,0.14]},"
        "               {\"type\": \"sphere\", \"center\": [0.62,0.05,0.1], \"radius\": 0.04} ] }";
    if (make(&s, &sc, &in, text) != 0)
        return;
    double max_err = 0.0;
    long k = run_until(&s, 0.6, &max_err);
    size_t inside, outside;
    sc_count_escapes(&s, &in, &sc.params, &inside, &outside);
    printf("dam break with obstacles: %zu particles, %zu boundary particles, %ld steps to t = %.3f s "
           "(last dt %.2g s), max speed %.2f m/s, max density error %.2f %%, %ld steps at max_iter, %zu particles "
           "inside an obstacle\n", s.n, s.nb, k, s.time, s.stats.dt, s.stats.max_speed, max_err, steps_maxed, inside);
    CHECK(k > 0, "dam break blew up at step %ld (particle %ld)", s.step, s.stats.bad_id);
    /* One layer of boundary particles let 0 to 6 of 6144 through before
     * the integrators projected particles out of boxes and spheres. */
    CHECK(inside == 0, "%zu of %zu particles inside an obstacle", inside, s.n);
    CHECK(outside == 0, "%zu particles outside the domain", outside);
    /* The iteration-aware step keeps the solver off its cap from rest. */
    CHECK(steps_maxed == 0, "%ld steps stopped at dfsph.max_iter", steps_maxed);
    sc_free(&s, &sc, &in);
}

/* dfsph.max_iter = min_iter (a range the parameters allow): every solve
 * stops at max_iter, converged or not, and a stop there once halved the
 * step whatever the error, so the step sank to dt_min for good (100
 * steps of a 4 cm dam break simulated 2.2 ms; a review); and iterations
 * min_iter imposes above dfsph.iter_target (10) shrank it every step (at
 * 20, 6.8 ms; a review of the fix). Only an unconverged stop halves it,
 * and only iterations past both the target and min_iter shrink it. */
static void test_iteration_cap(void)
{
    static const int least[2] = { 2, 20 };
    for (int k = 0; k < 2; k++) {
        fcl_sim s;
        fcl_scene sc;
        fcl_initial in;
        char text[1024];
        snprintf(text, sizeof text,
                 "{ \"sim\": {\"solver\": \"dfsph\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.8,0.4,0.2]},"
                 "\"particles\": {\"spacing\": 0.04}, \"boundary\": {\"cache_dir\": \"off\"},"
                 "\"dfsph\": {\"max_iter\": %d, \"min_iter\": %d, \"min_iter_v\": 1},"
                 "\"fluid\": [ {\"type\": \"box\", \"min\": [0,0,0], \"max\": [0.2,0.3,0.2]} ] }", least[k], least[k]);
        if (make(&s, &sc, &in, text) != 0)
            return;
        int ok = 1;
        for (int q = 0; ok && q < 100; q++)
            ok = sim_step(&s) == 0 && s.stats.bad_id < 0;
        printf("dfsph.max_iter = min_iter = %d: 100 steps to t = %.4f s (last dt %.3g s)\n", least[k], s.time,
               s.stats.dt);
        CHECK(ok && s.time > 0.05, "max_iter = min_iter = %d: %s, 100 steps reached t = %.4g s (expected past 0.05 s; "
              "held at dfsph.dt_min they reached 2.2 ms at 2, 6.8 ms at 20)", least[k], ok ? "ran" : "failed", s.time);
        sc_free(&s, &sc, &in);
    }
}

/* A 20 x 25 x 20 cm block at rest in a 50 x 40 x 20 cm box at 2 cm, with
 * `extra` (JSON members ending in a comma, or "") in the scene. */
static int resting_block(fcl_sim *s, fcl_scene *sc, fcl_initial *in, const char *extra)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{ \"sim\": {\"solver\": \"dfsph\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.5,0.4,0.2]},"
             "\"particles\": {\"spacing\": 0.02}, \"boundary\": {\"cache_dir\": \"off\"}, %s"
             "\"fluid\": [ {\"type\": \"box\", \"min\": [0,0,0], \"max\": [0.2,0.25,0.2]} ] }", extra);
    return make(s, sc, in, text);
}

/* material.rest_density is live: lowered by a tenth on a resting block,
 * the next steps must not see a compression. The densities the last step
 * summed with the old rest density read as 11 % compression everywhere
 * and threw the block to 16.5 m/s at the next step (500: 147 m/s, a
 * blow-up; a review); raised, nothing shows (only compression counts).
 * The same block run at 900 from the start reaches 0.045 m/s at step 4. */
static void test_live_rest_density(void)
{
    static const float rho0[2] = { 900.0f, 500.0f };
    for (int k = 0; k < 2; k++) {
        fcl_sim s;
        fcl_scene sc;
        fcl_initial in;
        if (resting_block(&s, &sc, &in, "") != 0)
            return;
        int ok = 1;
        double top = 0.0;
        for (int q = 0; ok && q < 3; q++)
            ok = sim_step(&s) == 0 && s.stats.bad_id < 0;
        sc.params.material_rest_density = rho0[k];   /* as the viewer's panel sets it, read at the next step */
        for (int q = 0; ok && q < 5; q++) {
            ok = sim_step(&s) == 0 && s.stats.bad_id < 0;
            top = fmax(top, s.stats.max_speed);
        }
        printf("dfsph: material.rest_density 1000 -> %g live at step 4: largest speed over 5 steps %.4f m/s\n",
               rho0[k], top);
        CHECK(ok && top < 0.2, "rest density lowered live to %g: %s, largest speed %.4g m/s (limit 0.2; the block "
              "at rest reaches 0.12 by step 8)", rho0[k], ok ? "ran" : "blew up", top);
        sc_free(&s, &sc, &in);
    }
}

/* The iteration-aware bound grows from the step taken: held at
 * dfsph.dt_min by a viscosity raised live, easy solves grew it 10 % a
 * step to dfsph.dt_max, so the step jumped from 0.1 to 5 ms when the
 * viscosity was lowered again (a review). Now the first step after keeps
 * within 10 % of the bound before the hold. */
static void test_cap_while_held(void)
{
    fcl_sim s;
    fcl_scene sc;
    fcl_initial in;
    if (resting_block(&s, &sc, &in, "\"dfsph\": {\"dt_min\": 1e-4},") != 0)
        return;
    int ok = 1;
    double before = 0.0, held = 0.0;
    for (int q = 0; ok && q < 3; q++, before = fmax(before, s.stats.dt))
        ok = sim_step(&s) == 0 && s.stats.bad_id < 0;
    sc.params.dfsph_viscosity = 0.6;   /* its bound 0.125 h^2 / nu = 8.3e-5 s, under dt_min */
    for (int q = 0; ok && q < 40; q++, held = fmax(held, s.stats.dt))
        ok = sim_step(&s) == 0 && s.stats.bad_id < 0;
    sc.params.dfsph_viscosity = 0.0;
    ok = ok && sim_step(&s) == 0 && s.stats.bad_id < 0;
    printf("dfsph: step bound %.3g s before a hold at dfsph.dt_min (largest step held %.3g s), %.3g s after it\n",
           before, held, s.stats.dt);
    CHECK(ok && held <= 1.0001e-4 && s.stats.dt <= 1.1 * before * 1.0001,
          "%s; held at %.3g s (expected dfsph.dt_min 1e-4), then %.3g s (limit 1.1 times %.3g s, the step before)",
          ok ? "ran" : "failed", held, s.stats.dt, before);
    sc_free(&s, &sc, &in);
}

/* 30^3 particles, 30 cm cube, thrown down at 5 m/s from 5 cm above the
 * floor of a 1 m box; 0.08 s covers the impact (at 10 ms) and the start
 * of the spread, where the speeds and density errors peak. */
static void test_cube_impact(void)
{
    fcl_sim s;
    fcl_scene sc;
    fcl_initial in;
    const char *text =
        "{ \"sim\": {\"solver\": \"dfsph\"}, \"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]},"
        "\"particles\": {\"spacing\": 0.01},"
        "\"fluid\": [ {\"type\": \"box\", \"min\": [0.35,0.05,0.35], \"max\": [0.65,0.35,0.65],"
        "              \"velocity\": [0,-5,0]} ] }";
    if (make(&s, &sc, &in, text) != 0)
        return;
    double max_err = 0.0;
    long k = run_until(&s, 0.08, &max_err);
    size_t inside, outside;
    sc_count_escapes(&s, &in, &sc.params, &inside, &outside);
    printf("cube impact: %zu particles at 5 m/s, %ld CFL steps to t = %.3f s, max speed %.2f m/s, "
           "max density error %.2f %%, last step %.4f %% average\n", s.n, k, s.time, s.stats.max_speed, max_err,
           s.stats.avg_density_err);
    CHECK(s.n == 27000, "the cube has %zu particles, expected 27000", s.n);
    CHECK(k > 0, "cube impact blew up at step %ld (particle %ld)", s.step, s.stats.bad_id);
    CHECK(outside == 0, "%zu particles through the floor or walls", outside);
    CHECK(max_err < 20.0, "max density error %.2f %% during the impact, limit 20 %%", max_err);
    CHECK(s.stats.avg_density_err < 0.1, "average density error %.4f %% after the impact, limit 0.1 %%",
          s.stats.avg_density_err);
    sc_free(&s, &sc, &in);
}

/* Kinetic energy per unit mass, sum |v|^2 / 2 over the particles. */
static double kinetic(fcl_sim *s)
{
    float4 *v = malloc(s->n * 16 + 16);
    double e = 0.0;
    sim_download(s, NULL, v, NULL, NULL, NULL);
    for (size_t i = 0; i < s->n; i++)
        e += 0.5 * ((double)v[i].x * v[i].x + (double)v[i].y * v[i].y + (double)v[i].z * v[i].z);
    free(v);
    return e;
}

/* The cell u = A sin(k x) cos(k y), v = -A cos(k x) sin(k y), k = pi / L,
 * filling an L^3 box with mirror (free-slip) walls, without gravity: an
 * exact Navier-Stokes solution whose walls are symmetry planes, decaying
 * as exp(-2 nu k^2 t), so its kinetic energy as exp(-4 nu k^2 t). Run with
 * nu and with 0 (what the discretization dissipates by itself). */
static double taylor_green_decay(double nu, double t_end)
{
    fcl_sim s;
    fcl_scene sc;
    fcl_initial in;
    char err[1024], text[512];
    const double L = 0.4, A = 0.05, k = 3.14159265358979 / L;
    snprintf(text, sizeof text,
             "{ \"sim\": {\"solver\": \"dfsph\", \"gravity\": [0,0,0]}, \"boundary\": {\"walls\": \"mirror\"},"
             "\"domain\": {\"min\": [0,0,0], \"max\": [%g,%g,%g]}, \"particles\": {\"spacing\": 0.02},"
             "\"dfsph\": {\"viscosity\": %g, \"xsph\": 0, \"dt_max\": 0.002},"
             "\"fluid\": [ {\"type\": \"box\", \"min\": [0,0,0], \"max\": [%g,%g,%g]} ] }", L, 1.5 * L, L, nu, L, L, L);
    if (scene_parse(&sc, text, "taylor-green", err, sizeof err) != 0 ||
        setup_initial(&sc, &sc.params, be, &in, err, sizeof err) != 0) {
        CHECK(0, "taylor-green scene: %s", err);
        return -1.0;
    }
    for (size_t i = 0; i < in.n; i++) {
        double x = in.pos[i].x, y = in.pos[i].y;
        in.vel[i] = fcl_f4((float)(A * sin(k * x) * cos(k * y)), (float)(-A * cos(k * x) * sin(k * y)), 0.0f, 0.0f);
    }
    double rate = -1.0;
    if (sim_create(&s, be, &sc.params, in.pos, in.vel, in.n, in.b.pos, in.b.n, err, sizeof err) != 0) {
        CHECK(0, "taylor-green sim: %s", err);
    } else {
        double e0 = kinetic(&s);
        long steps = run_until(&s, t_end, NULL);
        double e1 = kinetic(&s);
        rate = steps > 0 && e1 > 0.0 ? -log(e1 / e0) / s.time : -1.0;
        printf("taylor-green: nu %.4g m^2/s, %zu particles, %ld steps to t = %.3f s, kinetic energy x %.4f, "
               "rate %.4f 1/s (exact 4 nu k^2 = %.4f)\n", nu, s.n, steps, s.time, e1 / e0, rate,
               4.0 * nu * k * k);
        sim_destroy(&s);
    }
    setup_free(&in);
    scene_free(&sc);
    return rate;
}

/* Measured (native): 1.37 x the exact rate at 2 cm spacing (8,000
 * particles), 1.32 x at 1 cm (64,000); the inviscid cell loses 3.5 % and
 * 2.4 % of that rate. The standard form is exact in the continuum for a
 * divergence-free field; at h = 2 spacings its sums are not (on a resting
 * lattice it gives 0.70 of d^2u/dy^2 for u = y^2 / 2, computed), and a
 * moving, disordered cell departs from that too (twice nu decays 1.74 x
 * as fast, 1.21 x its exact rate). So the rate is asked to be 1.15-1.6 x
 * the exact one: a band of +-50 % around the exact rate let half the
 * viscosity pass (a review). */
static void test_viscosity_decay(void)
{
    const double nu = 0.01, k = 3.14159265358979 / 0.4, exact = 4.0 * nu * k * k;
    double r0 = taylor_green_decay(0.0, 0.3), r1 = taylor_green_decay(nu, 0.3), f = (r1 - r0) / exact;
    CHECK(r0 >= 0.0 && r0 < 0.1 * exact, "without viscosity the energy decays at %.4f 1/s, limit 10 %% of %.4f",
          r0, exact);
    CHECK(f > 1.15 && f < 1.6, "viscous decay rate %.4f 1/s (less %.4f without) is %.3f x 4 nu k^2 = %.4f "
          "(1.15 to 1.6 expected)", r1 - r0, r0, f, exact);
}

/* A resting pool at the defaults: 1,500 particles at 2 cm (10 x 15 x 10,
 * support 2 spacings) settle from the lattice and must come to rest. The
 * particles' motion in a pool that does not is incoherent (each moves
 * unlike its neighbors): jitter, not sloshing. With the density solver
 * warm-started from all of last step's pressure (dfsph.warm_share 1) the
 * mean speed over 2.5-3 s was 0.033 m/s in wall particles and 0.081 with
 * mirror walls, with 145 and 1,042 particles faster than 5 cm/s at 3 s;
 * at the default 0.85, 0.0105 and 0.0079 m/s, none that fast. Limits:
 * 0.015 m/s, and 1 % of the particles above 5 cm/s. */
static void test_resting_pool(const char *walls)
{
    fcl_sim s;
    fcl_scene sc;
    fcl_initial in;
    char text[512];
    snprintf(text, sizeof text,
             "{ \"sim\": {\"solver\": \"dfsph\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.2,0.4,0.2]},"
             "\"boundary\": {\"walls\": \"%s\"}, \"particles\": {\"spacing\": 0.02},"
             "\"fluid\": [ {\"type\": \"box\", \"min\": [0,0,0], \"max\": [0.2,0.3,0.2]} ] }", walls);
    if (make(&s, &sc, &in, text) != 0)
        return;
    long k = run_until(&s, 2.5, NULL);
    size_t n = s.n, fast = 0;
    float4 *v = malloc(n * 16);
    double sum = 0.0;
    long m = 0;
    while (k >= 0 && s.time < 3.0) {
        int rc = sim_step(&s);
        CHECK(rc == 0, "resting pool step: %s", s.error);
        if (rc != 0)   /* a failed step does not advance time: it spun to ctest's timeout (a review) */
            break;
        sim_download(&s, NULL, v, NULL, NULL, NULL);
        fast = 0;
        for (size_t i = 0; i < n; i++) {
            double sp = sqrt(v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z);
            sum += sp;
            fast += sp > 0.05;
        }
        m++;
    }
    double mean = m ? sum / ((double)m * (double)n) : 1e9;
    printf("resting pool, %s walls: %zu particles, %ld + %ld steps to t = %.3f s; mean speed over the last 0.5 s "
           "%.4f m/s, %zu particles faster than 5 cm/s at the end\n", walls, n, k, m, s.time, mean, fast);
    CHECK(k >= 0, "the resting pool (%s walls) blew up", walls);
    CHECK(mean < 0.015, "resting pool (%s walls): mean speed %.4f m/s over 2.5-3 s, limit 0.015", walls, mean);
    CHECK(fast < n / 100, "resting pool (%s walls): %zu of %zu particles faster than 5 cm/s at 3 s, limit 1 %%",
          walls, fast, n);
    free(v);
    sc_free(&s, &sc, &in);
}

int main(int argc, char **argv)
{
    be = ft_backend(0);
    if (!be)
        return 77;
    printf("backend: %s\n", be->name);
    if (argc > 1 && strcmp(argv[1], "--viscosity") == 0) {   /* that test alone */
        test_viscosity_decay();
        backend_destroy(be);
        return ft_done();
    }
    test_hydrostatic();
    test_resting_pool("particles");
    test_resting_pool("mirror");
    test_dam_break_obstacles();
    test_iteration_cap();
    test_live_rest_density();
    test_cap_while_held();
    test_cube_impact();
    test_viscosity_decay();
    backend_destroy(be);
    return ft_done();
}
