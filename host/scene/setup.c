/* setup.c - the initial state of a simulation from a scene, or from a
 * saved frame within the scene's walls and obstacles (setup.h).
 * Invariant: the scene's sizes are checked (budget.h) before any sampling
 * or filling loop runs, and every input file is bounded (infile.h). */
#include "setup.h"
#include "targets.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boundary_mesh.h"
#include "budget.h"
#include "infile.h"
#include "output.h"
#include "grid.h"
#include "polygon.h"
#include "sim.h"
#include "solver.h"

/* The fluid and the boundary samples known before sampling (walls, boxes,
 * spheres) against the device; nothing has been allocated yet. */
static int fits_device(const fcl_scene *sc, const fcl_params *p, const fcl_backend *be, const fcl_budget *bd,
                       char *err, size_t errlen)
{
    char why[768];
    size_t nb = (size_t)(bd->walls + bd->obstacles);
    if (!be || sim_check_fits(be, p, (size_t)bd->fluid_min, nb, why, sizeof why) == 0)
        return 0;
    if (nb)
        snprintf(err, errlen, "%s: %s (with at least %zu boundary particles)", sc->file, why, nb);
    else
        snprintf(err, errlen, "%s: %s", sc->file, why);
    return -1;
}

/* Boundary samples the device has room for beside the least fluid of bd
 * (the device's bytes are linear in the samples), or SIZE_MAX without a
 * device: the limit the meshes are checked against before sampling. */
static size_t sample_room(const fcl_budget *bd, const fcl_params *p, const fcl_backend *be)
{
    fcl_grid_info info;
    char why[256];
    if (!be || grid_layout(&info, p->domain_min, p->domain_max, sim_cell_size(p), (size_t)bd->fluid_min, why,
                           sizeof why) != 0)
        return SIZE_MAX;
    const fcl_solver *solver = solver_find(p->sim_solver);
    enum { PROBE = 1 << 20 };
    double base = (double)sim_bytes_needed(solver, p, &info, 0);
    double each = ((double)sim_bytes_needed(solver, p, &info, PROBE) - base) / PROBE;
    double room = (0.9 * (double)be->mem_bytes - base) / (each > 1.0 ? each : 1.0);
    return room <= 0.0 ? 0 : room >= BUDGET_INDEX_MAX ? (size_t)BUDGET_INDEX_MAX : (size_t)room;
}

/* The first of emitter e's probe points inside mesh obstacle L, or -1. */
static long layer_in_mesh(const fcl_emitter *e, double sp, const boundary_locator *L, float4 *pt, size_t cap)
{
    size_t n = emitter_probe_points(e, sp, pt, cap);
    for (size_t q = 0; q < n; q++)
        if (boundary_mesh_inside(L, &pt[q]))
            return (long)q;
    return -1;
}

/* Whether block k holds the point x (its box, or its sphere). */
static int block_has(const fcl_block *k, float4 x)
{
    if (k->kind == FCL_SHAPE_BOX)
        return x.x >= k->min[0] && x.x <= k->max[0] && x.y >= k->min[1] && x.y <= k->max[1] && x.z >= k->min[2] &&
               x.z <= k->max[2];
    float dx = x.x - k->center[0], dy = x.y - k->center[1], dz = x.z - k->center[2];
    return dx * dx + dy * dy + dz * dz <= k->radius * k->radius;
}

/* A fluid block none of whose particles is left after the carving lies
 * wholly in the obstacles: said once per block (it vanished without a
 * word while the others ran; a review). The blocks all carved out are
 * refused by setup_check_fluid instead. */
static void note_swallowed_blocks(const fcl_scene *sc, const fcl_initial *in)
{
    if (in->carved == 0 || in->n == 0)
        return;
    for (int b = 0; b < sc->nblocks; b++) {
        size_t i = 0;
        while (i < in->n && !block_has(&sc->blocks[b], in->pos[i]))
            i++;
        if (i == in->n)
            fprintf(stderr, "fluidcl: note: %s: fluid[%d] lies wholly inside the obstacles: all its particles were "
                    "carved out\n", sc->file, b);
    }
}

