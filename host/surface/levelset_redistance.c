/* levelset_redistance.c - the band's distances from the front: the
 * first-order upwind solution of |grad u| = 1 out of the front nodes'
 * values to the band's half-width, on both sides at once (distances are
 * unsigned; a non-front node's neighbors all share its sign), by Jacobi
 * rounds over the nodes whose neighbors changed in the round before (the
 * fast iterative method of Jeong & Whitaker 2008), in parallel; and the
 * radix sort that keeps the front's order independent of the threads.
 * Each node has an owner thread (by blocks of 64 nodes): only the owner
 * reads or writes its queued mark, evaluates it and writes its value, so
 * the rounds need barriers and no atomic operation per node (only the
 * failure flag is atomic).
 * Invariant: the front nodes keep their values; every other band node
 * ends at the fixed point u = eikonal(its neighbors) that fast marching
 * also computes (a node's value rests only on strictly smaller ones), up
 * to rounding: the float solution is not exactly monotone in its inputs,
 * so the order of updates can move last bits (1-2 % of a dam-break frame's
 * mesh vertices move by at most 2e-4 cells from fast marching's). A round
 * reads only the round before, so the thread count changes no bit.
 * Nodes farther than the half-width go to +-far.
 * tmp[] per node: its distance so far, +inf where none; a front node's
 * negated (-0 for 0), and -inf on the rim (marked once per grid), so that
 * handing on tests one array: a neighbor at or below a value cannot be
 * lowered by it (the eikonal reads |tmp|). Between calls tmp is +inf off
 * the rim. st[] marks the settled band (ST_KNOWN) during settle, 0
 * between calls. queued[] a bit per node, set while a node is in its
 * owner's list for the next round (owners hold blocks of 64 nodes, so a
 * byte never has two writers; 1/8 of a byte array, whose misses had cost
 * a sixth of a round), 0 between calls.
 */
#include "levelset_impl.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

enum { ST_KNOWN = 2 };

static int inside(float v)
{
    return v >= 0.0f;
}

static inline float min2(float a, float b)
{
    return a < b ? a : b; /* minss: fminf is a libm call without -ffast-math */
}

static inline float max2(float a, float b)
{
    return a > b ? a : b;
}

/* The upwind solution at node q from its neighbors' values (|tmp|, +inf
 * where none): the smaller of each axis's two, used while the solution
 * exceeds them. */
static float eikonal(const ls_state *s, size_t q)
{
    const size_t sy = (size_t)s->n[0], sz = sy * (size_t)s->n[1];
    const float *t = s->tmp, h = s->cell;
    float x = min2(fabsf(t[q - 1]), fabsf(t[q + 1])), y = min2(fabsf(t[q - sy]), fabsf(t[q + sy]));
    float z = min2(fabsf(t[q - sz]), fabsf(t[q + sz]));
    float m0 = min2(x, y), m1 = max2(x, y), m2 = max2(m1, z); /* sorted: m0 <= m1 <= m2 */
    m1 = min2(m1, z);
    float m = min2(m0, m1);
    m1 = max2(m0, m1);
    m0 = m;
    float u = m0 + h;
    if (u > m1) {
        float d = m0 - m1;
        u = 0.5f * (m0 + m1 + sqrtf(max2(2.0f * h * h - d * d, 0.0f)));
        if (u > m2) {
            float sum = m0 + m1 + m2, sq = m0 * m0 + m1 * m1 + m2 * m2;
            u = (sum + sqrtf(max2(sum * sum - 3.0f * (sq - h * h), 0.0f))) / 3.0f;
        }
    }
    return u;
}

static int owner(size_t q, int threads)
{
    return (int)((q >> 6) % (size_t)threads);
}

void ls_workers_free(ls_state *s)
{
    for (int t = 0; t < s->nwk; t++) {
        ls_worker *w = &s->wk[t];
        free(w->active.a);
        free(w->touched.a);
        free(w->val);
        for (int o = 0; o < s->nwk && w->to; o++)
            free(w->to[o].a);
        free(w->to);
    }
    free(s->wk);
    s->wk = NULL;
    s->nwk = 0;
}

/* A worker for each of the most threads a parallel region has. */
static int workers_ready(ls_state *s)
{
    int want = omp_get_max_threads();
    if (s->nwk == want)
        return 0;
    ls_workers_free(s);
    if (!(s->wk = calloc((size_t)want, sizeof *s->wk)))
        return -1;
    s->nwk = want;
    for (int t = 0; t < want; t++)
        if (!(s->wk[t].to = calloc((size_t)want, sizeof(ls_list)))) {
            ls_workers_free(s);
            return -1;
        }
    return 0;
}

/* Hands node q's inner neighbors that q's value u could lower to their
 * owners (duplicates allowed: the owner's gather drops them). Known
 * nodes, the rim, and nodes already at or below u cannot be lowered by
 * q. q is inner, so its neighbors lie in the grid. */
