/* cg.cl - the vector passes of the device conjugate gradients
 * (host/core/pcg.c), shared by every solver with a linear system (MPS's
 * particles, the MAC grid's cells): start, update, direction and a
 * scaled copy. alpha and beta are read from device scalars (reduce.cl's
 * results), so an iteration never waits for the host.
 * Invariant: every pass touches index i of its vectors only.
 */

/* r = b - A x (q holds A x), z = D^-1 r: the CG's start. */
FCL_INLINE void cg_start_item(uint i, GLOBAL const float *b, GLOBAL const float *q, GLOBAL const float *diag,
                              GLOBAL float *r, GLOBAL float *z)
{
    float ri = b[i] - q[i];
    r[i] = ri;
    z[i] = ri / diag[i];
}

/* y = ka x + kc y (a copy, or zeros with ka = kc = 0). */
FCL_INLINE void cg_axpby_item(uint i, GLOBAL const float *x, GLOBAL float *y, float ka, float kc)
{
    y[i] = (ka != 0.0f ? ka * x[i] : 0.0f) + (kc != 0.0f ? kc * y[i] : 0.0f);
}

/* num / den, or 0 where den is 0 or below the normal floats: past
 * convergence the dot products underflow (a solve whose residual is read
 * only every few hundred iterations runs on there), and a denormal
 * denominator, kept on CPUs, made the ratio infinite and the next iterate
 * NaN. A zero ratio makes the iteration no step: x and r stay. */
FCL_INLINE float cg_ratio(float num, float den)
{
    return fabs(den) >= FLT_MIN ? num / den : 0.0f;
}

/* alpha = rz / pq from the device scalars; x += alpha p, r -= alpha q,
 * z = D^-1 r (the Jacobi preconditioner, and the first term of the
 * polynomial one). */
FCL_INLINE void cg_update_item(uint i, GLOBAL float *x, GLOBAL float *r, GLOBAL float *z, GLOBAL const float *p,
                               GLOBAL const float *q, GLOBAL const float *diag, GLOBAL const float *rz,
                               GLOBAL const float *pq)
{
    float alpha = cg_ratio(rz[0], pq[0]);
    float ri = r[i] - alpha * q[i];
    x[i] += alpha * p[i];
    r[i] = ri;
    z[i] = ri / diag[i];
}

/* p = z + beta p, beta = rz_new / rz_old from the device scalars. */
FCL_INLINE void cg_direction_item(uint i, GLOBAL float *p, GLOBAL const float *z, GLOBAL const float *rz_new,
                                  GLOBAL const float *rz_old)
{
    float beta = cg_ratio(rz_new[0], rz_old[0]);
    p[i] = z[i] + beta * p[i];
}

