/* mc.c - surface reconstruction launches (kernels/mc.cl) on any backend.
 *
 * A reconstruction reads like the algorithm: neighbor grid over the
 * particles' bounding box (plus one block: h, or max_stretch h for the
 * anisotropic field) -> volumes and surface particles -> blocks near fluid
 * -> their tiles labelled empty, band or interior -> band tiles -> phi on
 * their nodes -> classify -> scan -> compact -> vertices -> triangles ->
 * read the mesh back. Every buffer lives for one call.
 * Invariant: phi is summed only on nodes of band tiles (tiles a surface
 * particle reaches, and the interior ones next to them); the rest of the
 * node grid is cleared to 0 (a memset-speed pass) and never read by a cell
 * with triangles (kernels/mc.cl says why), so interior and empty space
 * cost one tile label each.
 */
#include "mc.h"
#include "levelset.h"
#include "mesh_post.h"
#include "passes.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "params.h"
#include "sim.h"
#include "smoothing.h"

/* Buffers of one reconstruction; NULL until made. */
typedef struct mc_run {
    fcl_grid g;
    int have_grid;
    fcl_mc_info m;
    fcl_buf *vol, *surf, *flag, *csurf, *blocks, *label, *tflag, *list, *slot, *phi, *ntri, *nedge, *act, *cells, *vert,
        *nrm, *tri;
    uint nblocks, ntiles, nband, ncell, ntris, nverts, nact;
} mc_run;

void mc_config_from_params(mc_config *c, const fcl_params *p)
{
    c->spacing = p->particles_spacing;
    c->h = (p->surface_support > 0.0f ? p->surface_support : p->particles_support) * p->particles_spacing;
    c->cell = p->surface_cell;
    c->iso = p->surface_iso;
    c->field = strcmp(p->surface_field, "mueller") == 0       ? FCL_MC_MUELLER
               : strcmp(p->surface_field, "anisotropic") == 0 ? FCL_MC_ANISO
                                                              : FCL_MC_ZOU;
    c->stretch = p->surface_stretch;
    c->max_stretch = p->surface_max_stretch;
    c->narrow = p->surface_narrow_band;
    c->band_shift = p->surface_band_shift;
    c->band_fill = p->surface_band_fill;
    c->smooth_iterations = p->surface_smooth_iterations;
    c->smooth_feature = p->surface_smooth_feature;
    c->decimate = p->surface_decimate;
    c->decimate_error = p->surface_decimate_error;
    c->method = strcmp(p->surface_method, "levelset") == 0 ? MC_METHOD_LEVELSET
                : strcmp(p->surface_method, "grid") == 0   ? MC_METHOD_GRID
                                                           : MC_METHOD_MC;
    c->ls_cell = p->surface_ls_cell;
    c->ls_binary = strcmp(p->surface_ls_field, "binary") == 0;
    c->ls_threshold = p->surface_ls_threshold;
    c->ls_radius = p->surface_ls_radius > 0.0f ? p->surface_ls_radius : c->ls_binary ? MC_LS_RADIUS_BINARY
                                                                                     : MC_LS_RADIUS_SMOOTH;
    c->ls_truncation = p->surface_ls_truncation;
    c->ls_beta = p->surface_ls_beta;
    c->ls_tolerance = p->surface_ls_tolerance;
    c->ls_max_iter = p->surface_ls_max_iterations;
    c->ls_band = p->surface_ls_band;
    /* A list mc_support_check refuses meshes every particle here. */
    params_phase_list(p->surface_phases, FCL_PHASES_MAX, &c->phase_mask);
}

int mc_init(mc_ctx *x, fcl_backend *be, char *err, size_t errlen)
{
    memset(x, 0, sizeof *x);
    x->be = be;
    const fcl_backend_ops *o = be->ops;
    int *tab = malloc(sizeof(int) * MC_TABLE_LEN);
    x->tables = o->buf_new(be, sizeof(int) * MC_TABLE_LEN, "marching-cubes tables");
    int ok = tab && x->tables;
    if (ok) {
        mc_tables(tab);
        ok = o->buf_write(be, x->tables, 0, sizeof(int) * MC_TABLE_LEN, tab) == 0;
    }
    free(tab);
    if (!ok) {
        snprintf(err, errlen, "surface reconstruction: cannot set up its kernels or tables on %s", be->name);
        mc_free(x);
        return -1;
    }
    return 0;
}

