/* test_pbf_control.c - fluid control inside PBF (seed 001), on the native
 * backend and OpenCL:
 *  - the seed's Fig. 5: one control particle P in a ball of fluid with no
 *    gravity; fluid under-dense within H moves toward P, over-dense moves
 *    away. Measured as the mean radial displacement in one step of the
 *    particles within H, with control minus without (so PBF's own
 *    constraint cancels out), springs and velocity constraint off;
 *  - identity: with alpha = beta = gamma = 0 a dam break with a block of
 *    control particles equals plain PBF bit for bit after 10 steps;
 *  - fill: fluid released above a sphere target of the same volume ends
 *    with >= 90 % of its particles inside the sphere after 1 s, and the
 *    fluid's volume inside the sphere (sum of m / rho_i over the particles
 *    in it) within 10 % of the fluid volume; the share of the sphere's
 *    lattice points with a fluid particle within 0.87 d is printed too;
 *  - recapture: the target jumps 0.3 m in one step (0.3 m per 2 ms, far
 *    more than H per step) at t = 0.5 s; with springs >= 90 % of the fluid
 *    is inside the moved target at 1.2 s, without springs <= 10 %;
 *  - switch: a target that is a sphere until 0.4 s and then a flat box
 *    around it draws the fluid into the box (>= 75 % at 1 s, 20 points
 *    more than at the switch);
 *  - a far target switched on and off leaves the chase's fluid as it is
 *    bit for bit (the springs follow their control particles' new ids);
 *  - restart with a moving target, both backends: the state saved after
 *    8 steps (springs included: grid attributes), loaded into a fresh
 *    simulation of the scene, gives after 8 more steps the same bits as
 *    running on.
 */
#include "fcl_test.h"
#include "../host/solvers/pbf/pbf.h"
#include "scene.h"
#include "setup.h"
#include "state.h"
#include "sim.h"

static const float D = 0.0125f;   /* the spacing */

static void base_params(fcl_params *p)
{
    char err[256];
    params_defaults(p);
    snprintf(p->sim_solver, sizeof p->sim_solver, "pbf");
    float lo[3] = { 0, 0, 0 }, hi[3] = { 0.4f, 0.4f, 0.4f };
    memcpy(p->domain_min, lo, sizeof lo);
    memcpy(p->domain_max, hi, sizeof hi);
    p->particles_spacing = D;
    snprintf(p->boundary_walls, sizeof p->boundary_walls, "mirror");
    snprintf(p->material_tension_model, sizeof p->material_tension_model, "none");
    (void)err;
}

/* A ball of radius 2H around the domain's center on a lattice of spacing
 * f * D. */
static size_t ball(float f, float H, float4 **pos, float4 **vel)
{
    int m = (int)ceilf(2.0f * H / (f * D));
    size_t cap = (size_t)(2 * m + 1) * (2 * m + 1) * (2 * m + 1), n = 0;
    *pos = malloc(cap * 16);
    *vel = calloc(cap, 16);
    for (int x = -m; x <= m; x++)
        for (int y = -m; y <= m; y++)
            for (int z = -m; z <= m; z++) {
                float px = x * f * D, py = y * f * D, pz = z * f * D;
                if (px * px + py * py + pz * pz <= 4.0f * H * H)
                    (*pos)[n++] = fcl_f4(0.2f + px + 0.3f * D, 0.2f + py + 0.2f * D, 0.2f + pz + 0.1f * D, 0.0f);
            }
    return n;
}

/* Mean radial displacement (m, outward positive) in one step of the
 * particles within H of the center, by id. */
static double radial_step(fcl_backend *be, const fcl_params *p, float f, int control)
{
    float H = p->control_radius * p->particles_support * D;
    float4 *pos, *vel, *now = NULL;
    uint *id = NULL;
    size_t n = ball(f, H, &pos, &vel);
    fcl_sim s;
    char err[512] = "";
    double sum = 0.0;
    int m = 0;
    float4 P = fcl_f4(0.2f, 0.2f, 0.2f, 1.0f);
    if (sim_create(&s, be, p, pos, vel, n, NULL, 0, err, sizeof err) != 0 ||
        (control && pbf_control_points(&s, &P, 1, err, sizeof err) != 0) || sim_step(&s) != 0) {
        CHECK(0, "Fig. 5 run: %s", err);
        goto out;
    }
    now = malloc(n * 16);
    id = malloc(n * 4);
    sim_download(&s, now, NULL, NULL, NULL, id);
    for (size_t i = 0; i < n; i++) {
        float4 a = pos[id[i]], b = now[i];
        float rx = a.x - P.x, ry = a.y - P.y, rz = a.z - P.z, r = sqrtf(rx * rx + ry * ry + rz * rz);
        if (r < H && r > 0.0f) {
            sum += ((b.x - a.x) * rx + (b.y - a.y) * ry + (b.z - a.z) * rz) / r;
            m++;
        }
    }
    sim_destroy(&s);
out:
    free(pos);
    free(vel);
    free(now);
    free(id);
    return m ? sum / m : 0.0;
}

