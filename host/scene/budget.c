/* budget.c - a scene's sizes in closed form (budget.h): grid cells over
 * the domain, the fluid blocks' lattices, the samples of every layer of the
 * walls and of box obstacles, as boundary_layers.c would take them (within
 * its clip), and upper bounds of spheres' and polygons' samples.
 * Invariant: nothing here loops over particles or samples, so a check
 * takes microseconds whatever the scene asks for.
 */
#include "budget.h"
#include "boundary_layers.h"
#include "overlap.h"
#include "polygon.h"
#include "sampler.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


/* Lattice points inside a sphere of radius r at spacing d, at least: the
 * cells of the points cover the ball of radius r - d sqrt(3)/2. */
static double sphere_points_min(double r, double d)
{
    double q = r / d - 0.8660254;
    return q > 0.0 ? 4.18879 * q * q * q : 0.0;
}

/* Block i's extent, the box or the sphere's bounding box. */
static void block_extent(const fcl_block *k, double e[6])
{
    for (int a = 0; a < 3; a++) {
        e[a] = k->kind == FCL_SHAPE_BOX ? k->min[a] : (double)k->center[a] - k->radius;
        e[3 + a] = k->kind == FCL_SHAPE_BOX ? k->max[a] : (double)k->center[a] + k->radius;
    }
}

/* Whether block i comes within r of an earlier block: then overlap.c may
 * drop any of its points, and only the earlier blocks' count is sure. */
static int meets_earlier(const fcl_scene *sc, int i, double r)
{
    double a[6], b[6];
    block_extent(&sc->blocks[i], a);
    for (int j = 0; j < i; j++) {
        block_extent(&sc->blocks[j], b);
        int apart = 0;
        for (int k = 0; k < 3; k++)
            apart |= a[k] > b[3 + k] + r || b[k] > a[3 + k] + r;
        if (!apart)
            return 1;
    }
    return 0;
}

static void fluid_sizes(const fcl_scene *sc, const fcl_params *p, fcl_budget *b)
{
    double d = p->particles_spacing;
    b->fluid_lattice = scene_count_bound(sc, p);
    b->fluid_min = 0.0;
    for (int i = 0; i < sc->nblocks; i++) {
        const fcl_block *k = &sc->blocks[i];
        if (meets_earlier(sc, i, 1.01 * OVERLAP_REACH * d))
            continue;
        if (k->kind == FCL_SHAPE_BOX) {
            fcl_scene one = *sc;
            one.blocks = (fcl_block *)k;
            one.nblocks = 1;
            b->fluid_min += scene_count_bound(&one, p);
        } else {
            b->fluid_min += sphere_points_min(k->radius, d);
        }
    }
}

/* Samples of an obstacle's layers as boundary_layers.c takes them, those
 * in clip (boundary_clip): boxes exactly while the clip holds them, and
 * spheres; polygons bounded above; meshes are bounded once loaded. A 100 m
 * box over a 20 cm domain counted 10^9 samples and was refused for them. */
static double obstacle_samples(const fcl_obstacle *o, double d, int layers, const float *clip, const float *dlo)
{
    double total = 0.0;
    for (int k = 0; k < layers; k++) {
        float fl[3], fh[3], rk;
        int kind;
        if (o->kind == FCL_SHAPE_BOX && boundary_box_layer(o->min, o->max, (float)d, k, fl, fh))
            total += sampler_box_bound(fl, fh, (float)d, clip);
        else if (o->kind == FCL_SHAPE_SPHERE && (kind = boundary_sphere_layer(o->radius, (float)d, k, &rk)) != 0)
            total += kind == 2 ? 1.0 : sampler_sphere_bound(o->center, rk, (float)d, clip);
    }
    if (o->kind == FCL_SHAPE_POLYGON) {
        fcl_polygon_frame f;
        double at[3] = { dlo[0] + 0.5 * d, dlo[1] + 0.5 * d, dlo[2] + 0.5 * d };   /* as boundary_layers.c */
        polygon_frame(o, &f);
        polygon_align(&f, at, d);
        total = boundary_polygon_layers(o, (float)d, layers) * polygon_sample_max(&f, d, clip);
    }
    return total;
}

