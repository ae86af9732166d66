/* smoothing.c - kernel normalisation constants (Mueller et al. 2003,
 * eqs. 20-22; Akinci et al. 2013's cohesion spline) and the lattice sum
 * used to calibrate particle mass. */
#include "smoothing.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "../../kernels/smoothing.h"

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
    c->spiky = smoothing_spiky_coef(h);
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
    return smoothing_lattice_sum_of(0, h, spacing, NULL);
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

/* One kernel's constants, computed once for the sums below. */
typedef struct kernel_k {
    unsigned kind;      /* FCL_KERNEL_*: poly6, cubic spline, spiky */
    fcl_sph_consts c;
    float cubic_k;
} kernel_k;

static kernel_k kernel_of(unsigned kind, float h)
{
    kernel_k k;
    k.kind = kind;
    smoothing_consts(&k.c, h);
    k.cubic_k = smoothing_cubic_k(h);
    return k;
}

/* W at squared distance r2. */
static double kernel_w(const kernel_k *k, float r2)
{
    if (k->kind == FCL_KERNEL_POLY6)
        return w_poly6(r2, k->c.h2, k->c.poly6);
    if (k->kind == FCL_KERNEL_SPIKY)
        return w_spiky_r2(r2, k->c.h, k->c.h2, k->c.spiky);
    return r2 < k->c.h2 ? w_cubic(sqrtf(r2) / k->c.h, k->cubic_k) : 0.0;
}

double smoothing_lattice_sum_of(unsigned kind, float h, float spacing, unsigned *count)
{
    kernel_k k = kernel_of(kind, h);
    int r = (int)ceil(h / spacing);
    double sum = 0.0;
    unsigned n = 0;
    for (int i = -r; i <= r; i++)
        for (int j = -r; j <= r; j++)
            for (int l = -r; l <= r; l++) {
                float x = i * spacing, y = j * spacing, z = l * spacing, r2 = x * x + y * y + z * z;
                sum += kernel_w(&k, r2);
                n += r2 < k.c.h2;
            }
    if (count)
        *count = n;
    return sum;
}

/* A fluid lattice filling z > 0 (layers at z = d/2, 3d/2, ...) and wall
 * layers j = 0 .. L-1 at z = -d/2 - j d, each sample's volume 1 / sum W
 * over the wall's samples (S_j, which depends on its layer). For the
 * first fluid particle, with V = 1 / (full lattice sum):
 *   rho/rho0 = V sum_fluid W + gamma sum_j P((j+1) d) / S_j = 1
 * with P(z) the sum of W over a lattice plane z away, gives gamma. With
 * one layer's gamma, 2 or 3 layers left a floor 1.45 % (spiky) to 4.5 %
 * (poly6) light (a review). */
double smoothing_wall_gamma(unsigned kind, float h, float d, int layers)
{
    enum { KMAX = 64 };
    kernel_k kk = kernel_of(kind, h);
    int r = (int)ceil(h / d) + 1, kmax = r > layers ? r : layers;
    double plane[KMAX] = { 0.0 };
    layers = layers < 1 ? 1 : layers;
    for (int k = 0; k <= kmax && k < KMAX; k++)
        for (int i = -r; i <= r; i++)
            for (int j = -r; j <= r; j++)
                plane[k] += kernel_w(&kk, (float)(i * i + j * j) * d * d + (float)(k * k) * d * d);
    double full = plane[0], half = plane[0], walls = 0.0;
    for (int k = 1; k <= r && k < KMAX; k++) {
        full += 2.0 * plane[k];
        half += plane[k];
    }
    for (int j = 0; j < layers && j + 1 < KMAX; j++) {
        double self = 0.0;
        for (int i = 0; i < layers; i++)
            self += plane[abs(i - j)];
        walls += plane[j + 1] / self;
    }
    /* A layer one spacing off weighs nothing when h is at most d (a
     * lattice with no neighbors): 0 / 0, which once made every wall
     * particle's volume NaN. */
    if (!(walls > 0.0))
        return 1.0;
    return (1.0 - half / full) / walls;
}
