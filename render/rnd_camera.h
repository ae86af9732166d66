/* rnd_camera.h - the viewer's orbit camera and the 4x4 matrix helpers it
 * needs: view, perspective projection, picking rays, and projecting a
 * world point to window pixels (tests recompute the picture with it).
 * Invariant: matrices are column-major as OpenGL takes them (m[col*4 +
 * row]); window pixels have their origin at the top left, y down.
 */
#ifndef FCL_RND_CAMERA_H
#define FCL_RND_CAMERA_H

typedef struct rnd_camera {
    float target[3];    /* the point orbited */
    float yaw, pitch;   /* radians: about +y, and above the horizon */
    float dist;         /* eye to target */
    float fov_y;        /* vertical field of view, radians */
    float shift_x;      /* lens shift in normalized device units: the view
                           center moves right by shift_x * width / 2 (to
                           center the scene beside the panel) */
} rnd_camera;

/* Looking at the box lo..hi from the front right, slightly above, with the
 * whole box in view in a viewport of that aspect (width / height). */
void rnd_camera_frame(rnd_camera *c, const float lo[3], const float hi[3], float aspect);
/* Mouse gestures in window pixels. */
void rnd_camera_orbit(rnd_camera *c, float dx, float dy);
void rnd_camera_pan(rnd_camera *c, float dx, float dy, int viewport_h);
void rnd_camera_zoom(rnd_camera *c, float wheel);
/* Camera axes in world space: right, up, forward (unit vectors). */
void rnd_camera_axes(const rnd_camera *c, float right[3], float up[3], float fwd[3]);
void rnd_camera_view(const rnd_camera *c, float m[16]);
void rnd_camera_proj(const rnd_camera *c, float aspect, float m[16]);
void rnd_camera_viewproj(const rnd_camera *c, float aspect, float m[16]);
/* World-space ray through window pixel (x, y) of a w x h window. */
void rnd_camera_ray(const rnd_camera *c, double x, double y, int w, int h, float origin[3], float dir[3]);
/* World length of one pixel at the target's depth. */
float rnd_camera_pixel_size(const rnd_camera *c, int viewport_h);
/* p through vp into window pixels (px, py) of a w x h window, and its clip
 * w (the depth along the view axis). -1 when p is behind the eye. */
int rnd_project(const float vp[16], const float p[3], int w, int h, float *px, float *py, float *clip_w);

#endif