static int queue_neighbors(ls_state *s, size_t q, float u, ls_worker *w, int threads)
{
    const size_t sy = (size_t)s->n[0], sz = sy * (size_t)s->n[1];
    const size_t nb[6] = { q - 1, q + 1, q - sy, q + sy, q - sz, q + sz };
    for (int e = 0; e < 6; e++) {
        size_t r = nb[e];
        if (s->tmp[r] <= u)
            continue; /* also the front (negative) and the rim (-inf) */
        ls_list *to = &w->to[owner(r, threads)];
        if (ls_push(&to->a, &to->len, &to->cap, (uint)r) != 0)
            return -1;
    }
    return 0;
}

/* tmp = -inf on the grid's outer LS_RIM layers, once per grid. */
static void mark_rim(ls_state *s)
{
    if (s->rim_marked)
        return;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < s->n[2]; k++)
        for (int j = 0; j < s->n[1]; j++) {
            size_t row = ls_idx(s, 0, j, k);
            int whole = !ls_inner(s, LS_RIM, j, k);
            for (int i = 0; i < s->n[0]; i++)
                if (whole || i < LS_RIM || i >= s->n[0] - LS_RIM)
                    s->tmp[row + i] = -INFINITY;
        }
    s->rim_marked = 1;
}

static int is_queued(const ls_state *s, size_t r)
{
    return s->queued[r >> 3] >> (r & 7) & 1;
}

static void set_queued(ls_state *s, size_t r, int on)
{
    unsigned char bit = (unsigned char)(1u << (r & 7));
    s->queued[r >> 3] = on ? s->queued[r >> 3] | bit : s->queued[r >> 3] & (unsigned char)~bit;
}

/* The owner's next list: the nodes handed to it, once each. */
static int gather(ls_state *s, int me, int threads)
{
    ls_worker *w = &s->wk[me];
    int rc = 0;
    w->active.len = 0;
    for (int t = 0; t < threads; t++) {
        ls_list *from = &s->wk[t].to[me];
        for (size_t e = 0; e < from->len && rc == 0; e++) {
            uint r = from->a[e];
            if (!is_queued(s, r) && (rc = ls_push(&w->active.a, &w->active.len, &w->active.cap, r)) == 0)
                set_queued(s, r, 1);
        }
        from->len = 0;
    }
    if (rc == 0 && w->active.len > w->cap_val) {
        free(w->val);
        w->cap_val = w->active.len + 4096;
        if (!(w->val = malloc(w->cap_val * sizeof *w->val)))
            w->cap_val = 0, rc = -1;
    }
    if (rc != 0) { /* out of memory: nothing to evaluate, no marks left */
        for (size_t t = 0; t < w->active.len; t++)
            set_queued(s, w->active.a[t], 0);
        w->active.len = 0;
    }
    return rc;
}

/* A round's first half, the owner's nodes: each one's solution from the
 * values of the round before (val; -1 where it is no smaller), those
 * valued for the first time noted in touched here, where tmp is read
 * anyway (a cache miss each in apply); then, after a barrier, the
 * smaller ones taken. */
static int evaluate(ls_state *s, ls_worker *w)
{
    int rc = 0;
    for (size_t t = 0; t < w->active.len; t++) {
        uint q = w->active.a[t];
        float u = eikonal(s, q), old = s->tmp[q];
        set_queued(s, q, 0);
        w->val[t] = u < old ? u : -1.0f;
        if (u < old && old == INFINITY && rc == 0)
            rc = ls_push(&w->touched.a, &w->touched.len, &w->touched.cap, q);
    }
    return rc;
}

/* Only after every evaluate of the round (a barrier): tmp is what they
 * read. With evaluate failed (out of memory) a node may be valued and
 * not in touched: the state is dropped (ls_redistance). */
static void apply(ls_state *s, const ls_worker *w)
{
    for (size_t t = 0; t < w->active.len; t++)
        if (w->val[t] >= 0.0f)
            s->tmp[w->active.a[t]] = w->val[t];
}

/* Hands on the neighbors of the owner's nodes that got a smaller value
 * within lim; *handed the count. */
static int hand_on(ls_state *s, ls_worker *w, float lim, int threads, size_t *handed)
{
    size_t before = 0, after = 0;
    for (int o = 0; o < threads; o++)
        before += w->to[o].len;
    int rc = 0;
    for (size_t t = 0; t < w->active.len && rc == 0; t++)
        if (w->val[t] >= 0.0f && w->val[t] <= lim)
            rc = queue_neighbors(s, w->active.a[t], w->val[t], w, threads);
    for (int o = 0; o < threads; o++)
        after += w->to[o].len;
    *handed = after - before;
    return rc;
}

/* The rounds, on every thread: the front's neighbors handed on first,
 * then until a round hands nothing on: gather and evaluate | apply |
 * hand on. Three barriers a round (they cost where a core is shared).
 * Each thread's count of what it handed on is read after the barrier
 * that ends the round and rewritten only two barriers later, and bad is
 * set only between the round's first barrier and its last, so every
 * thread sees the same and all leave the loop together. */
