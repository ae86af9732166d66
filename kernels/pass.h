/* pass.h - how one declaration of a pass (kernels/passes.def) becomes its
 * OpenCL __kernel wrapper here and its CPU wrapper and table row in
 * host/backend/cpu_kernels.c; host/backend/passes.h makes the typed host launcher from the
 * same declaration.
 *
 * A declaration is PASS(name, schedule, ARGS) where ARGS(B, S, V) lists
 * the arguments after the work-item index: B(T, x) a buffer of T, S(T, x)
 * a struct passed by value to the kernel and by pointer to name_item,
 * V(T, x) a scalar. Every pass gets the item count as a hidden first
 * argument and runs name_item(i, ...) for i below it; schedule names the
 * CPU backend's OpenMP schedule (FCL_SCHED_*) and its stride
 * (FCL_STEP_*): a `lanes` pass on an AVX-512 host build (FCL_AVX512) is
 * called for i = 0, 16, 32, ... and its item runs items i .. i + 15
 * (fewer at the end) with its 16-lane twin, a `lanes2` pass for i = 0,
 * 32, 64, ... with two such groups in flight (where one group's chain of
 * dependent gathers leaves the core idle); everywhere else, and on
 * OpenCL, every pass is called once per item.
 * Invariant: name_item's parameters are exactly ARGS in order; the
 * compiler checks every generated call against it on both backends.
 */
#ifndef FCL_PASS_H
#define FCL_PASS_H

/* The call of name_item: buffers and scalars as they are, structs by
 * address. */
#define FCL_CALL_B(T, x) , x
#define FCL_CALL_S(T, x) , &x
#define FCL_CALL_V(T, x) , x

#ifdef FCL_DEVICE
#define FCL_KPARAM_B(T, x) , __global T *x
#define FCL_KPARAM_S(T, x) , T x
#define FCL_KPARAM_V(T, x) , T x
#define PASS(name, sched, ARGS)                                                                  \
    __kernel void name(uint fcl_items ARGS(FCL_KPARAM_B, FCL_KPARAM_S, FCL_KPARAM_V))            \
    {                                                                                            \
        uint i = get_global_id(0);                                                               \
        if (i < fcl_items)                                                                       \
            name##_item(i ARGS(FCL_CALL_B, FCL_CALL_S, FCL_CALL_V));                             \
    }
#else
/* OpenMP schedules: static for uniform work, dynamic chunks where work
 * per item varies (neighborhoods, cells). */
#define FCL_SCHED_static static
#define FCL_SCHED_hood dynamic, 1024
#define FCL_SCHED_cells dynamic, 4096
#define FCL_SCHED_lanes static
#define FCL_SCHED_lanes2 static
#define FCL_STEP_static 1
#define FCL_STEP_hood 1
#define FCL_STEP_cells 1
#ifdef FCL_AVX512
#define FCL_STEP_lanes 16
#define FCL_STEP_lanes2 32
#else
#define FCL_STEP_lanes 1
#define FCL_STEP_lanes2 1
#endif
#define FCL_PRAGMA(x) _Pragma(#x)
/* Passes over fewer items than fcl_cpu_omp_min (host/backend/be_cpu.c)
 * run on the calling thread. */
#define FCL_OMP_FOR(s) FCL_PRAGMA(omp parallel for schedule(s) if (items >= fcl_cpu_omp_min))
/* Unpack the launch's arguments once, outside the loop, so the item
 * function inlines; ap walks them in declaration order. */
#define FCL_UNPACK_B(T, x) T *x = (T *)(ap++)->buf->ptr;
#define FCL_UNPACK_S(T, x) const T x = *(const T *)(ap++)->val;
#define FCL_UNPACK_V(T, x) const T x = *(const T *)(ap++)->val;
#define PASS(name, sched, ARGS)                                                                  \
    static void k_##name(const fcl_arg *a, size_t items)                                         \
    {                                                                                            \
        const fcl_arg *ap = a + 1;                                                               \
        ARGS(FCL_UNPACK_B, FCL_UNPACK_S, FCL_UNPACK_V)                                           \
        FCL_OMP_FOR(FCL_SCHED_##sched)                                                           \
        for (size_t i = 0; i < items; i += FCL_STEP_##sched)                                     \
            name##_item((uint)i ARGS(FCL_CALL_B, FCL_CALL_S, FCL_CALL_V));                       \
    }
#endif

#endif
