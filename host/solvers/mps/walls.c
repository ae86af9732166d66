/* walls.c - wall particles as pressure unknowns (walls.h): the launchers
 * of kernels/mps_walls.cl and the walls' two lists.
 * Invariant: the wall -> fluid list is rebuilt after every grid rebuild
 * the pressure passes read (the step's x*); the wall -> boundary list is
 * built once, the boundary particles never moving.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "scene.h"
#include "sim.h"
#include "walls.h"

/* The parameter combinations wall unknowns refuse: 0, or FCL_EXIT_INPUT
 * naming the keys (walls.h, mps_check). */
static int mps_walls_check(const fcl_params *p, char *err, size_t errlen)
{
    if (strcmp(p->mps_wall_pressure, "solve") != 0)
        return 0;
    if (strcmp(p->mps_preconditioner, "poly") == 0) {
        snprintf(err, errlen, "mps.wall_pressure = solve takes mps.preconditioner = auto, grid or jacobi (the "
                 "polynomial's sweeps cover the fluid rows only)");
        return FCL_EXIT_INPUT;
    }
    if (strcmp(p->boundary_walls, "mirror") == 0) {
        snprintf(err, errlen, "mps.wall_pressure = solve needs boundary.walls = particles (mirror walls have no "
                 "particles to solve for)");
        return FCL_EXIT_INPUT;
    }
    /* Without the dummy layers the first layer's own n* falls short: a
     * resting column collapsed onto the floor (a review: 88 of 1,000
     * particles at y = 0 after 0.5 s, density error 12 %). */
    if (p->boundary_layers < 3) {
        snprintf(err, errlen, "mps.wall_pressure = solve needs boundary.layers >= 3, not %ld (the first layer's "
                 "pressure unknowns and two dummy layers completing its number density)", (long)p->boundary_layers);
        return FCL_EXIT_INPUT;
    }
    return 0;
}

/* The explicit viscosity's step bound 0.2 l0^2 / nu (mps.c, choose_dt)
 * under mps.dt_min, which overrules it: refused before any work (a
 * review's material.viscosity 1e5 at 2 cm took 8e-7 s steps without a
 * word, 62,500 steps for 0.05 s). The phases' viscosities where the scene
 * has phases (material.viscosity then is not used: refusing it refused a
 * run it did not affect; a review). The dt_min it suggests is the
 * shortest text of the bound that this check then passes. */
int mps_check_fluid(const fcl_params *p, const struct fcl_phase_decl *ph, int n, char *err, size_t errlen)
{
    double d = p->particles_spacing;
    for (int k = 0; k < (n > 0 ? n : 1); k++) {
        double mu = n > 0 ? ph[k].viscosity : p->material_viscosity;
        double rho = n > 0 ? ph[k].density : p->material_rest_density, bound = MPS_VISC_STEP * d * d * rho / mu;
        if (!(mu > 0.0) || bound >= p->mps_dt_min * (1.0 - 1e-5))   /* float spacing */
            continue;
        char key[48];
        if (n > 0)
            snprintf(key, sizeof key, "phases[%d].viscosity", k);
        else
            snprintf(key, sizeof key, "material.viscosity");
        /* the shortest that this check then passes (it allows 1e-5) */
        double shown = bound;
        for (int digits = 3; digits <= 9; digits++) {
            char t[32];
            snprintf(t, sizeof t, "%.*g", digits, bound);
            if ((shown = strtod(t, NULL)) * (1.0 - 1e-5) <= bound)
                break;
        }
        snprintf(err, errlen, "%s = %g Pa s bounds mps's step to 0.2 l0^2 rho0 / mu = %.3g s at particles.spacing %g m, "
                 "below mps.dt_min = %g s: lower mps.dt_min to %.9g or less, or the viscosity", key, mu, bound, d,
                 p->mps_dt_min, shown);
        return FCL_EXIT_INPUT;
    }
    return 0;
}

int mps_check(const fcl_params *p, char *err, size_t errlen)
{
    int rc = mps_walls_check(p, err, errlen);
    /* One layer of wall particles leaves the fluid's n* short at the
     * walls (-12.8 % at a face at the Laplacian's r_e = 4 spacings,
     * test_layers): a resting 30 cm column reached 0.57 m/s in 0.3 s,
     * its pressure at half depth 27 % low (a review); 0.11 m/s and -2 %
     * with 3 layers. A resting pool at 2 cm in 3 layers still moves at
     * 0.11 m/s (mean, at 3 s; its largest 0.37-0.54 m/s throughout) under
     * mps.gradient = ko, whose column mode viscosity damps only near
     * 1 Pa s and, at 2 cm, not at the default 1 Pa s, and rests under gc
     * (mean below 1e-4 m/s), so the note names both. A note, not a refusal: the runs go on.
     * Once (the viewer checks every edit of mps.* with this hook). */
    static int said;
    if (rc == 0 && strcmp(p->boundary_walls, "particles") == 0 && p->boundary_layers < 3 && !said++)
        fprintf(stderr, "fluidcl: note: mps with boundary.walls = particles and boundary.layers = %ld: the walls' "
                "number density falls short and resting fluid drifts; MPS takes 3 layers "
                "(--param boundary.layers=3), or boundary.walls = mirror%s\n", (long)p->boundary_layers,
                strcmp(p->mps_gradient, "ko") == 0 ? "; for water that must come to rest, also mps.gradient = gc" : "");
    return rc;
}

