/* view_keys.c - the panel's key queue (view_keys.h): one transition per
 * held key and frame, in arrival order. */
#include "view_keys.h"

#include <GLFW/glfw3.h>
#include <string.h>

int view_keyq_push(view_keyq *q, const view_key_event *e)
{
    if (q->n >= VIEW_KEYQ_MAX)
        return -1;
    q->ev[q->n++] = *e;
    return 0;
}

/* Whether key is among the first n of seen. */
static int seen_key(const int *seen, int n, int key)
{
    for (int k = 0; k < n; k++)
        if (seen[k] == key)
            return 1;
    return 0;
}

int view_keyq_take(view_keyq *q, view_key_event *out, int (*held)(int key))
{
    int seen[VIEW_KEYQ_MAX], nseen = 0, i = 0;
    for (; i < q->n; i++) {
        const view_key_event *e = &q->ev[i];
        int moves = e->key >= 0 && e->action != GLFW_REPEAT && (!held || held(e->key));
        if (moves && seen_key(seen, nseen, e->key))
            break;                     /* its second transition: next frame */
        if (moves)
            seen[nseen++] = e->key;
        out[i] = *e;
    }
    memmove(q->ev, q->ev + i, (size_t)(q->n - i) * sizeof q->ev[0]);
    q->n -= i;
    return i;
}

int view_keyq_drain(view_keyq *q, view_key_event *out)
{
    int n = q->n;
    memcpy(out, q->ev, (size_t)n * sizeof q->ev[0]);
    q->n = 0;
    return n;
}
