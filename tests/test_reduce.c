/* test_reduce.c - device reductions (kernels/reduce.cl, host/core/
 * reduction.c) against double-precision references, on the native
 * backend and on OpenCL with both variants (serial chunks for CPU
 * devices, work-group trees for GPUs). Sizes 0, 1, 255-257, 1000 and
 * 100,003; values of mixed sign and magnitude. Tolerances: a sum or dot
 * product within 1e-6 of the sum of the absolute terms (float
 * accumulation over at most 256 terms a group, then the groups), a
 * maximum exact; the empty array gives 0 and -inf; the same reduction
 * twice gives the same bits.
 */
#include <math.h>
#include <string.h>

#include "fcl_test.h"
#include "reduction.h"

static void check_size(fcl_backend *be, const char *variant, size_t n)
{
    float *x = malloc(n * 4 + 4), *y = malloc(n * 4 + 4);
    unsigned seed = 17u + (unsigned)n;
    double sum = 0.0, abs_sum = 0.0, dot = 0.0, abs_dot = 0.0, mx = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        x[i] = ft_rand(&seed, -1.0f, 1.0f) * powf(10.0f, ft_rand(&seed, -3.0f, 3.0f));
        y[i] = ft_rand(&seed, -2.0f, 2.0f);
        sum += x[i];
        abs_sum += fabs(x[i]);
        dot += (double)x[i] * y[i];
        abs_dot += fabs((double)x[i] * y[i]);
        mx = fmax(mx, x[i]);
    }
    fcl_buf *bx = be->ops->buf_new(be, n * 4 + 4, "x"), *by = be->ops->buf_new(be, n * 4 + 4, "y");
    be->ops->buf_write(be, bx, 0, n * 4, x);
    be->ops->buf_write(be, by, 0, n * 4, y);
    fcl_reduction r;
    double got[4] = { 0, 0, 0, 0 };
    int ok = reduction_init(&r, be, n) == 0 && reduction_sum(&r, be, bx, n, "test") == 0 &&
             reduction_read(&r, be, &got[0]) == 0 && reduction_max(&r, be, bx, n, "test") == 0 &&
             reduction_read(&r, be, &got[1]) == 0 && reduction_dot(&r, be, bx, by, n, "test") == 0 &&
             reduction_read(&r, be, &got[2]) == 0 && reduction_sum(&r, be, bx, n, "test") == 0 &&
             reduction_read(&r, be, &got[3]) == 0;
    CHECK(ok, "%s %s n=%zu: a reduction failed", be->kind, variant, n);
    CHECK(fabs(got[0] - sum) <= 1e-6 * abs_sum + 1e-30, "%s %s n=%zu: sum %.9g, reference %.9g", be->kind, variant, n,
          got[0], sum);
    CHECK(n ? got[1] == mx : isinf(got[1]) && got[1] < 0, "%s %s n=%zu: max %.9g, reference %.9g", be->kind, variant,
          n, got[1], mx);
    CHECK(fabs(got[2] - dot) <= 1e-6 * abs_dot + 1e-30, "%s %s n=%zu: dot %.9g, reference %.9g", be->kind, variant, n,
          got[2], dot);
    CHECK(memcmp(&got[0], &got[3], sizeof got[0]) == 0, "%s %s n=%zu: the same sum twice differs", be->kind, variant,
          n);
    reduction_free(&r, be);
    be->ops->buf_free(be, bx);
    be->ops->buf_free(be, by);
    free(x);
    free(y);
}

int main(void)
{
    const size_t sizes[] = { 0, 1, 255, 256, 257, 1000, 100003 };
    for (int bi = 0; bi < 2; bi++) {
        fcl_backend *be = ft_backend(bi);
        if (!be)
            continue;
        for (int variant = 0; variant < (bi == 1 ? 2 : 1); variant++) {
            if (bi == 1)
                be->serial_groups = variant;
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
                check_size(be, be->serial_groups ? "chunks" : "tree", sizes[k]);
        }
        backend_destroy(be);
    }
    return ft_done();
}