void mc_forget(mc_ctx *x)
{
    ls_free(x->ls);
    x->ls = NULL;
}

void mc_free(mc_ctx *x)
{
    mc_forget(x);
    if (x->be && x->tables)
        x->be->ops->buf_free(x->be, x->tables);
    memset(x, 0, sizeof *x);
}

void mc_mesh_free(mc_mesh *m)
{
    free(m->v);
    free(m->n);
    free(m->tri);
    memset(m, 0, sizeof *m);
}

int mc_float_reach(const double lo[3], const double hi[3], double cell, const char *what, const char *key, char *err,
                   size_t errlen)
{
    double far = 0.0;
    for (int a = 0; a < 3; a++)
        far = fmax(far, fmax(fabs(lo[a]), fabs(hi[a])));
    if (!(far * FLT_EPSILON > 0.25 * cell))
        return 0;
    snprintf(err, errlen, "the particles lie up to %g m from the origin, where float coordinates step by up to %g m, "
             "more than a quarter of the %s cell (%g m): expected the scene nearer the origin, or a larger %s", far,
             far * FLT_EPSILON, what, cell, key);
    return -1;
}

double mc_mesh_volume(const mc_mesh *m)
{
    double v = 0.0;
    for (size_t t = 0; m->nv > 0 && t < m->nt; t++) {
        const float4 o = m->v[0], a = m->v[m->tri[3 * t]], b = m->v[m->tri[3 * t + 1]], c = m->v[m->tri[3 * t + 2]];
        double u[3] = { a.x - o.x, a.y - o.y, a.z - o.z }, p[3] = { b.x - o.x, b.y - o.y, b.z - o.z };
        double q[3] = { c.x - o.x, c.y - o.y, c.z - o.z };
        v += (u[0] * (p[1] * q[2] - p[2] * q[1]) + u[1] * (p[2] * q[0] - p[0] * q[2]) +
              u[2] * (p[0] * q[1] - p[1] * q[0])) / 6.0;
    }
    return v;
}

/* phi's value inside resting fluid, which surface.iso is a fraction of:
 * Zou's phi is a partition of unity (1); the color field is d^3 times the
 * lattice sum of W_poly6. */
static double rest_value(const mc_config *c)
{
    return c->field != FCL_MC_MUELLER ? 1.0 : pow(c->spacing, 3) * smoothing_lattice_sum(c->h, c->spacing);
}

/* Neighbor grid of cell H (h, or max_stretch h for the anisotropic field,
 * whose support reaches that far) over the bounding box grown by H on each
 * side, so the outer ring of blocks holds no particle and the last node
 * layer lies farther than H from all of them (phi = 0 there). */
static int bounds_host(const float4 *pos, size_t n, float lo[3], float hi[3], char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        const float p[3] = { pos[i].x, pos[i].y, pos[i].z };
        for (int a = 0; a < 3; a++) {
            if (!isfinite(p[a])) {
                snprintf(err, errlen, "particle %zu has a non-finite position", i);
                return -1;
            }
            lo[a] = fminf(lo[a], p[a]);
            hi[a] = fmaxf(hi[a], p[a]);
        }
    }
    return 0;
}

/* sum_k W_poly6(x_k) |x_k|^2 over a full lattice of spacing d about a
 * point of it: the spread a particle inside the fluid sees. */
static double lattice_spread(const fcl_mc_info *m, double h, double d)
{
    int r = (int)ceil(h / d);
    double sum = 0.0;
    for (int k = -r; k <= r; k++)
        for (int j = -r; j <= r; j++)
            for (int i = -r; i <= r; i++) {
                double r2 = d * d * (double)(i * i + j * j + k * k), w = h * h - r2;
                sum += w > 0.0 ? (double)m->poly6 * w * w * w * r2 : 0.0;
            }
    return sum;
}

int mc_band_flags_face(const mc_config *c, double *fill, double *shift)
{
    double h = c->h, d = c->spacing, s[2] = { 0, 0 }, m2[2] = { 0, 0 }, mz = 0.0;
    int r = (int)ceil(h / d);
    for (int k = -r; k <= r; k++)   /* the face: k <= 0 kept, k > 0 is air */
        for (int j = -r; j <= r; j++)
            for (int i = -r; i <= r; i++) {
                double r2 = d * d * (double)(i * i + j * j + k * k), w = h * h - r2;
                w = w > 0.0 ? w * w * w : 0.0;   /* W_poly6 up to its constant, which cancels */
                for (int half = 0; half < 2; half++)
                    if (half == 0 || k <= 0) {
                        s[half] += w;
                        m2[half] += w * r2;
                    }
                mz += k <= 0 ? w * k * d : 0.0;
            }
    *fill = fmin(s[1] / s[0], m2[1] / m2[0]);
    *shift = fabs(mz / s[1]) / h;
    return c->band_fill >= 1.05 * *fill || c->band_shift <= 0.75 * *shift;
}

