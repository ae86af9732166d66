/* rnd_probe.h - what OpenGL this machine offers (the viewer's needs):
 * opens a hidden GLFW window with an OpenGL 3.3 core context, loads it
 * through glad and reports the renderer. */
#ifndef FCL_RND_PROBE_H
#define FCL_RND_PROBE_H

#include <stddef.h>

/* 0 and "RENDERER, OpenGL VERSION" in out; -1 and the reason otherwise
 * (no display, no 3.3 core context). */
int rnd_probe(char *out, size_t len);

#endif
