/* overlap.c - fluid blocks that overlap: the union, not two lattices
 * (and, through overlap_merge, the layers several emitters release in one
 * step: host/core/emit.c).
 * A scene's blocks are filled one after another, each on its own
 * lattice; where two overlap, both lattices stood there, so the overlap
 * held twice the particles (1,000 coincident pairs in two equal boxes:
 * wcsph ran on at 101 % density error and 18 m/s, dfsph and pbf blew up
 * in the first step). A point of a later block within OVERLAP_REACH
 * spacings of a point of an earlier block is dropped: every place in a
 * cubic lattice lies within 0.866 spacings of one of its points, so inside
 * an earlier block nothing of the later one is kept, whatever the two
 * lattices' offset, and two blocks that only share a face (points one
 * spacing apart) keep all their points.
 * Invariant: only points of blocks whose bounds come within the reach of
 * an earlier block's are tested; the others cost nothing.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "overlap.h"

/* Point indices hashed by their cell of one spacing: head[slot] starts a
 * chain through next[]. */
typedef struct {
    size_t *head, *next, slots;
    double inv;
} cell_hash;

static size_t slot_of(const cell_hash *h, long x, long y, long z)
{
    uint64_t k = (uint64_t)x * 73856093u ^ (uint64_t)y * 19349663u ^ (uint64_t)z * 83492791u;
    return (size_t)(k % h->slots);
}

static void cell_of(const cell_hash *h, float4 p, long c[3])
{
    c[0] = (long)floor(p.x * h->inv);
    c[1] = (long)floor(p.y * h->inv);
    c[2] = (long)floor(p.z * h->inv);
}

static void hash_add(cell_hash *h, const float4 *pos, size_t i)
{
    long c[3];
    cell_of(h, pos[i], c);
    size_t s = slot_of(h, c[0], c[1], c[2]);
    h->next[i] = h->head[s];
    h->head[s] = i;
}

/* Whether a hashed point lies within r2 of p (the 27 cells around it). */
static int hash_near(const cell_hash *h, const float4 *pos, float4 p, double r2)
{
    long c[3];
    cell_of(h, p, c);
    for (long dz = -1; dz <= 1; dz++)
        for (long dy = -1; dy <= 1; dy++)
            for (long dx = -1; dx <= 1; dx++)
                for (size_t j = h->head[slot_of(h, c[0] + dx, c[1] + dy, c[2] + dz)]; j != SIZE_MAX; j = h->next[j]) {
                    double ex = pos[j].x - p.x, ey = pos[j].y - p.y, ez = pos[j].z - p.z;
                    if (ex * ex + ey * ey + ez * ez < r2)
                        return 1;
                }
    return 0;
}

/* The bounds of points [lo, hi). */
static void bounds(const float4 *pos, size_t lo, size_t hi, float b[6])
{
    for (int k = 0; k < 3; k++) {
        b[k] = INFINITY;
        b[3 + k] = -INFINITY;
    }
    for (size_t i = lo; i < hi; i++) {
        const float v[3] = { pos[i].x, pos[i].y, pos[i].z };
        for (int k = 0; k < 3; k++) {
            b[k] = fminf(b[k], v[k]);
            b[3 + k] = fmaxf(b[3 + k], v[k]);
        }
    }
}

static int bounds_meet(const float a[6], const float b[6], float r)
{
    for (int k = 0; k < 3; k++)
        if (a[k] > b[3 + k] + r || b[k] > a[3 + k] + r)
            return 0;
    return 1;
}

/* Which blocks come within r of an earlier one (meets[b]); whether any. */
static int blocks_meeting(const float4 *pos, const size_t *ends, int nblocks, float r, int *meets)
{
    float (*box)[6] = malloc(sizeof *box * (size_t)nblocks);
    int any = 0;
    if (!box)
        return -1;
    for (int b = 0; b < nblocks; b++) {
        bounds(pos, b ? ends[b - 1] : 0, ends[b], box[b]);
        meets[b] = 0;
        for (int e = 0; e < b; e++)
            meets[b] |= bounds_meet(box[b], box[e], r);
        any |= meets[b];
    }
    free(box);
    return any;
}

int overlap_merge(float4 *pos, float4 *vel, size_t *ends, int nblocks, float sp, size_t *dropped)
{
    float r = (float)OVERLAP_REACH * sp;
    memset(dropped, 0, sizeof *dropped * (size_t)(nblocks > 0 ? nblocks : 0));
    if (nblocks < 2)
        return 0;
    int *meets = malloc(sizeof(int) * (size_t)nblocks);
    int any = meets ? blocks_meeting(pos, ends, nblocks, r, meets) : -1;
    if (any <= 0) {   /* no block near another (the usual scene): nothing to hash */
        free(meets);
        return any < 0 ? -1 : 0;
    }
    size_t n = ends[nblocks - 1];
    cell_hash h = { malloc(sizeof(size_t) * (n + 1)), malloc(sizeof(size_t) * (n + 1)), n + 1, 1.0 / sp };
    if (!h.head || !h.next) {
        free(meets);
        free(h.head);
        free(h.next);
        return -1;
    }
    memset(h.head, 0xff, sizeof(size_t) * h.slots);   /* SIZE_MAX: empty */
    size_t at = 0, start = 0;                            /* kept so far; this block's first point */
    for (int b = 0; b < nblocks; b++) {
        size_t end = ends[b], first = at;
        for (size_t i = start; i < end; i++) {
            if (meets[b] && hash_near(&h, pos, pos[i], (double)r * r)) {
                dropped[b]++;
                continue;
            }
            pos[at] = pos[i];
            vel[at] = vel[i];
            at++;
        }
        /* This block's kept points join the hash after its own test: its
         * points are a spacing apart and never drop each other. */
        for (size_t i = first; i < at; i++)
            hash_add(&h, pos, i);
        start = end;
        ends[b] = at;
    }
    free(meets);
    free(h.head);
    free(h.next);
    return 0;
}
