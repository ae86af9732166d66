/* test_smoothing.c - numerical checks of the SPH smoothing kernels.
 *
 * kernels/smoothing.h promises that every kernel is zero for r >= h and
 * non-negative inside, integrates to 1 over R^3, that the gradient and
 * Laplacian functions are the true derivatives of the kernel values, and
 * that the cubic spline's lookup tables match it (see check_cubic).
 * A wrong constant or sign there skews density, pressure and viscosity
 * everywhere without crashing anything, so each promise is checked here
 * against brute-force quadrature accumulated in double, for h = 1 and for a
 * simulation-sized h = 0.025 (where the h^-9 and h^-6 constants are huge).
 *
 * Quadrature: radial integrals on 200000 midpoint shells out to 1.5 h (a
 * kernel leaking past h would show); vector integrals on a 3D midpoint grid
 * deliberately offset from the origin, so that errors do not cancel by
 * symmetry.
 * Tolerances: normalisation 1e-3 relative (shells reach ~2e-7); net
 * gradient 1e-6 of the integral of |grad W|; net poly6 Laplacian 1e-4 of
 * the integral of |lap W|; analytic derivatives vs Richardson-extrapolated
 * finite differences (step h/24) 1e-3 relative; lattice
 * sum within 5% of the integral (it is a quadrature of it on a lattice).
 * Invariant: prints "N passed, M failed" last and exits 0 only if M == 0.
 */
#include "../kernels/fcl_common.h"
#include "../kernels/fcl_types.h"
#include "../kernels/smoothing.h"
#include "smoothing.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#define PI 3.14159265358979323846

static int pass, fail;

/* Prints every check with its measured values, so the log is a report. */
#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (cond) {                                       \
            pass++;                                       \
            printf("ok - ");                              \
        } else {                                          \
            fail++;                                       \
            printf("FAIL - ");                            \
        }                                                 \
        printf(__VA_ARGS__);                              \
        printf("\n");                                     \
    } while (0)

/* Constants for the current h; the radial wrappers below read them. */
static fcl_sph_consts K;
static float K_visc;

static void set_h(float h)
{
    smoothing_consts(&K, h);
    K_visc = smoothing_visc_coef(h);
}

/* Every kernel function as f(r). For gradients, grad W = g r_ij, so the
 * g wrappers return g and dW/dr = g r. */
typedef double (*radial)(double r);

/* poly6 and spiky as the density passes call them (w_density, with the
 * constants smoothing_consts sets): a copy only the tests used once stood
 * in for spiky, and a wrong shape of the real one passed here. */
static double poly6(double r) { float f = (float)r; return w_density(f * f, 0u, K.h, K.h2, K.poly6, K.spiky); }
static double spiky(double r) { float f = (float)r; return w_density(f * f, 1u, K.h, K.h2, K.poly6, K.spiky); }
static double visc(double r) { return w_visc((float)r, K.h, K_visc); }
static double poly6_g(double r) { float f = (float)r; return w_poly6_grad(f * f, K.h2, K.poly6_grad); }
static double spiky_g(double r) { return w_spiky_grad((float)r, K.h, K.spiky_grad); }
static double poly6_lap(double r) { float f = (float)r; return w_poly6_lap(f * f, K.h2, K.poly6_lap); }
static double visc_lap(double r) { return w_visc_lap((float)r, K.h, K.visc_lap); }
static double cubic(double r) { return w_cubic((float)(r / K.h), smoothing_cubic_k(K.h)); }
static double cubic_g(double r) { return w_cubic_grad((float)(r / K.h), smoothing_cubic_l_over_h2(K.h)); }

/* Integral over R^3 of f(|x|) (or |f| if absval) on midpoint shells. */
static double shells(radial f, int absval)
{
    const int n = 200000;
    double dr = 1.5 * K.h / n, s = 0.0;
    for (int i = 0; i < n; i++) {
        double r = (i + 0.5) * dr, v = f(r);
        s += r * r * (absval ? fabs(v) : v);
    }
    return 4.0 * PI * s * dr;
}

/* |integral of g(r) x| / integral of |g(r) x| on a 3D midpoint grid with
 * n cells per h, offset from the origin by a fraction of a cell. */
