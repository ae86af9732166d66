/* phases.c - a scene's "phases" (seed 002 3.4, several fluids): each a
 * name, a density, a viscosity, a color and optionally a sound speed (a
 * gas the mps solver lets compress); fluid blocks name theirs with
 * "phase" (default: the first). Names are resolved after the whole scene
 * is read, since JSON members come in any order.
 *   "phases": [ { "name": "water", "density": 1000, "viscosity": 1,
 *                 "color": [0.2, 0.4, 1] },
 *               { "name": "air", "density": 1.3, "viscosity": 1.8e-5,
 *                 "sound_speed": 100 } ]
 * Invariant: after phases_resolve returns 0, every block's phase index
 * is below max(nphases, 1); names are unique, densities positive,
 * viscosities and sound speeds non-negative, all finite.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene_read.h"

static int fail(char *err, size_t errlen, const char *file, const char *where, const char *msg)
{
    snprintf(err, errlen, "%s: %s: %s", file, where, msg);
    return -1;
}

/* o[key] as a required finite number in [lo, hi], into a float. */
static int read_value(const cJSON *o, const char *key, double lo, double hi, float *out, const char *where,
                      const char *file, char *err, size_t errlen)
{
    double v = 0.0;
    if (scene_read_number(o, key, lo, hi, 1, &v, where, file, err, errlen) != 0)
        return -1;
    *out = (float)v;
    return 0;
}

static int read_name(fcl_phase_decl *ph, const cJSON *o, const char *where, const char *file, char *err,
                     size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "name");
    char k[64], msg[160];
    snprintf(k, sizeof k, "%s.name", where);
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= sizeof ph->name) {
        snprintf(msg, sizeof msg, "expected a name of 1 to %zu characters, got %s%.40s%s", sizeof ph->name - 1,
                 cJSON_IsString(v) ? "'" : "", cJSON_IsString(v) ? v->valuestring : scene_json_type(v),
                 cJSON_IsString(v) ? "'" : "");
        return fail(err, errlen, file, k, msg);
    }
    snprintf(ph->name, sizeof ph->name, "%s", v->valuestring);
    return 0;
}

static int read_phase(fcl_scene *s, const cJSON *o, int idx, const char *file, char *err, size_t errlen)
{
    static const char *const keys[] = { "name", "density", "viscosity", "color", "sound_speed", NULL };
    char where[32];
    snprintf(where, sizeof where, "phases[%d]", idx);
    fcl_phase_decl *ph = &s->phases[idx];
    double c = 0.0;   /* sound_speed: absent, incompressible */
    memset(ph, 0, sizeof *ph);
    ph->color[0] = ph->color[1] = ph->color[2] = 0.5f;
    if (!cJSON_IsObject(o))
        return fail(err, errlen, file, where, "expected an object with name, density, viscosity and color");
    /* A color of the wrong shape in its own words (it read "[x, y, z] each
     * in [-1e+06, 1e+06] m", a position's). */
    const cJSON *col = cJSON_GetObjectItemCaseSensitive(o, "color");
    int shaped = !col || (cJSON_IsArray(col) && cJSON_GetArraySize(col) == 3);
    for (const cJSON *c = shaped && col ? col->child : NULL; c; c = c->next)
        shaped &= cJSON_IsNumber(c);
    if (!shaped) {
        char msg[200], got[96];
        snprintf(msg, sizeof msg, "expected three numbers in [0, 1] (red, green, blue), got %s",
                 scene_json_show(col, got, sizeof got));
        return fail(err, errlen, file, strcat(where, ".color"), msg);
    }
    if (scene_check_keys(o, keys, where, file, err, errlen) != 0 || read_name(ph, o, where, file, err, errlen) != 0 ||
        read_value(o, "density", 1e-3, 1e6, &ph->density, where, file, err, errlen) != 0 ||
        read_value(o, "viscosity", 0.0, 1e5, &ph->viscosity, where, file, err, errlen) != 0 ||
        scene_read_vec3(o, "color", ph->color, 0, where, file, err, errlen) != 0 ||
        scene_read_number(o, "sound_speed", 0.0, 1e5, 0, &c, where, file, err, errlen) != 0)
        return -1;
    ph->sound_speed = (float)c;
    /* Below about 1 m/s the gas's term p / (rho c^2 dt^2) dwarfs the
     * Laplacian's and CG stalls in float: at 1e-6 m/s every solve of the
     * rising bubble failed (|r|/|b| = 1 after 500 iterations) and the run
     * went on with exit 0; 1e-4 took 208 iterations, 1 m/s 25, 100 m/s
     * 13 (a review). No gas is that soft: air is 343 m/s. */
    if (c > 0.0 && c < 1.0) {
        char msg[160];
        snprintf(msg, sizeof msg, "expected 0 (incompressible) or 1 to 1e5 m/s, got %g (below 1 m/s the pressure "
                 "solve stalls)", c);
        return fail(err, errlen, file, strcat(where, ".sound_speed"), msg);
    }
    for (int k = 0; k < 3; k++)
        if (!(ph->color[k] >= 0.0f && ph->color[k] <= 1.0f)) {
            char msg[160];
            snprintf(msg, sizeof msg, "expected three numbers in [0, 1], got [%g, %g, %g]", ph->color[0],
                     ph->color[1], ph->color[2]);
            return fail(err, errlen, file, strcat(where, ".color"), msg);
        }
    for (int k = 0; k < idx; k++)
        if (strcmp(s->phases[k].name, ph->name) == 0) {
            char msg[160];
            snprintf(msg, sizeof msg, "'%s' is phases[%d]'s name already", ph->name, k);
            return fail(err, errlen, file, strcat(where, ".name"), msg);
        }
    return 0;
}

