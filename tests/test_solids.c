/* test_solids.c - the integrators keep particles out of box and sphere
 * obstacles (kernels/boundary.cl, solids_project; host sim_set_solids),
 * with no boundary particles at all, so that nothing but the projection
 * stops them. Single particles far apart (no SPH forces between them, no
 * gravity) are fired at 8 m/s into a box's faces and a sphere, on both
 * solvers and both backends:
 *  - after every step no particle lies inside an obstacle grown by half a
 *    spacing (1e-6 m tolerance for float rounding);
 *  - each particle ends on the far side of its approach: its normal
 *    velocity reversed and scaled by domain.restitution, its tangential
 *    velocity unchanged (each component within 1e-4 of the shot's speed);
 *  - a mesh obstacle is not projected (its boundary particles hold the
 *    fluid): sim_set_solids lists boxes, spheres and polygons only;
 *  - the native CPU and OpenCL backends give the same positions within
 *    1e-6 m;
 *  - a polygon (an L, ear-clipped into 4 triangle slabs) bounces a shot
 *    onto an arm half a spacing above its plane, with the same velocity
 *    rule, and lets a shot through its notch.
 */
#include "fcl_test.h"
#include "params.h"
#include "scene.h"
#include "sim.h"

#define D 0.02f
#define SPEED 8.0f
#define STEPS 40

static const fcl_obstacle solids[3] = {
    { .kind = FCL_OBST_BOX, .min = { 0.4f, 0.4f, 0.4f }, .max = { 0.6f, 0.6f, 0.6f } },
    { .kind = FCL_OBST_SPHERE, .center = { 0.5f, 0.5f, 1.2f }, .radius = 0.1f },
    { .kind = FCL_OBST_MESH, .file = "not read here", .scale = 1.0f },
};

/* Shots: start, velocity; the first four hit the box's faces (one at an
 * angle), the last two the sphere (one off its axis). */
static const float shots[6][6] = {
    { 0.36f, 0.50f, 0.50f, SPEED, 0.0f, 0.0f },   { 0.50f, 0.64f, 0.50f, 0.0f, -SPEED, 0.0f },
    { 0.50f, 0.50f, 0.36f, 0.0f, 0.0f, SPEED },   { 0.36f, 0.45f, 0.55f, SPEED, 2.0f, -1.0f },
    { 0.50f, 0.50f, 1.05f, 0.0f, 0.0f, SPEED },   { 0.46f, 0.52f, 1.05f, 0.0f, 0.0f, SPEED },
};
enum { NSHOTS = 6 };

static int make(fcl_sim *s, fcl_backend *be, fcl_params *prm, const char *solver)
{
    char err[1024] = "";
    float4 pos[NSHOTS], vel[NSHOTS];
    params_defaults(prm);
    snprintf(prm->sim_solver, sizeof prm->sim_solver, "%s", solver);
    prm->sim_gravity[1] = 0.0f;
    prm->particles_spacing = D;
    prm->domain_max[2] = 1.5f;
    prm->dfsph_dt_max = prm->dfsph_dt_min = 2.5e-4f;
    for (int i = 0; i < NSHOTS; i++) {
        pos[i] = fcl_f4(shots[i][0], shots[i][1], shots[i][2], 0.0f);
        vel[i] = fcl_f4(shots[i][3], shots[i][4], shots[i][5], 0.0f);
    }
    int rc = sim_create(s, be, prm, pos, vel, NSHOTS, NULL, 0, err, sizeof err);
    if (rc == 0)
        rc = sim_set_solids(s, solids, 3);
    if (rc != 0)
        printf("%s %s: %s\n", be->kind, solver, err);
    return rc;
}

/* How deep p is inside the obstacles grown by g (0 when outside all). */
static float depth(float4 p, float g)
{
    const fcl_obstacle *b = &solids[0], *s = &solids[1];
    float in = 1e9f, q[3] = { p.x, p.y, p.z };
    for (int k = 0; k < 3; k++)
        in = fminf(in, fminf(q[k] - (b->min[k] - g), (b->max[k] + g) - q[k]));
    float dx = p.x - s->center[0], dy = p.y - s->center[1], dz = p.z - s->center[2];
    float sph = (s->radius + g) - sqrtf(dx * dx + dy * dy + dz * dz);
    return fmaxf(fmaxf(in, sph), 0.0f);
}

/* The shot's velocity after one bounce: the normal part reversed and
 * scaled by the restitution, the rest kept. */