/* The scene's polygons' frames, and *n of them (NULL when none). */
static fcl_polygon_frame *polygon_frames(const fcl_scene *sc, int **which, int *n)
{
    fcl_polygon_frame *F = malloc(((size_t)sc->nobstacles + 1) * sizeof *F);
    *which = malloc(((size_t)sc->nobstacles + 1) * sizeof **which);
    *n = 0;
    for (int i = 0; F && *which && i < sc->nobstacles; i++)
        if (sc->obstacles[i].kind == FCL_SHAPE_POLYGON) {
            polygon_frame(&sc->obstacles[i], &F[*n]);
            (*which)[(*n)++] = i;
        }
    if (!F || !*which || *n == 0) {
        free(F);
        free(*which);
        *which = NULL;
        return NULL;
    }
    return F;
}

/* The nearest polygon the ray p + t d (0 < t < tmax) passes through,
 * skipping polygon skip, or -1; *back: p lies behind it. */
static int first_polygon(const fcl_polygon_frame *F, int nf, int skip, const double p[3], const double d[3],
                         double tmax, int *back)
{
    int best = -1;
    for (int k = 0; k < nf; k++) {
        const fcl_polygon_frame *f = &F[k];
        double dn = d[0] * f->n[0] + d[1] * f->n[1] + d[2] * f->n[2];
        double sd = (p[0] - f->o[0]) * f->n[0] + (p[1] - f->o[1]) * f->n[1] + (p[2] - f->o[2]) * f->n[2];
        double t = fabs(dn) > 1e-12 ? -sd / dn : -1.0;
        if (k == skip || !(t > 0.0 && t < tmax))
            continue;
        float4 at = fcl_f4((float)(p[0] + t * d[0]), (float)(p[1] + t * d[1]), (float)(p[2] + t * d[2]), 0.0f);
        if (polygon_inside(f, 1e-5 * f->extent, 1e-5 * f->extent, &at)) {
            tmax = t;
            best = k;
            *back = sd < 0.0;
        }
    }
    return best;
}

/* Fluid starting within two support radii behind a polygon (its back,
 * against its normal, over its outline, past the carved slab) is said
 * once per polygon: a polygon holds fluid on its front only, and fluid
 * meeting it from behind feels no wall pressure (under mps a box rising
 * against such a ceiling blew up at step 92); a polygon given in the
 * wrong vertex order does this to all its fluid. Not fluid that another
 * polygon's front faces first, between it and the plane: two polygons
 * back to back (the README's advice) were noted (a review). */
static void note_behind_polygons(const fcl_scene *sc, const fcl_params *p, const fcl_initial *in)
{
    double reach = 2.0 * p->particles_support * p->particles_spacing;
    int nf, *which;
    fcl_polygon_frame *F = polygon_frames(sc, &which, &nf);
    for (int k = 0; k < nf; k++) {
        const fcl_obstacle *o = &sc->obstacles[which[k]];
        const fcl_polygon_frame *f = &F[k];
        double depth = o->thickness > 0.0f ? (double)o->thickness : (double)p->boundary_layers * p->particles_spacing;
        size_t behind = 0;
        for (size_t i = 0; i < in->n; i++) {
            const float4 *q = &in->pos[i];
            double x[3] = { q->x, q->y, q->z }, sd = (x[0] - f->o[0]) * f->n[0] + (x[1] - f->o[1]) * f->n[1] +
                                                      (x[2] - f->o[2]) * f->n[2];
            int back = 0;
            behind += polygon_inside(f, 0.0, depth + reach, q) &&
                      !(first_polygon(F, nf, k, x, f->n, -sd, &back) >= 0 && !back);
        }
        if (behind)
            fprintf(stderr, "fluidcl: note: %s: obstacles[%d] (a polygon) has %zu fluid particles within %g m behind "
                    "it, against its normal: a polygon holds fluid on its front only (fluid meeting it from behind "
                    "feels no wall pressure); if they belong in front, give its vertices in the other order, else "
                    "use a box obstacle or two polygons back to back\n", sc->file, which[k], behind, depth + reach);
    }
    free(F);
    free(which);
}

/* An emitter aimed at a polygon's back, along its direction or falling:
 * the nearest polygon a layer point's ray meets, met from behind (its
 * fluid would feel no wall pressure there). The seed scenes start empty,
 * so a polygon given in the wrong vertex order there was never noted, and
 * the run blew up telling of dt_max and viscosity (nozzle_box at step 78;
 * a review). */
