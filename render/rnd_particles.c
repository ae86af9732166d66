/* rnd_particles.c - OpenGL 3.3 core drawing of the viewer's scene (see
 * rnd_particles.h): sphere impostors, boundary points, box lines, mesh. */
#include "rnd_particles.h"

#include <glad/gl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

const float rnd_colormap_stops[RND_COLORMAP_STOPS][3] = {
    { 0.10f, 0.20f, 0.60f }, { 0.12f, 0.35f, 0.85f }, { 0.15f, 0.55f, 0.95f },
    { 0.20f, 0.75f, 0.90f }, { 0.40f, 0.88f, 0.70f }, { 0.70f, 0.92f, 0.40f },
    { 0.95f, 0.80f, 0.20f }, { 0.98f, 0.55f, 0.12f }, { 0.85f, 0.20f, 0.10f },
};
/* 16 colours, the second eight darker or paler than the first (8 made the
 * ninth ball the scene's blue again, and the legend stopped at 8; a
 * review); past 16 they repeat. */
const float rnd_palette[RND_PALETTE][3] = {
    { 0.20f, 0.50f, 0.95f }, { 0.98f, 0.55f, 0.15f }, { 0.30f, 0.80f, 0.35f }, { 0.90f, 0.25f, 0.25f },
    { 0.65f, 0.45f, 0.90f }, { 0.95f, 0.85f, 0.25f }, { 0.30f, 0.85f, 0.90f }, { 0.95f, 0.50f, 0.75f },
    { 0.55f, 0.35f, 0.20f }, { 0.10f, 0.45f, 0.45f }, { 0.55f, 0.55f, 0.55f }, { 0.50f, 0.10f, 0.35f },
    { 0.70f, 0.95f, 0.55f }, { 0.15f, 0.20f, 0.55f }, { 0.95f, 0.75f, 0.60f }, { 0.45f, 0.55f, 0.10f },
};

void rnd_colormap(float t, float rgb[3])
{
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    float x = t * (RND_COLORMAP_STOPS - 1);
    int i = (int)x < RND_COLORMAP_STOPS - 1 ? (int)x : RND_COLORMAP_STOPS - 2;
    float f = x - (float)i;
    for (int k = 0; k < 3; k++)
        rgb[k] = (1.0f - f) * rnd_colormap_stops[i][k] + f * rnd_colormap_stops[i + 1][k];
}

/* Sprites: the point size covers the sphere's (or splat's) projected
 * diameter. sprite_head is shared by both vertex shaders: the inputs, the
 * uniforms and the color of a particle. Mode 0 colormap, 1 palette,
 * 2 fixed color. */
static const char *sprite_head =
    "#version 330 core\n"
    "layout(location = 0) in vec4 a_pv;\n"
    "layout(location = 1) in vec4 a_n;\n"
    "uniform mat4 u_view, u_proj;\n"
    "uniform float u_radius, u_scale, u_lo, u_hi;\n"
    "uniform int u_mode;\n"
    "uniform vec3 u_stops[9], u_palette[16], u_color;\n"   /* RND_PALETTE */
    "out vec3 v_color;\n"
    "vec3 colormap(float t) {\n"
    "    float x = clamp(t, 0.0, 1.0) * 8.0;\n"
    "    int i = min(int(x), 7);\n"
    "    return mix(u_stops[i], u_stops[i + 1], x - float(i));\n"
    "}\n"
    "vec3 color_of(float w) {\n"
    "    if (u_mode == 0) return colormap((w - u_lo) / max(u_hi - u_lo, 1e-20));\n"
    "    if (u_mode == 1) return u_palette[int(max(w, 0.0) + 0.5) % 16];\n"
    "    return u_color;\n"
    "}\n"
    "void place(float radius) {\n"
    "    gl_Position = u_proj * u_view * vec4(a_pv.xyz, 1.0);\n"
    "    gl_PointSize = max(2.0 * radius * u_scale / gl_Position.w, 1.5);\n"
    "}\n";
static const char *sphere_vs =
    "void main() { place(u_radius); v_color = color_of(a_pv.w); }\n";
