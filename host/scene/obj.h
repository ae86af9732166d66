/* obj.h - Wavefront OBJ triangle meshes for obstacles: vertices ("v") and
 * faces ("f", fan-triangulated); texture coordinates, normals, groups,
 * materials and lines are skipped.
 *
 * Invariant: a mesh that loaded is closed and consistently oriented (every
 * undirected edge joins exactly two triangles that run it in opposite
 * directions) and every index in tri is below nv. Errors name the file and,
 * for a bad line, its number: "glass.obj:12: expected ...".
 */
#ifndef FCL_OBJ_H
#define FCL_OBJ_H

#include <stddef.h>

typedef struct fcl_mesh {
    float *v;           /* 3 floats per vertex */
    size_t nv;
    unsigned *tri;      /* 3 vertex indices (0-based) per triangle */
    size_t ntri;
} fcl_mesh;

/* Parse len bytes of OBJ text; `file` names it in messages. Returns 0, or
 * -1 with the message in err and *m left empty. */
int obj_parse(const char *text, size_t len, const char *file, fcl_mesh *m, char *err, size_t errlen);
/* The bytes of a mesh file, or of an embedded one when path is
 * "embedded:NAME.obj": *text is malloc'd, NUL-terminated, *len excludes
 * the NUL. A file is read only if it is a regular file of at most
 * max_bytes (infile.h). Returns 0, or -1 with "PATH: ..." in err. */
int obj_read(const char *path, size_t max_bytes, char **text, size_t *len, char *err, size_t errlen);
/* obj_read (limit: input.max_file_mb's, infile_limit), then obj_parse. */
int obj_load(const char *path, size_t max_bytes, fcl_mesh *m, char *err, size_t errlen);
void obj_free(fcl_mesh *m);
/* x <- scale x + translate for every vertex, in float (a target's
 * placement). */
void obj_place(fcl_mesh *m, float scale, const float translate[3]);
/* The same in double, rounded once to float: an obstacle's placement
 * (its boundary samples, boundary.c, and its distance field, sim.c). */
void obj_place_exact(fcl_mesh *m, float scale, const float translate[3]);
/* The vertices' bounding box. */
void obj_bounds(const fcl_mesh *m, float lo[3], float hi[3]);

/* The distinct undirected edges of m, each once, in order of first use:
 * *edges is a malloc'd array of 2 vertex indices per edge (lower first).
 * Returns the number of edges, or (size_t)-1 when out of memory. */
size_t obj_edges(const fcl_mesh *m, unsigned **edges);

#endif