/* The same on the device (pass mc_bounds): one extent per FCL_WG
 * particles comes back, 32 bytes per 256 particles instead of the
 * positions. */
static int bounds_dev(mc_ctx *x, fcl_buf *pos, size_t n, float lo[3], float hi[3], char *err, size_t errlen)
{
    size_t groups = (n + FCL_WG - 1) / FCL_WG;
    fcl_buf *ext = x->be->ops->buf_new(x->be, 2 * groups * sizeof(float4), "surface extents");
    float4 *e = malloc(2 * groups * sizeof *e);
    int rc = !ext || !e || pass_mc_bounds(x->be, groups, "mc-volume", pos, ext, (uint)n) != 0 ||
             x->be->ops->buf_read(x->be, ext, 0, 2 * groups * sizeof(float4), e) != 0;
    for (size_t k = 0; !rc && k < groups; k++) {
        if (e[2 * k].w != 0.0f) {
            snprintf(err, errlen, "a particle among %zu..%zu has a non-finite position", k * FCL_WG,
                     (k + 1) * FCL_WG - 1);
            rc = FCL_EXIT_INPUT;
        }
        const float a[3] = { e[2 * k].x, e[2 * k].y, e[2 * k].z }, b[3] = { e[2 * k + 1].x, e[2 * k + 1].y,
                                                                            e[2 * k + 1].z };
        for (int d = 0; d < 3; d++) {
            lo[d] = fminf(lo[d], a[d]);
            hi[d] = fmaxf(hi[d], b[d]);
        }
    }
    if (rc == 1)
        snprintf(err, errlen, "surface reconstruction of %zu particles: cannot read their extent on %s", n,
                 x->be->name);
    if (ext)
        x->be->ops->buf_free(x->be, ext);
    free(e);
    return rc == 1 ? FCL_EXIT_DEVICE : rc;
}

static int layout(const mc_config *c, float lo[3], float hi[3], size_t n, fcl_grid_info *g, fcl_mc_info *m,
                  char *err, size_t errlen)
{
    float reach = c->field == FCL_MC_ANISO && c->max_stretch > 1.0f ? c->max_stretch * c->h : c->h;
    double b = floor(reach / (c->cell * c->spacing) + 0.5);
    b = b < 1.0 ? 1.0 : b;
    /* Nodes a third of a cell off the particles' lattice: a flat lattice
     * surface lies half a spacing past its last layer, on a node plane
     * when the grid starts at a particle and the cell divides d / 2, and
     * the iso-value's ripple there made slivers (1.7x the triangles of a
     * mesh a third of a cell away, measured on a dam break's block). */
    float shift = (float)(0.3 * reach / b);
    for (int a = 0; a < 3; a++) {
        lo[a] -= reach + shift;
        hi[a] += 1.001f * reach;
    }
    if (grid_layout(g, lo, hi, reach, n, err, errlen) != 0)
        return -1;
    memset(m, 0, sizeof *m);
    m->b = (uint)b;
    m->origin = g->origin;
    m->cell = reach / (float)m->b;
    m->h = c->h;
    m->stretch = c->stretch;
    m->max_stretch = reach / c->h;
    m->inv_cell = 1.0f / m->cell;
    fcl_sph_consts k;
    smoothing_consts(&k, c->h);
    m->h2 = k.h2;
    m->poly6 = k.poly6;
    m->iso = (float)(c->iso * rest_value(c));
    m->volume = c->spacing * c->spacing * c->spacing;
    m->field = c->field;
    /* Tiles of 2 cells when the block splits evenly (t = 1 would let a
     * band cell's normal read an interior node), else the whole block. */
    double face_fill, face_shift;   /* a band that misses a flat face evaluates every tile */
    m->narrow = c->narrow && m->b >= 2 && mc_band_flags_face(c, &face_fill, &face_shift) ? 1u : 0u;
    m->t = m->narrow && m->b % 2u == 0u ? 2u : m->b;
    m->tpb = m->b / m->t;
    m->tnx = g->nx * m->tpb;
    m->tny = g->ny * m->tpb;
    m->tnz = g->nz * m->tpb;
    m->reach2 = reach * reach;
    m->band_m2 = c->band_shift * c->h * c->band_shift * c->h;
    m->band_fill = (float)(c->band_fill * smoothing_lattice_sum(c->h, c->spacing));
    m->band_spread = (float)(c->band_fill * lattice_spread(m, c->h, c->spacing));
    /* Counted in double first: g->nx * b alone can pass 2^32. */
    double nn[3] = { (double)g->nx * m->b + 1.0, (double)g->ny * m->b + 1.0, (double)g->nz * m->b + 1.0 };
    double nodes = nn[0] * nn[1] * nn[2], cells = (double)g->ncells * m->b * m->b * m->b;
    if (nodes > 4.0e9 || cells > 1.0e9) {
        snprintf(err, errlen, "surface grid of %.0f x %.0f x %.0f nodes (%.3g) is too large (at most 4e9 nodes and "
                 "1e9 cells): raise surface.cell (now %g spacings)", nn[0], nn[1], nn[2], nodes, c->cell);
        return -1;
    }
    m->nx = (uint)nn[0];
    m->ny = (uint)nn[1];
    m->nz = (uint)nn[2];
    return 0;
}

