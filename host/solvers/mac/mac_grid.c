/* mac_grid.c - the mac solver's grid: its layout from the parameters
 * (with the checks that refuse a bad cell size), its device buffers, its
 * state for restarts, its fields for output.grid (flags, pressure,
 * velocity, level set), its level set for surface.method grid and the
 * viewer's overlay slice (mac.h).
 * Invariant: every buffer holds (nx + 2)(ny + 2)(nz + 2) cells, the
 * padded layout of fcl_mac_info; a saved state loads only into a grid of
 * the same cell count.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "mac.h"
#include "output.h"
#include "params.h"
#include "solver.h"

/* Three velocity fields (float4: current, scratch, FLIP's old), flags,
 * level set, pressure, right-hand side, diagonal, two extrapolation
 * masks, speeds, the reseeding's counts, densities and claims, the
 * density correction's targets and deep test, seven CG vectors (the start
 * kept for a diverged solve, the best iterate for a stalled one). */
static const size_t CELL_BYTES = 3 * 16 + 5 * 4 + 2 * 4 + 4 + 3 * 4 + 2 * 4 + 7 * 4;   /* 128 */

static const char *const AXIS = "xyz";

/* Cells along one axis: the domain's extent in whole cells (to a
 * thousandth of a cell, float rounding): the grid's walls are the
 * domain's. (A rounded count once moved a wall by up to half a cell:
 * markers left the domain, and a pool in such a box sloshed.) */
static int axis_cells(const fcl_params *p, int a, double dx, uint *n, char *err, size_t errlen)
{
    double len = (double)p->domain_max[a] - (double)p->domain_min[a], c = floor(len / dx + 0.5);
    if (c >= 2.0 && fabs(len / dx - c) > 1e-3) {
        snprintf(err, errlen, "domain.max: the domain's %g m along %c is %.6g cells of %g m (mac.cell_size, or "
                 "cbrt(mac.particles_per_cell) particles.spacing): expected a whole number of cells, such as %g m "
                 "(%.0f cells) or %g m (%.0f)", len, AXIS[a], len / dx, dx, floor(len / dx) * dx, floor(len / dx),
                 ceil(len / dx) * dx, ceil(len / dx));
        return -1;
    }
    if (c < 2.0) {
        snprintf(err, errlen, "mac.cell_size: a cell of %g m leaves fewer than 2 cells along %c of the domain "
                 "(%g m): expected a smaller cell (mac.cell_size, or particles.spacing)", dx, AXIS[a], len);
        return -1;
    }
    if (c > 65536.0) {
        snprintf(err, errlen, "mac.cell_size: a cell of %g m gives %.0f cells along %c of the domain (%g m), "
                 "more than 65536: expected a larger cell", dx, c, AXIS[a], len);
        return -1;
    }
    *n = (uint)c;
    return 0;
}

int mac_layout(const fcl_params *p, double spacing, fcl_mac_info *m, char *err, size_t errlen)
{
    double auto_dx = cbrt(p->mac_particles_per_cell) * spacing, dx = p->mac_cell_size > 0.0 ? p->mac_cell_size : auto_dx;
    memset(m, 0, sizeof *m);
    if (p->mac_cell_size > 0.0 && fabs(dx - auto_dx) > 1e-3 * dx) {
        snprintf(err, errlen, "mac.cell_size: %g m holds %.3g particles per cell at particles.spacing %g, not "
                 "mac.particles_per_cell = %g: expected mac.cell_size = %g (or 0), or particles.spacing = %g",
                 dx, pow(dx / spacing, 3.0), spacing, p->mac_particles_per_cell, auto_dx,
                 dx / cbrt(p->mac_particles_per_cell));
        return -1;
    }
    uint n[3];
    for (int a = 0; a < 3; a++)
        if (axis_cells(p, a, dx, &n[a], err, errlen) != 0)
            return -1;
    double cells = (double)(n[0] + 2) * (double)(n[1] + 2) * (double)(n[2] + 2);
    /* Four face components a cell: the FLIP copy and the viscosity's
     * solve launch 4 ncell items, which a pass counts in 32 bits. */
    if (cells * 4.0 > 4294967295.0) {
        snprintf(err, errlen, "mac.cell_size: a %u x %u x %u grid has %.4g cells (with its ghost layer), more "
                 "than the 1.07e9 (2^30) whose face components a 32-bit index holds: expected a larger cell",
                 n[0], n[1], n[2], cells);
        return -1;
    }
    m->origin = fcl_f4(p->domain_min[0], p->domain_min[1], p->domain_min[2], 0.0f);
    m->dx = (float)dx;
    m->inv_dx = (float)(1.0 / dx);
    m->nx = n[0];
    m->ny = n[1];
    m->nz = n[2];
    m->sy = n[0] + 2;
    m->sz = (n[0] + 2) * (n[1] + 2);
    m->ncell = (uint)cells;
    return 0;
}

