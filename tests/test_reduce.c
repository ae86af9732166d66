/* test_reduce.c - device reductions (kernels/reduce.cl, host/core/
 * reduction.c) against double-precision references, on the native
 * backend and on OpenCL with both variants (serial chunks for CPU
 * devices, work-group trees for GPUs). Sizes 0, 1, 255-257, 1000 and
 * 100,003; values of mixed sign and magnitude. Tolerances: a sum or dot
 * product within 1e-6 of the sum of the absolute terms (float
 * accumulation over at most 256 terms a group, then the groups), a
 * maximum exact; the empty array gives 0 and -inf; the same reduction
 * twice gives the same bits; one NaN among 1,000 values (at 0, 1, 255,
 * 256, 511 or 999) or a lone NaN makes the maximum, sum and dot NaN.
 * The step statistics (stats_chunks, 16 particles at a time on an AVX-512
 * native build; `stats`, the GPU tree) on particles with NaN, infinite
 * and too fast ones among them: the native partials equal OpenCL's
 * serial chunks bit for bit; every variant's largest speed and first bad
 * index equal a double reference exactly (speed within 1e-6 relative,
 * for the compiler's own float rounding) and the density-error sum
 * within 1e-6 of the sum of its terms.
 */
#include <math.h>
#include <string.h>

#include "fcl_test.h"
#include "passes.h"
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

/* One NaN among n values (at index at): the maximum, the sum and the dot
 * product are NaN on every variant wherever it sits (the maximum kept it
 * only as the fold's right operand: n = 1000 with the NaN at 0 gave 7,
 * at 999 NaN, and the tree gave -inf for a lone NaN; a review). */
static void check_nan(fcl_backend *be, const char *variant, size_t n, size_t at)
{
    float *x = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(1 + i % 7);
    x[at] = NAN;
    fcl_buf *bx = be->ops->buf_new(be, n * 4, "x");
    fcl_reduction r;
    double got[3] = { 0, 0, 0 };
    int ok = bx && be->ops->buf_write(be, bx, 0, n * 4, x) == 0 && reduction_init(&r, be, n) == 0;
    ok = ok && reduction_max(&r, be, bx, n, "test") == 0 && reduction_read(&r, be, &got[0]) == 0 &&
         reduction_sum(&r, be, bx, n, "test") == 0 && reduction_read(&r, be, &got[1]) == 0 &&
         reduction_dot(&r, be, bx, bx, n, "test") == 0 && reduction_read(&r, be, &got[2]) == 0;
    CHECK(ok && isnan(got[0]) && isnan(got[1]) && isnan(got[2]),
          "%s %s n=%zu, a NaN at %zu: max %g, sum %g, dot %g (want NaN each)", be->kind, variant, n, at, got[0],
          got[1], got[2]);
    if (ok)
        reduction_free(&r, be);
    be->ops->buf_free(be, bx);
    free(x);
}

/* Particles for the statistics: speeds up to 2 m/s, densities around
 * rest; a few not finite or faster than the blow-up limit. */
static void stats_input(size_t n, float *pos, float *vel, float *rho)
{
    unsigned seed = 91u + (unsigned)n;
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            pos[4 * i + a] = ft_rand(&seed, 0.0f, 1.0f);
            vel[4 * i + a] = ft_rand(&seed, -1.2f, 1.2f);
        }
        pos[4 * i + 3] = vel[4 * i + 3] = 0.0f;
        rho[i] = 1000.0f * ft_rand(&seed, 0.97f, 1.03f);
        unsigned r = (unsigned)(ft_rand(&seed, 0.0f, 1.0f) * 4096.0f);
        if (r == 1u)
            pos[4 * i + 1] = NAN;
        else if (r == 2u)
            vel[4 * i + 2] = INFINITY;
        else if (r == 3u)
            rho[i] = NAN;
        else if (r == 4u)
            vel[4 * i + 0] = 30.0f;   /* past max_step_ratio h / dt = 20 m/s */
    }
}

