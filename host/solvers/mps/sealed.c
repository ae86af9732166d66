/* sealed.c - a pressure solve that did not converge, explained: fluid
 * that no free surface reaches. A row of MPS's pressure equation sums to
 * zero unless the particle is at the free surface (p = 0), beside one, or
 * of a compressible phase; a connected group of particles with none of
 * these (a compartment full of fluid, sealed by an obstacle, beside a
 * half-full one) is a singular block the count of surface particles does
 * not see, and CG churned on it (a review: 1.5-2.1 m/s in a sealed
 * compartment, pressures -625 Pa to 24 kPa, exit 0).
 * Groups are unions over the step's fluid lists (any entry, images
 * included, and with wall unknowns every particle that has a wall
 * neighbor joined through one node for the walls): a list radius above
 * re_laplacian or the walls' node may join groups the matrix keeps apart,
 * so a sealed group can be missed, never one found that is not sealed.
 * Invariant: reads the device, changes nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sealed.h"
#include "sim.h"

static size_t root(size_t *up, size_t a)
{
    while (up[a] != a) {
        up[a] = up[up[a]];
        a = up[a];
    }
    return a;
}

static void join(size_t *up, size_t a, size_t b)
{
    a = root(up, a);
    b = root(up, b);
    if (a != b)
        up[a < b ? b : a] = a < b ? a : b;
}

/* Every particle with its list neighbors; with wall unknowns, every one
 * with a boundary neighbor with node n. */
static void join_lists(const fcl_sim *s, const uint *cnt, const uint *idx, const uint *bcnt, size_t *up)
{
    const fcl_nlist_info *L = &s->nl.fl;
    for (size_t i = 0; i < s->n; i++) {
        for (uint k = 0; k < cnt[i] && k < L->cap; k++) {
            size_t j = idx[i * L->pstride + (size_t)k * L->kstride] & NL_INDEX;
            if (j < s->n)
                join(up, i, j);
        }
        if (bcnt && bcnt[i])
            join(up, i, s->n);
    }
}

/* The particles no anchored one reaches: their count, their centroid
 * and bounds. */
static size_t unreached(const fcl_sim *s, size_t *up, const float *surf, const float4 *pos, double c[3], float lo[3],
                        float hi[3])
{
    size_t total = s->n + 1, count = 0;
    unsigned char *anchored = calloc(total, 1);
    if (!anchored)
        return 0;
    for (size_t i = 0; i < s->n; i++) {
        uint ph = s->nphases ? (uint)pos[i].w : 0u;
        int compress = s->nphases && ph < s->nphases && s->phase_table[ph].sound_speed > 0.0f;
        if (surf[i] != 0.0f || compress)
            anchored[root(up, i)] = 1;
    }
    for (int a = 0; a < 3; a++) {
        c[a] = 0.0;
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
    for (size_t i = 0; i < s->n; i++) {
        if (anchored[root(up, i)])
            continue;
        const float x[3] = { pos[i].x, pos[i].y, pos[i].z };
        for (int a = 0; a < 3; a++) {
            c[a] += x[a];
            lo[a] = fminf(lo[a], x[a]);
            hi[a] = fmaxf(hi[a], x[a]);
        }
        count++;
    }
    for (int a = 0; a < 3 && count; a++)
        c[a] /= (double)count;
    free(anchored);
    return count;
}

int mps_sealed_region(fcl_sim *s, fcl_buf *surf, int walls, char *msg, size_t len)
{
    fcl_backend *be = s->be;
    size_t n = s->n, entries = (size_t)s->nl.fl.cap * n;
    uint *cnt = malloc(n * 4 + 4), *idx = malloc(entries * 4 + 4), *bcnt = walls ? malloc(n * 4 + 4) : NULL;
    float *sf = malloc(n * 4 + 4);
    float4 *pos = malloc(n * 16 + 16);
    size_t *up = malloc((n + 1) * sizeof *up);
    int rc = !cnt || !idx || !sf || !pos || !up || (walls && !bcnt) ? -1 : 0;
    if (rc == 0 && (be->ops->buf_read(be, s->nl.fcount, 0, n * 4, cnt) != 0 ||
                    be->ops->buf_read(be, s->nl.fidx, 0, entries * 4, idx) != 0 ||
                    be->ops->buf_read(be, surf, 0, n * 4, sf) != 0 ||
                    be->ops->buf_read(be, sim_attr(s, s->a_pos), 0, n * 16, pos) != 0 ||
                    (walls && be->ops->buf_read(be, s->nl.bcount, 0, n * 4, bcnt) != 0)))
        rc = -1;
    if (rc == 0) {
        for (size_t i = 0; i <= n; i++)
            up[i] = i;
        join_lists(s, cnt, idx, bcnt, up);
        double c[3];
        float lo[3], hi[3];
        size_t k = unreached(s, up, sf, pos, c, lo, hi);
        if (k)
            snprintf(msg, len, "%zu fluid particles around (%.3g, %.3g, %.3g) m, within (%.3g, %.3g, %.3g) - "
                     "(%.3g, %.3g, %.3g), have no free surface among them or their neighbors (n* < mps.beta n0 "
                     "nowhere): their pressure equation is singular (a compartment full of fluid?); lower its fill "
                     "or raise mps.beta", k, c[0], c[1], c[2], lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
        rc = k ? 1 : 0;
    }
    free(cnt);
    free(idx);
    free(bcnt);
    free(sf);
    free(pos);
    free(up);
    return rc;
}
