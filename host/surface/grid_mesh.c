/* grid_mesh.c - surface.method grid: the marching cubes of a grid solver's
 * own level set (the mac solver's phi, the one its last substep's ghost
 * fluid used), through mc_mesh_nodes on nodes at the cell centers.
 * Invariant: the node field is -phi (inside >= 0, mc_mesh_nodes' sign),
 * padded with outside nodes to an even cell count per axis, so tiles of 2
 * cells cover every cell; the solver's ghost layer is solid, hence
 * outside, so the mesh is closed where the liquid meets the walls.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levelset.h"
#include "mc.h"
#include "mesh_post.h"
#include "output.h"
#include "params.h"
#include "sim.h"
#include "solver.h"

enum { TILE = 2 };

/* What raises the speed inside resting fluid, or lowers the curvature's
 * weight: the binary field reads no ls_truncation, and a threshold set by
 * hand is the usual cause (a review). */
static const char *mc_levelset_advice(const fcl_params *p, const mc_config *c)
{
    if (p->surface_ls_threshold != 0.0f)
        return c->ls_binary ? "move surface.ls_threshold toward 0 (0: the field's own), raise surface.ls_radius, or "
                              "lower surface.ls_beta"
                            : "move surface.ls_threshold toward 0 (0: the field's own), raise surface.ls_radius or "
                              "ls_truncation, or lower surface.ls_beta";
    return c->ls_binary ? "raise surface.ls_radius or lower surface.ls_beta"
                        : "raise surface.ls_radius or ls_truncation, or lower surface.ls_beta";
}

/* surface.phases: phase indices 0 .. FCL_PHASES_MAX - 1, comma-separated. */
static int phases_check(const fcl_params *p, char *err, size_t errlen)
{
    unsigned mask;
    if (params_phase_list(p->surface_phases, FCL_PHASES_MAX, &mask) == 0)
        return 0;
    snprintf(err, errlen, "surface.phases = '%s': expected phase indices 0 to %d separated by commas (0,2), or empty "
             "for every particle", p->surface_phases, FCL_PHASES_MAX - 1);
    return FCL_EXIT_INPUT;
}