size_t mac_grid_bytes(const fcl_mac_info *m)
{
    return (size_t)m->ncell * CELL_BYTES + 4 * 4096;
}

int mac_grid_alloc(mac *d, fcl_backend *be)
{
    size_t n = d->m.ncell;
    d->vel[0] = be->ops->buf_new(be, n * 16, "MAC face velocities");
    d->vel[1] = be->ops->buf_new(be, n * 16, "MAC face velocities (scratch)");
    d->flags = be->ops->buf_new(be, n * 4, "MAC cell flags");
    d->phi = be->ops->buf_new(be, n * 4, "MAC level set");
    d->p = be->ops->buf_new(be, n * 4, "MAC pressure");
    d->rhs = be->ops->buf_new(be, n * 4, "MAC right-hand side");
    d->diag = be->ops->buf_new(be, n * 4, "MAC diagonal");
    d->mask[0] = be->ops->buf_new(be, n * 4, "MAC known faces");
    d->mask[1] = be->ops->buf_new(be, n * 4, "MAC known faces (scratch)");
    d->speed = be->ops->buf_new(be, n * 4, "MAC face speeds");
    d->old = be->ops->buf_new(be, n * 16, "MAC face velocities before forces (FLIP)");
    d->count = be->ops->buf_new(be, n * 4, "MAC markers per cell (reseeding)");
    d->req = be->ops->buf_new(be, n * 4, "MAC reseeding claims");
    d->dens = be->ops->buf_new(be, n * 4, "MAC marker densities at cell centers");
    d->moved = be->ops->buf_new(be, 4, "MAC reseeded markers");
    d->tgt = be->ops->buf_new(be, n * 4, "MAC density-correction targets");
    d->full = be->ops->buf_new(be, n * 4, "MAC density correction: cells among fluid");
    d->air = be->ops->buf_new(be, 4, "MAC density correction: the grid has air");
    if (!d->vel[0] || !d->vel[1] || !d->old || !d->flags || !d->phi || !d->p || !d->rhs || !d->diag || !d->mask[0] ||
        !d->mask[1] || !d->speed || !d->count || !d->req || !d->dens || !d->moved || !d->tgt || !d->full || !d->air)
        return -1;
    d->air_gen = 0;
    /* Zeros: the pressure is the first warm start, the field the first
     * sample outside the markers. */
    float4 *zero = calloc(n, 16);
    int rc = !zero || be->ops->buf_write(be, d->vel[0], 0, n * 16, zero) != 0 ||
             be->ops->buf_write(be, d->vel[1], 0, n * 16, zero) != 0 ||
             be->ops->buf_write(be, d->p, 0, n * 4, zero) != 0 || be->ops->buf_write(be, d->air, 0, 4, zero) != 0;
    free(zero);
    return rc || reduction_init(&d->umax, be, n) != 0 || fcl_pcg_init(&d->cg, be, n) != 0 ||
                   mac_mg_alloc(&d->mg, be) != 0
               ? -1
               : 0;
}

void mac_grid_free(mac *d, fcl_backend *be)
{
    fcl_buf *b[] = { d->vel[0], d->vel[1], d->old, d->flags, d->phi, d->p, d->rhs, d->diag,
                     d->mask[0], d->mask[1], d->speed, d->count, d->req, d->dens, d->moved, d->tgt, d->full, d->air };
    for (size_t k = 0; k < sizeof b / sizeof b[0]; k++)
        if (b[k])
            be->ops->buf_free(be, b[k]);
    reduction_free(&d->umax, be);
    fcl_pcg_free(&d->cg, be);
    free(d->out);
    free(d->raw);
    free(d->ls);
    free(d->slice);
    if (d->viscous) {
        be->ops->buf_free(be, d->vdiag);
        be->ops->buf_free(be, d->vrhs);
        fcl_pcg_free(&d->vcg, be);
    }
    mac_mg_free(&d->mg, be);
}

/* Interior cell (i, j, k), 0-based, of the padded layout. */
static size_t padded(const fcl_mac_info *m, uint i, uint j, uint k)
{
    return (i + 1) + (size_t)m->sy * (j + 1) + (size_t)m->sz * (k + 1);
}

