/* view_interop.c - one particle buffer for OpenCL and OpenGL.
 *
 * shared CL-GL:  the OpenCL context is made with the current GLX context
 *                and display (cl_khr_gl_sharing); the GL vertex buffer is
 *                a CL buffer (clCreateFromGLBuffer), acquired once per
 *                frame before the kernels run and released after, and
 *                view_pack writes into it on the device.
 * copy via host: any other device (PoCL, the native CPU backend, a GPU
 *                not driving the display): view_pack writes a staging
 *                buffer, which is read into the mapped GL buffer.
 * Invariant: the shared path is taken only when the chosen device reports
 * cl_khr_gl_sharing and is among the devices of the current GL context;
 * any failure on the way falls back to the copy path, with the reason in
 * v->path_note.
 */
#define GLFW_INCLUDE_NONE
#define GLFW_EXPOSE_NATIVE_X11
#define GLFW_EXPOSE_NATIVE_GLX
#include <GLFW/glfw3.h>
#include <GLFW/glfw3native.h>
#include <CL/cl_gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "be_opencl.h"
#include "passes.h"
#include "view.h"

/* glFinish comes through view_gl_finish (view.c, with glad), so that this
 * file needs no GL header besides GLX's. */
typedef cl_int (*gl_context_info_fn)(const cl_context_properties *, cl_gl_context_info, size_t, void *, size_t *);

/* Whether dev drives the current GL context (CL_DEVICES_FOR_GL_CONTEXT_KHR). */
static int drives_display(const clrt_device *dev, const cl_context_properties *props, char *why, size_t len)
{
    gl_context_info_fn info =
        (gl_context_info_fn)clGetExtensionFunctionAddressForPlatform(dev->platform, "clGetGLContextInfoKHR");
    cl_device_id ids[16];
    size_t bytes = 0;
    if (!info) {
        snprintf(why, len, "%s: no clGetGLContextInfoKHR", dev->platform_name);
        return 0;
    }
    cl_int e = info(props, CL_DEVICES_FOR_GL_CONTEXT_KHR, sizeof ids, ids, &bytes);
    if (e != CL_SUCCESS) {
        snprintf(why, len, "clGetGLContextInfoKHR: %s (%d)", clrt_error_name(e), (int)e);
        return 0;
    }
    for (size_t i = 0; i < bytes / sizeof ids[0]; i++)
        if (ids[i] == dev->id)
            return 1;
    snprintf(why, len, "%s does not drive this display", dev->name);
    return 0;
}

/* A sharing context for the chosen device, or NULL with the reason. */
static fcl_backend *try_shared(fcl_view *v, char *why, size_t len)
{
    clrt_device *devs = NULL;
    char err[1024];
    int count = clrt_devices(&devs), pick = clrt_choose(devs, count, v->cli.device, err, sizeof err);
    fcl_backend *be = NULL;
    GLXContext ctx = glfwGetGLXContext(v->win);
    Display *dpy = glfwGetX11Display();
    if (pick < 0)
        snprintf(why, len, "%s", err);
    else if (!devs[pick].gl_sharing)
        snprintf(why, len, "%s has no cl_khr_gl_sharing", devs[pick].name);
    else if (!ctx || !dpy)
        snprintf(why, len, "the GL context is not a GLX one");
    if (pick >= 0 && devs[pick].gl_sharing && ctx && dpy) {
        cl_context_properties props[] = { CL_GL_CONTEXT_KHR, (cl_context_properties)ctx,
                                          CL_GLX_DISPLAY_KHR, (cl_context_properties)dpy,
                                          CL_CONTEXT_PLATFORM, (cl_context_properties)devs[pick].platform, 0 };
        if (drives_display(&devs[pick], props, why, len) &&
            !(be = be_opencl_create_props(v->cli.device, v->kernel_dir[0] ? v->kernel_dir : NULL, props, err,
                                          sizeof err)))
            snprintf(why, len, "sharing context: %s", err);
    }
    free(devs);
    return be;
}

int view_interop_backend(fcl_view *v, char *err, size_t errlen)
{
    const char *kdir = v->kernel_dir[0] ? v->kernel_dir : NULL;
    v->shared = 0;
    snprintf(v->path_note, sizeof v->path_note, "the native CPU backend has no OpenCL context");
    if (strcmp(v->cli.backend, "opencl") == 0 && (v->be = try_shared(v, v->path_note, sizeof v->path_note)))
        v->shared = 1;
    if (!v->be)
        /* kdir may be the source tree's kernels/ (view.c), which the user
         * did not ask for: the fallback goes by v->cli's options (it was
         * taken for --kernel-dir, and view exited 3 without OpenCL; a
         * review). */
        v->be = backend_create_default(v->cli.backend, v->cli.backend_given, v->cli.device, kdir, err, errlen);
    return v->be ? 0 : (strncmp(err, "--", 2) == 0 ? FCL_EXIT_INPUT : FCL_EXIT_DEVICE);
}

/* The window's title names the scene and the active path, so the path
 * shows even with the panel hidden. */
static void show_path(fcl_view *v)
{
    char title[512];
    snprintf(title, sizeof title, "fluidcl - %s - %s", v->scene.name[0] ? v->scene.name : v->scene.file,
             view_path_name(v));
    glfwSetWindowTitle(v->win, title);
}

