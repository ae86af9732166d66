/* mps.h - what the mps solver (mps.c) offers beyond the solver interface:
 * its lattice constants, and its pressure system for tests and tools.
 * Invariant: these read the last step's system; they change nothing but
 * the pressure (mps_resolve), which the next step overwrites anyway.
 */
#ifndef FCL_MPS_H
#define FCL_MPS_H

#include <stddef.h>

#include "pcg.h"

struct fcl_sim;

/* The last step's system into host arrays of s->n values (coef: fluid
 * list cap * s->n entries in the list layout): diagonal, right-hand side,
 * solution. 0 or -1. */
int mps_system(struct fcl_sim *s, float *diag, float *rhs, float *x, float *coef);
/* The constants the passes get this step (kernels/mps.cl). */
const struct fcl_mps_consts *mps_consts(const struct fcl_sim *s);
/* Fluid of the last step's system that no free surface reaches
 * (sealed.c; the search a solve that did not converge runs): 1 with msg,
 * 0 when none, -1 on a device failure. */
int mps_sealed(struct fcl_sim *s, char *msg, size_t len);
/* Solve the last step's system again from zero with these options, as a
 * solve of its own (the run's CG stall floor neither used nor changed). */
int mps_resolve(struct fcl_sim *s, const fcl_pcg_opts *o, fcl_pcg_result *res, char *err, size_t errlen);

#endif
