/* embedded.h - files compiled into the binary by CMake (cmake/embed.cmake):
 * the kernel sources of kernels/ and the scenes of scenes/ (the JSON scenes
 * and the OBJ meshes they use, in one table).
 * Invariant: text is NUL-terminated and len excludes the NUL.
 */
#ifndef FCL_EMBEDDED_H
#define FCL_EMBEDDED_H

#include <stddef.h>

typedef struct fcl_embedded_file {
    const char *name;   /* file name without folder, e.g. "grid.cl" */
    const char *text;
    size_t len;
} fcl_embedded_file;

extern const fcl_embedded_file fcl_embedded_kernels[];
extern const size_t fcl_embedded_kernel_count;
extern const fcl_embedded_file fcl_embedded_scenes[];
extern const size_t fcl_embedded_scene_count;

/* NULL if absent. */
const fcl_embedded_file *embedded_find(const fcl_embedded_file *files, size_t count, const char *name);

#endif