int mc_support_check(const fcl_params *p, char *err, size_t errlen)
{
    if (phases_check(p, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    /* Under about a spacing a resting lattice has no neighbor within the
     * field's support: 0.5 gave no triangle and 0.01 half a minute and
     * 349 M nodes for none, both with exit 0. The floor is particles.support's. */
    if (p->surface_support > 0.0 && p->surface_support < 1.2) {
        snprintf(err, errlen, "surface.support = %g spacings: expected 0 (particles.support) or at least 1.2, as "
                 "particles.support (below about 1 a particle has no neighbor in the field and the mesh is empty)",
                 p->surface_support);
        return FCL_EXIT_INPUT;
    }
    if (strcmp(p->surface_method, "levelset") == 0) {
        mc_config c;
        mc_config_from_params(&c, p);
        float F = ls_rest_speed(&c), T = ls_threshold_of(&c);
        if (!(F > 0.0f)) {
            snprintf(err, errlen, "surface.method = levelset: the speed inside resting fluid, T + sum f = %.3g, is not "
                     "positive (T = %g%s, ls_radius %g%s, ls_truncation %g, ls_field %s), so the surface would %s: "
                     "raise surface.ls_radius%s%s", F, T,
                     p->surface_ls_threshold != 0.0f ? " from surface.ls_threshold" : ", the field's own",
                     c.ls_radius, p->surface_ls_radius > 0.0f ? "" : ", the field's own",
                     p->surface_ls_truncation, p->surface_ls_field,
                     c.ls_binary ? "tunnel through a resting lattice or shrink to nothing" : "shrink to nothing",
                     c.ls_binary ? " (0: the field's own, 0.55)" : " or ls_truncation",
                     p->surface_ls_threshold != 0.0f ? ", or surface.ls_threshold toward 0 (0: the field's own)" : "");
            return FCL_EXIT_INPUT;
        }
        /* The curvature term holds a ball of radius R where F = 2 beta r /
         * R: below R* = 2 beta r / F_rest spacings a body shrinks to
         * nothing, whatever the iterations (ls_radius 0.4, F = 0.04, R* =
         * 20: a 12 x 10 x 12 block meshed empty with exit 0, the dam
         * break's first frame -20 %; a review). The defaults: 0.56
         * (smooth), 1.13 (binary). */
        float rstar = mc_levelset_shrink(p);
        if (rstar > MC_LS_SHRINK_MAX) {
            snprintf(err, errlen, "surface.method = levelset: the curvature term, surface.ls_beta %g times ls_radius "
                     "%g, against the speed inside resting fluid, %.3g (T = %g%s, ls_field %s), shrinks any body under "
                     "%.1f spacings' radius to nothing: expected at most %g (%s)", c.ls_beta, c.ls_radius, F, T,
                     p->surface_ls_threshold != 0.0f ? " from surface.ls_threshold" : ", the field's own",
                     p->surface_ls_field, rstar, (double)MC_LS_SHRINK_MAX, mc_levelset_advice(p, &c));
            return FCL_EXIT_INPUT;
        }
    }
    return 0;
}

float mc_levelset_shrink(const fcl_params *p)
{
    mc_config c;
    mc_config_from_params(&c, p);
    float F = ls_rest_speed(&c);
    return strcmp(p->surface_method, "levelset") == 0 && F > 0.0f ? 2.0f * c.ls_beta * c.ls_radius / F : 0.0f;
}

const char *mc_empty_hint(const fcl_params *p)
{
    if (p->surface_phases[0] && strcmp(p->surface_method, "grid") != 0)
        return "surface.phases: the phases meshed (their particles may be gone); then surface.iso and surface.support";
    if (strcmp(p->surface_method, "levelset") == 0)
        return "surface.method levelset: see surface.ls_threshold, ls_radius, ls_truncation and ls_field";
    if (strcmp(p->surface_method, "grid") == 0)
        return "surface.method grid: the solver's level set holds no liquid";
    return "surface.method mc: see surface.iso and surface.support";
}

/* surface.* settings off their defaults that the chosen method, field
 * and post-processing do not read, noted once a command (surface.stretch
 * under zou's field, ls_* under mc, smooth_feature without smoothing:
 * each changed nothing without a word; a review). */
static void note_unread_surface(const fcl_params *p)
{
    int mc = strcmp(p->surface_method, "mc") == 0, ls = strcmp(p->surface_method, "levelset") == 0;
    int aniso = strcmp(p->surface_field, "anisotropic") == 0;
    int smooth = p->surface_smooth_iterations > 0, decimate = p->surface_decimate > 0.0f && p->surface_decimate < 1.0f;
    const struct { fcl_param_id id; int read; } keys[] = {
        { FCL_P_surface_field, mc },           { FCL_P_surface_iso, mc },
        { FCL_P_surface_cell, mc },            { FCL_P_surface_support, mc || ls },
        { FCL_P_surface_narrow_band, mc },     { FCL_P_surface_band_shift, mc && p->surface_narrow_band },
        { FCL_P_surface_band_fill, mc && p->surface_narrow_band },
        { FCL_P_surface_stretch, ls || (mc && aniso) },   { FCL_P_surface_max_stretch, ls || (mc && aniso) },
        { FCL_P_surface_ls_cell, ls },         { FCL_P_surface_ls_field, ls },
        { FCL_P_surface_ls_threshold, ls },    { FCL_P_surface_ls_radius, ls },
        { FCL_P_surface_ls_truncation, ls },   { FCL_P_surface_ls_beta, ls },
        { FCL_P_surface_ls_tolerance, ls },    { FCL_P_surface_ls_max_iterations, ls },
        { FCL_P_surface_ls_band, ls },         { FCL_P_surface_smooth_feature, smooth },
        { FCL_P_surface_decimate_error, decimate },
    };
    fcl_params def;
    params_defaults(&def);
    char names[512] = "", key[64];
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (!keys[k].read && !params_equal(p, &def, &fcl_param_table[keys[k].id]))
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "",
                     params_key(keys[k].id, key, sizeof key));
    if (names[0])
        fprintf(stderr, "fluidcl: note: %s: set, and not read under surface.method %s (field %s, narrow_band %ld, "
                "smooth_iterations %ld, decimate %g)\n", names, p->surface_method, p->surface_field,
                (long)p->surface_narrow_band, (long)p->surface_smooth_iterations, p->surface_decimate);
}

int mc_method_check(const fcl_params *p, int from_frames, char *err, size_t errlen)
{
    if (mc_support_check(p, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    float rstar = mc_levelset_shrink(p);
    mc_config c;
    mc_config_from_params(&c, p);
    note_unread_surface(p);
    if (rstar > MC_LS_SHRINK_NOTE)   /* once a command: run, bench and surface call this first */
        fprintf(stderr, "fluidcl: note: surface.method = levelset: its curvature term shrinks any body under %.1f "
                "spacings' radius to nothing (drops and thin sheets vanish; the defaults: 0.56, 1.13 with "
                "ls_field binary): %s\n", rstar, mc_levelset_advice(p, &c));
    double fill, shift;
    if (c.narrow && strcmp(p->surface_method, "mc") == 0 && !mc_band_flags_face(&c, &fill, &shift))
        fprintf(stderr, "fluidcl: note: surface.band_fill %g and band_shift %g flag a flat face's particles by less "
                "than the margin a jittered face needs, or not at all (their sums read %.2f of a full lattice's, their "
                "neighbors' mean lies %.3f support radii in), and a missed face meshes the outline of its tiles: "
                "every tile is evaluated (slower); raise band_fill to %.2f or lower band_shift to %.3f\n",
                p->surface_band_fill, p->surface_band_shift, fill, shift, ceil(105.0 * fill) / 100.0,
                floor(750.0 * shift) / 1000.0);   /* values that pass (mc_band_flags_face) */
    return mc_grid_check(p, from_frames, err, errlen);
}

int mc_grid_check(const fcl_params *p, int from_frames, char *err, size_t errlen)
{
    if (strcmp(p->surface_method, "grid") != 0)
        return 0;
    const fcl_solver *s = solver_find(p->sim_solver);
    char names[128];
    if (from_frames)
        snprintf(err, errlen, "surface.method = grid meshes a running grid solver's level set, and saved frames "
                 "hold particles only: expected mc or levelset");
    else if (!s || !s->levelset)
        snprintf(err, errlen, "surface.method = grid meshes the solver's own level set, and %s keeps none: "
                 "expected mc or levelset (or sim.solver = %s)", p->sim_solver,
                 solver_names_that(FCL_CAN_LEVELSET, names, sizeof names));
    else
        return 0;
    return FCL_EXIT_INPUT;
}

/* Nodes per axis: the cells' count made odd (an even number of node
 * cells, for tiles of 2). */
static unsigned even_cells(unsigned n)
{
    return n + ((n - 1u) & 1u);
}

/* f = -phi on the node grid m (the extra nodes outside). */
static float *node_field(const fcl_grid_frame *g, const fcl_mc_info *m)
{
    float *f = malloc((size_t)m->nx * m->ny * m->nz * sizeof *f + 4);
    if (!f)
        return NULL;
    const float *phi = g->data[0];
    for (size_t k = 0, q = 0; k < m->nz; k++)
        for (size_t j = 0; j < m->ny; j++)
            for (size_t i = 0; i < m->nx; i++, q++)
                f[q] = i < g->n[0] && j < g->n[1] && k < g->n[2]
                           ? -phi[i + g->n[0] * (j + (size_t)g->n[1] * k)]
                           : -1.0f;
    return f;
}

/* Whether tile (tx, ty, tz)'s (TILE+1)^3 nodes hold both signs. */
static int mixed(const float *f, const fcl_mc_info *m, size_t tx, size_t ty, size_t tz)
{
    int in = 0, out = 0;
    for (size_t k = tz * TILE; k <= tz * TILE + TILE; k++)
        for (size_t j = ty * TILE; j <= ty * TILE + TILE; j++)
            for (size_t i = tx * TILE; i <= tx * TILE + TILE; i++) {
                if (f[i + m->nx * (j + (size_t)m->ny * k)] >= 0.0f)
                    in = 1;
                else
                    out = 1;
            }
    return in && out;
}

/* label 5 and a slot for every tile with both signs; their list. */
static int tile_lists(const float *f, const fcl_mc_info *m, uint **label, uint **slot, uint **list, uint *nlist)
{
    size_t tiles = (size_t)m->tnx * m->tny * m->tnz, nl = 0;
    *label = calloc(tiles + 1, sizeof **label);
    *slot = calloc(tiles + 1, sizeof **slot);
    *list = malloc((tiles + 1) * sizeof **list);
    if (!*label || !*slot || !*list)
        return -1;
    for (size_t tz = 0, q = 0; tz < m->tnz; tz++)
        for (size_t ty = 0; ty < m->tny; ty++)
            for (size_t tx = 0; tx < m->tnx; tx++, q++)
                if (mixed(f, m, tx, ty, tz)) {
                    (*label)[q] = 5u;
                    (*slot)[q] = (uint)nl;
                    (*list)[nl++] = (uint)q;
                }
    *nlist = (uint)nl;
    return 0;
}

static void node_layout(const fcl_grid_frame *g, fcl_mc_info *m)
{
    memset(m, 0, sizeof *m);
    float half = 0.5f * (float)g->spacing;
    m->origin = fcl_f4((float)g->origin[0] + half, (float)g->origin[1] + half, (float)g->origin[2] + half, 0.0f);
    m->cell = (float)g->spacing;
    m->inv_cell = 1.0f / m->cell;
    m->iso = 0.0f;
    m->nx = even_cells(g->n[0]), m->ny = even_cells(g->n[1]), m->nz = even_cells(g->n[2]);
    m->b = m->t = TILE;
    m->tpb = 1;
    m->tnx = (m->nx - 1) / TILE, m->tny = (m->ny - 1) / TILE, m->tnz = (m->nz - 1) / TILE;
}

int mc_grid_mesh(mc_ctx *x, const mc_config *c, fcl_sim *s, mc_mesh *out, char *err, size_t errlen)
{
    fcl_grid_frame g;
    memset(out, 0, sizeof *out);
    if (!s || !s->solver->levelset) {
        snprintf(err, errlen, "surface.method = grid meshes a running grid solver's level set, and %s",
                 s ? "this solver keeps none: expected mc or levelset" : "there is no simulation here (saved frames?)");
        return FCL_EXIT_INPUT;
    }
    if (s->solver->levelset(s, &g) != 0 || g.n[0] < 2 || g.n[1] < 2 || g.n[2] < 2) {
        snprintf(err, errlen, "surface.method = grid: the solver's level set could not be read from %s", x->be->name);
        return FCL_EXIT_DEVICE;
    }
    fcl_mc_info m;
    node_layout(&g, &m);
    uint *label = NULL, *slot = NULL, *list = NULL, nl = 0;
    float *f = node_field(&g, &m);
    int rc = !f || tile_lists(f, &m, &label, &slot, &list, &nl) != 0;
    if (rc) {
        snprintf(err, errlen, "surface.method = grid: out of host memory for %u x %u x %u nodes", m.nx, m.ny, m.nz);
        rc = FCL_EXIT_DEVICE;
    } else {
        rc = mc_mesh_nodes(x, &m, f, label, list, nl, slot, out, err, errlen);
    }
    x->last = (mc_stats){ .tiles = (size_t)m.tnx * m.tny * m.tnz, .band_tiles = nl,
                          .nodes = (size_t)m.nx * m.ny * m.nz, .cells = (size_t)nl * TILE * TILE * TILE,
                          .active = x->last.active, .node_cell = m.cell, .tile = TILE };
    free(f), free(label), free(slot), free(list);
    if (rc != 0)
        return rc;
    const mesh_post_config pc = { c->smooth_iterations, c->smooth_feature, c->decimate, c->decimate_error, m.cell };
    if ((rc = mesh_postprocess(out, &pc, err, errlen)) != 0) {
        mc_mesh_free(out);
        return rc == -2 ? FCL_EXIT_INPUT : FCL_EXIT_DEVICE;
    }
    return 0;
}
