/* smoothing.h - SPH smoothing kernels, shared by every solver and backend.
 *
 * Each kernel has a normalisation constant computed once on the host
 * (smoothing_consts in host/core/smoothing.c) and a shape function here that
 * takes r^2 or r so that callers avoid square roots where the kernel allows.
 * Gradients return the scalar g such that grad W(r_ij) = g * r_ij, where
 * r_ij = x_i - x_j; this keeps vector algebra with the caller.
 * Invariant: every kernel is zero for r >= h and integrates to 1 over R^3
 * (tests/test_smoothing.c checks both numerically).
 */
#ifndef FCL_SMOOTHING_H
#define FCL_SMOOTHING_H

/* Mueller et al. 2003, eq. 20: W = 315/(64 pi h^9) (h^2 - r^2)^3. */
FCL_INLINE float w_poly6(float r2, float h2, float coef)
{
    float d = h2 - r2;
    return r2 < h2 ? coef * d * d * d : 0.0f;
}

/* grad W_poly6 = -6 coef (h^2 - r^2)^2 r_ij; here coef_grad = -6 coef. */
FCL_INLINE float w_poly6_grad(float r2, float h2, float coef_grad)
{
    float d = h2 - r2;
    return r2 < h2 ? coef_grad * d * d : 0.0f;
}

/* lap W_poly6 = -6 coef (h^2 - r^2)(3h^2 - 7r^2); coef_lap = -6 coef. */
FCL_INLINE float w_poly6_lap(float r2, float h2, float coef_lap)
{
    return r2 < h2 ? coef_lap * (h2 - r2) * (3.0f * h2 - 7.0f * r2) : 0.0f;
}

/* Desbrun's spiky kernel, eq. 21, gradient only: -45/(pi h^6) (h-r)^2 r_ij/r.
 * The r > 0 guard makes a particle exert no force on itself. */
FCL_INLINE float w_spiky_grad(float r, float h, float coef_grad)
{
    float d = h - r;
    return (r < h && r > 1e-9f) ? coef_grad * d * d / r : 0.0f;
}

/* The spiky kernel itself, 15/(pi h^6) (h - r)^3 at r^2 < h^2: a density
 * kernel whose gradient is the one the pressure force takes
 * (wcsph.density_kernel = spiky); coef = 15/(pi h^6). */
FCL_INLINE float w_spiky_r2(float r2, float h, float h2, float coef)
{
    float d = h - FCL_SQRT_EXACT(r2);
    return r2 < h2 ? coef * d * d * d : 0.0f;
}

/* W of WCSPH's density kernel: poly6 (Mueller's eq. 3), or spiky when
 * `spiky` (the density whose gradient the pressure force is). */
FCL_INLINE float w_density(float r2, uint spiky, float h, float h2, float poly6, float spiky_coef)
{
    return spiky ? w_spiky_r2(r2, h, h2, spiky_coef) : w_poly6(r2, h2, poly6);
}

/* Viscosity kernel, eq. 22, Laplacian only: 45/(pi h^6) (h - r). */
FCL_INLINE float w_visc_lap(float r, float h, float coef_lap)
{
    return r < h ? coef_lap * (h - r) : 0.0f;
}

/* The viscosity kernel's value, which only the tests' numerical
 * integration uses (the passes take its Laplacian). */
FCL_INLINE float w_visc(float r, float h, float coef)
{
    if (r >= h || r <= 0.0f)
        return 0.0f;
    float q = r / h;
    return coef * (-0.5f * q * q * q + q * q + 0.5f / q - 1.0f);
}

/* Cubic spline (Bender & Koschier 2015, after Monaghan), q = r / h:
 *   W = k { 6q^3 - 6q^2 + 1   (q <= 1/2);  2 (1-q)^3   (q <= 1) },  k = 8 / (pi h^3)
 *   grad W = x_ij * g(q),  g = l f(q) / (q h^2),  l = 48 / (pi h^3),
 *   f = q (3q - 2) (q <= 1/2),  -(1-q)^2 (q <= 1).
 * g stays finite as q -> 0 (f/q -> -2), so it tabulates well. */
FCL_INLINE float w_cubic(float q, float k)
{
    if (q >= 1.0f)
        return 0.0f;
    if (q <= 0.5f)
        return k * (6.0f * q * q * (q - 1.0f) + 1.0f);
    float u = 1.0f - q;
    return k * 2.0f * u * u * u;
}

/* g(q) with grad W = x_ij g; l_over_h2 = l / h^2. */
FCL_INLINE float w_cubic_grad(float q, float l_over_h2)
{
    if (q >= 1.0f)
        return 0.0f;
    if (q <= 0.5f)
        return l_over_h2 * (3.0f * q - 2.0f);
    float u = 1.0f - q;
    return -l_over_h2 * u * u / q;
}

/* A tabulated function of q on [0, 1] with n samples (tab[0] at q = 0,
 * tab[n-1] at q = 1), read with linear interpolation; 0 beyond q = 1.
 * Lookup tables replace the branches and divisions above by one fetch
 * pair (Bender & Koschier 2015, section 3.4). */
FCL_INLINE float w_table(GLOBAL const float *tab, uint n, float q)
{
    if (!(q < 1.0f))
        return 0.0f;
    float x = (q > 0.0f ? q : 0.0f) * (float)(n - 1u);
    uint i = (uint)x;
    float t = x - (float)i;
    return tab[i] + t * (tab[i + 1u] - tab[i]);
}

#endif
