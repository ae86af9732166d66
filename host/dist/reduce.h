/* reduce.h - the one place where host-side figures are combined across
 * the processes of a run. Every statistic the host folds from device
 * partials (the step statistics, a solver's convergence averages) passes
 * through these after its local fold, so a multi-process build replaces
 * this file's implementation (MPI_Allreduce) and nothing else.
 * Invariant: single-process builds return their argument unchanged, so
 * results are bit-identical to folding without them.
 */
#ifndef FCL_REDUCE_H
#define FCL_REDUCE_H

#include <stdint.h>

double fcl_reduce_sum(double local);
double fcl_reduce_max(double local);
/* The smallest over processes (global particle ids, first blow-up). */
uint64_t fcl_reduce_min_u64(uint64_t local);
/* This process's rank and the number of processes (0 and 1 here). */
int fcl_rank(void);
int fcl_nranks(void);

#endif