static void test_fig5(fcl_backend *be)
{
    fcl_params p;
    base_params(&p);
    p.sim_gravity[1] = 0.0f;
    p.pbf_clamp = 1;
    /* One iteration: the control displacement and PBF's are computed from
     * the same positions and added, so with minus without is the control's
     * own displacement (more iterations mix them nonlinearly). */
    p.pbf_iterations = 1;
    p.control_beta = 0.0f;
    p.control_gamma = 0.0f;
    static const float factors[2] = { 1.25f, 0.9f };   /* under-dense, over-dense */
    for (int k = 0; k < 2; k++) {
        double with = radial_step(be, &p, factors[k], 1), without = radial_step(be, &p, factors[k], 0);
        double effect = with - without;
        printf("%s: lattice %.2f d, mean radial step within H %.3e m with control, %.3e m without: control %s "
               "%.3e m\n", be->kind, factors[k], with, without, effect < 0.0 ? "pulls in" : "pushes out", effect);
        if (k == 0)
            CHECK(effect < -1e-6, "%s: under-dense fluid within H moved %.3e m radially (expected toward P)",
                  be->kind, effect);
        else
            CHECK(effect > 1e-6, "%s: over-dense fluid within H moved %.3e m radially (expected away from P)",
                  be->kind, effect);
    }
}

/* A falling ball with a block of control particles at zero strength
 * against the same without control: identical bits after 10 steps. */
static void test_identity(fcl_backend *be)
{
    fcl_params p;
    base_params(&p);
    snprintf(p.boundary_walls, sizeof p.boundary_walls, "particles");
    p.control_beta = 0.0f;
    p.control_gamma = 0.0f;
    float4 *pos, *vel, ctl[64];
    size_t n = ball(1.0f, 0.05f, &pos, &vel);
    for (int i = 0; i < 64; i++)
        ctl[i] = fcl_f4(0.16f + 0.025f * (i % 4), 0.16f + 0.025f * (i / 4 % 4), 0.16f + 0.025f * (i / 16), 0.0f);
    float4 *out[2] = { malloc(n * 16), malloc(n * 16) };
    char err[512] = "";
    for (int c = 0; c < 2; c++) {
        fcl_sim s;
        int ok = sim_create(&s, be, &p, pos, vel, n, NULL, 0, err, sizeof err) == 0 &&
                 (!c || pbf_control_points(&s, ctl, 64, err, sizeof err) == 0);
        for (int k = 0; ok && k < 10; k++)
            ok = sim_step(&s) == 0;
        CHECK(ok, "%s: identity run: %s", be->kind, err);
        if (ok)
            sim_download(&s, out[c], NULL, NULL, NULL, NULL);
        sim_destroy(&s);
    }
    CHECK(memcmp(out[0], out[1], n * 16) == 0, "%s: alpha = beta = gamma = 0 differs from plain PBF", be->kind);
    free(out[0]);
    free(out[1]);
    free(pos);
    free(vel);
}


/* The fluid after running a scene to t, measured against a sphere (c, r)
 * or, when box is given (lo then hi), a box. */
typedef struct outcome {
    double inside, covered, filled, fluid;   /* fraction inside; then volumes in d^3 */
    long steps;
} outcome;

static int run_scene(fcl_backend *be, const char *text, const char *param, double t, const float c[3], float r,
                     const float *box, outcome *o)
{
    fcl_scene sc;
    fcl_initial in;
    fcl_sim s;
    char err[1024] = "", perr[256];
    memset(o, 0, sizeof *o);
    if (scene_parse(&sc, text, "test scene", err, sizeof err) != 0 ||
        (param && params_assign(&sc.params, param, perr, sizeof perr) != 0) ||
        setup_initial(&sc, &sc.params, be, &in, err, sizeof err) != 0) {
        CHECK(0, "scene: %s", err);
        return -1;
    }
    int ok = sim_create(&s, be, &sc.params, in.pos, in.vel, in.n, in.b.pos, in.b.n, err, sizeof err) == 0 &&
             sim_set_solids(&s, sc.obstacles, sc.nobstacles) == 0 &&
             sim_set_targets(&s, sc.targets, sc.ntargets, err, sizeof err) == 0;
    while (ok && s.time < t && (ok = sim_step(&s) == 0 && s.stats.bad_id < 0))
        o->steps++;
    CHECK(ok, "%s run failed at step %ld: %s", be->kind, s.step, err);
    size_t n = s.n;
    float4 *p = malloc(n * 16);
    float *rho = malloc(n * 4);
    sim_download(&s, p, NULL, rho, NULL, NULL);
    size_t in_count = 0, pts = 0, cov = 0;
    double filled = 0.0;
    for (size_t i = 0; i < n; i++) {
        float dx = p[i].x - c[0], dy = p[i].y - c[1], dz = p[i].z - c[2];
        int in = box ? p[i].x >= box[0] && p[i].y >= box[1] && p[i].z >= box[2] && p[i].x <= box[3] &&
                           p[i].y <= box[4] && p[i].z <= box[5]
                     : dx * dx + dy * dy + dz * dz < r * r;
        in_count += in;
        filled += in ? sc.params.material_rest_density / rho[i] : 0.0;
    }
    int m = box ? -1 : (int)(r / D);
    for (int x = -m; x <= m; x++)
        for (int y = -m; y <= m; y++)
            for (int z = -m; z <= m; z++) {
                float qx = c[0] + x * D, qy = c[1] + y * D, qz = c[2] + z * D, best = 1e30f;
                if ((float)(x * x + y * y + z * z) * D * D >= r * r)
                    continue;
                pts++;
                for (size_t i = 0; i < n; i++) {
                    float dx = p[i].x - qx, dy = p[i].y - qy, dz = p[i].z - qz;
                    best = fminf(best, dx * dx + dy * dy + dz * dz);
                }
                cov += best < 0.75f * D * D;
            }
    o->inside = n ? (double)in_count / n : 0.0;
    o->covered = (double)cov / (pts ? pts : 1);
    o->filled = filled;
    o->fluid = (double)n;
    free(p);
    free(rho);
    sim_destroy(&s);
    setup_free(&in);
    scene_free(&sc);
    return ok ? 0 : -1;
}