static void boundary_sizes(const fcl_scene *sc, const fcl_params *p, fcl_budget *b)
{
    double d = p->particles_spacing;
    int layers = (int)p->boundary_layers;
    float clip[6];
    boundary_clip(p, clip);
    b->walls = 0.0;
    /* As sampled under boundary.walls = particles; mac samples none there
     * (boundary_wall_particles), which this bound, built without the
     * solver registry (the fuzzers link it alone), counts anyway. */
    for (int k = 0; strcmp(p->boundary_walls, "particles") == 0 && k < layers; k++) {
        float lo[3], hi[3];
        boundary_wall_shell(p, k, lo, hi);
        b->walls += sampler_box_bound(lo, hi, (float)d, NULL);   /* the shell sampler_box walks, exactly */
    }
    b->obstacles = 0.0;
    for (int i = 0; i < sc->nobstacles; i++)
        b->obstacles += obstacle_samples(&sc->obstacles[i], d, layers, clip, p->domain_min);
}

/* Grid cells of support-radius width over the domain. */
static double grid_cells(const fcl_params *p, double dims[3])
{
    double h = (double)p->particles_support * p->particles_spacing, total = 1.0;
    for (int k = 0; k < 3; k++) {
        dims[k] = ceil(((double)p->domain_max[k] - p->domain_min[k]) / h);
        dims[k] = dims[k] < 1.0 ? 1.0 : dims[k];
        total *= dims[k];
    }
    return total;
}

static int refuse_counts(const fcl_scene *sc, const fcl_params *p, const fcl_budget *b, const double dims[3],
                         char *err, size_t errlen)
{
    const float *lo = p->domain_min, *hi = p->domain_max;
    double d = p->particles_spacing;
    if (b->cells > 4.0e9)
        snprintf(err, errlen, "%s: particles.spacing: %g m: the domain [%g, %g, %g] - [%g, %g, %g] spans "
                 "%.0f x %.0f x %.0f = %.3g grid cells of %g m (particles.support %g spacings), more than 4e9: "
                 "expected a larger spacing or a smaller domain", sc->file, d, lo[0], lo[1], lo[2], hi[0], hi[1],
                 hi[2], dims[0], dims[1], dims[2], b->cells, d * p->particles_support, (double)p->particles_support);
    else if (b->fluid_lattice > BUDGET_INDEX_MAX)
        snprintf(err, errlen, "%s: particles.spacing: %g m: the fluid blocks span %.3g lattice points, more than "
                 "fluidcl indexes (4e9): expected a larger spacing or a smaller fluid", sc->file, d, b->fluid_lattice);
    else if (b->walls > BUDGET_INDEX_MAX)
        snprintf(err, errlen, "%s: particles.spacing: %g m: the domain walls take %.3g boundary particles, more than "
                 "fluidcl indexes (4e9): expected a larger spacing, a smaller domain or boundary.walls = mirror",
                 sc->file, d, b->walls);
    else if (b->walls + b->obstacles > BUDGET_INDEX_MAX)
        snprintf(err, errlen, "%s: obstacles: at particles.spacing %g m they take %.3g boundary particles (walls "
                 "%.3g), more than fluidcl indexes (4e9): expected a larger spacing or smaller obstacles",
                 sc->file, d, b->obstacles, b->walls);
    else
        return 0;
    return -1;
}

int budget_check(const fcl_scene *sc, const fcl_params *p, fcl_budget *out, char *err, size_t errlen)
{
    fcl_budget b;
    double dims[3];
    b.cells = grid_cells(p, dims);
    fluid_sizes(sc, p, &b);
    boundary_sizes(sc, p, &b);
    if (out)
        *out = b;
    return refuse_counts(sc, p, &b, dims, err, errlen);
}