static void bounced(int i, float rest, float dt, float out[3])
{
    float n[3] = { 0, 0, 0 }, v[3] = { shots[i][3], shots[i][4], shots[i][5] };
    if (i < 4) {
        int axis = i == 1 ? 1 : (i == 2 ? 2 : 0);
        n[axis] = i == 1 ? 1.0f : -1.0f;
    } else {
        /* The sphere: the radial direction at the first step's end that
         * lies inside the grown sphere, where the projection acts. */
        double R = solids[1].radius + 0.5 * D, q[3];
        for (int k = 1; k < 1000; k++) {
            for (int a = 0; a < 3; a++)
                q[a] = shots[i][a] + (double)k * dt * shots[i][3 + a] - solids[1].center[a];
            double r = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
            if (r < R) {
                n[0] = (float)(q[0] / r), n[1] = (float)(q[1] / r), n[2] = (float)(q[2] / r);
                break;
            }
        }
    }
    float vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
    for (int k = 0; k < 3; k++)
        out[k] = v[k] - (1.0f + rest) * vn * n[k];
}

static void run(fcl_backend *be, const char *solver, float4 *out)
{
    fcl_sim s;
    fcl_params prm;
    float4 pos[NSHOTS], vel[NSHOTS];
    uint id[NSHOTS];
    if (make(&s, be, &prm, solver) != 0) {
        CHECK(0, "%s %s: set-up", be->kind, solver);
        return;
    }
    CHECK(s.nsolids == 2, "%s: %u solids listed, expected the box and the sphere (not the mesh)", be->kind,
          s.nsolids);
    float worst = 0.0f;
    for (int k = 0; k < STEPS; k++) {
        CHECK(sim_step(&s) == 0, "%s %s step", be->kind, solver);
        sim_download(&s, pos, vel, NULL, NULL, id);
        for (int i = 0; i < NSHOTS; i++)
            worst = fmaxf(worst, depth(pos[i], 0.5f * D));
    }
    float verr = 0.0f;
    for (int i = 0; i < NSHOTS; i++) {
        float want[3], *v = &vel[i].x;
        bounced((int)id[i], prm.domain_restitution, (float)s.stats.dt, want);
        for (int k = 0; k < 3; k++)
            verr = fmaxf(verr, fabsf(v[k] - want[k]));
        out[id[i]] = pos[i];
    }
    printf("%s %s: %d steps of %.3g m: deepest inside a grown obstacle %.3g m; velocity after the bounce off by "
           "up to %.3g m/s\n", be->kind, solver, STEPS, SPEED * s.stats.dt, (double)worst, (double)verr);
    CHECK(worst <= 1e-6f, "%s %s: a particle %.3g m inside an obstacle", be->kind, solver, worst);
    CHECK(verr < 1e-4f * SPEED, "%s %s: bounce velocity off by %.3g m/s", be->kind, solver, verr);
    sim_destroy(&s);
}

/* A polygon's slab: an L in the plane y = 0.2, front +y (counter-
 * clockwise seen from above), thickness boundary.layers spacings. Shot 0
 * falls onto an arm at 8 m/s and must bounce off half a spacing above
 * the plane; shot 1 falls through the L's notch, which is no solid. */
static const fcl_obstacle ell = {
    .kind = FCL_OBST_POLYGON, .npoly = 6,
    .poly = { { 0.1f, 0.2f, 0.1f }, { 0.1f, 0.2f, 0.6f }, { 0.3f, 0.2f, 0.6f }, { 0.3f, 0.2f, 0.3f },
              { 0.6f, 0.2f, 0.3f }, { 0.6f, 0.2f, 0.1f } },
};

static void run_polygon(fcl_backend *be, const char *solver, float4 *out)
{
    char err[1024] = "";
    fcl_params prm;
    fcl_sim s;
    float4 pos[2] = { fcl_f4(0.2f, 0.26f, 0.2f, 0.0f), fcl_f4(0.45f, 0.26f, 0.45f, 0.0f) };
    float4 vel[2] = { fcl_f4(0.0f, -SPEED, 0.0f, 0.0f), fcl_f4(0.0f, -SPEED, 0.0f, 0.0f) };
    uint id[2];
    params_defaults(&prm);
    snprintf(prm.sim_solver, sizeof prm.sim_solver, "%s", solver);
    prm.sim_gravity[1] = 0.0f;
    prm.particles_spacing = D;
    prm.dfsph_dt_max = prm.dfsph_dt_min = 2.5e-4f;
    if (sim_create(&s, be, &prm, pos, vel, 2, NULL, 0, err, sizeof err) != 0 || sim_set_solids(&s, &ell, 1) != 0) {
        CHECK(0, "%s %s polygon: %s", be->kind, solver, err);
        return;
    }
    CHECK(s.nsolids == 4, "%s %s: the L is %u triangles, expected 4", be->kind, solver, s.nsolids);
    float lowest = 1.0f;
    for (int k = 0; k < STEPS; k++) {
        CHECK(sim_step(&s) == 0, "%s %s step", be->kind, solver);
        sim_download(&s, pos, vel, NULL, NULL, id);
        for (int i = 0; i < 2; i++)
            lowest = id[i] == 0 ? fminf(lowest, pos[i].y) : lowest;
    }
    for (int i = 0; i < 2; i++)
        out[id[i]] = pos[i];
    float want = SPEED * prm.domain_restitution, vy = id[0] == 0 ? vel[0].y : vel[1].y;
    printf("%s %s: polygon: lowest %.6f m over the arm (plane 0.2 + half a spacing), %.6f m/s after the bounce "
           "(want %.6f), through the notch to %.4f m\n", be->kind, solver, (double)lowest, (double)vy,
           (double)want, (double)out[1].y);
    CHECK(lowest >= 0.2f + 0.5f * D - 1e-6f, "%s %s: %.6f m over the arm, below the slab's front", be->kind, solver,
          (double)lowest);
    CHECK(fabsf(vy - want) < 1e-4f * SPEED, "%s %s: %.6f m/s after the bounce, expected %.6f", be->kind, solver,
          (double)vy, (double)want);
    CHECK(out[1].y < 0.2f - 0.02f, "%s %s: the notch shot stopped at %.4f m", be->kind, solver, (double)out[1].y);
    sim_destroy(&s);
}