static void note_jets_behind_polygons(const fcl_scene *sc, const fcl_params *p)
{
    int nf, *which;
    fcl_polygon_frame *F = polygon_frames(sc, &which, &nf);
    size_t *hits = F ? calloc((size_t)nf, sizeof *hits) : NULL;
    char *said = F ? malloc((size_t)nf) : NULL;   /* per emitter: one note a polygon */
    const double g = sqrt((double)p->sim_gravity[0] * p->sim_gravity[0] + (double)p->sim_gravity[1] * p->sim_gravity[1] +
                          (double)p->sim_gravity[2] * p->sim_gravity[2]);
    for (int j = 0; hits && said && j < sc->nemitters; j++) {
        const fcl_emitter *e = &sc->emitters[j];
        size_t m = emitter_layer(e, p->particles_spacing, NULL, 0);
        float4 *pt = m ? malloc(m * sizeof *pt) : NULL;
        if (!pt)
            continue;
        emitter_layer(e, p->particles_spacing, pt, m);
        memset(said, 0, (size_t)nf);
        const double rays[2][3] = { { e->dir[0], e->dir[1], e->dir[2] },
                                    { g > 0.0 ? p->sim_gravity[0] / g : 0.0, g > 0.0 ? p->sim_gravity[1] / g : 0.0,
                                      g > 0.0 ? p->sim_gravity[2] / g : 0.0 } };
        for (int r = 0; r < 2; r++) {
            memset(hits, 0, (size_t)nf * sizeof *hits);
            for (size_t k = 0; k < m; k++) {
                double x[3] = { pt[k].x, pt[k].y, pt[k].z };
                int back = 0, q = first_polygon(F, nf, -1, x, rays[r], INFINITY, &back);
                hits[q >= 0 ? q : 0] += q >= 0 && back;
            }
            for (int q = 0; q < nf; q++)
                if (hits[q] && !said[q]++)
                    fprintf(stderr, "fluidcl: note: %s: emitters[%d] is aimed at obstacles[%d] (a polygon) from "
                            "behind, against its normal (%zu of its %zu points %s meet its back first): a polygon "
                            "holds fluid on its front only (fluid meeting it from behind feels no wall pressure); if "
                            "the fluid belongs in front, give its vertices in the other order\n", sc->file, j,
                            which[q], hits[q], m, r == 0 ? "along its direction" : "falling");
        }
        free(pt);
    }
    free(said);
    free(hits);
    free(F);
    free(which);
}

/* An emitter releasing particles inside a mesh obstacle, refused as the
 * scene check refuses one inside a box, sphere or polygon (meshes are
 * loaded only with the boundary). */
static int emitters_clear_of_meshes(const fcl_scene *sc, const fcl_params *p, const fcl_boundary *b, char *err,
                                    size_t errlen)
{
    enum { CAP = 1 << 16 };
    float4 *pt = sc->nemitters ? malloc(CAP * sizeof *pt) : NULL;
    int rc = sc->nemitters && !pt ? FCL_EXIT_DEVICE : 0;
    for (int j = 0; j < sc->nobstacles && pt && rc == 0; j++) {
        if (sc->obstacles[j].kind != FCL_SHAPE_MESH)
            continue;
        boundary_locator L;
        rc = boundary_locator_build(&L, &b->meshes[j]) != 0 ? FCL_EXIT_DEVICE : 0;
        for (int i = 0; i < sc->nemitters && rc == 0; i++) {
            long q = layer_in_mesh(&sc->emitters[i], p->particles_spacing, &L, pt, CAP);
            if (q >= 0) {
                snprintf(err, errlen, "%s: emitters[%d]: releases particles at [%g, %g, %g], inside obstacles[%d] "
                         "(a mesh): expected the emitter clear of every obstacle", sc->file, i, pt[q].x, pt[q].y,
                         pt[q].z, j);
                rc = FCL_EXIT_INPUT;
            }
        }
        boundary_locator_free(&L);
    }
    if (rc == FCL_EXIT_DEVICE)
        snprintf(err, errlen, "%s: not enough host memory to test the emitters against the mesh obstacles", sc->file);
    free(pt);
    return rc;
}

