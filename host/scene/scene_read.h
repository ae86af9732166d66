/* scene_read.h - the JSON readers of scene.c that other scene readers
 * (targets.c, phases.c, emitters.c) share, so every part of a scene
 * reports errors the same way: "FILE: KEY: what was expected, got what".
 */
#ifndef FCL_SCENE_READ_H
#define FCL_SCENE_READ_H

#include <cJSON.h>

#include "scene.h"

/* A box, sphere or mesh object as "obstacles" gives them. */
int scene_read_shape(fcl_obstacle *b, const cJSON *o, const char *where, const char *file, char *err, size_t errlen);
/* o[key] as three finite numbers; missing is an error when required. */
int scene_read_vec3(const cJSON *o, const char *key, float out[3], int required, const char *where, const char *file,
                    char *err, size_t errlen);
/* Every key of o among allowed (NULL-terminated). */
int scene_check_keys(const cJSON *o, const char *const *allowed, const char *where, const char *file, char *err,
                     size_t errlen);
const char *scene_json_type(const cJSON *v);
/* v as a message shows it: numbers with %g, strings quoted, arrays element
 * by element, objects in JSON, about 60 characters at most. Returns buf. */
const char *scene_json_show(const cJSON *v, char *buf, size_t len);
/* o[key] as a finite number in [lo, hi] into *out; a missing key is an
 * error when required, else leaves *out. Errors name "where.key". */
int scene_read_number(const cJSON *o, const char *key, double lo, double hi, int required, double *out,
                      const char *where, const char *file, char *err, size_t errlen);
/* scene_syntax.c: the text cJSON stopped on as "FILE:LINE:COL: JSON
 * syntax error near '...'" and the slip it looks like, into err; -1. */
int scene_syntax_error(const char *text, const char *file, char *err, size_t errlen);
/* targets.c: the "targets" list, and freeing it. */
int targets_read(fcl_scene *s, const cJSON *arr, const char *file, char *err, size_t errlen);
void targets_free(fcl_scene *s);
/* phases.c: the "phases" list; then the blocks' phase names resolved
 * (after the whole scene is read); phases_find gives a name's index or -1. */
int phases_read(fcl_scene *s, const cJSON *arr, const char *file, char *err, size_t errlen);
int phases_resolve(fcl_scene *s, const char *file, char *err, size_t errlen);
int phases_find(const fcl_scene *s, const char *name);
/* The message for a phase name the scene lacks, naming the ones it has. */
void phases_unknown(const fcl_scene *s, const char *name, char *msg, size_t len);
/* emitters.c: the "emitters" list; their phase names resolved; their
 * placement against the domain under p (from scene_check). */
int emitters_read(fcl_scene *s, const cJSON *arr, const char *file, char *err, size_t errlen);
int emitters_resolve(fcl_scene *s, const char *file, char *err, size_t errlen);
int emitters_check(const fcl_scene *s, const fcl_params *p, char *err, size_t errlen);
int outflows_read(fcl_scene *s, const cJSON *arr, const char *file, char *err, size_t errlen);
int outflows_check(const fcl_scene *s, const fcl_params *p, char *err, size_t errlen);

#endif
