/* pbf_targets.c - the scene's fluid-control targets (host/scene/targets.h)
 * sampled into control particles for the pbf solver: each shape becomes
 * a closed mesh (boxes and spheres too), voxelized at the sampling
 * interval control.spacing x H with the seed's refinement
 * (control_sample.h), through the sampling cache of boundary.cache_dir.
 * Invariant: particle i of the result belongs to target owner[i] and
 * carries that target's alpha in w (-1: control.alpha, read live).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"
#include "boundary.h"
#include "control.h"
#include "control_sample.h"
#include "control_skin.h"
#include "pbf.h"
#include "targets.h"

/* An icosphere whose edges are at most half a voxel before refinement
 * (about 1.05 r / 2^k), so the facets sit well within the sampling error. */
static int sphere_mesh(const fcl_obstacle *o, double voxel, fcl_mesh *m)
{
    int k = 0;
    while (k < 7 && 1.05 * o->radius / ldexp(1.0, k) > 0.5 * voxel)
        k++;
    return ctl_mesh_sphere(o->center, o->radius, k, m);
}

static int shape_mesh(const fcl_obstacle *o, double voxel, size_t limit, fcl_mesh *m, const char *where, char *err,
                      size_t errlen)
{
    int rc;
    if (o->kind == FCL_SHAPE_BOX)
        rc = ctl_mesh_box(o->min, o->max, m);
    else if (o->kind == FCL_SHAPE_SPHERE)
        rc = sphere_mesh(o, voxel, m);
    else {
        char why[768];
        if (obj_load(o->file, limit, m, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s.shape.file: %s", where, why);
            return -1;
        }
        obj_place(m, o->scale, o->translate);
        return 0;
    }
    if (rc != 0)
        snprintf(err, errlen, "%s.shape: the %s could not be meshed", where, o->kind == FCL_SHAPE_BOX ? "box" : "sphere");
    return rc;
}

/* The skeleton's binding weights of a target's particles (seed 001
 * eqs. 1-2, geodesic through its voxels): *w is malloc'd, n x nbones. */
static int bind(const fcl_target *t, const fcl_ctl_points *cp, double alpha, float **w, const char *where, char *err,
                size_t errlen)
{
    char why[512];
    *w = NULL;
    if (!t->skeleton)
        return 0;
    *w = malloc((cp->n * (size_t)t->skeleton->nbones + 1) * sizeof **w);
    size_t fell = 0;
    if (*w && ctl_skin_weights(t->skeleton, cp, alpha, *w, &fell, why, sizeof why) == 0) {
        /* Bones outside the target (joints placed apart from it) reach no
         * particle through its voxels: said, since the binding then is
         * by straight-line distance, not the seed's geodesic (it was
         * silent; a review). */
        if (fell > 0)
            fprintf(stderr, "fluidcl: note: %s.skeleton: %zu of the target's %zu control particles are reached by no "
                    "bone through its voxels (are the joints inside it?): bound by straight-line distance\n", where,
                    fell, cp->n);
        return 0;
    }
    snprintf(err, errlen, "%s.skeleton: %s", where, *w ? why : "out of memory for the binding weights");
    return -1;
}

/* Under one control radius H across, the few control particles pull
 * fluid to fill their whole H-balls: the fluid takes a ball of about H,
 * not the shape (a 1 mm cube at 1 cm spacing ran with 8 of them without a
 * word; a review). */
static void note_small(const char *where, float ext, double H, size_t n)
{
    if (ext < H)
        fprintf(stderr, "fluidcl: note: %s spans %.3g m, less than the control radius H = %.3g m: the fluid it "
                "gathers takes the shape of its %zu control particles' H-balls, not the target's\n", where, ext, H, n);
}

/* Append target g's particles to the growing arrays. */
static int add_target(const fcl_target *t, int g, double voxel, double H, double skin_alpha, const char *cache,
                      size_t limit,
                      size_t max_points, float4 **pts, int **owner, float **weights, size_t *n, char *err,
                      size_t errlen)
{
    char where[32], why[768];
    snprintf(where, sizeof where, "targets[%d]", g);
    fcl_mesh m = { 0 };
    fcl_ctl_points cp = { 0 };
    if (shape_mesh(&t->shape, voxel, limit, &m, where, err, errlen) != 0)
        return -1;
    float lo[3], hi[3];
    obj_bounds(&m, lo, hi);
    float ext = fmaxf(fmaxf(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
    int rc = ctl_sample_cached(&m, voxel, cache, max_points > *n ? max_points - *n : 1, &cp, NULL, why, sizeof why);
    obj_free(&m);
    if (rc != 0) {
        if (*n > 0)   /* the budget is all targets' (a review: "the 1 ... takes") */
            snprintf(err, errlen, "%s: %s (the earlier targets hold %zu of the %zu control particles it takes)", where,
                     why, *n, max_points);
        else
            snprintf(err, errlen, "%s: %s", where, why);
        return -1;
    }
    note_small(where, ext, H, cp.n);
    if (bind(t, &cp, skin_alpha, weights, where, err, errlen) != 0) {
        ctl_points_free(&cp);
        return -1;
    }
    float4 *p = realloc(*pts, (*n + cp.n + 1) * sizeof *p);
    int *o = p ? realloc(*owner, (*n + cp.n + 1) * sizeof *o) : NULL;
    if (p)
        *pts = p;
    if (o)
        *owner = o;
    if (!p || !o) {
        ctl_points_free(&cp);
        snprintf(err, errlen, "%s: out of memory for %zu control particles", where, *n + cp.n);
        return -1;
    }
    for (size_t i = 0; i < cp.n; i++) {
        p[*n + i] = cp.pos[i];
        p[*n + i].w = t->alpha;
        o[*n + i] = g;
    }
    *n += cp.n;
    ctl_points_free(&cp);
    return 0;
}

int pbf_targets_sample(const fcl_sim *s, const fcl_target *t, int nt, float4 **pts, int **owner, float ***weights,
                       size_t *n, char *err, size_t errlen)
{
    char dir[1024];
    double voxel = control_interval(s);
    const char *cache = boundary_cache_dir(s->prm, dir, sizeof dir) == 0 ? dir : NULL;
    *pts = NULL;
    *owner = NULL;
    *n = 0;
    *weights = calloc((size_t)nt + 1, sizeof **weights);
    if (!*weights) {
        snprintf(err, errlen, "targets: out of memory");
        return -1;
    }
    /* Half the device's memory for all targets' control particles: the
     * fluid's check (sim.c) takes the rest into account only later. */
    size_t max_points = (size_t)(0.5 * (double)s->be->mem_bytes / (double)control_bytes_per_point(s)) + 1;
    for (int g = 0; g < nt; g++)
        if (add_target(&t[g], g, voxel, s->prm->control_radius * s->h, s->prm->control_skin_alpha, cache, infile_limit(s->prm), max_points, pts,
                       owner, &(*weights)[g], n, err, errlen) != 0)
            return -1;
    return 0;
}