int phases_read(fcl_scene *s, const cJSON *arr, const char *file, char *err, size_t errlen)
{
    char msg[160];
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1 || cJSON_GetArraySize(arr) > FCL_PHASES_MAX) {
        char got[96];
        snprintf(msg, sizeof msg, "expected a list of 1 to %d phases, got %s %s", FCL_PHASES_MAX,
                 scene_json_type(arr), scene_json_show(arr, got, sizeof got));
        if (cJSON_IsArray(arr))
            snprintf(msg, sizeof msg, "expected a list of 1 to %d phases, got %d", FCL_PHASES_MAX,
                     cJSON_GetArraySize(arr));
        return fail(err, errlen, file, "phases", msg);
    }
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++)
        if (read_phase(s, o, i, file, err, errlen) != 0)
            return -1;
    s->nphases = i;
    return 0;
}

int phases_find(const fcl_scene *s, const char *name)
{
    for (int k = 0; k < s->nphases; k++)
        if (strcmp(s->phases[k].name, name) == 0)
            return k;
    return -1;
}

/* "water, oil" for messages. */
static void names(const fcl_scene *s, char *out, size_t len)
{
    out[0] = '\0';
    for (int k = 0; k < s->nphases; k++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", k ? ", " : "", s->phases[k].name);
}

void phases_unknown(const fcl_scene *s, const char *name, char *msg, size_t len)
{
    char list[300];
    names(s, list, sizeof list);
    if (s->nphases == 0)
        snprintf(msg, len, "unknown phase '%s' (the scene has no \"phases\" list)", name);
    else
        snprintf(msg, len, "unknown phase '%s' (expected one of: %s)", name, list);
}

int phases_resolve(fcl_scene *s, const char *file, char *err, size_t errlen)
{
    for (int b = 0; b < s->nblocks; b++) {
        fcl_block *bl = &s->blocks[b];
        if (!bl->phase[0]) {
            bl->phase_index = 0;
            continue;
        }
        char where[48], msg[512];
        snprintf(where, sizeof where, "fluid[%d].phase", b);
        bl->phase_index = phases_find(s, bl->phase);
        if (bl->phase_index >= 0)
            continue;
        phases_unknown(s, bl->phase, msg, sizeof msg);
        return fail(err, errlen, file, where, msg);
    }
    return 0;
}
