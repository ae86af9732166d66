/* reduce.cl - device reductions every solver shares: the sum and the
 * maximum of a float array and the dot product of two, in two stages.
 * Stage 1 leaves one partial per group of FCL_WG values: on CPU devices
 * (and the native backend) one item folds its group serially
 * (reduce_chunks), on GPUs a work-group tree does (reduce_tree, OpenCL
 * only). Stage 2 (reduce_finish, one item; reduce_finish_tree, one
 * work-group, on GPUs) folds the partials into out[0] on the device, so
 * an iterative solver (a conjugate gradient) can use the value in its
 * next pass without a read-back; the host reads it only
 * when it must decide (host/core/reduction.c).
 * Invariant: the fold order is fixed (groups in index order, each group
 * in a fixed order), so a result is the same from run to run; a NaN
 * among the values makes every result NaN.
 */

enum { REDUCE_SUM = 0, REDUCE_MAX = 1, REDUCE_DOT = 2 };

/* Element i's contribution: x_i, or x_i y_i for a dot product. */
FCL_INLINE float reduce_elem(GLOBAL const float *x, GLOBAL const float *y, uint i, uint op)
{
    return op == REDUCE_DOT ? x[i] * y[i] : x[i];
}

/* A maximum keeps a NaN wherever it sits, as a sum does (a > b ? a : b
 * kept one only as the right operand: a NaN's survival hung on its index
 * and on the fold's shape, so the tree and the serial fold disagreed and
 * mac's speed check missed NaN faces; a review). */
FCL_INLINE float reduce_fold(float a, float b, uint op)
{
    return op == REDUCE_MAX ? (a > b || a != a ? a : b) : a + b;
}

/* Group gi's partial (an empty group: 0 for sums, -inf for maxima). */
FCL_INLINE void reduce_chunks_item(uint gi, GLOBAL const float *x, GLOBAL const float *y, GLOBAL float *out, uint n,
                                   uint op)
{
    float s = op == REDUCE_MAX ? -INFINITY : 0.0f;
    uint end = (gi + 1u) * FCL_WG < n ? (gi + 1u) * FCL_WG : n;
    for (uint i = gi * FCL_WG; i < end; i++)
        s = reduce_fold(s, reduce_elem(x, y, i, op), op);
    out[gi] = s;
}

/* Stage 2, one item: the partials in index order into out[0]. */
FCL_INLINE void reduce_finish_item(uint k, GLOBAL const float *part, GLOBAL float *out, uint groups, uint op)
{
    float s = op == REDUCE_MAX ? -INFINITY : 0.0f;
    for (uint g = 0u; g < groups; g++)
        s = reduce_fold(s, part[g], op);
    out[k] = s;
}

#ifdef FCL_DEVICE
/* The work-group's FCL_WG values in t folded into t[0] (a fixed order);
 * every item calls it. */
FCL_INLINE void reduce_group(__local float *t, uint l, uint op)
{
    for (uint s = FCL_WG / 2u; s > 0u; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < s)
            t[l] = reduce_fold(t[l], t[l + s], op);
    }
}

__kernel __attribute__((reqd_work_group_size(FCL_WG, 1, 1)))
void reduce_tree(__global const float *x, __global const float *y, __global float *out, uint n, uint op)
{
    __local float t[FCL_WG];
    uint i = get_global_id(0), l = get_local_id(0);
    t[l] = i < n ? reduce_elem(x, y, i, op) : (op == REDUCE_MAX ? -INFINITY : 0.0f);
    reduce_group(t, l, op);
    if (l == 0u)
        out[get_group_id(0)] = t[0];
}

/* Stage 2 on GPUs, one work-group: item l folds partials l, l + FCL_WG,
 * ... in index order, then the tree folds the items (a fixed order). One
 * item alone (reduce_finish) took about 0.1 ms for the 4,096 partials of
 * a million values on an H100, most of a DFSPH iteration's reduction. */
__kernel __attribute__((reqd_work_group_size(FCL_WG, 1, 1)))
void reduce_finish_tree(__global const float *part, __global float *out, uint groups, uint op)
{
    __local float t[FCL_WG];
    uint l = get_local_id(0);
    float s = op == REDUCE_MAX ? -INFINITY : 0.0f;
    for (uint g = l; g < groups; g += FCL_WG)
        s = reduce_fold(s, part[g], op);
    t[l] = s;
    reduce_group(t, l, op);
    if (l == 0u)
        out[0] = t[0];
}
#endif