static fcl_buf *mk(mc_ctx *x, size_t count, size_t elem, const char *what)
{
    return x->be->ops->buf_new(x->be, (count ? count : 1) * elem, what);
}

static int read_u32(mc_ctx *x, fcl_buf *b, size_t i, uint *v)
{
    return x->be->ops->buf_read(x->be, b, i * sizeof(uint), sizeof(uint), v);
}

/* Grid, particle volumes and surface flags, and the list of blocks near
 * fluid. */
/* Particle attribute k of the reconstruction's grid from the input: an
 * upload of host values, or a copy on the device. */
static int fill(mc_ctx *x, mc_run *r, int k, const float4 *host, fcl_buf *dev)
{
    fcl_buf *dst = r->g.attr[k].cur;
    size_t n = r->g.info.n;
    return dev ? pass_mc_copy(x->be, n, "mc-volume", dev, dst)
               : x->be->ops->buf_write(x->be, dst, 0, n * sizeof(float4), host);
}

static int blocks(mc_ctx *x, mc_run *r, const mc_input *in)
{
    fcl_backend *be = x->be;
    const fcl_backend_ops *o = be->ops;
    fcl_grid_info *gi = &r->g.info;
    uint nc = gi->ncells, nc1 = nc + 1u;
    if (grid_add_attr(&r->g, be, "surface positions", 16) != 0 || fill(x, r, 0, in->pos, in->dpos) != 0)
        return -1;
    if (r->m.field == FCL_MC_ANISO &&
        (grid_add_attr(&r->g, be, "surface velocities", 16) != 1 || fill(x, r, 1, in->vel, in->dvel) != 0))
        return -1;
    if (grid_build(&r->g, be, 0) != 0)
        return -1;
    r->vol = mk(x, gi->n, sizeof(float), "surface volumes");
    r->surf = mk(x, gi->n, sizeof(uint), "surface particle flags");
    r->flag = mk(x, nc1, sizeof(uint), "surface block flags");
    r->csurf = mk(x, nc1, sizeof(uint), "surface block surface flags");
    r->blocks = mk(x, nc, sizeof(uint), "surface block list");
    if (!r->vol || !r->surf || !r->flag || !r->csurf || !r->blocks)
        return -1;
    fcl_buf *posb = r->g.attr[0].cur;
    if (pass_mc_volume(be, nc, "mc-volume", posb, r->g.start, r->vol, r->surf, *gi, r->m) != 0 ||
        pass_mc_block_flag(be, nc1, "mc-blocks", r->g.start, r->surf, r->flag, r->csurf, *gi) != 0 ||
        o->scan(be, r->flag, nc1, "mc-blocks") != 0 ||
        pass_mc_block_list(be, nc, "mc-blocks", r->flag, r->blocks) != 0 || read_u32(x, r->flag, nc, &r->nblocks) != 0)
        return -1;
    r->m.nblocks = r->nblocks;
    return 0;
}

/* Label the tiles of the listed blocks, keep the band, list it: label
 * (every tile's, cleared first: tiles of unlisted blocks are empty) ->
 * flag -> scan -> tile list and slots. */