static void test_fill(fcl_backend *be)
{
    static const float c[3] = { 0.2f, 0.15f, 0.2f };
    const char *text = "{ \"sim\": {\"solver\": \"pbf\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.4,0.4,0.4]},"
                       "\"particles\": {\"spacing\": 0.0125}, \"boundary\": {\"cache_dir\": \"off\"},"
                       "\"material\": {\"tension_model\": \"none\"},"
                       "\"fluid\": [ {\"type\": \"sphere\", \"center\": [0.2,0.3,0.2], \"radius\": 0.08} ],"
                       "\"targets\": [ {\"shape\": {\"type\": \"sphere\", \"center\": [0.2,0.15,0.2], \"radius\": 0.08}} ] }";
    outcome o;
    if (run_scene(be, text, NULL, 1.0, c, 0.08f, NULL, &o) != 0)
        return;
    double err = fabs(o.filled - o.fluid) / o.fluid;
    printf("%s: fill: %.0f particles, %.1f %% inside the target after 1 s (%ld steps); fluid volume inside "
           "%.1f %% off the fluid volume; %.1f %% of the target's lattice points covered\n", be->kind, o.fluid,
           100.0 * o.inside, o.steps, 100.0 * err, 100.0 * o.covered);
    CHECK(o.inside >= 0.9, "%s: %.1f %% of the fluid inside the target, limit 90 %%", be->kind, 100.0 * o.inside);
    CHECK(err <= 0.1, "%s: the fluid volume inside the target is %.1f %% off the fluid volume, limit 10 %%", be->kind,
          100.0 * err);
}

/* The velocity constraint alone (alpha = beta = 0) on a cube moving at
 * 0.2 m/s in zero gravity inside a static box target: the speed left
 * after 0.04 s is 0.2 (1 - gamma)^(t / pbf.dt_max) whatever lengths the
 * CFL gives the steps (a share per step kept 0.0219 m/s at pbf.cfl 0.4,
 * 21 steps, and 0.0002 at 0.04: a review). gamma is the share per step
 * of pbf.dt_max, as beta's displacement is. */
static double damped_speed(fcl_backend *be, const char *cfl, const char *dt_max, long *steps)
{
    const char *text = "{ \"sim\": {\"solver\": \"pbf\", \"gravity\": [0,0,0]},"
                       "\"domain\": {\"min\": [0,0,0], \"max\": [0.3,0.3,0.3]}, \"particles\": {\"spacing\": 0.01},"
                       "\"boundary\": {\"cache_dir\": \"off\"}, \"material\": {\"tension_model\": \"none\"},"
                       "\"control\": {\"alpha\": 0, \"beta\": 0, \"gamma\": 0.1},"
                       "\"fluid\": [ {\"type\": \"box\", \"min\": [0.09,0.09,0.09], \"max\": [0.21,0.21,0.21],"
                       "             \"velocity\": [0.2,0,0]} ],"
                       "\"targets\": [ {\"shape\": {\"type\": \"box\", \"min\": [0.09,0.09,0.09], \"max\": [0.21,0.21,0.21]}} ] }";
    fcl_scene sc;
    fcl_initial in;
    fcl_sim s;
    char err[1024] = "", perr[256];
    if (scene_parse(&sc, text, "damping", err, sizeof err) != 0 ||
        params_assign(&sc.params, cfl, perr, sizeof perr) != 0 ||
        params_assign(&sc.params, dt_max, perr, sizeof perr) != 0 ||
        setup_initial(&sc, &sc.params, be, &in, err, sizeof err) != 0) {
        CHECK(0, "damping scene: %s%s", err, perr);
        return -1.0;
    }
    double vx = -1.0;
    *steps = 0;
    if (sim_create(&s, be, &sc.params, in.pos, in.vel, in.n, in.b.pos, in.b.n, err, sizeof err) == 0) {
        int ok = sim_set_targets(&s, sc.targets, sc.ntargets, err, sizeof err) == 0;
        while (ok && s.time < 0.04 - 1e-9 && (ok = sim_step(&s) == 0 && s.stats.bad_id < 0))
            ++*steps;
        float4 *v = malloc(s.n * sizeof *v);
        if (ok && v && sim_download(&s, NULL, v, NULL, NULL, NULL) == 0) {
            vx = 0.0;
            for (size_t i = 0; i < s.n; i++)
                vx += v[i].x / (double)s.n;
        }
        CHECK(ok, "damping run failed at step %ld: %s", s.step, err);
        free(v);
        sim_destroy(&s);
    }
    setup_free(&in);
    scene_free(&sc);
    return vx;
}