/* The level set as the mesh reads it: solid cells (flag 2, MAC_SOLID in
 * kernels/mac.cl) outside, whatever the band's sum gave there, and at
 * least as far outside as each non-solid neighbor is inside, so that the
 * surface crosses at or before the face between them: with |iso| alone, a
 * cell of bunched markers beside a wall (phi below -|iso|) put the mesh up
 * to a quarter cell past the wall (a review: 16 vertices 5 mm out in 2 cm
 * cells). Reads only non-solid cells, so it may run in place. */
static float ls_value(const fcl_mac_info *m, const uint *flags, const float *phi, size_t c)
{
    if (flags[c] != 2u)
        return phi[c];
    const size_t off[3] = { 1, m->sy, m->sz };
    float v = fabsf(m->iso);
    for (int a = 0; a < 3; a++) {
        if (c >= off[a] && flags[c - off[a]] != 2u)
            v = fmaxf(v, -phi[c - off[a]]);
        if (c + off[a] < m->ncell && flags[c + off[a]] != 2u)
            v = fmaxf(v, -phi[c + off[a]]);
    }
    return v;
}

/* The interior cells' flags, pressure, center velocity and level set into
 * d->out. */
static void gather(const mac *d, const uint *flags, const float *p, const float4 *v, const float *phi, float *out)
{
    const fcl_mac_info *m = &d->m;
    size_t ni = (size_t)m->nx * m->ny * m->nz, q = 0;
    float *fl = out, *pr = out + ni, *vc = out + 2 * ni, *ls = out + 5 * ni;
    for (uint k = 0; k < m->nz; k++)
        for (uint j = 0; j < m->ny; j++)
            for (uint i = 0; i < m->nx; i++, q++) {
                size_t c = padded(m, i, j, k);
                fl[q] = (float)flags[c];
                pr[q] = p[c];
                ls[q] = ls_value(m, flags, phi, c);
                vc[3 * q] = 0.5f * (v[c].x + v[c + 1].x);
                vc[3 * q + 1] = 0.5f * (v[c].y + v[c + m->sy].y);
                vc[3 * q + 2] = 0.5f * (v[c].z + v[c + m->sz].z);
            }
}

int mac_grid_fields(mac *d, fcl_backend *be, fcl_grid_frame *g)
{
    const fcl_mac_info *m = &d->m;
    size_t n = m->ncell, ni = (size_t)m->nx * m->ny * m->nz;
    if (!d->out && !(d->out = malloc(ni * 6 * sizeof(float))))
        return -1;
    if (!d->raw && !(d->raw = malloc(n * 16)))
        return -1;
    float4 *v = d->raw;
    uint *flags = malloc(n * 4);
    float *p = malloc(n * 4), *phi = malloc(n * 4);
    int rc = !flags || !p || !phi || be->ops->buf_read(be, d->flags, 0, n * 4, flags) != 0 ||
             be->ops->buf_read(be, d->p, 0, n * 4, p) != 0 || be->ops->buf_read(be, d->phi, 0, n * 4, phi) != 0 ||
             be->ops->buf_read(be, d->vel[d->cur], 0, n * 16, v) != 0;
    if (!rc)
        gather(d, flags, p, v, phi, d->out);
    free(flags);
    free(p);
    free(phi);
    if (rc)
        return -1;
    *g = (fcl_grid_frame){ { m->nx, m->ny, m->nz }, { m->origin.x, m->origin.y, m->origin.z }, m->dx, 4,
                           { "flags", "pressure", "velocity", "levelset" }, { 1, 1, 3, 1 },
                           { d->out, d->out + ni, d->out + 2 * ni, d->out + 5 * ni } };
    return 0;
}

int mac_grid_levelset(mac *d, fcl_backend *be, fcl_grid_frame *g)
{
    const fcl_mac_info *m = &d->m;
    size_t n = m->ncell;
    if (!d->ls && !(d->ls = malloc(n * 4)))
        return -1;
    uint *flags = malloc(n * 4);
    int rc = !flags || be->ops->buf_read(be, d->flags, 0, n * 4, flags) != 0 ||
             be->ops->buf_read(be, d->phi, 0, n * 4, d->ls) != 0;
    for (size_t c = 0; !rc && c < n; c++)
        d->ls[c] = ls_value(m, flags, d->ls, c);
    free(flags);
    if (rc)
        return -1;
    double dx = m->dx;
    *g = (fcl_grid_frame){ { m->nx + 2, m->ny + 2, m->nz + 2 },
                           { m->origin.x - dx, m->origin.y - dx, m->origin.z - dx }, dx, 1,
                           { "levelset" }, { 1 }, { d->ls } };
    return 0;
}