static int tiles(mc_ctx *x, mc_run *r)
{
    fcl_backend *be = x->be;
    uint q = r->m.tpb, all = r->m.tnx * r->m.tny * r->m.tnz;
    r->ntiles = r->nblocks * q * q * q;
    r->label = mk(x, all, sizeof(uint), "surface tile labels");
    r->tflag = mk(x, r->ntiles + 1u, sizeof(uint), "surface tile flags");
    r->list = mk(x, r->ntiles, sizeof(uint), "surface tile list");
    r->slot = mk(x, all, sizeof(uint), "surface tile slots");
    if (!r->label || !r->tflag || !r->list || !r->slot)
        return -1;
    fcl_buf *posb = r->g.attr[0].cur;
    if (pass_grid_clear(be, all, "mc-band", r->label) != 0 ||
        pass_mc_tile_label(be, (size_t)r->nblocks * ((q * q * q + 7u) / 8u), "mc-label", posb, r->surf, r->g.start, r->csurf, r->blocks, r->label,
                           r->g.info, r->m) != 0 ||
        pass_mc_tile_flag(be, r->ntiles + 1u, "mc-band", r->blocks, r->label, r->tflag, r->g.info, r->m,
                          r->ntiles) != 0 ||
        be->ops->scan(be, r->tflag, r->ntiles + 1u, "mc-band") != 0 ||
        pass_mc_tile_list(be, r->ntiles, "mc-band", r->blocks, r->tflag, r->list, r->slot, r->label, r->g.info,
                          r->m) != 0 ||
        read_u32(x, r->tflag, r->ntiles, &r->nband) != 0)
        return -1;
    r->ncell = r->nband * r->m.t * r->m.t * r->m.t;
    return 0;
}

/* phi on the nodes of band tiles, zero elsewhere. */
static int field(mc_ctx *x, mc_run *r)
{
    fcl_backend *be = x->be;
    uint nodes = r->m.nx * r->m.ny * r->m.nz;
    r->phi = mk(x, nodes, sizeof(float), "surface field");
    if (!r->phi)
        return -1;
    /* Only the anisotropic field reads velocities; the others get a stand-in.
     * grid_clear zeroes the field's bits: 0.0f. */
    fcl_buf *vel = r->g.attr[r->g.nattr > 1 ? 1 : 0].cur;
    if (pass_grid_clear(be, nodes, "mc-field", r->phi) != 0)
        return -1;
    /* ceil(t/2)^3 items per listed tile for its own nodes, one for the
     * faces it shares with interior tiles off the list (mc.cl). */
    size_t q = (r->m.t + 1u) / 2u, own = (size_t)r->nband * q * q * q;
    fcl_buf *posb = r->g.attr[0].cur;
    if (own && pass_mc_field(be, own, "mc-field", posb, vel, r->vol, r->g.start, r->list, r->label, r->phi,
                             r->g.info, r->m) != 0)
        return -1;
    return r->nband ? pass_mc_field_face(be, r->nband, "mc-field", posb, vel, r->vol, r->g.start, r->list, r->label,
                                         r->phi, r->g.info, r->m)
                    : 0;
}

/* Case, triangle and owned-vertex counts per listed cell; their scans give
 * each cell's first triangle, first vertex and slot among active cells. */
static int classify(mc_ctx *x, mc_run *r)
{
    fcl_backend *be = x->be;
    const fcl_backend_ops *o = be->ops;
    uint n1 = r->ncell + 1u;
    r->ntri = mk(x, n1, sizeof(uint), "surface triangle offsets");
    r->nedge = mk(x, n1, sizeof(uint), "surface vertex offsets");
    r->act = mk(x, n1, sizeof(uint), "surface active offsets");
    if (!r->ntri || !r->nedge || !r->act)
        return -1;
    if (pass_mc_classify(be, n1, "mc-classify", r->phi, r->list, r->ntri, r->nedge, r->act, x->tables, r->m,
                         r->ncell) != 0 ||
        o->scan(be, r->ntri, n1, "mc-classify") != 0 || o->scan(be, r->nedge, n1, "mc-classify") != 0 ||
        o->scan(be, r->act, n1, "mc-classify") != 0 || read_u32(x, r->ntri, r->ncell, &r->ntris) != 0 ||
        read_u32(x, r->nedge, r->ncell, &r->nverts) != 0 || read_u32(x, r->act, r->ncell, &r->nact) != 0)
        return -1;
    return 0;
}

