/* levelset.h - the level-set surface (surface.method levelset; Premoze et
 * al. 2003 s4): a signed distance phi (> 0 inside) on its own node grid,
 * moved by dphi/dt = |grad phi| (F + beta r kappa) toward the zero set of
 * the particles' speed field F = T + sum_i f_i, updated only near the
 * front (narrow band), continued from the previous frame's phi, and meshed
 * by the marching cubes of mc.c. The state lives in mc_ctx.ls.
 * Invariant: between frames phi is a signed distance within
 * surface.ls_band cells of its zero set and +-(band + 1) cells elsewhere;
 * the outer layers of the grid are outside.
 */
#ifndef FCL_LEVELSET_H
#define FCL_LEVELSET_H

#include "mc.h"

/* One frame: F from the particles (downloaded when they live on the
 * device), phi from the previous frame's (or from F = 0 on the first, or
 * after a change of surface.ls_cell or ls_band), the PDE until a step
 * moves no front node more than surface.ls_tolerance cells, then marching
 * cubes and mesh_post.c. Stats in x->last. 0, FCL_EXIT_INPUT (a grid too
 * large for memory, non-finite positions; err says which) or
 * FCL_EXIT_DEVICE. */
int ls_reconstruct(mc_ctx *x, const mc_config *c, const mc_input *in, mc_mesh *out, char *err, size_t errlen);
void ls_free(struct ls_state *s);
/* What ls_reconstruct would refuse for these particles (non-finite
 * positions, a grid too large), before any grid is made or changed: 0 or
 * FCL_EXIT_INPUT with err. */
int ls_check(mc_ctx *x, const mc_config *c, const mc_input *in, char *err, size_t errlen);
/* The speed F inside resting fluid (a cubic lattice at c->spacing,
 * unstretched), where it is lowest: between 8 particles, 0.866 spacings
 * from them. At or below 0 the mesh is empty or eaten whatever the
 * particles (smooth: ls_truncation 1, ls_radius 0.05 or 0.35 or
 * ls_threshold -1000 gave 0 triangles with exit 0; smooth ls_radius 0.4,
 * F = 0.04 there, meshes; binary: ls_radius 0.35 and 0.4 ate a 20 x 10 x
 * 20 block to 0.67 and 0.85 of its volume, the gaps between particles
 * lined up into tunnels). Not sufficient: binary ls_radius 0.45 passes
 * and meshes that block at 0.92, and binary at ls_threshold -1.4 passes
 * and meshes a dam break's block as a speck of 8 triangles (run and
 * surface warn of an empty mesh or a speck: cli_warn_hollow). */
float ls_rest_speed(const mc_config *c);
/* The constant T of F in use: surface.ls_threshold, or when 0 the field's
 * own (-2 smooth, -0.5 binary). */
float ls_threshold_of(const mc_config *c);

/* phi at a point (m, trilinear; -(band + 1) cells off the grid), for
 * measurements: a signed distance to the last frame's surface within the
 * band. NAN when there is no state. */
double ls_phi_at(const mc_ctx *x, double px, double py, double pz);

/* Test hook for the sign of the PDE: lays out the grid for these particles
 * and starts phi as the signed distance to a sphere, so that the next
 * ls_reconstruct continues from it (with no seeding of fluid outside the
 * band, which would otherwise fill the particles' surface at once). */
int ls_start_sphere(mc_ctx *x, const mc_config *c, const mc_input *in, const float centre[3], float radius,
                    char *err, size_t errlen);

#endif
