/* cpu_kernels.c - the native CPU backend's kernels: the same kernels/ (*.cl)
 * sources compiled as C, each pass wrapped in an OpenMP loop.
 *
 * Including the .cl files here is the point: the per-particle *_item
 * functions are the single definition of each pass, so the two backends
 * cannot drift apart and agree to float rounding. The wrappers and their
 * table rows are generated from kernels/passes.def (see kernels/pass.h):
 * they unpack their arguments once, outside the loop, so the item
 * functions inline.
 * Invariant: every declared pass has a wrapper and a row, with the
 * __kernel's argument order; nothing here is written by hand per pass.
 */
#include <stddef.h>
#include <stdint.h>

#include "../kernels/fcl_common.h"
#include "../kernels/fcl_types.h"
#include "../kernels/smoothing.h"
#include "../kernels/walls.h"
#include "../kernels/grid.cl"
#include "../kernels/nlist.cl"
#include "../kernels/boundary.cl"
#include "../kernels/forces.cl"
#include "../kernels/wcsph.cl"
#include "../kernels/dfsph.cl"
#include "../kernels/view.cl"
#include "../kernels/mc.cl"
#include "be_cpu.h"
#include "../kernels/pass.h"

/* The wrappers of every declared pass (kernels/passes.def). */
#include "../kernels/passes.def"

const struct fcl_kernel fcl_cpu_kernels[] = {
#undef PASS
#define PASS(name, sched, ARGS) { #name, k_##name },
#include "../kernels/passes.def"
#undef PASS
};
const size_t fcl_cpu_kernel_count = sizeof fcl_cpu_kernels / sizeof fcl_cpu_kernels[0];