/* Compact the active cells, then vertices and triangles from them. */
static int generate(mc_ctx *x, mc_run *r)
{
    fcl_backend *be = x->be;
    r->cells = mk(x, r->nact, sizeof(uint), "surface active cells");
    r->vert = mk(x, r->nverts, sizeof(float4), "surface vertices");
    r->nrm = mk(x, r->nverts, sizeof(float4), "surface normals");
    r->tri = mk(x, 3 * (size_t)r->ntris, sizeof(uint), "surface triangles");
    if (!r->cells || !r->vert || !r->nrm || !r->tri)
        return -1;
    if (pass_mc_compact(be, r->ncell, "mc-mesh", r->act, r->cells) != 0 ||
        pass_mc_vertices(be, r->nact, "mc-mesh", r->phi, r->list, r->cells, r->nedge, r->label, r->vert, r->nrm,
                         r->m) != 0 ||
        pass_mc_triangles(be, r->nact, "mc-mesh", r->phi, r->list, r->slot, r->cells, r->ntri, r->nedge, r->tri,
                          x->tables, r->m) != 0)
        return -1;
    return 0;
}

static int download(mc_ctx *x, mc_run *r, mc_mesh *out)
{
    const fcl_backend_ops *o = x->be->ops;
    out->nv = r->nverts;
    out->nt = r->ntris;
    out->v = malloc(out->nv * sizeof(float4) + 16);
    out->n = malloc(out->nv * sizeof(float4) + 16);
    out->tri = malloc(3 * out->nt * sizeof(uint) + 16);
    if (!out->v || !out->n || !out->tri)
        return -1;
    if (out->nv && (o->buf_read(x->be, r->vert, 0, out->nv * sizeof(float4), out->v) != 0 ||
                    o->buf_read(x->be, r->nrm, 0, out->nv * sizeof(float4), out->n) != 0))
        return -1;
    if (out->nt && o->buf_read(x->be, r->tri, 0, 3 * out->nt * sizeof(uint), out->tri) != 0)
        return -1;
    return o->finish(x->be);
}

static void run_free(mc_ctx *x, mc_run *r)
{
    fcl_buf *b[] = { r->vol,  r->surf,  r->flag, r->csurf, r->blocks, r->label, r->tflag, r->list,
                     r->slot, r->phi,   r->ntri, r->nedge, r->act,    r->cells, r->vert,  r->nrm, r->tri };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        if (b[i])
            x->be->ops->buf_free(x->be, b[i]);
    if (r->have_grid)
        grid_free(&r->g, x->be);
}

int mc_mesh_nodes(mc_ctx *x, const fcl_mc_info *m, const float *phi, const uint *label, const uint *list, uint nlist,
                  const uint *slot, mc_mesh *out, char *err, size_t errlen)
{
    const fcl_backend_ops *o = x->be->ops;
    mc_run r;
    memset(&r, 0, sizeof r);
    memset(out, 0, sizeof *out);
    r.m = *m;
    r.nband = nlist;
    r.ncell = nlist * m->t * m->t * m->t;
    size_t nodes = (size_t)m->nx * m->ny * m->nz, tiles = (size_t)m->tnx * m->tny * m->tnz;
    r.phi = mk(x, nodes, sizeof(float), "level-set field");
    r.label = mk(x, tiles, sizeof(uint), "level-set tile labels");
    r.list = mk(x, nlist, sizeof(uint), "level-set tile list");
    r.slot = mk(x, tiles, sizeof(uint), "level-set tile slots");
    int rc = !r.phi || !r.label || !r.list || !r.slot || o->buf_write(x->be, r.phi, 0, nodes * sizeof(float), phi) ||
             o->buf_write(x->be, r.label, 0, tiles * sizeof(uint), label) ||
             (nlist && o->buf_write(x->be, r.list, 0, nlist * sizeof(uint), list)) ||
             o->buf_write(x->be, r.slot, 0, tiles * sizeof(uint), slot);
    if (rc == 0 && (rc = classify(x, &r)) == 0 && (rc = generate(x, &r)) == 0)
        rc = download(x, &r, out);
    x->last.active = r.nact;
    run_free(x, &r);
    if (rc != 0) {
        mc_mesh_free(out);
        snprintf(err, errlen, "marching cubes of a level set of %zu nodes failed on %s (out of device memory?)",
                 nodes, x->be->name);
        return FCL_EXIT_DEVICE;
    }
    return 0;
}

