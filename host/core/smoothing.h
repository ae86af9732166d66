/* smoothing.h (host) - normalisation constants of the smoothing kernels in
 * kernels/smoothing.h, computed once per support radius on the host.
 */
#ifndef FCL_HOST_SMOOTHING_H
#define FCL_HOST_SMOOTHING_H

#include "../../kernels/fcl_types.h"

/* Fill h, h2, the poly6/spiky/viscosity constants of c and akinci_c, the
 * constant of Akinci 2013's cohesion spline (kernels/forces.cl). */
void smoothing_consts(fcl_sph_consts *c, float h);
/* Value constants (the passes need only derivatives of spiky/viscosity). */
float smoothing_spiky_coef(float h);
float smoothing_visc_coef(float h);
/* Sum of W_poly6 over an infinite cubic lattice of the given spacing,
 * centred on a lattice point: the density of a fluid at rest is
 * mass * this sum, so mass = rho0 / sum. */
double smoothing_lattice_sum(float h, float spacing);
/* The same for kernel `kind` (FCL_KERNEL_*: poly6, cubic spline, spiky); *count (may be
 * NULL) gets the number of lattice points within the support. */
double smoothing_lattice_sum_of(unsigned kind, float h, float spacing, unsigned *count);

/* Cubic spline constants: k for W, l / h^2 for the gradient factor g. */
float smoothing_cubic_k(float h);
float smoothing_cubic_l_over_h2(float h);
/* Fill lookup tables of n >= 2 samples over q in [0, 1]: W(q) into w and
 * g(q) (grad W = x_ij g) into g; either may be NULL. */
void smoothing_cubic_tables(float h, unsigned n, float *w, float *g);

/* Akinci's boundary volumes V_b = 1 / sum_k W_bk give walls of `layers`
 * layers of particles at the mirror positions of the fluid lattice
 * (starting half a spacing d outside the wall) the wrong weight: one
 * layer stands in for the whole solid. gamma scales V_b so that a fluid
 * lattice at rest next to a flat wall has exactly rho0, for kernel `kind`
 * (FCL_KERNEL_*) and support h; edges and corners then stay within 3 %
 * (poly6) and 1.5 % (cubic) of rho0 with one layer. */
double smoothing_wall_gamma(unsigned kind, float h, float d, int layers);

#endif