static void test_velocity_rate(fcl_backend *be)
{
    static const char *const runs[2][2] = { { "pbf.cfl=0.4", "pbf.dt_max=0.002" },
                                            { "pbf.cfl=0.04", "pbf.dt_max=0.002" } };
    double want = 0.2 * pow(0.9, 0.04 / 0.002);
    for (int k = 0; k < 2; k++) {
        long steps;
        double vx = damped_speed(be, runs[k][0], runs[k][1], &steps);
        printf("%s: velocity constraint, %s %s: mean vx %.4f m/s after 0.04 s in %ld steps (0.2 x 0.9^20 = %.4f)\n",
               be->kind, runs[k][0], runs[k][1], vx, steps, want);
        CHECK(fabs(vx - want) <= 0.15 * want, "%s: %s %s: mean vx %.4f m/s after 0.04 s, want %.4f within 15 %%",
              be->kind, runs[k][0], runs[k][1], vx, want);
    }
}

static void test_recapture(fcl_backend *be)
{
    static const float c[3] = { 0.45f, 0.2f, 0.15f };
    const char *text = "{ \"sim\": {\"solver\": \"pbf\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.6,0.4,0.3]},"
                       "\"particles\": {\"spacing\": 0.0125}, \"boundary\": {\"cache_dir\": \"off\"},"
                       "\"material\": {\"tension_model\": \"none\"},"
                       "\"fluid\": [ {\"type\": \"sphere\", \"center\": [0.15,0.25,0.15], \"radius\": 0.06} ],"
                       "\"targets\": [ {\"shape\": {\"type\": \"sphere\", \"center\": [0.15,0.2,0.15], \"radius\": 0.06},"
                       "  \"path\": [ {\"t\": 0.5, \"translate\": [0,0,0]}, {\"t\": 0.502, \"translate\": [0.3,0,0]} ] } ] }";
    outcome on, off;
    if (run_scene(be, text, NULL, 1.2, c, 0.06f, NULL, &on) != 0 ||
        run_scene(be, text, "control.beta=0", 1.2, c, 0.06f, NULL, &off) != 0)
        return;
    printf("%s: recapture after a 0.3 m jump in one step: %.1f %% inside the moved target at 1.2 s with springs, "
           "%.1f %% without\n", be->kind, 100.0 * on.inside, 100.0 * off.inside);
    CHECK(on.inside >= 0.9, "%s: springs recaptured %.1f %%, limit 90 %%", be->kind, 100.0 * on.inside);
    CHECK(off.inside <= 0.1, "%s: without springs %.1f %% reached the moved target, limit 10 %%", be->kind,
          100.0 * off.inside);
}

static const char *const CHASE =
    "{ \"sim\": {\"solver\": \"pbf\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.4,0.3,0.3]},"
    "\"particles\": {\"spacing\": 0.015}, \"boundary\": {\"cache_dir\": \"off\"},"
    "\"material\": {\"tension_model\": \"none\"},"
    "\"fluid\": [ {\"type\": \"sphere\", \"center\": [0.1,0.15,0.15], \"radius\": 0.05} ],"
    "\"targets\": [ {\"shape\": {\"type\": \"sphere\", \"center\": [0.1,0.15,0.15], \"radius\": 0.05},"
    "  \"path\": [ {\"t\": 0, \"translate\": [0,0,0]}, {\"t\": 0.05, \"translate\": [0.1,0,0]} ] } ] }";

/* A sphere target until S, then a box around it from S. */
static void switch_text(char *out, size_t len, double S)
{
    snprintf(out, len,
             "{ \"sim\": {\"solver\": \"pbf\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.4,0.3,0.3]},"
             "\"particles\": {\"spacing\": 0.015}, \"boundary\": {\"cache_dir\": \"off\"},"
             "\"material\": {\"tension_model\": \"none\"},"
             "\"fluid\": [ {\"type\": \"sphere\", \"center\": [0.1,0.15,0.15], \"radius\": 0.05} ],"
             "\"targets\": [ {\"shape\": {\"type\": \"sphere\", \"center\": [0.1,0.15,0.15], \"radius\": 0.05},"
             "                \"end\": %.17g},"
             "               {\"shape\": {\"type\": \"box\", \"min\": [0.04,0.1,0.1], \"max\": [0.2,0.2,0.2]},"
             "                \"start\": %.17g} ] }", S, S);
}

static int text_sim(fcl_backend *be, const char *text, fcl_scene *sc, fcl_initial *in, fcl_sim *s, char *err,
                    size_t errlen)
{
    return scene_parse(sc, text, "restart", err, errlen) == 0 && setup_initial(sc, &sc->params, be, in, err, errlen) == 0 &&
                   sim_create(s, be, &sc->params, in->pos, in->vel, in->n, in->b.pos, in->b.n, err, errlen) == 0 &&
                   sim_set_targets(s, sc->targets, sc->ntargets, err, errlen) == 0
               ? 0
               : -1;
}

/* The same through a scene: the chase with control.alpha, beta and gamma
 * 0 against the chase without its target, 60 steps, identical bits (the
 * test above sets the points' weights directly; a review). */