/* The sphere: the fragment shader cuts the disc and shades it as a sphere
 * lit from the upper left of the view. */
static const char *sphere_fs =
    "#version 330 core\n"
    "in vec3 v_color;\n"
    "uniform float u_alpha;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "    vec2 q = gl_PointCoord * 2.0 - 1.0;\n"
    "    q.y = -q.y;\n"
    "    float r2 = dot(q, q);\n"
    "    if (r2 > 1.0) discard;\n"
    "    vec3 n = vec3(q, sqrt(1.0 - r2));\n"
    "    vec3 l = normalize(vec3(-0.4, 0.6, 0.7));\n"
    "    float d = max(dot(n, l), 0.0);\n"
    "    float s = pow(max(dot(n, normalize(l + vec3(0.0, 0.0, 1.0))), 0.0), 40.0);\n"
    "    o_color = vec4(v_color * (0.35 + 0.65 * d) + vec3(0.25 * s), u_alpha);\n"
    "}\n";
/* Splats: interior particles (flag a_n.w = 0) are moved outside the clip
 * volume, which discards the point. A surface particle's splat is the
 * disc of radius u_radius perpendicular to its normal: the fragment at
 * sprite offset q lies on that plane at depth dz = -(m.xy . q) / m.z, and
 * inside the disc where |q|^2 + dz^2 <= 1, an ellipse on screen (m.z is
 * floored so that edge-on splats stay visible as thin ellipses). The
 * disc is lit by its own normal, so overlapping splats shade as one
 * smooth surface. */
static const char *splat_vs =
    "out vec3 v_n;\n"
    "void main() {\n"
    "    if (a_n.w < 0.5) {\n"
    "        gl_Position = vec4(0.0, 0.0, -2.0, 1.0);\n"
    "        gl_PointSize = 1.0;\n"
    "        v_color = vec3(0.0);\n"
    "        v_n = vec3(0.0, 0.0, 1.0);\n"
    "        return;\n"
    "    }\n"
    "    place(u_radius);\n"
    "    v_color = color_of(a_pv.w);\n"
    "    v_n = mat3(u_view) * a_n.xyz;\n"
    "}\n";
static const char *splat_fs =
    "#version 330 core\n"
    "in vec3 v_color;\n"
    "in vec3 v_n;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "    vec2 q = gl_PointCoord * 2.0 - 1.0;\n"
    "    q.y = -q.y;\n"
    "    vec3 m = length(v_n) > 0.0 ? normalize(v_n) : vec3(0.0, 0.0, 1.0);\n"
    "    if (m.z < 0.0) m = -m;\n"
    "    float dz = -dot(m.xy, q) / max(m.z, 0.25);\n"
    "    if (dot(q, q) + dz * dz > 1.0) discard;\n"
    "    vec3 l = normalize(vec3(-0.4, 0.6, 0.7));\n"
    "    float d = max(dot(m, l), 0.0);\n"
    "    float s = pow(max(dot(m, normalize(l + vec3(0.0, 0.0, 1.0))), 0.0), 40.0);\n"
    "    o_color = vec4(v_color * (0.35 + 0.65 * d) + vec3(0.25 * s), 1.0);\n"
    "}\n";
static const char *flat_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_p;\n"
    "layout(location = 1) in vec3 a_n;\n"
    "uniform mat4 u_view, u_proj;\n"
    "out vec3 v_n;\n"
    "void main() { gl_Position = u_proj * u_view * vec4(a_p, 1.0); v_n = mat3(u_view) * a_n; }\n";
static const char *flat_fs =
    "#version 330 core\n"
    "in vec3 v_n;\n"
    "uniform vec4 u_color;\n"
    "uniform int u_lit;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "    float d = u_lit == 1 ? 0.35 + 0.65 * abs(dot(normalize(v_n), normalize(vec3(-0.4, 0.6, 0.7)))) : 1.0;\n"
    "    o_color = vec4(u_color.rgb * d, u_color.a);\n"
    "}\n";

