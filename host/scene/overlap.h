/* overlap.h - overlapping fluid blocks merged into their union (overlap.c). */
#ifndef FCL_OVERLAP_H
#define FCL_OVERLAP_H

#include <stddef.h>

#include "../../kernels/fcl_common.h"

/* A later block's point this close to an earlier block's, in spacings, is
 * dropped (overlap.c says why 0.9). */
#define OVERLAP_REACH 0.9

/* The blocks' points lie in pos/vel block after block, block b ending at
 * ends[b]. Drops each point within 0.9 spacings sp of a point of an
 * earlier block, compacting the arrays in order; ends[b] becomes the new
 * end of block b and dropped[b] how many it lost. 0, or -1 when the host
 * memory for the test (two size_t a point, only when blocks come near each
 * other) is missing. */
int overlap_merge(float4 *pos, float4 *vel, size_t *ends, int nblocks, float sp, size_t *dropped);

#endif
