/* sim_solids.c - the obstacles as the integrators' solids (fcl_solid, in
 * kernels/fcl_types.h): boxes and spheres grown by half a spacing,
 * polygons as their triangles' slabs, meshes as signed-distance fields,
 * in one device array the solid_exit of every solver reads.
 * Invariant: s->solids holds s->nsolids entries for the obstacles last
 * given to sim_set_solids (meshes after the other kinds), and a failed
 * call leaves the previous array in place.
 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boundary_mesh.h"
#include "infile.h"
#include "obj.h"
#include "polygon.h"
#include "scene.h"

/* A polygon's triangles as fcl_solid: the slab from `grow` in front to
 * its thickness (or boundary.layers spacings) behind. Writes to out unless
 * it is NULL; returns the count either way. */
static uint polygon_solids(const fcl_obstacle *o, float grow, float depth, fcl_solid *out)
{
    fcl_polygon_frame f;
    int tri[FCL_POLY_MAX][3];
    polygon_frame(o, &f);
    int nt = polygon_triangulate(&f, tri);
    for (int t = 0; out && t < nt; t++) {
        const float *a = o->poly[tri[t][0]], *b = o->poly[tri[t][1]], *c = o->poly[tri[t][2]];
        memset(&out[t], 0, sizeof out[t]);
        out[t].kind = FCL_SOLID_TRIANGLE;
        out[t].a = fcl_f4(a[0], a[1], a[2], o->thickness > 0.0f ? o->thickness : depth);
        out[t].b = fcl_f4(b[0], b[1], b[2], grow);
        out[t].c = fcl_f4(c[0], c[1], c[2], 0.0f);
    }
    return (uint)nt;
}

/* A grown box's face at or past a domain wall moved far out: a particle
 * (clamped inside the walls first) must never leave the box through it,
 * which would put it outside the domain. */
static float face_past_wall(float face, float wall, float side)
{
    return side < 0.0f ? (face <= wall ? wall - 1e7f : face) : (face >= wall ? wall + 1e7f : face);
}

/* Boxes and spheres as fcl_solid, grown by half a spacing, and polygons
 * as their triangles' slabs; meshes follow (solid_entries). out may be
 * NULL: count only. */
static uint solids_from(const fcl_obstacle *obs, int n, float grow, float depth, const float dmin[3],
                        const float dmax[3], fcl_solid *out)
{
    uint k = 0;
    for (int i = 0; i < n; i++) {
        const fcl_obstacle *o = &obs[i];
        fcl_solid *s = out ? &out[k] : NULL;
        if (o->kind == FCL_SHAPE_POLYGON) {
            k += polygon_solids(o, grow, depth, s);
            continue;
        }
        if (o->kind == FCL_SHAPE_MESH)
            continue;
        k++;
        if (!s)
            continue;
        memset(s, 0, sizeof *s);
        if (o->kind == FCL_SHAPE_BOX) {
            s->kind = FCL_SOLID_BOX;
            float lo[3], hi[3];
            for (int a = 0; a < 3; a++) {
                lo[a] = face_past_wall(o->min[a] - grow, dmin[a], -1.0f);
                hi[a] = face_past_wall(o->max[a] + grow, dmax[a], 1.0f);
            }
            s->a = fcl_f4(lo[0], lo[1], lo[2], 0.0f);
            s->b = fcl_f4(hi[0], hi[1], hi[2], 0.0f);
        } else {
            s->kind = FCL_SOLID_SPHERE;
            s->a = fcl_f4(o->center[0], o->center[1], o->center[2], o->radius + grow);
        }
    }
    return k;
}

/* A mesh obstacle's signed distance field as fcl_solid entries (host
 * mesh_sdf.c), the mesh placed as boundary.c places it. */
static int mesh_field(const fcl_obstacle *o, const fcl_params *p, float spacing, float grow, fcl_solid **out,
                      unsigned *count)
{
    fcl_mesh m;
    char why[1200];
    if (obj_load(o->file, infile_limit(p), &m, why, sizeof why) != 0) {
        fprintf(stderr, "fluidcl: obstacle %s: %s\n", o->file, why);
        return -1;
    }
    obj_place_exact(&m, o->scale, o->translate);
    int rc = boundary_mesh_sdf(&m, p->domain_min, p->domain_max, spacing, grow, out, count);
    obj_free(&m);
    return rc;
}

/* The solids, then each mesh's field, in one array (*k entries). */
static fcl_solid *solid_entries(fcl_sim *s, const fcl_obstacle *obs, int n, uint *k)
{
    float grow = 0.5f * s->spacing, depth = (float)s->prm->boundary_layers * s->spacing;
    const float *dmin = s->prm->domain_min, *dmax = s->prm->domain_max;
    size_t total = solids_from(obs, n, grow, depth, dmin, dmax, NULL);
    fcl_solid **field = calloc((size_t)n + 1, sizeof *field), *all = NULL;
    unsigned *count = calloc((size_t)n + 1, sizeof *count);
    int ok = field && count;
    for (int i = 0; ok && i < n; i++)
        if (obs[i].kind == FCL_SHAPE_MESH) {
            ok = mesh_field(&obs[i], s->prm, s->spacing, grow, &field[i], &count[i]) == 0;
            total += ok ? count[i] : 0;
        }
    if (ok && (all = malloc((total + 1) * sizeof *all)) != NULL) {
        *k = solids_from(obs, n, grow, depth, dmin, dmax, all);
        for (int i = 0; i < n; i++) {
            if (count[i])   /* NULL for the other kinds: no memcpy from it (UBSan stopped there) */
                memcpy(all + *k, field[i], (size_t)count[i] * sizeof *all);
            *k += count[i];
        }
    }
    for (int i = 0; field && i < n; i++)
        free(field[i]);
    free(field);
    free(count);
    return all;
}

int sim_set_solids(fcl_sim *s, const fcl_obstacle *obs, int n)
{
    fcl_backend *be = s->be;
    uint k = 0;
    fcl_solid *tmp = solid_entries(s, obs, n, &k);
    if (!tmp)
        return FCL_EXIT_DEVICE;
    fcl_buf *buf = be->ops->buf_new(be, (k ? k : 1) * sizeof(fcl_solid), "obstacles");
    int rc = !buf || (k && be->ops->buf_write(be, buf, 0, k * sizeof(fcl_solid), tmp) != 0) ? FCL_EXIT_DEVICE : 0;
    free(tmp);
    if (rc != 0) {
        if (buf)
            be->ops->buf_free(be, buf);
        return rc;
    }
    be->ops->buf_free(be, s->solids);
    s->solids = buf;
    s->nsolids = k;
    s->nmeshes = 0;
    for (int i = 0; i < n; i++)
        s->nmeshes += obs[i].kind == FCL_SHAPE_MESH;
    sim_update_consts(s);
    return 0;
}