int view_interop_alloc(fcl_view *v, char *err, size_t errlen)
{
    size_t n = v->sim.n;
    fcl_backend *be = v->be;
    unsigned vbo = rnd_particles_resize(v->rnd, n);
    v->pack_n = n;
    if (v->shared) {
        v->pack = be_opencl_gl_buffer(be, vbo, 2 * (n ? n : 1) * 16, err, errlen);
        if (v->pack) {
            show_path(v);
            return 0;
        }
        /* The context shares, yet this buffer does not: copy instead. */
        v->shared = 0;
        snprintf(v->path_note, sizeof v->path_note, "%s", err);
    }
    show_path(v);
    v->pack = be->ops->buf_new(be, 2 * (n ? n : 1) * 16, "viewer vertex staging");
    if (!v->pack) {
        snprintf(err, errlen, "no memory on %s for the viewer's staging buffer (%zu particles)", be->name, n);
        return FCL_EXIT_DEVICE;
    }
    return 0;
}

int view_interop_begin(fcl_view *v)
{
    if (!v->shared)
        return 0;
    /* Without cl_khr_gl_event, GL must be done with the buffer first. */
    view_gl_finish();
    return be_opencl_gl_acquire(v->be, v->pack);
}

/* Whether the frame needs the second plane (normals and surface flags). */
static int wants_normals(const fcl_view *v)
{
    return v->draw == RND_DRAW_SPLATS;
}

static int pack(fcl_view *v)
{
    fcl_sim *s = &v->sim;
    uint field = (uint)v->field, normals = (uint)wants_normals(v);
    fcl_buf *sfield = v->phase_buf;   /* read only for a solver field */
    if (s->n == 0)
        return 0;
    if (v->field >= FCL_FIELD_SOLVER) {
        field = FCL_FIELD_SOLVER;
        sfield = s->solver->fields[v->field - FCL_FIELD_SOLVER].buffer(s);
        if (!sfield)
            return -1;
    }
    return pass_view_pack(v->be, s->n, "view-pack", s->grid.attr[s->a_pos].cur, s->grid.attr[s->a_vev].cur, s->rho,
                          s->prs, s->grid.attr[s->a_id].cur, v->phase_buf, sfield, s->grid.start, v->pack,
                          s->grid.info, s->c, field, normals);
}

int view_interop_end(fcl_view *v)
{
    fcl_backend *be = v->be;
    if (v->shared)
        return (pack(v) | be_opencl_gl_release(be, v->pack)) ? -1 : 0;
    if (pack(v) != 0 || be->ops->finish(be) != 0)
        return -1;
    /* The pack buffer's planes are n float4 apart, as the GL buffer's;
     * the normals plane travels only when the splats read it. */
    int planes = wants_normals(v) ? 2 : 1;
    void *dst = rnd_particles_map(v->rnd, planes);
    int rc = dst ? be->ops->buf_read(be, v->pack, 0, (size_t)planes * v->sim.n * 16, dst) : -1;
    return (rnd_particles_unmap(v->rnd) != 0 || rc != 0) ? -1 : 0;
}

/* Phases of the ids added since (emitters): the scene's phase index each
 * carries in pos.w where the scene has phases, else the first body's. */
static int follow_phases(fcl_view *v, char *err, size_t errlen)
{
    fcl_sim *s = &v->sim;
    size_t ids = s->next_id, old = v->phase_ids;
    if (ids <= old)
        return 0;
    float *ph = realloc(v->phase, (ids + 1) * sizeof *ph);
    float4 *pos = v->scene.nphases > 0 ? malloc((s->n + 1) * sizeof *pos) : NULL;
    uint *id = pos ? malloc((s->n + 1) * sizeof *id) : NULL;
    if (ph)
        v->phase = ph;
    if (!ph || (v->scene.nphases > 0 && (!id || sim_download(s, pos, NULL, NULL, NULL, id) != 0))) {
        free(pos);
        free(id);
        snprintf(err, errlen, "view: cannot follow the %zu particles the emitters added", ids - old);
        return FCL_EXIT_DEVICE;
    }
    for (size_t i = old; i < ids; i++)
        ph[i] = 0.0f;
    for (size_t i = 0; pos && i < s->n; i++)
        if (id[i] >= old && id[i] < ids)
            ph[id[i]] = pos[i].w;
    free(pos);
    free(id);
    v->phase_ids = ids;
    fcl_backend *be = v->be;
    be->ops->buf_free(be, v->phase_buf);
    v->phase_buf = be->ops->buf_new(be, ids * sizeof(float), "particle phases");
    if (!v->phase_buf || be->ops->buf_write(be, v->phase_buf, 0, ids * sizeof(float), v->phase) != 0) {
        snprintf(err, errlen, "view: the phase buffer could not be set up on %s", be->name);
        return FCL_EXIT_DEVICE;
    }
    return 0;
}

int view_interop_follow(fcl_view *v, char *err, size_t errlen)
{
    if (v->sim.n == v->pack_n && v->sim.next_id <= v->phase_ids)
        return 0;
    /* The shared buffer is held by OpenCL between begin and end. */
    if (v->shared && be_opencl_gl_release(v->be, v->pack) != 0)
        return FCL_EXIT_DEVICE;
    int rc = follow_phases(v, err, errlen);
    if (rc == 0 && v->sim.n != v->pack_n) {
        view_interop_free(v);
        rc = view_interop_alloc(v, err, errlen);
    }
    if (rc == 0 && view_interop_begin(v) != 0)
        rc = FCL_EXIT_DEVICE;
    return rc;
}

void view_interop_free(fcl_view *v)
{
    if (v->pack)
        v->be->ops->buf_free(v->be, v->pack);
    v->pack = NULL;
    v->pack_n = 0;
}