static double net_gradient(radial g, int n)
{
    const double h = K.h, dx = h / n, o[3] = {0.137, 0.291, 0.413};
    double s[3] = {0.0, 0.0, 0.0}, sa = 0.0;
    for (int i = -n - 1; i <= n; i++) {
        double x = (i + o[0]) * dx;
        for (int j = -n - 1; j <= n; j++) {
            double y = (j + o[1]) * dx;
            for (int k = -n - 1; k <= n; k++) {
                double z = (k + o[2]) * dx, r2 = x * x + y * y + z * z;
                if (r2 > 1.01 * h * h)
                    continue;
                double r = sqrt(r2), v = g(r);
                s[0] += v * x; s[1] += v * y; s[2] += v * z;
                sa += fabs(v) * r;
            }
        }
    }
    return sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) / sa;
}

/* dW/dr by central differences, Richardson-extrapolated (error O(e^4)). */
static double fd_d1(radial f, double r, double e)
{
    double d1 = (f(r + e) - f(r - e)) / (2.0 * e);
    double d2 = (f(r + 2.0 * e) - f(r - 2.0 * e)) / (4.0 * e);
    return (4.0 * d1 - d2) / 3.0;
}

/* Radial Laplacian 1/r^2 d/dr (r^2 dW/dr), written as (1/r) (r W)'' so that
 * the 1/r term of w_visc differences exactly; Richardson-extrapolated. */
static double fd_lap(radial f, double r, double e)
{
    double c = 2.0 * r * f(r);
    double l1 = ((r + e) * f(r + e) - c + (r - e) * f(r - e)) / (e * e);
    double l2 = ((r + 2 * e) * f(r + 2 * e) - c + (r - 2 * e) * f(r - 2 * e)) / (4 * e * e);
    return (4.0 * l1 - l2) / (3.0 * r);
}

static double rel(double a, double b) { return fabs(a - b) / fabs(b); }

static void check_normalisation(void)
{
    static const radial f[] = {poly6, spiky, visc};
    static const char *name[] = {"w_poly6", "w_spiky", "w_visc"};
    for (int i = 0; i < 3; i++) {
        double v = shells(f[i], 0);
        CHECK(rel(v, 1.0) < 1e-3, "h=%g: integral of %s = %.9f (want 1)", K.h, name[i], v);
    }
    double lap = shells(poly6_lap, 0), alap = shells(poly6_lap, 1);
    CHECK(fabs(lap) < 1e-4 * alap, "h=%g: integral of poly6 lap = %.3e, of |lap| = %.6g", K.h,
          lap, alap);
}

static void check_net_gradient(void)
{
    double p = net_gradient(poly6_g, 128), s = net_gradient(spiky_g, 128);
    CHECK(p < 1e-6, "h=%g: |integral grad poly6| / integral |grad| = %.3e", K.h, p);
    CHECK(s < 1e-6, "h=%g: |integral grad spiky| / integral |grad| = %.3e", K.h, s);
}

/* Zero at and beyond h for every function; W >= 0 inside; lap W_visc > 0. */
static void check_support(void)
{
    static const radial f[] = {poly6, spiky, visc, poly6_g, spiky_g, poly6_lap, visc_lap};
    static const char *name[] = {"w_poly6", "w_spiky", "w_visc", "w_poly6_grad",
                                 "w_spiky_grad", "w_poly6_lap", "w_visc_lap"};
    const double h = K.h, out[] = {h, nextafterf(K.h, 2 * K.h), 1.01 * h, 1.5 * h, 2 * h, 10 * h};
    for (int i = 0; i < 7; i++) {
        double worst = 0.0;
        for (int k = 0; k < 6; k++)
            worst = fmax(worst, fabs(f[i](out[k])));
        CHECK(worst == 0.0, "h=%g: %s zero for r >= h (max |value| %g)", K.h, name[i], worst);
    }
    const int n = 100000;
    for (int i = 0; i < 3; i++) {
        double lo = INFINITY, at = 0.0;
        for (int k = 0; k < n; k++) {
            double r = (k + 0.5) * h / n, v = f[i](r);
            if (v < lo) { lo = v; at = r / h; }
        }
        CHECK(lo >= 0.0, "h=%g: %s >= 0 inside (min %g at r/h = %.6f)", K.h, name[i], lo, at);
    }
    double lo = INFINITY;
    for (int k = 0; k < n; k++)
        lo = fmin(lo, visc_lap((k + 0.5) * h / n));
    CHECK(lo > 0.0, "h=%g: w_visc_lap > 0 inside (min %g)", K.h, lo);
}