static int stats_run(fcl_backend *be, size_t n, const float *pos, const float *vel, const float *rho,
                     const fcl_sph_consts *c, fcl_stats_partial *out)
{
    size_t groups = (n + FCL_WG - 1) / FCL_WG, bytes = groups * sizeof *out + sizeof *out;
    fcl_buf *bp = be->ops->buf_new(be, n * 16 + 16, "pos"), *bv = be->ops->buf_new(be, n * 16 + 16, "vel");
    fcl_buf *br = be->ops->buf_new(be, n * 4 + 4, "rho"), *bo = be->ops->buf_new(be, bytes, "partials");
    fcl_arg args[] = { FCL_BUF(bp), FCL_BUF(bv), FCL_BUF(br), FCL_BUF(bo), FCL_VAL(*c) };
    fcl_kernel *k = be->serial_groups ? NULL : be->ops->kernel(be, "stats");
    int rc = be->ops->buf_write(be, bp, 0, n * 16, pos) != 0 || be->ops->buf_write(be, bv, 0, n * 16, vel) != 0 ||
             be->ops->buf_write(be, br, 0, n * 4, rho) != 0 ||
             (be->serial_groups ? pass_stats_chunks(be, groups, "stats", bp, bv, br, bo, *c)
                                : be->ops->launch(be, k, n, args, 5, "stats")) != 0 ||
             be->ops->buf_read(be, bo, 0, groups * sizeof *out, out) != 0;
    be->ops->buf_free(be, bp);
    be->ops->buf_free(be, bv);
    be->ops->buf_free(be, br);
    be->ops->buf_free(be, bo);
    return rc ? -1 : 0;
}

/* A GPU build's chunks against the native partials: its fused
 * multiply-adds (v.x * v.x + ...) move the sums in the last bits, so each
 * float within 1e-6 relative, and the same first bad particle. */
static void check_partials_close(const fcl_stats_partial *a, const fcl_stats_partial *b, size_t groups,
                                 const char *kind, size_t n)
{
    double worst = 0.0;
    int same_bad = 1;
    for (size_t g = 0; g < groups; g++) {
        const float x[3] = { a[g].max_speed2, a[g].sum_density_err, a[g].max_density_err };
        const float y[3] = { b[g].max_speed2, b[g].sum_density_err, b[g].max_density_err };
        for (int k = 0; k < 3; k++)
            if (x[k] != y[k] && !(isnan(x[k]) && isnan(y[k])))   /* a NaN on one side only differs */
                worst = fmax(worst, isnan(x[k] - y[k]) ? INFINITY : fabs(x[k] - y[k]) / fmax(fabs(x[k]), 1e-30));
        same_bad = same_bad && a[g].first_bad == b[g].first_bad;
    }
    CHECK(worst <= 1e-6 && same_bad, "%s chunks n=%zu (GPU build): partials differ from native's by %.3g relative "
          "(1e-6 allowed), first bad %s", kind, n, worst, same_bad ? "the same" : "differs");
}

/* The partials folded as measure() in sim.c folds them. */
static void stats_fold_host(const fcl_stats_partial *part, size_t groups, double got[3], unsigned *bad)
{
    got[0] = got[1] = got[2] = 0.0;
    *bad = 0xffffffffu;
    for (size_t g = 0; g < groups; g++) {
        got[0] = fmax(got[0], part[g].max_speed2);
        got[1] += part[g].sum_density_err;
        got[2] = fmax(got[2], part[g].max_density_err);
        *bad = part[g].first_bad < *bad ? part[g].first_bad : *bad;
    }
}