mc_input mc_input_host(const float4 *pos, const float4 *vel, size_t n)
{
    return (mc_input){ n, pos, vel, NULL, NULL, NULL, NULL };
}

mc_input mc_input_sim(fcl_sim *s)
{
    return (mc_input){ s->n, NULL, NULL, s->grid.attr[s->a_pos].cur, s->grid.attr[s->a_vev].cur, s, NULL };
}

/* The particles of the phases c->phase_mask names, as a host input over
 * *own (2 n float4, freed by the caller): a simulation's are read back
 * (its phase is pos.w), the only download on this path, and only when a
 * mask is set (surface.phases: a gas meshed with the liquid hid it; a
 * review). 0, or FCL_EXIT_DEVICE. */
static int phase_subset(mc_ctx *x, const mc_config *c, const mc_input *in, mc_input *sub, float4 **own)
{
    size_t n = in->n, k = 0;
    int dev = in->dpos != NULL, with_vel = dev ? in->dvel != NULL : in->vel != NULL;
    float4 *pos = malloc(2 * n * sizeof *pos + 32), *vel = pos ? pos + n : NULL;
    *own = pos;
    if (!pos || (dev && (x->be->ops->buf_read(x->be, in->dpos, 0, n * 16, pos) != 0 ||
                         (with_vel && x->be->ops->buf_read(x->be, in->dvel, 0, n * 16, vel) != 0))))
        return FCL_EXIT_DEVICE;
    for (size_t i = 0; i < n; i++) {
        float ph = dev ? pos[i].w : (in->phase ? in->phase[i] : 0.0f);
        unsigned b = ph >= 0.0f && ph < 32.0f ? (unsigned)ph : 31u;
        if (!((c->phase_mask >> b) & 1u))
            continue;
        float4 p = dev ? pos[i] : in->pos[i], v = with_vel ? (dev ? vel[i] : in->vel[i]) : p;
        pos[k] = p;   /* k <= i: in place for a download */
        vel[k++] = v;
    }
    *sub = (mc_input){ k, pos, with_vel ? vel : NULL, NULL, NULL, in->sim, NULL };
    return 0;
}

/* The grown bounding box, checked, and the node grid's size against the
 * device. */
static int plan(mc_ctx *x, const mc_config *c, const mc_input *in, fcl_grid_info *gi, fcl_mc_info *m, char *err,
                size_t errlen)
{
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    int rc = in->dpos ? bounds_dev(x, in->dpos, in->n, lo, hi, err, errlen)
                      : (bounds_host(in->pos, in->n, lo, hi, err, errlen) ? FCL_EXIT_INPUT : 0);
    if (rc != 0)
        return rc;
    const float lo0[3] = { lo[0], lo[1], lo[2] }, hi0[3] = { hi[0], hi[1], hi[2] };
    char why[512];
    if (layout(c, lo, hi, in->n, gi, m, why, sizeof why) != 0) {
        /* grid_layout speaks of the domain; here it is the particles'. */
        snprintf(err, errlen, "the %zu particles lie from (%g, %g, %g) to (%g, %g, %g): %s (a particle far from "
                 "the others?)", in->n, lo0[0], lo0[1], lo0[2], hi0[0], hi0[1], hi0[2], why);
        return FCL_EXIT_INPUT;
    }
    const double dlo[3] = { lo0[0], lo0[1], lo0[2] }, dhi[3] = { hi0[0], hi0[1], hi0[2] };
    if (mc_float_reach(dlo, dhi, m->cell, "surface", "surface.cell", err, errlen) != 0)
        return FCL_EXIT_INPUT;
    /* The field's node buffer is the largest; checked before any is made. */
    double field_bytes = 4.0 * m->nx * m->ny * m->nz;
    if (field_bytes > (double)x->be->max_alloc || field_bytes > 0.9 * (double)x->be->mem_bytes) {
        snprintf(err, errlen, "surface grid of %u x %u x %u nodes needs %.1f MiB for its field, more than %s holds "
                 "(%.1f MiB, largest buffer %.1f MiB): raise surface.cell (now %g spacings)", m->nx, m->ny, m->nz,
                 field_bytes / 1048576.0, x->be->name, x->be->mem_bytes / 1048576.0, x->be->max_alloc / 1048576.0,
                 c->cell);
        return FCL_EXIT_INPUT;
    }
    return 0;
}

