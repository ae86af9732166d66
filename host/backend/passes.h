/* passes.h - one typed launcher per pass, generated from the pass's one
 * declaration in kernels/passes.def:
 *     int pass_NAME(fcl_backend *be, size_t items, const char *timer, ARGS...)
 * Buffers are fcl_buf *, structs and scalars their own types, so a wrong
 * argument count or value type is a compile error (tests/test_passes.sh
 * shows one). The item count goes first, as the wrappers expect.
 * Invariant: the launcher's argument list is the declaration's, in order.
 */
#ifndef FCL_PASSES_H
#define FCL_PASSES_H

#include "../../kernels/fcl_types.h"
#include "backend.h"

#define FCL_HPARAM_B(T, x) , fcl_buf *x
#define FCL_HPARAM_S(T, x) , T x
#define FCL_HPARAM_V(T, x) , T x
#define FCL_HARG_B(T, x) FCL_BUF(x),
#define FCL_HARG_S(T, x) FCL_VAL(x),
#define PASS(name, sched, ARGS)                                                                        \
    static inline int pass_##name(fcl_backend *be, size_t items, const char *timer                    \
                                  ARGS(FCL_HPARAM_B, FCL_HPARAM_S, FCL_HPARAM_V))                     \
    {                                                                                                  \
        uint fcl_items = (uint)items;      /* past 32 bits: refused below, never wrapped */              \
        fcl_arg a[] = { FCL_VAL(fcl_items), ARGS(FCL_HARG_B, FCL_HARG_S, FCL_HARG_S) };                \
        fcl_kernel *k = be->ops->kernel(be, #name);                                                    \
        return k && items == fcl_items ? be->ops->launch(be, k, items, a, FCL_NARGS(a), timer) \
                                       : -1;                                                           \
    }
#include "../../kernels/passes.def"
#undef PASS

#endif
