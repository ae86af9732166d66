/* rnd_particles.h - the viewer's OpenGL drawing, in one of three modes:
 * particles as shaded sphere impostors (point sprites) colored through a
 * colormap; the fast preview, where only surface particles are drawn, as
 * splats (Mueller 2003, section 4: discs oriented by the color-field
 * normal, so that neighbors overlap into a closed skin); or the
 * marching-cubes mesh of the surface (rnd_mesh_upload). Boundary
 * particles are small and translucent, the domain box lines.
 * Invariant: the particle vertex buffer holds two planes of n float4:
 * [0, n) xyz the position and w the value of the colored field, [n, 2n)
 * the unit outward normal and in w the surface flag (1 or 0), which only
 * the splat mode reads; every call needs the GL context current that
 * rnd_create ran in.
 */
#ifndef FCL_RND_PARTICLES_H
#define FCL_RND_PARTICLES_H

#include <stddef.h>

typedef struct rnd_renderer rnd_renderer;

enum { RND_COLORMAP_STOPS = 9, RND_PALETTE = 16 };   /* rnd_particles.c's shader says 16 too */
/* The continuous colormap (low to high) and the categorical palette, in
 * RGB 0..1; the shader and the panel's legend both use these. */
extern const float rnd_colormap_stops[RND_COLORMAP_STOPS][3];
extern const float rnd_palette[RND_PALETTE][3];
/* The colormap at t in [0, 1]. */
void rnd_colormap(float t, float rgb[3]);

typedef enum { RND_CONTINUOUS = 0, RND_CATEGORICAL = 1 } rnd_color_mode;
typedef enum { RND_DRAW_SPHERES = 0, RND_DRAW_SPLATS = 1, RND_DRAW_MESH = 2, RND_DRAW_COUNT = 3 } rnd_draw_mode;
extern const char *const rnd_draw_names[RND_DRAW_COUNT];     /* spheres, splats, mesh */

typedef struct rnd_frame {
    float view[16], proj[16];
    int width, height;          /* framebuffer pixels */
    size_t n;                   /* particles in the vertex buffer to draw */
    float radius;               /* particle radius, m */
    rnd_draw_mode draw;
    float splat_scale;          /* splat radius in particle radii (> 1 closes gaps) */
    rnd_color_mode mode;
    float lo, hi;               /* field range mapped onto the colormap */
    float box_lo[3], box_hi[3];
    int show_box, show_boundary, show_overlay;
    float background[3];
    const float (*palette)[3];  /* RND_PALETTE colours for the phase field; NULL: rnd_palette */
} rnd_frame;

/* NULL with the reason in err when a shader does not build. */
rnd_renderer *rnd_create(char *err, size_t errlen);
void rnd_destroy(rnd_renderer *r);
/* (Re)size the particle vertex buffer to n particles (2 n float4, see the
 * banner); returns its GL name. */
unsigned rnd_particles_resize(rnd_renderer *r, size_t n);
unsigned rnd_particles_vbo(const rnd_renderer *r);
/* Write access to the first `planes` (1 or 2) planes of the particle
 * buffer (glMapBufferRange, invalidating that range); NULL on failure.
 * Unmap before drawing. */
void *rnd_particles_map(rnd_renderer *r, int planes);
int rnd_particles_unmap(rnd_renderer *r);
/* Boundary particles (float4, w ignored), drawn at radius_scale. */
void rnd_boundary_upload(rnd_renderer *r, const float *xyzw, size_t n);
/* Overlay points (fluid control's control particles; float4, w the
 * palette entry), drawn translucent when rnd_frame.show_overlay. */
void rnd_overlay_upload(rnd_renderer *r, const float *xyzw, size_t n);
/* A triangle mesh: nv vertices of 6 floats (position, normal) and nt
 * triangles of 3 indices, drawn opaque and lit in the mesh mode. */
void rnd_mesh_upload(rnd_renderer *r, const float *verts, size_t nv, const unsigned *tris, size_t nt);
size_t rnd_mesh_triangles(const rnd_renderer *r);
void rnd_draw(rnd_renderer *r, const rnd_frame *f);

#endif