static void test_identity_scene(fcl_backend *be)
{
    char text[2][2048];
    const char *sim = "\"sim\": {\"solver\": \"pbf\"},", *at = strstr(CHASE, sim) + strlen(sim);
    const char *targets = strstr(CHASE, ",\"targets\"");
    snprintf(text[0], sizeof text[0], "%.*s \"control\": {\"alpha\": 0, \"beta\": 0, \"gamma\": 0},%s",
             (int)(at - CHASE), CHASE, at);
    snprintf(text[1], sizeof text[1], "%.*s }", (int)(targets - CHASE), CHASE);
    float4 *end[2] = { NULL, NULL };
    size_t n[2] = { 0, 0 };
    char err[1024] = "";
    for (int k = 0; k < 2; k++) {
        fcl_scene sc;
        fcl_initial in;
        fcl_sim s;
        int ok = text_sim(be, text[k], &sc, &in, &s, err, sizeof err) == 0 && (k == 1 || sc.ntargets == 1);
        for (int i = 0; ok && i < 60; i++)
            ok = sim_step(&s) == 0;
        if (ok) {
            n[k] = s.n;
            end[k] = malloc(s.n * 16 + 16);
            sim_download(&s, end[k], NULL, NULL, NULL, NULL);
        }
        CHECK(ok, "%s: zero-strength scene target, run %d: %s", be->kind, k, err);
        sim_destroy(&s);
        setup_free(&in);
        scene_free(&sc);
    }
    CHECK(end[0] && end[1] && n[0] == n[1] && memcmp(end[0], end[1], n[0] * 16) == 0,
          "%s: the chase's target at alpha = beta = gamma = 0 differs from the chase without it", be->kind);
    free(end[0]);
    free(end[1]);
}

/* Saved after 8 steps of text, the state loaded into a fresh simulation
 * of the same scene runs 8 more steps to the same bits; loaded into one
 * of other (when given), it is refused. */
static void restart_case(fcl_backend *be, const char *text, const char *other, const char *what)
{
    char err[1024] = "", path[] = "/tmp/fcl_ctl_state_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    fcl_scene sa, sb;
    fcl_initial ia, ib;
    fcl_sim a, b;
    int ok = text_sim(be, text, &sa, &ia, &a, err, sizeof err) == 0;
    for (int k = 0; ok && k < 8; k++)
        ok = sim_step(&a) == 0;
    ok = ok && sim_state_save(&a, path, err, sizeof err) == 0;
    for (int k = 0; ok && k < 8; k++)
        ok = sim_step(&a) == 0;
    ok = ok && text_sim(be, text, &sb, &ib, &b, err, sizeof err) == 0 && sim_state_load(&b, path, err, sizeof err) == 0;
    for (int k = 0; ok && k < 8; k++)
        ok = sim_step(&b) == 0;
    CHECK(ok, "%s: restart %s: %s", be->kind, what, err);
    if (ok) {
        size_t n = a.n;
        float4 *pa = malloc(n * 16), *pb = malloc(n * 16);
        sim_download(&a, pa, NULL, NULL, NULL, NULL);
        sim_download(&b, pb, NULL, NULL, NULL, NULL);
        CHECK(a.n == b.n && memcmp(pa, pb, n * 16) == 0 && a.time == b.time,
              "%s: the run %s restarted at step 8 differs from running on", be->kind, what);
        free(pa);
        free(pb);
    }
    sim_destroy(&b);
    setup_free(&ib);
    scene_free(&sb);
    if (ok && other) {
        char oerr[1024] = "";
        int created = text_sim(be, other, &sb, &ib, &b, oerr, sizeof oerr) == 0,
            refused = created && sim_state_load(&b, path, oerr, sizeof oerr) != 0;
        CHECK(refused && strstr(oerr, "control targets"),
              "%s: a checkpoint of the run %s loaded into a scene with other targets: expected a refusal naming the "
              "control targets, got \"%s\"", be->kind, what, oerr);
        sim_destroy(&b);
        setup_free(&ib);
        scene_free(&sb);
    }
    unlink(path);
    sim_destroy(&a);
    setup_free(&ia);
    scene_free(&sa);
}

/* The chase's checkpoint loaded into the chase whose target has alpha
 * 0.5: refused naming the alpha (it said the target sampled "at other
 * places" because its shape, placement or spacing differed; a review). */
static void alpha_refusal(fcl_backend *be)
{
    char err[1024] = "", other[2048], path[] = "/tmp/fcl_ctl_alpha_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    const char *at = strstr(CHASE, "\"path\"");
    snprintf(other, sizeof other, "%.*s\"alpha\": 0.5, %s", (int)(at - CHASE), CHASE, at);
    fcl_scene sa, sb;
    fcl_initial ia, ib;
    fcl_sim a, b;
    int ok = text_sim(be, CHASE, &sa, &ia, &a, err, sizeof err) == 0 && sim_step(&a) == 0 &&
             sim_state_save(&a, path, err, sizeof err) == 0 && text_sim(be, other, &sb, &ib, &b, err, sizeof err) == 0;
    char why[1024] = "";
    int refused = ok && sim_state_load(&b, path, why, sizeof why) != 0;
    printf("%s: the chase's checkpoint into the chase with alpha 0.5: %s\n", be->kind, why);
    CHECK(refused && strstr(why, "targets[0] (sphere) has alpha 0.5, in the checkpoint's scene -1"),
          "%s: a target's other alpha: expected a refusal naming it, got \"%s\" (%s)", be->kind, why, err);
    if (ok)
        sim_destroy(&b), setup_free(&ib), scene_free(&sb);
    sim_destroy(&a);
    setup_free(&ia);
    scene_free(&sa);
    unlink(path);
}