static void check_derivatives(void)
{
    static const double q[] = {0.15, 0.3, 0.5, 0.8};
    const double h = K.h, e = h / 24.0;
    for (int i = 0; i < 4; i++) {
        double r = q[i] * h, a, n;
        a = poly6_g(r) * r; n = fd_d1(poly6, r, e);
        CHECK(rel(a, n) < 1e-3, "h=%g r/h=%g: poly6 grad g*r = %.7g, FD dW/dr = %.7g", h, q[i], a, n);
        a = poly6_lap(r); n = fd_lap(poly6, r, e);
        CHECK(rel(a, n) < 1e-3, "h=%g r/h=%g: poly6 lap = %.7g, FD = %.7g", h, q[i], a, n);
        a = spiky_g(r) * r; n = fd_d1(spiky, r, e);
        CHECK(rel(a, n) < 1e-3, "h=%g r/h=%g: spiky grad g*r = %.7g, FD dW/dr = %.7g", h, q[i], a, n);
        a = visc_lap(r); n = fd_lap(visc, r, e);
        CHECK(rel(a, n) < 1e-3, "h=%g r/h=%g: visc lap = %.7g, FD = %.7g", h, q[i], a, n);
    }
}

/* The cubic spline (DFSPH's kernel): normalised, gradient equal to the
 * derivative, net gradient zero, and its 1000-sample lookup tables within
 * the linear-interpolation bound of the exact functions. That bound is
 * dq^2/8 max|f''|: for W, 12 k dq^2 / 8 = 1.8e-6 k; for g, whose second
 * derivative peaks at q = 1/2 (16 l/h^2), 2e-6 l/h^2. Tolerance 1e-5 of
 * W(0) = k and of |g(0)| = 2 l/h^2, sampled at 100,000 q values. */
static void check_cubic(void)
{
    double n = shells(cubic, 0);
    CHECK(rel(n, 1.0) < 1e-3, "h=%g: integral of cubic spline W = %.9f", K.h, n);
    double net = net_gradient(cubic_g, 128);
    CHECK(net < 1e-6, "h=%g: |integral grad W_cubic| / integral |grad W_cubic| = %.3g", K.h, net);
    static const double qs[] = { 0.15, 0.3, 0.45, 0.55, 0.8 };
    for (int i = 0; i < 5; i++) {
        double r = qs[i] * K.h, a = cubic_g(r) * r, fd = fd_d1(cubic, r, K.h / 64.0);
        CHECK(rel(a, fd) < 1e-3, "h=%g q=%g: cubic grad g*r = %.7g, FD dW/dr = %.7g", K.h, qs[i], a, fd);
    }
    enum { N = 1000 };
    static float tw[N], tg[N];
    float k = smoothing_cubic_k(K.h), l = smoothing_cubic_l_over_h2(K.h);
    smoothing_cubic_tables(K.h, N, tw, tg);
    double ew = 0.0, eg = 0.0;
    for (int i = 0; i <= 100000; i++) {
        float q = (float)i / 100000.0f;
        ew = fmax(ew, fabs(w_table(tw, N, q) - w_cubic(q, k)) / k);
        eg = fmax(eg, fabs(w_table(tg, N, q) - w_cubic_grad(q, l)) / (2.0 * l));
    }
    CHECK(ew < 1e-5 && eg < 1e-5, "h=%g: cubic lookup tables (%d samples) vs exact: W %.3g, g %.3g of their "
          "peak (bound 1e-5)", K.h, N, ew, eg);
    CHECK(w_table(tw, N, 1.0f) == 0.0f && w_table(tg, N, 1.5f) == 0.0f && w_table(tw, N, NAN) == 0.0f,
          "h=%g: tables are zero at and beyond q = 1 (and for NaN)", K.h);
}

static void check_lattice(void)
{
    float s = 0.5f * K.h;
    double v = smoothing_lattice_sum(K.h, s) * s * s * s;
    CHECK(fabs(v - 1.0) < 0.05, "h=%g: smoothing_lattice_sum(h, h/2) * s^3 = %.6f (want ~1)", K.h,
          v);
}

int main(void)
{
    static const float hs[] = {1.0f, 0.025f};
    clock_t t0 = clock();
    for (int i = 0; i < 2; i++) {
        set_h(hs[i]);
        check_normalisation();
        check_net_gradient();
        check_support();
        check_derivatives();
        check_lattice();
        check_cubic();
    }
    printf("# %.3f s CPU\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
    printf("%d passed, %d failed\n", pass, fail);
    return fail ? 1 : 0;
}
