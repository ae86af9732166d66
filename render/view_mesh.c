/* view_mesh.c - the viewer's mesh mode: the marching-cubes surface of the
 * live state (host/surface/mc.h, the same reconstruction as `run --mesh`), made
 * on the simulation's backend and uploaded to the renderer.
 * Invariant: the uploaded mesh is that of step mesh_step under the
 * surface.* parameters in mesh_cfg; mesh_step = -1 means "none yet" and
 * forces the next rebuild.
 */
#include <GLFW/glfw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

/* Positions and normals interleaved as rnd_mesh_upload wants them. */
static int upload(fcl_view *v, const mc_mesh *m)
{
    float *vn = malloc((m->nv ? m->nv : 1) * 6 * sizeof *vn);
    if (!vn)
        return -1;
    for (size_t i = 0; i < m->nv; i++) {
        float *o = vn + 6 * i;
        o[0] = m->v[i].x, o[1] = m->v[i].y, o[2] = m->v[i].z;
        o[3] = m->n[i].x, o[4] = m->n[i].y, o[5] = m->n[i].z;
    }
    rnd_mesh_upload(v->rnd, vn, m->nv, m->tri, m->nt);
    free(vn);
    return 0;
}

/* Reconstruct from the simulation's device buffers, upload; the wall time
 * covers both, which is what the mode costs a frame. */
static int rebuild(fcl_view *v, const mc_config *c, char *err, size_t errlen)
{
    mc_mesh m;
    memset(&m, 0, sizeof m);
    double t0 = glfwGetTime();
    mc_input in = mc_input_sim(&v->sim);
    int rc = mc_reconstruct_in(&v->mc, c, &in, &m, err, errlen);
    if (rc == 0 && upload(v, &m) != 0) {
        snprintf(err, errlen, "view: out of memory uploading a mesh of %zu vertices", m.nv);
        rc = FCL_EXIT_DEVICE;
    }
    if (rc == 0) {
        v->mesh_ms = (glfwGetTime() - t0) * 1e3;
        v->sum_mesh += v->mesh_ms * 1e-3;
        v->meshes++;
        v->mesh_tris = m.nt;
        v->mesh_verts = m.nv;
        v->mesh_step = v->sim.step;
        v->mesh_frame = v->frames;
        v->mesh_cfg = *c;
    }
    mc_mesh_free(&m);
    return rc;
}

int view_mesh_update(fcl_view *v, char *err, size_t errlen)
{
    mc_config c;
    err[0] = '\0';
    if (!v->have_sim)
        return 0;
    if (!v->mc_ready) {
        if (mc_init(&v->mc, v->be, err, errlen) != 0)
            return FCL_EXIT_DEVICE;
        v->mc_ready = 1;
    }
    mc_config_from_params(&c, &v->live);
    return rebuild(v, &c, err, errlen);
}

/* Whether the mesh mode needs a new mesh this frame: none yet, other
 * surface parameters, or a newer state mesh_every frames on. */
int view_mesh_due(const fcl_view *v)
{
    mc_config c;
    mc_config_from_params(&c, &v->live);
    if (v->mesh_step < 0 || memcmp(&c, &v->mesh_cfg, sizeof c) != 0)
        return 1;
    long every = v->mesh_every > 0 ? v->mesh_every : 1;
    return v->sim.step != v->mesh_step && v->frames - v->mesh_frame >= every;
}

void view_mesh_free(fcl_view *v)
{
    if (v->mc_ready)
        mc_free(&v->mc);
    v->mc_ready = 0;
    v->mesh_step = -1;
}
