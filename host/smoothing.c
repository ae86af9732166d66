/* smoothing.c - kernel normalisation constants (Mueller et al. 2003,
 * eqs. 20-22; Akinci et al. 2013's cohesion spline) and the lattice sum
 * used to calibrate particle mass. */
#include "smoothing.h"

#include <math.h>

#include "../kernels/smoothing.h"

#define PI 3.14159265358979323846

void smoothing_consts(fcl_sph_consts *c, float h)
{
    double hd = h;
    c->h = h;
    c->h2 = h * h;
    c->poly6 = (float)(315.0 / (64.0 * PI * pow(hd, 9)));
    c->poly6_grad = -6.0f * c->poly6;
    c->poly6_lap = -6.0f * c->poly6;
    c->spiky_grad = (float)(-45.0 / (PI * pow(hd, 6)));
    c->visc_lap = (float)(45.0 / (PI * pow(hd, 6)));
    c->akinci_c = (float)(32.0 / (PI * pow(hd, 9)));
}

float smoothing_spiky_coef(float h)
{
    return (float)(15.0 / (PI * pow(h, 6)));
}

float smoothing_visc_coef(float h)
{
    return (float)(15.0 / (2.0 * PI * pow(h, 3)));
}

double smoothing_lattice_sum(float h, float spacing)
{
    fcl_sph_consts c;
    smoothing_consts(&c, h);
    int r = (int)ceil(h / spacing);
    double sum = 0.0;
    for (int i = -r; i <= r; i++)
        for (int j = -r; j <= r; j++)
            for (int k = -r; k <= r; k++) {
                float x = i * spacing, y = j * spacing, z = k * spacing;
                sum += w_poly6(x * x + y * y + z * z, c.h2, c.poly6);
            }
    return sum;
}

float smoothing_cubic_k(float h)
{
    return (float)(8.0 / (PI * pow(h, 3)));
}

float smoothing_cubic_l_over_h2(float h)
{
    return (float)(48.0 / (PI * pow(h, 5)));
}

/* Sampled with the same float functions the device's exact mode uses, so
 * the table and the exact kernel agree at every sample point. */
void smoothing_cubic_tables(float h, unsigned n, float *w, float *g)
{
    float k = smoothing_cubic_k(h), l = smoothing_cubic_l_over_h2(h);
    for (unsigned i = 0; i < n; i++) {
        float q = (float)i / (float)(n - 1);
        if (w)
            w[i] = w_cubic(q, k);
        /* g at q = 0 is its limit, -2 l / h^2. */
        if (g)
            g[i] = w_cubic_grad(q, l);
    }
}

/* W of kernel `kind` (0 poly6, 1 cubic spline) at distance^2 r2. */
static double kernel_w(unsigned kind, float h, float r2)
{
    fcl_sph_consts c;
    smoothing_consts(&c, h);
    if (kind == 0)
        return w_poly6(r2, c.h2, c.poly6);
    return r2 < c.h2 ? w_cubic(sqrtf(r2) / h, smoothing_cubic_k(h)) : 0.0;
}

/* A fluid lattice filling z > 0 (layers at z = d/2, 3d/2, ...) and one
 * wall layer at z = -d/2 with volumes 1 / sum W over the layer itself.
 * For the first fluid particle, with V = 1 / (full lattice sum):
 *   rho/rho0 = V sum_fluid W + gamma V_b sum_layer W = 1
 * gives gamma. */
double smoothing_wall_gamma(unsigned kind, float h, float d)
{
    int r = (int)ceil(h / d) + 1;
    double full = 0.0, half = 0.0, layer_self = 0.0, layer_at = 0.0;
    for (int i = -r; i <= r; i++)
        for (int j = -r; j <= r; j++) {
            float p2 = (float)(i * i + j * j) * d * d;
            layer_self += kernel_w(kind, h, p2);
            layer_at += kernel_w(kind, h, p2 + d * d);
            for (int k = -r; k <= r; k++) {
                double w = kernel_w(kind, h, p2 + (float)(k * k) * d * d);
                full += w;
                half += k >= 0 ? w : 0.0;
            }
        }
    return (1.0 - half / full) / (layer_at / layer_self);
}