size_t mac_grid_slice(mac *d, fcl_backend *be, const float **pts)
{
    const fcl_mac_info *m = &d->m;
    uint k = m->nz / 2, *flags = malloc((size_t)m->sz * 4);
    size_t n = 0;
    if (!d->slice)
        d->slice = malloc((size_t)m->nx * m->ny * sizeof *d->slice);
    /* One padded z layer of flags is all the slice reads. */
    int rc = !flags || !d->slice ||
             be->ops->buf_read(be, d->flags, (size_t)m->sz * (k + 1) * 4, (size_t)m->sz * 4, flags) != 0;
    for (uint j = 0; !rc && j < m->ny; j++)
        for (uint i = 0; i < m->nx; i++) {
            uint f = flags[(i + 1) + (size_t)m->sy * (j + 1)];
            if (f == 1u || f == 2u)
                d->slice[n++] = fcl_f4(m->origin.x + (i + 0.5f) * m->dx, m->origin.y + (j + 0.5f) * m->dx,
                                       m->origin.z + (k + 0.5f) * m->dx, (float)f);
        }
    free(flags);
    *pts = d->slice ? (const float *)d->slice : NULL;
    return rc ? 0 : n;
}

/* Layout: u32 cell count, u32 whether the field holds a state (2: yes,
 * 1: no, the run had no marker yet; 0 in files before this word: yes),
 * f64 largest face speed, the pressure
 * and viscosity solves' stall floors (fcl_pcg_state_save: they decide
 * restarts, so a resumed run takes the same iterations), the field
 * (float4 per cell), the pressure (float per cell). */
enum { MAC_STATE_HEAD = 16 + 2 * FCL_PCG_STATE_BYTES };

size_t mac_state_bytes(const mac *d)
{
    return MAC_STATE_HEAD + (size_t)d->m.ncell * 20;
}

size_t mac_state_save(mac *d, fcl_backend *be, void *blob, size_t cap)
{
    size_t n = d->m.ncell, need = mac_state_bytes(d);
    unsigned char *b = blob;
    uint32_t head[2] = { (uint32_t)n, d->ready ? 2u : 1u };
    if (cap < need)
        return FCL_SAVE_FAILED;
    memcpy(b, head, 8);
    memcpy(b + 8, &d->max_u, 8);
    fcl_pcg_state_save(&d->cg, b + 16);
    fcl_pcg_state_save(&d->vcg, b + 16 + FCL_PCG_STATE_BYTES);
    if (be->ops->buf_read(be, d->vel[d->cur], 0, n * 16, b + MAC_STATE_HEAD) != 0 ||
        be->ops->buf_read(be, d->p, 0, n * 4, b + MAC_STATE_HEAD + n * 16) != 0)
        return FCL_SAVE_FAILED;
    return need;
}

int mac_state_load(mac *d, fcl_backend *be, const void *blob, size_t bytes, char *why, size_t whylen)
{
    size_t n = d->m.ncell;
    const unsigned char *b = blob;
    uint32_t head[2] = { 0, 0 };
    if (bytes >= 8)
        memcpy(head, b, 8);
    if (bytes != mac_state_bytes(d) || head[0] != n || head[1] > 2u) {
        snprintf(why, whylen, "its grid has %u cells with the ghost layer, this run's %u x %u x %u interior has %zu "
                 "(the domain or mac.cell differs)", (unsigned)head[0], d->m.nx, d->m.ny, d->m.nz, n);
        return -1;
    }
    memcpy(&d->max_u, b + 8, 8);
    fcl_pcg_state_load(&d->cg, b + 16);
    fcl_pcg_state_load(&d->vcg, b + 16 + FCL_PCG_STATE_BYTES);
    if (be->ops->buf_write(be, d->vel[d->cur], 0, n * 16, b + MAC_STATE_HEAD) != 0 ||
        be->ops->buf_write(be, d->p, 0, n * 4, b + MAC_STATE_HEAD + n * 16) != 0) {
        snprintf(why, whylen, "writing its grid to %s failed", be->name);
        return -1;
    }
    /* A state saved before the first marker came holds no field yet: the
     * first prepare with markers seeds it, as in the run that saved it
     * (set ready, the resumed jet lost half its speed at its arrival). */
    d->ready = head[1] != 1u;
    return 0;
}