/* The time after steps 8 and 9 of text (the restart's first step runs
 * from the one to the other); -1 when a step failed. */
static void step_times(fcl_backend *be, const char *text, double *t8, double *t9)
{
    char err[1024] = "";
    fcl_scene sc;
    fcl_initial in;
    fcl_sim s;
    int ok = text_sim(be, text, &sc, &in, &s, err, sizeof err) == 0;
    for (int k = 0; ok && k < 9; k++) {
        ok = sim_step(&s) == 0;
        *t8 = k == 7 ? s.time : *t8;
    }
    *t9 = ok ? s.time : -1.0;
    sim_destroy(&s);
    setup_free(&in);
    scene_free(&sc);
}

/* A moving target; and a switch from one target to another during the
 * first step after the restart: that step must drop the springs the
 * checkpoint holds, as running on does (it once kept them: references to
 * the old set, read out of bounds). */
static void test_restart(fcl_backend *be)
{
    char late[2048], text[2048];
    double t8 = -1.0, t9 = -1.0;
    restart_case(be, CHASE, NULL, "with a moving target");
    switch_text(late, sizeof late, 10.0);   /* no switch within the steps: their times */
    step_times(be, late, &t8, &t9);
    CHECK(t8 > 0.0 && t9 > t8, "%s: the switching scene's first 9 steps failed", be->kind);
    if (!(t8 > 0.0 && t9 > t8))
        return;
    switch_text(text, sizeof text, 0.5 * (t8 + t9));
    restart_case(be, text, CHASE, "whose targets switch in its first step");
    alpha_refusal(be);
}

/* Springs reach half a sampling interval d = control.spacing H (seed
 * 001): with control.spacing 4, a particle 1.5 H from the only control
 * particle (a tiny sphere target at x = 0.3 m; H = h = 0.02 m) must be
 * pulled toward it. It once was not: the springs searched the list within
 * H only. Only the spring acts (alpha = gamma = 0, no gravity, no XSPH). */
static void test_spring_reach(fcl_backend *be)
{
    const char *text =
        "{ \"sim\": {\"solver\": \"pbf\", \"gravity\": [0, 0, 0]}, \"domain\": {\"min\": [0,0,0], \"max\": [0.6,0.4,0.3]},"
        "\"particles\": {\"spacing\": 0.01}, \"boundary\": {\"cache_dir\": \"off\"},"
        "\"material\": {\"tension_model\": \"none\"}, \"pbf\": {\"xsph\": 0},"
        "\"control\": {\"spacing\": 4, \"alpha\": 0, \"gamma\": 0, \"beta\": 1},"
        "\"fluid\": [ {\"type\": \"box\", \"min\": [0.325,0.195,0.145], \"max\": [0.335,0.205,0.155]} ],"
        "\"targets\": [ {\"shape\": {\"type\": \"sphere\", \"center\": [0.3,0.2,0.15], \"radius\": 0.004}} ] }";
    char err[1024] = "";
    fcl_scene sc;
    fcl_initial in;
    fcl_sim s;
    int ok = text_sim(be, text, &sc, &in, &s, err, sizeof err) == 0 && s.n == 1;
    float4 p0 = fcl_f4(0.0f, 0.0f, 0.0f, 0.0f), p = p0;
    ok = ok && sim_download(&s, &p0, NULL, NULL, NULL, NULL) == 0;
    for (int k = 0; ok && k < 3; k++)
        ok = sim_step(&s) == 0;
    ok = ok && sim_download(&s, &p, NULL, NULL, NULL, NULL) == 0;
    CHECK(ok, "%s: spring reach: %s (%zu particles)", be->kind, err, s.n);
    printf("%s: a particle 1.5 H from a control particle, control.spacing 4: moved %+.4f m along x in 3 steps\n",
           be->kind, (double)(p.x - p0.x));
    CHECK(ok && p.x - p0.x < -0.005f, "%s: a particle within d / 2 = 2 H of a control particle moved %+g m toward it "
          "in 3 steps (expected at least 5 mm)", be->kind, (double)(p0.x - p.x));
    sim_destroy(&s);
    setup_free(&in);
    scene_free(&sc);
}

/* A large control radius on a ball held where it is (control_chase's
 * ball before its target moves, control.radius 4 = 8 spacings): the
 * control density's displacement once was a fixed step per iteration
 * whatever dt, a speed that grew as the CFL step shrank; it ran away (344
 * m/s at step 23). Scaled by dt / pbf.dt_max, as the spring is: measured
 * 6.1 m/s largest while the H-balls reshape the ball, 0.35 m/s at 0.1 s. */