int mps_walls_init(mps_walls *w, fcl_sim *s, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->p_bcoef = -1;
    int rc = mps_walls_check(s->prm, err, errlen);
    if (rc != 0 || strcmp(s->prm->mps_wall_pressure, "solve") != 0)
        return rc;
    fcl_backend *be = s->be;
    double r = s->nl.fl.r;
    float cell = s->grid.info.cell_size;
    int pm = be->serial_groups;
    uint cap = nlist_capacity(r, s->spacing, 0);
    /* Beside the particles (sim_check_fits counts the fluid's, not the
     * walls' unknowns: a dam break at 6 mm took 614 MiB where the check
     * said 356; a review): the walls' two lists, density and flags, the
     * fluid's wall-weight plane, and seven CG vectors, the rows and the
     * pressures over the walls' rows. */
    double need = (double)s->nb * (8.0 + 2.0 * (double)nlist_bytes_per_particle(cap, 0) + 10.0 * 4.0) +
                  (double)s->cap * (double)s->nl.bl.cap * 4.0;
    double parts;
    if (be->mem_bytes > 0 && !sim_fits_beside(s, need, &parts)) {
        snprintf(err, errlen, "mps.wall_pressure = solve: the %zu wall particles' unknowns need %.1f MiB beside the "
                 "particles' %.1f MiB, but %s has %.1f MiB: expected mps.wall_pressure = ghost, fewer "
                 "boundary.layers or a larger particles.spacing", s->nb, need / 1048576.0, parts / 1048576.0,
                 be->name, (double)be->mem_bytes / 1048576.0);
        return FCL_EXIT_INPUT;
    }
    w->on = 1;
    w->nb = s->nb;
    w->wnd = be->ops->buf_new(be, w->nb * 4 + 4, "MPS wall number density");
    w->wsurf = be->ops->buf_new(be, w->nb * 4 + 4, "MPS wall flags");
    w->p_bcoef = nlist_add_plane(&s->nl, be, 1, "MPS wall weights");
    if (!w->wnd || !w->wsurf || w->p_bcoef < 0 ||
        nlist_one_init(&w->wf, be, w->nb, (float)r, cell, cap, pm, "neighbors", err, errlen) != 0 ||
        nlist_one_init(&w->wb, be, w->nb, (float)r, cell, cap, pm, "neighbors", err, errlen) != 0) {
        if (!err[0])
            snprintf(err, errlen, "mps: the device refused the wall unknowns' buffers (%.1f MiB)", need / 1048576.0);
        return -1;
    }
    return 0;
}

#define WALL_LISTS(w) (w)->wf.count, (w)->wf.idx, (w)->wf.L, (w)->wb.count, (w)->wb.idx, (w)->wb.L

int mps_walls_density(mps_walls *w, fcl_sim *s, const fcl_mps_consts *d)
{
    if (!w->on || w->nb == 0)
        return 0;
    fcl_backend *be = s->be;
    fcl_buf *pos = sim_attr(s, s->a_pos), *bpos = sim_bpos(s);
    if (!w->wb_built) {
        if (nlist_one_build(&w->wb, be, bpos, w->nb, bpos, &s->bgrid, &s->c, s->error, sizeof s->error) != 0)
            return -1;
        w->wb_built = 1;
    }
    return nlist_one_build(&w->wf, be, bpos, w->nb, pos, &s->grid, &s->c, s->error, sizeof s->error) != 0 ||
                   pass_mps_wall_density(be, w->nb, "density", bpos, pos, WALL_LISTS(w), w->wnd, w->wsurf, *d) != 0
               ? -1
               : 0;
}

int mps_walls_assemble(mps_walls *w, fcl_sim *s, fcl_buf *rhob, fcl_buf *prs, fcl_buf *diag, fcl_buf *rhs,
                       fcl_buf *x, const fcl_mps_consts *d)
{
    if (!w->on || w->nb == 0)
        return 0;
    return pass_mps_wall_assemble(s->be, w->nb, "assemble", sim_bpos(s), sim_attr(s, s->a_pos), WALL_LISTS(w),
                                  w->wnd, w->wsurf, rhob, prs, diag, rhs, x, (uint)s->n, *d);
}

int mps_walls_matvec(mps_walls *w, fcl_sim *s, fcl_buf *surf, fcl_buf *rhob, fcl_buf *diag, fcl_buf *x, fcl_buf *y,
                     const fcl_mps_consts *d)
{
    if (!w->on || w->nb == 0)
        return 0;
    fcl_backend *be = s->be;
    return pass_mps_matvec_walls(be, s->n, "pressure-solve", x, y, mps_walls_bcoef(w, s), s->nl.bcount, s->nl.bidx,
                                 s->nl.bl, (uint)s->n) != 0 ||
                   pass_mps_wall_matvec(be, w->nb, "pressure-solve", sim_bpos(s), sim_attr(s, s->a_pos),
                                        WALL_LISTS(w), w->wsurf, surf, rhob, diag, x, y, (uint)s->n, *d) != 0
               ? -1
               : 0;
}

fcl_buf *mps_walls_bcoef(mps_walls *w, fcl_sim *s)
{
    return w->p_bcoef >= 0 ? nlist_plane(&s->nl, 1, w->p_bcoef) : NULL;
}

void mps_walls_free(mps_walls *w, fcl_sim *s)
{
    fcl_backend *be = s->be;
    if (w->wnd)
        be->ops->buf_free(be, w->wnd);
    if (w->wsurf)
        be->ops->buf_free(be, w->wsurf);
    if (w->on) {
        nlist_one_free(&w->wf, be);
        nlist_one_free(&w->wb, be);
    }
}
