/* rnd_camera.c - orbit camera and matrices (see rnd_camera.h). */
#include "rnd_camera.h"

#include <math.h>

static void normalize3(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0.0f) {
        v[0] /= l; v[1] /= l; v[2] /= l;
    }
}

void rnd_camera_frame(rnd_camera *c, const float lo[3], const float hi[3], float aspect)
{
    float half = 0.0f;
    for (int k = 0; k < 3; k++) {
        c->target[k] = 0.5f * (lo[k] + hi[k]);
        half += 0.25f * (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    c->yaw = 0.55f;
    c->pitch = 0.42f;
    c->fov_y = 0.8f;
    c->shift_x = 0.0f;
    /* The bounding sphere fits the narrower field of view with a margin:
     * the vertical one alone cut the box in a window taller than wide (a
     * review). */
    float a = aspect > 0.0f ? aspect : 1.0f, t = tanf(0.5f * c->fov_y);
    float half_angle = a < 1.0f ? atanf(t * a) : 0.5f * c->fov_y;
    c->dist = 1.08f * sqrtf(half) / sinf(half_angle);
}

void rnd_camera_orbit(rnd_camera *c, float dx, float dy)
{
    c->yaw -= 0.008f * dx;
    c->pitch += 0.008f * dy;
    c->pitch = c->pitch > 1.5f ? 1.5f : (c->pitch < -1.5f ? -1.5f : c->pitch);
}

static void rnd_camera_eye(const rnd_camera *c, float eye[3])
{
    eye[0] = c->target[0] + c->dist * cosf(c->pitch) * sinf(c->yaw);
    eye[1] = c->target[1] + c->dist * sinf(c->pitch);
    eye[2] = c->target[2] + c->dist * cosf(c->pitch) * cosf(c->yaw);
}

void rnd_camera_axes(const rnd_camera *c, float right[3], float up[3], float fwd[3])
{
    float eye[3];
    rnd_camera_eye(c, eye);
    for (int k = 0; k < 3; k++)
        fwd[k] = c->target[k] - eye[k];
    normalize3(fwd);
    /* right = fwd x (0, 1, 0); up = right x fwd */
    right[0] = -fwd[2]; right[1] = 0.0f; right[2] = fwd[0];
    normalize3(right);
    up[0] = right[1] * fwd[2] - right[2] * fwd[1];
    up[1] = right[2] * fwd[0] - right[0] * fwd[2];
    up[2] = right[0] * fwd[1] - right[1] * fwd[0];
}

float rnd_camera_pixel_size(const rnd_camera *c, int viewport_h)
{
    return 2.0f * c->dist * tanf(0.5f * c->fov_y) / (float)(viewport_h > 0 ? viewport_h : 1);
}

void rnd_camera_pan(rnd_camera *c, float dx, float dy, int viewport_h)
{
    float r[3], u[3], f[3], k = rnd_camera_pixel_size(c, viewport_h);
    rnd_camera_axes(c, r, u, f);
    for (int i = 0; i < 3; i++)
        c->target[i] += k * (-dx * r[i] + dy * u[i]);
}

void rnd_camera_zoom(rnd_camera *c, float wheel)
{
    c->dist *= powf(0.9f, wheel);
    c->dist = c->dist < 1e-4f ? 1e-4f : c->dist;
}

void rnd_camera_view(const rnd_camera *c, float m[16])
{
    float r[3], u[3], f[3], e[3];
    rnd_camera_axes(c, r, u, f);
    rnd_camera_eye(c, e);
    for (int i = 0; i < 3; i++) {
        m[i * 4 + 0] = r[i];
        m[i * 4 + 1] = u[i];
        m[i * 4 + 2] = -f[i];
        m[i * 4 + 3] = 0.0f;
    }
    m[12] = -(r[0] * e[0] + r[1] * e[1] + r[2] * e[2]);
    m[13] = -(u[0] * e[0] + u[1] * e[1] + u[2] * e[2]);
    m[14] = f[0] * e[0] + f[1] * e[1] + f[2] * e[2];
    m[15] = 1.0f;
}

void rnd_camera_proj(const rnd_camera *c, float aspect, float m[16])
{
    /* Near and far follow the distance, so zooming never clips the scene. */
    float n = 0.02f * c->dist, fa = 20.0f * c->dist, t = 1.0f / tanf(0.5f * c->fov_y);
    for (int i = 0; i < 16; i++)
        m[i] = 0.0f;
    m[0] = t / aspect;
    m[5] = t;
    m[8] = -c->shift_x;     /* x_ndc += shift_x */
    m[10] = (fa + n) / (n - fa);
    m[11] = -1.0f;
    m[14] = 2.0f * fa * n / (n - fa);
}

static void rnd_mat4_mul(const float a[16], const float b[16], float out[16])
{
    float r[16];
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) {
            float s = 0.0f;
            for (int k = 0; k < 4; k++)
                s += a[k * 4 + row] * b[col * 4 + k];
            r[col * 4 + row] = s;
        }
    for (int i = 0; i < 16; i++)
        out[i] = r[i];
}

void rnd_camera_viewproj(const rnd_camera *c, float aspect, float m[16])
{
    float v[16], p[16];
    rnd_camera_view(c, v);
    rnd_camera_proj(c, aspect, p);
    rnd_mat4_mul(p, v, m);
}

void rnd_camera_ray(const rnd_camera *c, double x, double y, int w, int h, float origin[3], float dir[3])
{
    float r[3], u[3], f[3];
    float t = tanf(0.5f * c->fov_y), aspect = (float)w / (float)(h > 0 ? h : 1);
    float nx = (float)(2.0 * x / (w > 0 ? w : 1) - 1.0), ny = (float)(1.0 - 2.0 * y / (h > 0 ? h : 1));
    rnd_camera_axes(c, r, u, f);
    rnd_camera_eye(c, origin);
    for (int k = 0; k < 3; k++)
        dir[k] = f[k] + (nx - c->shift_x) * t * aspect * r[k] + ny * t * u[k];
    normalize3(dir);
}

int rnd_project(const float vp[16], const float p[3], int w, int h, float *px, float *py, float *clip_w)
{
    float cl[4];
    for (int row = 0; row < 4; row++)
        cl[row] = vp[row] * p[0] + vp[4 + row] * p[1] + vp[8 + row] * p[2] + vp[12 + row];
    if (clip_w)
        *clip_w = cl[3];
    if (!(cl[3] > 0.0f))
        return -1;
    *px = (0.5f * cl[0] / cl[3] + 0.5f) * (float)w;
    *py = (0.5f - 0.5f * cl[1] / cl[3]) * (float)h;
    return 0;
}
