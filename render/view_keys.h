/* view_keys.h - a queue that hands key events to the panel at most one
 * transition per key and frame.
 *
 * Debian's Dear ImGui (1.86) keeps each key as down or up, sampled once a
 * frame: a press and release between two frames (a quick Enter, as most
 * are at a million particles' 3 frames a second) never reached it, and a
 * panel field's edit was lost (a review). The event queue of ImGui 1.87
 * trickles events the same way.
 * Invariant: events leave in the order they came; within one take, no key
 * goes down and up (or up and down) twice. */
#ifndef VIEW_KEYS_H
#define VIEW_KEYS_H

#define VIEW_KEYQ_MAX 64

typedef struct view_key_event {
    int key, scancode, action, mods;   /* GLFW's */
} view_key_event;

typedef struct view_keyq {
    view_key_event ev[VIEW_KEYQ_MAX];
    int n;
} view_keyq;

/* Queues e; -1 when the queue is full (the caller passes it on at once). */
int view_keyq_push(view_keyq *q, const view_key_event *e);

/* This frame's events into out (at most VIEW_KEYQ_MAX): from the oldest,
 * up to the first that would be a second press or release of a key
 * already pressed or released in it (repeats pass); the rest wait for the
 * next frame. Returns how many. */
int view_keyq_take(view_keyq *q, view_key_event *out);

#endif
