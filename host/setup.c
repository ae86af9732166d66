/* setup.c - the initial state of a simulation from a scene (setup.h). */
#include "setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

int setup_initial(const fcl_scene *sc, const fcl_params *p, const fcl_backend *be, fcl_initial *in,
                  char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    if (boundary_build(sc, p, &in->b, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    double count = scene_count(sc, p);
    char why[768] = "";
    /* Check before filling: a lattice too large for the device is
     * reported without allocating it on the host. */
    if (count > 4e9 || (be && sim_check_fits(be, p, (size_t)count, in->b.n, why, sizeof why) != 0)) {
        snprintf(err, errlen, "%s: %s", sc->file, why[0] ? why : "particles.spacing: too many particles");
        setup_free(in);
        return FCL_EXIT_INPUT;
    }
    if (scene_particles(sc, p, &in->pos, &in->vel, &in->n, err, errlen) != 0) {
        setup_free(in);
        return FCL_EXIT_INPUT;
    }
    size_t kept = boundary_carve(&in->b, in->pos, in->vel, in->n, SETUP_GAP * p->particles_spacing);
    if (kept == (size_t)-1) {
        snprintf(err, errlen, "%s: not enough host memory to carve the fluid out of the obstacles", sc->file);
        setup_free(in);
        return FCL_EXIT_DEVICE;
    }
    in->carved = in->n - kept;
    in->n = kept;
    return 0;
}

void setup_free(fcl_initial *in)
{
    free(in->pos);
    free(in->vel);
    boundary_free(&in->b);
    memset(in, 0, sizeof *in);
}
