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

#include "be_cpu.h"

size_t fcl_cpu_omp_min = 0;

/* The program in kernels/families.def order, passes.def last: the item
 * functions, then the wrappers of every declared pass. CMake generates
 * this include list from families.def. */
#include "cpu_program.h"

const struct fcl_kernel fcl_cpu_kernels[] = {
#undef PASS
#define PASS(name, sched, ARGS) { #name, k_##name },
#include "../../kernels/passes.def"
#undef PASS
};
const size_t fcl_cpu_kernel_count = sizeof fcl_cpu_kernels / sizeof fcl_cpu_kernels[0];