static void rounds(ls_state *s, float lim, int *bad)
{
    int threads = omp_get_num_threads(), me = omp_get_thread_num();
    ls_worker *w = &s->wk[me];
#pragma omp for schedule(static) nowait
    for (size_t t = 0; t < s->nfront; t++)
        if (queue_neighbors(s, s->front[t], -s->tmp[s->front[t]], w, threads) != 0)
            __atomic_store_n(bad, 1, __ATOMIC_RELAXED);
    w->handed = 0; /* the lists were empty */
    for (int o = 0; o < threads; o++)
        w->handed += w->to[o].len;
    for (;;) {
#pragma omp barrier
        size_t total = 0;
        for (int t = 0; t < threads; t++)
            total += s->wk[t].handed;
        if (total == 0 || __atomic_load_n(bad, __ATOMIC_RELAXED))
            break;
        int failed = gather(s, me, threads) != 0; /* published after the barrier: others may still read bad */
        failed |= evaluate(s, w) != 0;
#pragma omp barrier
        if (failed)
            __atomic_store_n(bad, 1, __ATOMIC_RELAXED);
        apply(s, w);
#pragma omp barrier
        if (hand_on(s, w, lim, threads, &w->handed) != 0)
            __atomic_store_n(bad, 1, __ATOMIC_RELAXED);
    }
}

/* The new band: the front, then the nodes within lim (known, phi their
 * signed distance). Nodes of the old band left out of it, and those
 * reached beyond lim, go to +-far; the marks and lists are cleared. */
static int settle(ls_state *s, const uint *old, size_t nold, float lim)
{
    int rc = 0;
    for (size_t t = 0; t < s->nfront && rc == 0; t++) {
        s->st[s->front[t]] = ST_KNOWN;
        rc = ls_push(&s->band, &s->nband, &s->cap_band, s->front[t]);
    }
    for (int k = 0; k < s->nwk; k++)
        for (size_t t = 0; t < s->wk[k].touched.len && rc == 0; t++) {
            uint q = s->wk[k].touched.a[t];
            if (s->tmp[q] > lim)
                continue;
            s->st[q] = ST_KNOWN;
            s->phi[q] = inside(s->phi[q]) ? s->tmp[q] : -s->tmp[q];
            rc = ls_push(&s->band, &s->nband, &s->cap_band, q);
        }
    for (size_t t = 0; t < nold; t++)
        if (s->st[old[t]] != ST_KNOWN)
            s->phi[old[t]] = inside(s->phi[old[t]]) ? s->far : -s->far;
    for (int k = 0; k < s->nwk; k++) {
        ls_worker *w = &s->wk[k];
        for (size_t t = 0; t < w->touched.len; t++) {
            uint q = w->touched.a[t];
            if (s->st[q] != ST_KNOWN)
                s->phi[q] = inside(s->phi[q]) ? s->far : -s->far;
            s->st[q] = 0;
            s->tmp[q] = INFINITY;
        }
        w->touched.len = w->active.len = 0;
        for (int o = 0; o < s->nwk; o++)
            w->to[o].len = 0;
    }
    for (size_t t = 0; t < s->nfront; t++) {
        s->st[s->front[t]] = 0;
        s->tmp[s->front[t]] = INFINITY;
    }
    return rc;
}

/* -1 (out of memory) leaves the marks, tmp and the lists as they fell:
 * the callers drop the state (mc_forget). */
int ls_redistance(ls_state *s)
{
    if (workers_ready(s) != 0)
        return -1;
    mark_rim(s);
    uint *old = s->band;
    size_t nold = s->nband;
    s->band = NULL;
    s->nband = s->cap_band = 0;
    float lim = (float)s->W * s->cell;
    for (size_t t = 0; t < s->nfront; t++)
        s->tmp[s->front[t]] = -fabsf(s->phi[s->front[t]]);
    int bad = 0;
#pragma omp parallel
    rounds(s, lim, &bad);
    if (settle(s, old, nold, lim) != 0)
        bad = 1;
    free(old);
    return bad ? -1 : 0;
}

/* Sorts a[0..n) ascending, least significant 11 bits first, through tmp
 * (n entries); values below limit. */
void ls_sort_nodes(uint *a, uint *tmp, size_t n, size_t limit)
{
    static const int R = 11;
    size_t cnt[1 << 11];
    uint *src = a, *dst = tmp;
    for (int shift = 0; shift < 32 && (limit - 1) >> shift != 0; shift += R) {
        memset(cnt, 0, sizeof cnt);
        for (size_t t = 0; t < n; t++)
            cnt[(src[t] >> shift) & ((1u << R) - 1)]++;
        size_t sum = 0;
        for (size_t b = 0; b < (1u << R); b++) {
            size_t c = cnt[b];
            cnt[b] = sum;
            sum += c;
        }
        for (size_t t = 0; t < n; t++)
            dst[cnt[(src[t] >> shift) & ((1u << R) - 1)]++] = src[t];
        uint *x = src;
        src = dst;
        dst = x;
    }
    if (src != a && n)
        memcpy(a, src, n * sizeof *a);
}
