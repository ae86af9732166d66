/* rnd_particles.h - the viewer's OpenGL drawing: particles as shaded
 * sphere impostors (point sprites) colored through a colormap, boundary
 * particles small and translucent, the domain box as lines, and a
 * triangle mesh (the hook for surface reconstruction: rnd_mesh_upload).
 * Invariant: the particle vertex buffer holds one float4 per particle,
 * xyz the position and w the value of the colored field; every call needs
 * the GL context current that rnd_create ran in.
 */
#ifndef FCL_RND_PARTICLES_H
#define FCL_RND_PARTICLES_H

#include <stddef.h>

typedef struct rnd_renderer rnd_renderer;

enum { RND_COLORMAP_STOPS = 9, RND_PALETTE = 8 };
/* The continuous colormap (low to high) and the categorical palette, in
 * RGB 0..1; the shader and the panel's legend both use these. */
extern const float rnd_colormap_stops[RND_COLORMAP_STOPS][3];
extern const float rnd_palette[RND_PALETTE][3];
/* The colormap at t in [0, 1]. */
void rnd_colormap(float t, float rgb[3]);

typedef enum { RND_CONTINUOUS = 0, RND_CATEGORICAL = 1 } rnd_color_mode;

typedef struct rnd_frame {
    float view[16], proj[16];
    int width, height;          /* framebuffer pixels */
    size_t n;                   /* particles in the vertex buffer to draw */
    float radius;               /* particle radius, m */
    rnd_color_mode mode;
    float lo, hi;               /* field range mapped onto the colormap */
    float box_lo[3], box_hi[3];
    int show_box, show_boundary, show_mesh;
    float background[3];
} rnd_frame;

/* NULL with the reason in err when a shader does not build. */
rnd_renderer *rnd_create(char *err, size_t errlen);
void rnd_destroy(rnd_renderer *r);
/* (Re)size the particle vertex buffer to n float4; returns its GL name. */
unsigned rnd_particles_resize(rnd_renderer *r, size_t n);
unsigned rnd_particles_vbo(const rnd_renderer *r);
/* Write access to the whole particle buffer (glMapBufferRange with
 * invalidation); NULL on failure. Unmap before drawing. */
void *rnd_particles_map(rnd_renderer *r);
int rnd_particles_unmap(rnd_renderer *r);
/* Boundary particles (float4, w ignored), drawn at radius_scale. */
void rnd_boundary_upload(rnd_renderer *r, const float *xyzw, size_t n);
/* A triangle mesh: nv vertices of 6 floats (position, normal) and nt
 * triangles of 3 indices. Nothing produces one yet: the surface
 * reconstruction will; until then the mesh is empty and not drawn. */
void rnd_mesh_upload(rnd_renderer *r, const float *verts, size_t nv, const unsigned *tris, size_t nt);
size_t rnd_mesh_triangles(const rnd_renderer *r);
void rnd_draw(rnd_renderer *r, const rnd_frame *f);

#endif
