/* view_keys.h - a queue that hands key and character events to the panel
 * in arrival order, at most one transition per held key and frame.
 *
 * Debian's Dear ImGui (1.86) keeps each key as down or up, sampled once a
 * frame: a press and release between two frames (a quick Enter, as most
 * are at a million particles' 3 frames a second) never reached it, and a
 * panel field's edit was lost (a review). The event queue of ImGui 1.87
 * trickles events the same way. Characters go through the queue too, so
 * that a Backspace held back a frame is not overtaken by the characters
 * typed after it (a review: "0.00021", Backspace, "3" gave 0.00021).
 * Invariant: events leave in the order they came; within one take, no
 * held key (one ImGui reads as down or up: the caller's predicate) goes
 * down and up, or up and down, twice. */
#ifndef VIEW_KEYS_H
#define VIEW_KEYS_H

#define VIEW_KEYQ_MAX 256

typedef struct view_key_event {
    int key, scancode, action, mods;   /* GLFW's; key < 0: a character, in scancode */
} view_key_event;

typedef struct view_keyq {
    view_key_event ev[VIEW_KEYQ_MAX];
    int n;
} view_keyq;

/* Queues e; -1 when the queue is full (the caller then drains it, in
 * order, and passes e on after it). */
int view_keyq_push(view_keyq *q, const view_key_event *e);

/* This frame's events into out (room for VIEW_KEYQ_MAX): from the oldest,
 * up to the first that would be a second press or release of a key
 * held(key) says ImGui keeps as down or up (repeats and characters pass);
 * the rest wait for the next frame. Returns how many. held NULL: every
 * key. */
int view_keyq_take(view_keyq *q, view_key_event *out, int (*held)(int key));

/* Every queued event into out, in order; returns how many. */
int view_keyq_drain(view_keyq *q, view_key_event *out);

#endif
