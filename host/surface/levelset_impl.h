/* levelset_impl.h - the level set's state and the functions its four
 * files share (levelset.c: frames, grid and meshing; levelset_speed.c: the
 * particles' speed field F; levelset_band.c: front and PDE;
 * levelset_redistance.c: the band's distances).
 * Invariant: node (i, j, k) is at cell * (o + (i, j, k)), o on a lattice
 * fixed in space, so nodes of two frames' grids coincide; node indices fit
 * in 32 bits; the outer LS_RIM layers of nodes are never in the band.
 */
#ifndef FCL_LEVELSET_IMPL_H
#define FCL_LEVELSET_IMPL_H

#include <stddef.h>

#include "levelset.h"

enum { LS_RIM = 2 };

/* Particles sorted into cells of the speed field's reach. */
typedef struct ls_pgrid {
    float lo[3], size;
    int n[3];
    uint *start;        /* n0 n1 n2 + 1 */
    float4 *pos;        /* sorted copies; w = 1 / s^2, s the particle's stretch */
    float4 *dir;        /* the unit velocity (0 at rest or unstretched) and s */
} ls_pgrid;

/* f's constants (lengths in m). */
typedef struct ls_field {
    int binary;
    float T, rbar2, inv_rbar2, rc2, reach;
    float rbar, inv_ramp;   /* binary: r, and 1 / the ramp's width (ls_binary_f) */
    float stretch_k;    /* stretch / h: s = 1 + stretch_k |v| */
    float max_stretch;
} ls_field;

/* A growable list of nodes. */
typedef struct ls_list {
    uint *a;
    size_t len, cap;
} ls_list;

/* A thread's part of redistancing (levelset_redistance.c): the nodes it
 * owns that are queued this round and their new values, those it gave a
 * value, and the nodes it hands to each owner for the next round. */
typedef struct ls_worker {
    ls_list active, touched;
    float *val;
    size_t cap_val;
    ls_list *to;
    size_t handed;      /* entries it added to the to lists this round */
} ls_worker;

typedef struct ls_state {
    float cell;           /* node spacing (m) */
    long long o[3];       /* lattice offset of node 0 */
    int n[3];
    size_t nn;
    float *phi, *F, *tmp; /* phi; F cache; redistancing's distances (+inf between calls) */
    unsigned char *have;  /* F[k] computed this frame */
    unsigned char *st, *queued; /* redistancing's marks (levelset_redistance.c); queued a bit a node */
    int rim_marked;       /* tmp marks this grid's rim */
    uint *band, *front;
    size_t nband, nfront, cap_band, cap_front;
    ls_worker *wk;        /* redistancing: one per thread */
    int nwk;
    float far;            /* |phi| off the band: (band + 1) cells */
    int W;                /* band half-width (cells) */
    int seeding;          /* seed fluid found beyond the band (0 for one frame after ls_start_sphere) */
    int frames;           /* frames since phi was initialised */
    ls_field fd;
    ls_pgrid pg;
} ls_state;

static inline size_t ls_idx(const ls_state *s, int i, int j, int k)
{
    return (size_t)i + (size_t)s->n[0] * ((size_t)j + (size_t)s->n[1] * (size_t)k);
}

static inline void ls_coords(const ls_state *s, size_t q, int *i, int *j, int *k)
{
    *i = (int)(q % (size_t)s->n[0]);
    *j = (int)((q / (size_t)s->n[0]) % (size_t)s->n[1]);
    *k = (int)(q / ((size_t)s->n[0] * (size_t)s->n[1]));
}

/* Whether node (i, j, k) may enter the band (off the rim). */
static inline int ls_inner(const ls_state *s, int i, int j, int k)
{
    return i >= LS_RIM && j >= LS_RIM && k >= LS_RIM && i < s->n[0] - LS_RIM && j < s->n[1] - LS_RIM &&
           k < s->n[2] - LS_RIM;
}

/* levelset_speed.c */
void ls_field_from_config(ls_field *f, const mc_config *c);
void ls_field_fit(ls_field *f, const float4 *vel, size_t n);
int ls_pgrid_build(ls_pgrid *g, const float4 *pos, const float4 *vel, size_t n, const ls_field *f);
void ls_pgrid_free(ls_pgrid *g);
void ls_speed_all(ls_state *s);
void ls_speed_nodes(ls_state *s, const uint *nodes, size_t count);
float ls_speed_interp(const ls_state *s, float x, float y, float z);
void ls_init_from_speed(ls_state *s);
size_t ls_seed(ls_state *s, const float4 *pos, size_t n);
size_t ls_seed_holes(ls_state *s);

/* A front that jitters in place, settling no further: the binary field
 * at surface.ls_radius 0.5 on a resting block and ball keeps its largest
 * step between 0.0015 and 0.0089 cells from iteration 80 to the last of
 * 1,000 (period 4 at first, then irregular when continued on the next
 * frame), 9 times the tolerance. Taken as stalled where the largest steps
 * of the last LS_STALL_WINDOWS windows of LS_STALL_WINDOW iterations lie
 * within 2 % of each other, under 0.05 cells: a front that still settles
 * loses more than that per window (a step decaying at 5 % an iteration
 * loses 56 %), and one travelling moves near the half-cell cap.
 * ls_stalled records iteration it's largest step ch in hist (of
 * LS_STALL_HIST entries) and says whether the front has stalled; *level:
 * the largest step of those windows. */
enum { LS_STALL_WINDOW = 16, LS_STALL_WINDOWS = 3, LS_STALL_HIST = LS_STALL_WINDOW * LS_STALL_WINDOWS };
int ls_stalled(double *hist, int it, double ch, float *level);

/* levelset_band.c */
int ls_grow(uint **a, size_t *cap);

/* Appends v to the list *a of *len entries (capacity *cap); -1 out of
 * memory. Inline: redistancing pushes a node at a time. */
static inline int ls_push(uint **a, size_t *len, size_t *cap, uint v)
{
    if (*len == *cap && ls_grow(a, cap) != 0)
        return -1;
    (*a)[(*len)++] = v;
    return 0;
}
int ls_find_front(ls_state *s, const uint *nodes, size_t count);
int ls_find_front_all(ls_state *s);

/* levelset_redistance.c */
int ls_redistance(ls_state *s);
void ls_workers_free(ls_state *s);
void ls_sort_nodes(uint *a, uint *tmp, size_t n, size_t limit);
double ls_step(ls_state *s, float beta_r, float dt);

#endif