static void test_large_radius(fcl_backend *be)
{
    const char *text = "{ \"sim\": {\"solver\": \"pbf\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.4,0.4,0.3]},"
                       "\"particles\": {\"spacing\": 0.0075}, \"boundary\": {\"cache_dir\": \"off\"},"
                       "\"material\": {\"tension_model\": \"none\"}, \"control\": {\"radius\": 4},"
                       "\"fluid\": [ {\"type\": \"sphere\", \"center\": [0.15,0.2,0.15], \"radius\": 0.075} ],"
                       "\"targets\": [ {\"shape\": {\"type\": \"sphere\", \"center\": [0.15,0.2,0.15], \"radius\": 0.075}} ] }";
    char err[1024] = "";
    fcl_scene sc;
    fcl_initial in;
    fcl_sim s;
    double vmax = 0.0;
    int ok = text_sim(be, text, &sc, &in, &s, err, sizeof err) == 0;
    while (ok && s.time < 0.1 && (ok = sim_step(&s) == 0 && s.stats.bad_id < 0))
        vmax = fmax(vmax, s.stats.max_speed);
    printf("%s: control.radius 4 on a held ball: largest speed %.2f m/s over %ld steps, %.2f m/s at t = %.3f s\n",
           be->kind, vmax, s.step, s.stats.max_speed, s.time);
    /* The limit catches a run-away (344 m/s at step 23 before the
     * control density was scaled with dt): 6.09 m/s while gamma acted per
     * step, damping harder as the CFL shortened the steps; 11.9 with gamma
     * a rate, 14.8 without it. */
    CHECK(ok && vmax < 20.0 && s.stats.max_speed < 1.5, "%s: control.radius 4: %s at step %ld; largest speed %.3g m/s "
          "(limit 20), %.3g m/s at the end (limit 1.5: the ball is held still)", be->kind, ok ? "ran" : "failed",
          s.step, vmax, s.stats.max_speed);
    sim_destroy(&s);
    setup_free(&in);
    scene_free(&sc);
}

/* A target that switches shape: a sphere until 0.4 s, then a flat box
 * around it (twice the fluid's volume). Measured: 48 % of the fluid in the
 * box at 0.4 s, 83 % at 1 s. */
static void test_switch(fcl_backend *be)
{
    static const float c[3] = { 0.2f, 0.2f, 0.2f }, box[6] = { 0.06f, 0.16f, 0.06f, 0.34f, 0.2125f, 0.34f };
    const char *text = "{ \"sim\": {\"solver\": \"pbf\"}, \"domain\": {\"min\": [0,0,0], \"max\": [0.4,0.4,0.4]},"
                       "\"particles\": {\"spacing\": 0.0125}, \"boundary\": {\"cache_dir\": \"off\"},"
                       "\"material\": {\"tension_model\": \"none\"},"
                       "\"fluid\": [ {\"type\": \"sphere\", \"center\": [0.2,0.2,0.2], \"radius\": 0.08} ],"
                       "\"targets\": [ {\"shape\": {\"type\": \"sphere\", \"center\": [0.2,0.2,0.2], \"radius\": 0.08},"
                       "                \"end\": 0.4},"
                       "               {\"shape\": {\"type\": \"box\", \"min\": [0.06,0.16,0.06], \"max\": [0.34,0.2125,0.34]},"
                       "                \"start\": 0.4} ] }";
    outcome before, after;
    if (run_scene(be, text, NULL, 0.4, c, 0.0f, box, &before) != 0 || run_scene(be, text, NULL, 1.0, c, 0.0f, box, &after) != 0)
        return;
    printf("%s: switch from a sphere to a box at 0.4 s: %.1f %% of the fluid in the box at 0.4 s, %.1f %% at 1 s\n",
           be->kind, 100.0 * before.inside, 100.0 * after.inside);
    CHECK(after.inside >= 0.75 && after.inside > before.inside + 0.2,
          "%s: after the switch %.1f %% of the fluid is in the box (%.1f %% before; limits >= 75 %% and +20 points)",
          be->kind, 100.0 * after.inside, 100.0 * before.inside);
}

/* The chase with a 3 cm box target far from the fluid switched on and
 * off three times, listed after the sphere and then before it: the fluid
 * ends where it ends without that box, bit for bit, after 0.3 s. Every
 * switch dropped every spring of every target (a review: the real chase
 * went from 87.4 to 83.2 % inside its sphere, 2.25 to 7.40 m/s); now the
 * references follow their control particles to their new ids. */