/* The anisotropic field reads velocities: -1 with err when there are none. */
static int check_velocities(const mc_config *c, const mc_input *in, char *err, size_t errlen)
{
    if (c->field != FCL_MC_ANISO || (in->dpos ? in->dvel != NULL : in->vel != NULL))
        return 0;
    snprintf(err, errlen, "surface.field anisotropic needs particle velocities, and none were given");
    return -1;
}

int mc_check_input(mc_ctx *x, const mc_config *c, const mc_input *in, char *err, size_t errlen)
{
    fcl_grid_info gi;
    fcl_mc_info m;
    if (c->method == MC_METHOD_LEVELSET)
        return ls_check(x, c, in, err, errlen);
    if (c->method == MC_METHOD_GRID || in->n == 0)
        return 0;
    return check_velocities(c, in, err, errlen) != 0 ? FCL_EXIT_INPUT : plan(x, c, in, &gi, &m, err, errlen);
}

int mc_reconstruct_in(mc_ctx *x, const mc_config *c, const mc_input *in, mc_mesh *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    memset(&x->last, 0, sizeof x->last);
    /* The level set continues the previous frame's phi only when that
     * frame was meshed by it too: a run of another method in between (the
     * viewer's panel can switch) left it stale. */
    if (c->method == MC_METHOD_LEVELSET && x->ls && x->last_method != MC_METHOD_LEVELSET)
        mc_forget(x);
    x->last_method = c->method;
    if (c->phase_mask && c->method != MC_METHOD_GRID) {
        mc_input sub;
        float4 *own = NULL;
        mc_config all = *c;
        all.phase_mask = 0;
        int rc = phase_subset(x, c, in, &sub, &own);
        if (rc != 0)
            snprintf(err, errlen, "reading the particles' phases for surface.phases failed on %s", x->be->name);
        rc = rc == 0 ? mc_reconstruct_in(x, &all, &sub, out, err, errlen) : rc;
        free(own);
        return rc;
    }
    if (c->method == MC_METHOD_LEVELSET)
        return ls_reconstruct(x, c, in, out, err, errlen);
    if (c->method == MC_METHOD_GRID)
        return mc_grid_mesh(x, c, in->sim, out, err, errlen);
    if (in->n == 0)
        return 0;
    if (check_velocities(c, in, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    mc_run r;
    memset(&r, 0, sizeof r);
    fcl_grid_info gi;
    int rc = plan(x, c, in, &gi, &r.m, err, errlen);
    if (rc != 0)
        return rc;
    rc = grid_init(&r.g, x->be, &gi);
    r.have_grid = 1;
    if (rc == 0 && (rc = blocks(x, &r, in)) == 0 && (rc = tiles(x, &r)) == 0 && (rc = field(x, &r)) == 0 &&
        (rc = classify(x, &r)) == 0)
        rc = generate(x, &r);
    if (rc == 0)
        rc = download(x, &r, out);
    x->last = (mc_stats){ .blocks = r.nblocks, .tiles = r.ntiles, .band_tiles = r.nband,
                          .nodes = (size_t)r.m.nx * r.m.ny * r.m.nz, .cells = r.ncell, .active = r.nact,
                          .node_cell = r.m.cell, .tile = r.m.t };
    run_free(x, &r);
    if (rc != 0) {
        mc_mesh_free(out);
        snprintf(err, errlen, "surface reconstruction of %zu particles failed on %s (out of device memory? its grid "
                 "has %u x %u x %u nodes: a larger surface.cell, now %g spacings, takes fewer)", in->n, x->be->name,
                 r.m.nx, r.m.ny, r.m.nz, c->cell);
        return FCL_EXIT_DEVICE;
    }
    /* Optional smoothing and decimation (mesh_post.c), in cells of r.m. */
    const mesh_post_config pc = { c->smooth_iterations, c->smooth_feature, c->decimate, c->decimate_error, r.m.cell };
    if ((rc = mesh_postprocess(out, &pc, err, errlen)) != 0) {
        mc_mesh_free(out);
        return rc == -2 ? FCL_EXIT_INPUT : FCL_EXIT_DEVICE;
    }
    return 0;
}

int mc_reconstruct(mc_ctx *x, const mc_config *c, const float4 *pos, const float4 *vel, size_t n, mc_mesh *out,
                   char *err, size_t errlen)
{
    mc_input in = mc_input_host(pos, vel, n);
    return mc_reconstruct_in(x, c, &in, out, err, errlen);
}