int setup_initial(const fcl_scene *sc, const fcl_params *p, const fcl_backend *be, fcl_initial *in,
                  char *err, size_t errlen)
{
    fcl_budget bd;
    memset(in, 0, sizeof *in);
    const fcl_solver *solver = solver_find(p->sim_solver);
    char no[256];
    if (solver && solver_check_targets(solver, sc->ntargets, no, sizeof no) != 0) {
        snprintf(err, errlen, "%s: %s", sc->file, no);
        return FCL_EXIT_INPUT;
    }
    if (budget_check(sc, p, &bd, err, errlen) != 0 || fits_device(sc, p, be, &bd, err, errlen) != 0 ||
        targets_check(sc, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    size_t room = sample_room(&bd, p, be);
    if (boundary_build_max(sc, p, room, bd.walls + bd.obstacles, &in->b, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    int erc = emitters_clear_of_meshes(sc, p, &in->b, err, errlen);
    if (erc != 0) {
        setup_free(in);
        return erc;
    }
    double count = scene_count(sc, p);
    char why[768] = "";
    /* Check before filling: a lattice too large for the device is
     * reported without allocating it on the host. */
    if (count > 4e9 || (be && sim_check_fits(be, p, (size_t)count, in->b.n, why, sizeof why) != 0)) {
        snprintf(err, errlen, "%s: %s", sc->file, why[0] ? why : "particles.spacing: too many particles");
        setup_free(in);
        return FCL_EXIT_INPUT;
    }
    if (scene_particles(sc, p, &in->pos, &in->vel, &in->n, err, errlen) != 0) {
        setup_free(in);
        return FCL_EXIT_INPUT;
    }
    float gap = (solver && solver->seed_gap > 0.0 ? (float)solver->seed_gap : SETUP_GAP) * p->particles_spacing;
    size_t kept = boundary_carve(&in->b, in->pos, in->vel, in->n, gap);
    if (kept != (size_t)-1)
        kept = boundary_carve_mesh_shells(&in->b, p->domain_min, p->domain_max, in->pos, in->vel, kept,
                                          p->particles_spacing, gap);
    if (kept == (size_t)-1) {
        snprintf(err, errlen, "%s: not enough host memory to carve the fluid out of the obstacles", sc->file);
        setup_free(in);
        return FCL_EXIT_DEVICE;
    }
    in->carved = in->n - kept;
    in->n = kept;
    note_behind_polygons(sc, p, in);
    note_jets_behind_polygons(sc, p);
    note_swallowed_blocks(sc, in);
    if (p->particles_capacity > 0 && (size_t)p->particles_capacity < kept)
        fprintf(stderr, "fluidcl: note: %s: particles.capacity %ld is below the scene's %zu particles: the capacity "
                "is %zu (room for no more)\n", sc->file, p->particles_capacity, kept, kept);
    return 0;
}

int setup_check_fluid(const fcl_scene *sc, const fcl_initial *in, char *err, size_t errlen)
{
    if (in->n > 0 || sc->nemitters > 0)
        return 0;
    if (in->carved > 0)
        snprintf(err, errlen, "%s: fluid: all %zu fluid particles lie inside the obstacles (carved out), and no "
                 "emitter adds any: nothing to simulate", sc->file, in->carved);
    else
        snprintf(err, errlen, "%s: fluid: no fluid block and no emitter: nothing to simulate (give \"fluid\" a box or "
                 "sphere, or \"emitters\" one)", sc->file);
    return FCL_EXIT_INPUT;
}

/* The first particle outside the domain box, or n. */
static size_t first_outside(const fcl_frame_data *d, const fcl_params *p)
{
    for (size_t i = 0; i < d->n; i++) {
        const float x[3] = { d->pos[i].x, d->pos[i].y, d->pos[i].z };
        for (int k = 0; k < 3; k++)
            if (!(x[k] >= p->domain_min[k] && x[k] <= p->domain_max[k]))
                return i;
    }
    return d->n;
}

/* A frame's particles inside the scene's obstacles are carved out, as
 * run carves a scene's, with a note (half of a frame of another scene lay
 * inside a box and was benched 24 % compressed; a review); all of them:
 * refused. A frame of this scene's own run may hold a few that went into
 * an obstacle. 0, or FCL_EXIT_INPUT with err. */
static int carve_frame(const fcl_boundary *b, fcl_frame_data *d, const char *path, char *err, size_t errlen)
{
    size_t kept = b->nobstacles ? boundary_carve(b, d->pos, d->vel, d->n, 0.0f) : d->n;
    if (kept == (size_t)-1 || kept == d->n)
        return 0;   /* no room for the search grids: benched as it is */
    if (kept == 0) {
        snprintf(err, errlen, "%s: all %zu particles of the frame lie inside the scene's obstacles: expected a frame "
                 "of this scene's run", path, d->n);
        return FCL_EXIT_INPUT;
    }
    fprintf(stderr, "fluidcl: note: %s: %zu of the frame's %zu particles lie inside the scene's obstacles: carved "
            "out, as a run carves its scene's\n", path, d->n - kept, d->n);
    d->n = kept;
    return 0;
}

int setup_from_frame(fcl_initial *in, const char *path, const fcl_params *p, int sc_phases, double *time, char *err,
                     size_t errlen)
{
    char was[32], is[32];
    fcl_frame_data d;
    if (infile_check(path, infile_limit(p), "frame", err, errlen) != 0 || out_read_frame(path, &d, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    size_t bad = first_outside(&d, p), nan_v = d.n;
    for (size_t i = 0; i < d.n && nan_v == d.n; i++)
        nan_v = isfinite(d.vel[i].x) && isfinite(d.vel[i].y) && isfinite(d.vel[i].z) ? d.n : i;
    int rc = FCL_EXIT_INPUT;
    if (d.n == 0)
        snprintf(err, errlen, "%s: the frame has no particles", path);
    else if (d.spacing > 0.0 && fabs(d.spacing - p->particles_spacing) > 1e-6 * p->particles_spacing) {
        out_float_text(d.spacing, was, sizeof was);
        out_float_text(p->particles_spacing, is, sizeof is);
        snprintf(err, errlen, "%s: the frame was run at particles.spacing=%s, the scene has %s (pass "
                 "--param particles.spacing=%s)", path, was, is, was);
    }
    else if (bad < d.n)
        snprintf(err, errlen, "%s: particle %zu at (%g, %g, %g) lies outside the scene's domain", path, bad,
                 d.pos[bad].x, d.pos[bad].y, d.pos[bad].z);
    else if (nan_v < d.n)
        snprintf(err, errlen, "%s: particle %zu has the velocity (%g, %g, %g): expected finite numbers", path, nan_v,
                 d.vel[nan_v].x, d.vel[nan_v].y, d.vel[nan_v].z);
    else
        rc = 0;
    if (rc != 0) {
        out_frame_free(&d);
        return rc;
    }
    /* The phase is pos.w (sim.h); frames keep it only as the mps field
     * "phase", which a multi-phase scene needs back (every particle came
     * back in the first phase). */
    const float *phase = out_frame_field(&d, "phase");
    if (sc_phases > 1 && !phase) {
        char names[128];
        solver_names_that(FCL_CAN_PHASES, names, sizeof names);
        snprintf(err, errlen, "%s: the scene has %d fluid phases and the frame does not record them (a PLY frame, "
                 "or one of a solver without phases; %s %s them): expected a VTU or VTK frame of this scene's run",
                 path, sc_phases, names, strstr(names, " and ") ? "have" : "has");
        out_frame_free(&d);
        return FCL_EXIT_INPUT;
    }
    const int np = sc_phases > 1 ? sc_phases : 1;   /* 0 or 1: one phase */
    for (size_t i = 0; phase && i < d.n; i++) {
        float k = floorf(phase[i] + 0.5f);
        if (!(k >= 0.0f && k < (float)np && fabsf(phase[i] - k) < 1e-3f)) {
            snprintf(err, errlen, "%s: particle %zu's phase is %g: expected one of the scene's %d phases (0 to %d); "
                     "the frame is of another scene", path, i, phase[i], np, np - 1);
            out_frame_free(&d);
            return FCL_EXIT_INPUT;
        }
        d.pos[i].w = k;
    }
    /* After the phases, which ride in pos.w through the compaction. */
    if ((rc = carve_frame(&in->b, &d, path, err, errlen)) != 0) {
        out_frame_free(&d);
        return rc;
    }
    free(in->pos);
    free(in->vel);
    in->pos = d.pos;
    in->vel = d.vel;
    in->n = d.n;
    in->carved = 0;
    *time = d.time;
    d.pos = d.vel = NULL;
    out_frame_free(&d);
    return 0;
}

int setup_sim_scene(fcl_sim *s, const fcl_scene *sc, char *err, size_t errlen)
{
    int rc;
    if (sim_set_solids(s, sc->obstacles, sc->nobstacles) != 0) {
        snprintf(err, errlen, "the obstacles could not be uploaded to %s", s->be->name);
        return FCL_EXIT_DEVICE;
    }
    if ((rc = sim_set_phases(s, sc->phases, sc->nphases, err, errlen)) != 0 ||
        (rc = sim_set_emitters(s, sc->emitters, sc->nemitters, err, errlen)) != 0 ||
        (rc = sim_set_outflows(s, sc->outflows, sc->noutflows)) != 0)
        return rc;
    return sim_set_targets(s, sc->targets, sc->ntargets, err, errlen);
}

void setup_free(fcl_initial *in)
{
    free(in->pos);
    free(in->vel);
    boundary_free(&in->b);
    memset(in, 0, sizeof *in);
}