const char *const rnd_draw_names[RND_DRAW_COUNT] = { "spheres", "splats", "mesh" };

struct rnd_renderer {
    GLuint sphere, splat, flat;
    GLuint pvao, pvbo;          /* particles */
    GLuint svao;                /* the same buffer's two planes, for splats */
    size_t pcap;
    GLuint bvao, bvbo;          /* boundary particles */
    size_t nb;
    GLuint cvao, cvbo;          /* overlay points (control particles) */
    size_t nc;
    GLuint lvao, lvbo;          /* box lines */
    GLuint mvao, mvbo, mibo;    /* mesh */
    size_t nt;
};

/* A shader from head (may be NULL) followed by body. */
static GLuint compile(GLenum kind, const char *head, const char *body, char *err, size_t errlen)
{
    GLuint s = glCreateShader(kind);
    GLint ok = 0;
    const char *src[2] = { head ? head : "", body };
    glShaderSource(s, 2, src, NULL);
    glCompileShader(s);
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        snprintf(err, errlen, "%s shader does not compile: %s", kind == GL_VERTEX_SHADER ? "vertex" : "fragment",
                 log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

static GLuint program(const char *vs_head, const char *vs, const char *fs, char *err, size_t errlen)
{
    GLuint v = compile(GL_VERTEX_SHADER, vs_head, vs, err, errlen);
    GLuint f = v ? compile(GL_FRAGMENT_SHADER, NULL, fs, err, errlen) : 0;
    GLint ok = 0;
    if (!f) {
        glDeleteShader(v);
        return 0;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        snprintf(err, errlen, "shader program does not link: %s", log);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}

/* A VAO over one buffer whose vertices are `floats` floats: attribute 0
 * is the first min(floats, 4) of them, attribute 1 (meshes) the next 3. */
static void vertex_array(GLuint *vao, GLuint *vbo, int floats)
{
    glGenVertexArrays(1, vao);
    glGenBuffers(1, vbo);
    glBindVertexArray(*vao);
    glBindBuffer(GL_ARRAY_BUFFER, *vbo);
    GLsizei stride = (GLsizei)(floats * sizeof(float));
    glVertexAttribPointer(0, floats == 6 ? 3 : floats, GL_FLOAT, GL_FALSE, stride, (void *)0);
    glEnableVertexAttribArray(0);
    if (floats == 6) {
        glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, stride, (void *)(3 * sizeof(float)));
        glEnableVertexAttribArray(1);
    }
    glBindVertexArray(0);
}

rnd_renderer *rnd_create(char *err, size_t errlen)
{
    rnd_renderer *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->sphere = program(sprite_head, sphere_vs, sphere_fs, err, errlen);
    r->splat = r->sphere ? program(sprite_head, splat_vs, splat_fs, err, errlen) : 0;
    r->flat = r->splat ? program(NULL, flat_vs, flat_fs, err, errlen) : 0;
    if (!r->flat) {
        rnd_destroy(r);
        return NULL;
    }
    vertex_array(&r->pvao, &r->pvbo, 4);
    vertex_array(&r->bvao, &r->bvbo, 4);
    vertex_array(&r->cvao, &r->cvbo, 4);
    vertex_array(&r->lvao, &r->lvbo, 3);
    vertex_array(&r->mvao, &r->mvbo, 6);
    glGenVertexArrays(1, &r->svao);
    glBindVertexArray(r->mvao);
    glGenBuffers(1, &r->mibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, r->mibo);
    glBindVertexArray(0);
    return r;
}

void rnd_destroy(rnd_renderer *r)
{
    if (!r)
        return;
    GLuint bufs[] = { r->pvbo, r->bvbo, r->lvbo, r->mvbo, r->mibo, r->cvbo };
    GLuint vaos[] = { r->pvao, r->bvao, r->lvao, r->mvao, r->svao, r->cvao };
    glDeleteBuffers(6, bufs);
    glDeleteVertexArrays(6, vaos);
    if (r->sphere) glDeleteProgram(r->sphere);
    if (r->splat) glDeleteProgram(r->splat);
    if (r->flat) glDeleteProgram(r->flat);
    free(r);
}

unsigned rnd_particles_resize(rnd_renderer *r, size_t n)
{
    size_t m = n ? n : 1;
    glBindBuffer(GL_ARRAY_BUFFER, r->pvbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(2 * m * 16), NULL, GL_DYNAMIC_DRAW);
    /* The splats read the second plane, which starts after n float4. */
    glBindVertexArray(r->svao);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, 16, (void *)0);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 16, (void *)(m * 16));
    glEnableVertexAttribArray(1);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    r->pcap = n;
    return r->pvbo;
}

