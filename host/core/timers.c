/* timers.c - accumulation of per-pass times by label. */
#include "timers.h"

#include <string.h>

/* Index of label, adding it if new; -1 if the table is full. */
static int timers_slot(fcl_timers *t, const char *label)
{
    for (int i = 0; i < t->count; i++)
        if (t->label[i] == label || strcmp(t->label[i], label) == 0)
            return i;
    if (t->count == FCL_TIMERS_MAX)
        return -1;
    t->label[t->count] = label;
    t->ms[t->count] = 0.0;
    t->runs[t->count] = 0;
    return t->count++;
}

void timers_add(fcl_timers *t, const char *label, double ms)
{
    int i = timers_slot(t, label);
    if (i >= 0) {
        t->ms[i] += ms;
        t->used[i] = 1;
    }
}

void timers_launch(fcl_timers *t, const char *label)
{
    int i = timers_slot(t, label);
    if (i >= 0)
        t->runs[i]++;
    t->launches++;
}

/* Keeps the labels (and their order) so tables stay stable across resets. */
void timers_reset(fcl_timers *t)
{
    t->launches = t->reads = 0;
    for (int i = 0; i < t->count; i++) {
        t->ms[i] = 0.0;
        t->used[i] = 0;
        t->runs[i] = 0;
    }
}

double timers_total(const fcl_timers *t)
{
    double s = 0.0;
    for (int i = 0; i < t->count; i++)
        s += t->ms[i];
    return s;
}

double timers_get(const fcl_timers *t, const char *label)
{
    for (int i = 0; i < t->count; i++)
        if (strcmp(t->label[i], label) == 0)
            return t->ms[i];
    return 0.0;
}