/* A box standing on the floor (its grown bottom face below the floor) and
 * a particle inside it near the floor, nearer that face than any other:
 * it must leave through a face inside the domain (here the top), never
 * below the floor. */
static void run_floor_box(fcl_backend *be, const char *solver)
{
    static const fcl_obstacle box = { .kind = FCL_OBST_BOX, .min = { 0.4f, 0.0f, 0.4f }, .max = { 0.6f, 0.1f, 0.6f } };
    char err[1024] = "";
    fcl_params prm;
    fcl_sim s;
    float4 pos = fcl_f4(0.5f, 0.005f, 0.5f, 0.0f), vel = fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    params_defaults(&prm);
    snprintf(prm.sim_solver, sizeof prm.sim_solver, "%s", solver);
    prm.sim_gravity[1] = 0.0f;
    prm.particles_spacing = D;
    prm.dfsph_dt_max = prm.dfsph_dt_min = 2.5e-4f;
    if (sim_create(&s, be, &prm, &pos, &vel, 1, NULL, 0, err, sizeof err) != 0 || sim_set_solids(&s, &box, 1) != 0) {
        CHECK(0, "%s %s floor box: %s", be->kind, solver, err);
        return;
    }
    CHECK(sim_step(&s) == 0 && sim_download(&s, &pos, &vel, NULL, NULL, NULL) == 0, "%s %s floor box step", be->kind,
          solver);
    printf("%s %s: a particle 5 mm over the floor inside a box standing on it leaves to y = %.4f m\n", be->kind, solver,
           (double)pos.y);
    CHECK(pos.y >= prm.domain_min[1] && pos.y >= 0.1f + 0.5f * D - 1e-5f, "%s %s: left the floor box to y = %.4f m "
          "(expected over its grown top, 0.11 m, never below the floor)", be->kind, solver, (double)pos.y);
    sim_destroy(&s);
}

int main(void)
{
    const char *solvers[2] = { "wcsph", "dfsph" };
    fcl_backend *be[2] = { ft_backend(0), ft_backend(1) };
    for (int k = 0; k < 2; k++) {
        float4 out[2][NSHOTS];
        for (int b = 0; b < 2; b++)
            if (be[b])
                run(be[b], solvers[k], out[b]);
        if (!be[0] || !be[1])
            continue;
        float diff = 0.0f;
        for (int i = 0; i < NSHOTS; i++)
            diff = fmaxf(diff, fmaxf(fabsf(out[0][i].x - out[1][i].x),
                                     fmaxf(fabsf(out[0][i].y - out[1][i].y), fabsf(out[0][i].z - out[1][i].z))));
        printf("%s: cpu and opencl end positions differ by up to %.3g m\n", solvers[k], (double)diff);
        CHECK(diff <= 1e-6f, "%s: backends differ by %.3g m", solvers[k], (double)diff);
    }
    for (int k = 0; k < 2; k++) {
        float4 out[2][2];
        for (int b = 0; b < 2; b++)
            if (be[b])
                run_polygon(be[b], solvers[k], out[b]);
        if (!be[0] || !be[1])
            continue;
        float diff = 0.0f;
        for (int i = 0; i < 2; i++)
            diff = fmaxf(diff, fmaxf(fabsf(out[0][i].x - out[1][i].x),
                                     fmaxf(fabsf(out[0][i].y - out[1][i].y), fabsf(out[0][i].z - out[1][i].z))));
        CHECK(diff <= 1e-6f, "%s polygon: backends differ by %.3g m", solvers[k], (double)diff);
    }
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 2; b++)
            if (be[b])
                run_floor_box(be[b], solvers[k]);
    for (int b = 0; b < 2; b++)
        backend_destroy(be[b]);
    return ft_done();
}