unsigned rnd_particles_vbo(const rnd_renderer *r)
{
    return r->pvbo;
}

void *rnd_particles_map(rnd_renderer *r, int planes)
{
    glBindBuffer(GL_ARRAY_BUFFER, r->pvbo);
    return glMapBufferRange(GL_ARRAY_BUFFER, 0, (GLsizeiptr)((size_t)(planes == 2 ? 2 : 1) * (r->pcap ? r->pcap : 1) * 16),
                            GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_RANGE_BIT);
}

int rnd_particles_unmap(rnd_renderer *r)
{
    glBindBuffer(GL_ARRAY_BUFFER, r->pvbo);
    GLboolean ok = glUnmapBuffer(GL_ARRAY_BUFFER);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return ok ? 0 : -1;
}

void rnd_boundary_upload(rnd_renderer *r, const float *xyzw, size_t n)
{
    glBindBuffer(GL_ARRAY_BUFFER, r->bvbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((n ? n : 1) * 16), n ? xyzw : NULL, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    r->nb = n;
}

void rnd_overlay_upload(rnd_renderer *r, const float *xyzw, size_t n)
{
    glBindBuffer(GL_ARRAY_BUFFER, r->cvbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((n ? n : 1) * 16), n ? xyzw : NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    r->nc = n;
}

void rnd_mesh_upload(rnd_renderer *r, const float *verts, size_t nv, const unsigned *tris, size_t nt)
{
    glBindVertexArray(r->mvao);
    glBindBuffer(GL_ARRAY_BUFFER, r->mvbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(nv * 6 * sizeof(float)), verts, GL_DYNAMIC_DRAW);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(nt * 3 * sizeof(unsigned)), tris, GL_DYNAMIC_DRAW);
    glBindVertexArray(0);
    r->nt = nt;
}

size_t rnd_mesh_triangles(const rnd_renderer *r)
{
    return r->nt;
}

static void set_matrices(GLuint prog, const rnd_frame *f)
{
    glUniformMatrix4fv(glGetUniformLocation(prog, "u_view"), 1, GL_FALSE, f->view);
    glUniformMatrix4fv(glGetUniformLocation(prog, "u_proj"), 1, GL_FALSE, f->proj);
}

/* The twelve edges of the box as 24 line vertices. */
static void draw_box(rnd_renderer *r, const rnd_frame *f)
{
    float v[24][3];
    int k = 0;
    for (int axis = 0; axis < 3; axis++)
        for (int corner = 0; corner < 4; corner++) {
            int a = (axis + 1) % 3, b = (axis + 2) % 3;
            for (int end = 0; end < 2; end++) {
                v[k][axis] = end ? f->box_hi[axis] : f->box_lo[axis];
                v[k][a] = (corner & 1) ? f->box_hi[a] : f->box_lo[a];
                v[k][b] = (corner & 2) ? f->box_hi[b] : f->box_lo[b];
                k++;
            }
        }
    glUseProgram(r->flat);
    set_matrices(r->flat, f);
    glUniform4f(glGetUniformLocation(r->flat, "u_color"), 0.75f, 0.78f, 0.82f, 1.0f);
    glUniform1i(glGetUniformLocation(r->flat, "u_lit"), 0);
    glBindVertexArray(r->lvao);
    glBindBuffer(GL_ARRAY_BUFFER, r->lvbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof v, v, GL_STREAM_DRAW);
    glDrawArrays(GL_LINES, 0, 24);
}

static void sprite_uniforms(GLuint p, const rnd_frame *f, float radius, int mode, float alpha,
                            const float (*palette)[3])
{
    glUseProgram(p);
    set_matrices(p, f);
    /* Pixels per unit of w-divided size: proj[1][1] * height / 2. */
    glUniform1f(glGetUniformLocation(p, "u_scale"), 0.5f * f->proj[5] * (float)f->height);
    glUniform1f(glGetUniformLocation(p, "u_radius"), radius);
    glUniform1f(glGetUniformLocation(p, "u_lo"), f->lo);
    glUniform1f(glGetUniformLocation(p, "u_hi"), f->hi);
    glUniform1i(glGetUniformLocation(p, "u_mode"), mode);
    glUniform1f(glGetUniformLocation(p, "u_alpha"), alpha);
    glUniform3fv(glGetUniformLocation(p, "u_stops"), RND_COLORMAP_STOPS, &rnd_colormap_stops[0][0]);
    glUniform3fv(glGetUniformLocation(p, "u_palette"), RND_PALETTE, palette ? &palette[0][0] : &rnd_palette[0][0]);
    glUniform3f(glGetUniformLocation(p, "u_color"), 0.62f, 0.64f, 0.68f);
}

static void draw_mesh(rnd_renderer *r, const rnd_frame *f)
{
    glUseProgram(r->flat);
    set_matrices(r->flat, f);
    glUniform4f(glGetUniformLocation(r->flat, "u_color"), 0.35f, 0.6f, 0.95f, 1.0f);
    glUniform1i(glGetUniformLocation(r->flat, "u_lit"), 1);
    glBindVertexArray(r->mvao);
    glDrawElements(GL_TRIANGLES, (GLsizei)(3 * r->nt), GL_UNSIGNED_INT, (void *)0);
}

/* The fluid in the frame's mode: spheres, splats or the mesh. */
static void draw_fluid(rnd_renderer *r, const rnd_frame *f)
{
    GLsizei n = (GLsizei)(f->n < r->pcap ? f->n : r->pcap);
    if (f->draw == RND_DRAW_MESH) {
        if (r->nt > 0)
            draw_mesh(r, f);
    } else if (f->draw == RND_DRAW_SPLATS && n > 0) {
        float k = f->splat_scale > 0.0f ? f->splat_scale : 1.0f;
        sprite_uniforms(r->splat, f, k * f->radius, (int)f->mode, 1.0f, f->palette);
        glBindVertexArray(r->svao);
        glDrawArrays(GL_POINTS, 0, n);
    } else if (n > 0) {
        sprite_uniforms(r->sphere, f, f->radius, (int)f->mode, 1.0f, f->palette);
        glBindVertexArray(r->pvao);
        glDrawArrays(GL_POINTS, 0, n);
    }
}

void rnd_draw(rnd_renderer *r, const rnd_frame *f)
{
    glViewport(0, 0, f->width, f->height);
    glClearColor(f->background[0], f->background[1], f->background[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glDisable(GL_BLEND);
    draw_fluid(r, f);
    if (f->show_box)
        draw_box(r, f);
    /* Translucent things last, without writing depth, so that they never
     * hide fluid behind them. */
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    if (f->show_boundary && r->nb > 0) {
        sprite_uniforms(r->sphere, f, 0.35f * f->radius, 2, 0.3f, NULL);
        glBindVertexArray(r->bvao);
        glDrawArrays(GL_POINTS, 0, (GLsizei)r->nb);
    }
    /* Overlay points take their palette entry from w (categorical), and
     * show through the fluid: the mac grid's cells lie inside it. */
    if (f->show_overlay && r->nc > 0) {
        sprite_uniforms(r->sphere, f, 0.6f * f->radius, 1, 0.55f, NULL);
        glDisable(GL_DEPTH_TEST);
        glBindVertexArray(r->cvao);
        glDrawArrays(GL_POINTS, 0, (GLsizei)r->nc);
        glEnable(GL_DEPTH_TEST);
    }
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    glBindVertexArray(0);
    glUseProgram(0);
}
