/* reduction.c - device reductions (reduction.h): per-group partials (serial
 * chunks on CPU devices, work-group trees on GPUs), then one item (CPUs)
 * or one work-group (GPUs) folds the partials into the device scalar. */
#include "reduction.h"

#include <string.h>

#include "../../kernels/fcl_types.h"
#include "passes.h"
#include "reduce.h"

enum { OP_SUM = 0, OP_MAX = 1, OP_DOT = 2 };   /* kernels/reduce.cl */

int reduction_init(fcl_reduction *r, fcl_backend *be, size_t cap)
{
    memset(r, 0, sizeof *r);
    r->cap = cap;
    r->part = be->ops->buf_new(be, (cap / FCL_WG + 1) * sizeof(float), "reduction partials");
    r->result = be->ops->buf_new(be, sizeof(float), "reduction result");
    if (!be->serial_groups) {
        r->tree = be->ops->kernel(be, "reduce_tree");
        r->finish = be->ops->kernel(be, "reduce_finish_tree");
    }
    return r->part && r->result && (be->serial_groups || (r->tree && r->finish)) ? 0 : -1;
}

static int reduce(fcl_reduction *r, fcl_backend *be, fcl_buf *x, fcl_buf *y, size_t n, uint op, const char *timer)
{
    uint un = (uint)n, groups = (uint)((n + FCL_WG - 1) / FCL_WG);
    if (n > r->cap)
        return -1;
    r->op = op;
    fcl_arg a[] = { FCL_BUF(x), FCL_BUF(y), FCL_BUF(r->part), FCL_VAL(un), FCL_VAL(op) };
    int rc = r->tree ? be->ops->launch(be, r->tree, n, a, FCL_NARGS(a), timer)
                     : pass_reduce_chunks(be, groups, timer, x, y, r->part, un, op);
    if (rc != 0)
        return -1;
    if (!r->finish)
        return pass_reduce_finish(be, 1, timer, r->part, r->result, groups, op);
    fcl_arg f[] = { FCL_BUF(r->part), FCL_BUF(r->result), FCL_VAL(groups), FCL_VAL(op) };
    return be->ops->launch(be, r->finish, FCL_WG, f, FCL_NARGS(f), timer);
}

int reduction_sum(fcl_reduction *r, fcl_backend *be, fcl_buf *x, size_t n, const char *timer)
{
    return reduce(r, be, x, x, n, OP_SUM, timer);
}

int reduction_max(fcl_reduction *r, fcl_backend *be, fcl_buf *x, size_t n, const char *timer)
{
    return reduce(r, be, x, x, n, OP_MAX, timer);
}

int reduction_dot(fcl_reduction *r, fcl_backend *be, fcl_buf *x, fcl_buf *y, size_t n, const char *timer)
{
    return reduce(r, be, x, y, n, OP_DOT, timer);
}

/* Every value read back goes through host/dist/reduce.h, a maximum as a
 * maximum and sums and dot products as sums: the CG's |r|^2 and |b|^2,
 * MPS's surface counts and MAC's largest face speed were read straight
 * (an audit), where a multi-process build must combine them. */
int reduction_read(fcl_reduction *r, fcl_backend *be, double *value)
{
    float v = 0.0f;
    if (be->ops->buf_read(be, r->result, 0, sizeof v, &v) != 0)
        return -1;
    *value = r->op == OP_MAX ? fcl_reduce_max(v) : fcl_reduce_sum(v);
    return 0;
}

void reduction_free(fcl_reduction *r, fcl_backend *be)
{
    be->ops->buf_free(be, r->part);
    be->ops->buf_free(be, r->result);
    memset(r, 0, sizeof *r);
}