static void test_far_switch(fcl_backend *be)
{
    static const char *const BOX =
        "{\"shape\": {\"type\": \"box\", \"min\": [0.34,0.02,0.02], \"max\": [0.37,0.05,0.05]},"
        " \"start\": %g, \"end\": %g}";
    const char *at = strstr(CHASE, "\"targets\": [ ") + strlen("\"targets\": [ ");
    char text[3][2048], box[3][160];
    for (int k = 0; k < 3; k++)
        snprintf(box[k], sizeof box[k], BOX, 0.05 + 0.08 * k, 0.09 + 0.08 * k);
    snprintf(text[0], sizeof text[0], "%s", CHASE);
    /* after the sphere: its list ends "] } ] }" */
    snprintf(text[1], sizeof text[1], "%.*s, %s, %s, %s ] }", (int)(strlen(CHASE) - 4), CHASE, box[0], box[1], box[2]);
    snprintf(text[2], sizeof text[2], "%.*s%s, %s, %s, %s", (int)(at - CHASE), CHASE, box[0], box[1], box[2], at);
    float4 *end[3] = { NULL, NULL, NULL };
    size_t n[3] = { 0, 0, 0 };
    char err[1024] = "";
    for (int k = 0; k < 3; k++) {
        fcl_scene sc;
        fcl_initial in;
        fcl_sim s;
        int ok = text_sim(be, text[k], &sc, &in, &s, err, sizeof err) == 0;
        while (ok && s.time < 0.3 - 1e-9)
            ok = sim_step(&s) == 0;
        if (ok) {
            n[k] = s.n;
            end[k] = malloc(s.n * 16 + 16);
            sim_download(&s, end[k], NULL, NULL, NULL, NULL);
        }
        CHECK(ok, "%s: far switch, scene %d: %s", be->kind, k, err);
        sim_destroy(&s);
        setup_free(&in);
        scene_free(&sc);
    }
    double worst[2] = { 0.0, 0.0 };
    for (int k = 1; k < 3; k++)
        for (size_t i = 0; end[0] && end[k] && n[k] == n[0] && i < n[0]; i++) {
            float4 a = end[0][i], b = end[k][i];
            worst[k - 1] = fmax(worst[k - 1], sqrt((double)(a.x - b.x) * (a.x - b.x) + (double)(a.y - b.y) * (a.y - b.y) +
                                                   (double)(a.z - b.z) * (a.z - b.z)));
        }
    printf("%s: a far box target switched on and off three times beside the chase: positions at 0.3 s differ from the "
           "chase alone by at most %.3g m (listed after the sphere) and %.3g m (before it)\n", be->kind, worst[0],
           worst[1]);
    CHECK(n[1] == n[0] && n[2] == n[0] && worst[0] == 0.0 && worst[1] == 0.0,
          "%s: a far target's switches moved the fluid by %.3g and %.3g m (expected 0)", be->kind, worst[0], worst[1]);
    for (int k = 0; k < 3; k++)
        free(end[k]);
}

/* The shipped control_wave (a skeleton-driven target, springs and all),
 * 30 steps on the native backend and on OpenCL: the same bits on a CPU
 * device (GPUs keep their FMAs: not run there). The spring's exponential
 * parted them at step 20 (control_chase at 75) while plain PBF agreed:
 * OpenCL's exp and glibc's expf round differently (fcl_exp; a review). */
static void test_backends_agree(fcl_backend *cpu, fcl_backend *ocl)
{
    float4 *end[2] = { NULL, NULL };
    size_t n[2] = { 0, 0 };
    char err[1024] = "";
    fcl_backend *be[2] = { cpu, ocl };
    for (int k = 0; k < 2; k++) {
        fcl_scene sc;
        fcl_initial in;
        fcl_sim s;
        int ok = scene_load(&sc, "embedded:control_wave.json", err, sizeof err) == 0 &&
                 setup_initial(&sc, &sc.params, be[k], &in, err, sizeof err) == 0 &&
                 sim_create(&s, be[k], &sc.params, in.pos, in.vel, in.n, in.b.pos, in.b.n, err, sizeof err) == 0 &&
                 sim_set_targets(&s, sc.targets, sc.ntargets, err, sizeof err) == 0;
        for (int i = 0; ok && i < 30; i++)
            ok = sim_step(&s) == 0;
        if (ok) {
            n[k] = s.n;
            end[k] = malloc(s.n * 16 + 16);
            sim_download(&s, end[k], NULL, NULL, NULL, NULL);
        }
        CHECK(ok, "%s: control_wave for the backends' comparison: %s", be[k]->kind, err);
        sim_destroy(&s);
        setup_free(&in);
        scene_free(&sc);
    }
    size_t differ = 0;
    for (size_t i = 0; end[0] && end[1] && n[0] == n[1] && i < n[0]; i++)
        differ += memcmp(&end[0][i], &end[1][i], sizeof(float4)) != 0;
    printf("control_wave, 30 steps: %zu of %zu positions differ between native and OpenCL (%s)\n", differ, n[0],
           ocl->name);
    CHECK(n[0] > 0 && n[0] == n[1] && differ == 0, "native and OpenCL: %zu of %zu positions differ after 30 steps "
          "of control_wave", differ, n[0]);
    free(end[0]);
    free(end[1]);
}

int main(void)
{
    int ran = 0;
    for (int b = 0; b < 2; b++) {
        fcl_backend *be = ft_backend(b);
        if (!be)
            continue;
        ran++;
        printf("backend: %s\n", be->name);
        test_fig5(be);
        test_identity(be);
        test_identity_scene(be);
        test_restart(be);
        test_spring_reach(be);
        test_large_radius(be);
        test_far_switch(be);
        if (b == 0) {   /* physical checks: native only (test_solvers compares the backends) */
            test_fill(be);
            test_velocity_rate(be);
            test_recapture(be);
            test_switch(be);
        }
        backend_destroy(be);
    }
    fcl_backend *cpu = ft_backend(0), *ocl = ft_backend(1);
    if (cpu && ocl && ft_same_bits_expected(ocl))
        test_backends_agree(cpu, ocl);
    if (ocl)
        backend_destroy(ocl);
    if (cpu)
        backend_destroy(cpu);
    return ran ? ft_done() : 77;
}