static void check_stats(fcl_backend *be, const char *variant, size_t n, fcl_stats_partial *native)
{
    float *pos = malloc(n * 16 + 16), *vel = malloc(n * 16 + 16);
    float *rho = malloc(n * 4 + 4);
    stats_input(n, pos, vel, rho);
    fcl_sph_consts c;
    memset(&c, 0, sizeof c);
    c.n = (uint)n;
    c.rest_density = 1000.0f;
    c.h = 0.02f;
    c.dt = 0.001f;
    c.max_step_ratio = 1.0f;
    double m2 = 0.0, sum = 0.0, mx = 0.0;
    unsigned first = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        /* The error term in float, as the pass forms it: the reference
         * then differs only by the order of the sum. */
        volatile float ef = (rho[i] - 1000.0f) / 1000.0f;
        double s2 = (double)vel[4 * i + 0] * vel[4 * i + 0] + (double)vel[4 * i + 1] * vel[4 * i + 1] +
                    (double)vel[4 * i + 2] * vel[4 * i + 2], e = fmax((double)ef, 0.0);
        int ok = isfinite(pos[4 * i + 0]) && isfinite(pos[4 * i + 1]) && isfinite(pos[4 * i + 2]) && isfinite(s2) &&
                 isfinite(rho[i]) && s2 <= 400.0;
        m2 = s2 > m2 ? s2 : m2;   /* NaN left out, infinity kept, as the pass does */
        sum += isfinite(e) ? e : 0.0;
        mx = isfinite(e) ? fmax(mx, e) : mx;
        if (!ok && first == 0xffffffffu)
            first = (unsigned)i;
    }
    size_t groups = (n + FCL_WG - 1) / FCL_WG;
    fcl_stats_partial *part = malloc(groups * sizeof *part + sizeof *part);
    CHECK(stats_run(be, n, pos, vel, rho, &c, part) == 0, "%s %s n=%zu: the stats pass failed", be->kind, variant, n);
    double got[3];
    unsigned bad;
    stats_fold_host(part, groups, got, &bad);
    CHECK((got[0] == m2 || fabs(got[0] - m2) <= 1e-6 * m2) && fabs(got[2] - mx) <= 1e-6 * mx && bad == first,
          "%s %s n=%zu: largest speed^2 %.9g (reference %.9g), density error %.9g (%.9g), first bad %u (%u)",
          be->kind, variant, n, got[0], m2, got[2], mx, bad, first);
    CHECK(fabs(got[1] - sum) <= 1e-6 * sum + 1e-30, "%s %s n=%zu: density-error sum %.9g, reference %.9g", be->kind,
          variant, n, got[1], sum);
    if (strcmp(variant, "native") == 0)
        memcpy(native, part, groups * sizeof *part);
    else if (strcmp(variant, "chunks") == 0 && ft_same_bits_expected(be))
        CHECK(memcmp(native, part, groups * sizeof *part) == 0, "%s chunks n=%zu: partials differ from native's",
              be->kind, n);
    else if (strcmp(variant, "chunks") == 0)
        check_partials_close(native, part, groups, be->kind, n);
    free(part);
    free(pos);
    free(vel);
    free(rho);
}

int main(void)
{
    const size_t sizes[] = { 0, 1, 255, 256, 257, 1000, 100003 };
    enum { NSIZES = sizeof sizes / sizeof sizes[0] };
    fcl_stats_partial *native[NSIZES];
    for (size_t k = 0; k < NSIZES; k++)
        native[k] = calloc(sizes[k] / FCL_WG + 1, sizeof(fcl_stats_partial));
    for (int bi = 0; bi < 2; bi++) {
        fcl_backend *be = ft_backend(bi);
        if (!be)
            continue;
        for (int variant = 0; variant < (bi == 1 ? 2 : 1); variant++) {
            if (bi == 1)
                be->serial_groups = variant;
            const char *variant = bi == 0 ? "native" : be->serial_groups ? "chunks" : "tree";
            for (size_t k = 0; k < NSIZES; k++) {
                check_size(be, be->serial_groups ? "chunks" : "tree", sizes[k]);
                check_stats(be, variant, sizes[k], native[k]);
            }
            const size_t nan_at[] = { 0, 1, 255, 256, 511, 999 };
            for (size_t k = 0; k < sizeof nan_at / sizeof nan_at[0]; k++)
                check_nan(be, variant, 1000, nan_at[k]);
            check_nan(be, variant, 1, 0);
        }
        backend_destroy(be);
    }
    for (size_t k = 0; k < NSIZES; k++)
        free(native[k]);
    return ft_done();
}
