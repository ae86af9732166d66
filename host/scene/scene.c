/* scene.c - loading and checking scene files, and filling fluid blocks
 * with particles on a cubic lattice. Parameter groups are read through the
 * parameter table, so new parameters need no code here. Obstacles are only
 * described here (mesh paths resolved); boundary.c loads and samples them.
 * Invariant: every refusal is one message "FILE: KEY: expected ..., got
 * VALUE"; a key given twice, a non-finite number or a coordinate outside
 * +-SCENE_COORD_MAX is refused like any other bad value.
 */
#include "scene.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "overlap.h"
#include "infile.h"
#include "polygon.h"
#include "scene_read.h"
#include "targets.h"

/* Coordinates, radii, scales and offsets in a scene: the range of the
 * domain parameters, so that every extent and lattice count stays finite
 * in float and double. */
#define SCENE_COORD_MAX 1e6

static int err_at(char *err, size_t errlen, const char *file, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int err_at(char *err, size_t errlen, const char *file, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s: %s", file, msg);
    return -1;
}

/* A JSON value as the message shows it: numbers with %g (inf too, which
 * cJSON would print as null), strings quoted, arrays element by element,
 * objects in JSON, all cut to about 60 characters. */
static const char *show(const cJSON *v, char *buf, size_t len)
{
    if (!v) {
        snprintf(buf, len, "nothing");
    } else if (cJSON_IsNumber(v)) {
        snprintf(buf, len, "%g", v->valuedouble);
    } else if (cJSON_IsString(v)) {
        snprintf(buf, len, "'%.40s%s'", v->valuestring, strlen(v->valuestring) > 40 ? "..." : "");
    } else if (cJSON_IsArray(v)) {
        size_t at = (size_t)snprintf(buf, len, "[");
        int k = 0;
        for (const cJSON *c = v->child; c && at < len; c = c->next, k++) {
            char one[64];
            at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? ", " : "",
                                   k < 6 ? show(c, one, sizeof one) : "...");
            if (k == 6)
                break;
        }
        if (at < len)
            snprintf(buf + at, len - at, "]");
    } else {
        char *text = cJSON_PrintUnformatted(v);
        snprintf(buf, len, "%.60s%s", text ? text : "?", text && strlen(text) > 60 ? "..." : "");
        free(text);
    }
    return buf;
}

/* The earlier member of v's object with v's key, or NULL. The callers
 * refuse unknown keys as they go, so the scan stops within the few known
 * keys of an object and stays short whatever the file holds. */
static const cJSON *earlier_twin(const cJSON *first, const cJSON *v)
{
    for (const cJSON *u = first; u && u != v; u = u->next)
        if (strcmp(u->string, v->string) == 0)
            return u;
    return NULL;
}

static int twice(const cJSON *first, const cJSON *v, const char *where, const char *file, char *err, size_t errlen)
{
    const cJSON *u = earlier_twin(first, v);
    if (!u)
        return 0;
    char a[96], b[96];
    return err_at(err, errlen, file, "%s%s%s: given twice (%s, then %s): expected each key once", where,
                  *where ? "." : "", v->string, show(u, a, sizeof a), show(v, b, sizeof b));
}

static const char *json_type(const cJSON *v)
{
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    if (cJSON_IsBool(v)) return "a boolean";
    return "null";
}

/* One parameter from its JSON value, type-checked, then range-checked by
 * the table. */
static int read_param(fcl_params *p, const fcl_param_def *d, const cJSON *v, const char *file,
                      char *err, size_t errlen)
{
    char msg[512], exp[160];
    params_expected(d, exp, sizeof exp);
    int ok;
    if (d->type == PT_STRING || d->type == PT_CHOICE)
        ok = cJSON_IsString(v) && params_set_text(p, d, v->valuestring, msg, sizeof msg) == 0;
    else if (d->type == PT_VEC3)
        ok = cJSON_IsArray(v) && cJSON_GetArraySize(v) == 3 && cJSON_IsNumber(cJSON_GetArrayItem(v, 0)) &&
             cJSON_IsNumber(cJSON_GetArrayItem(v, 1)) && cJSON_IsNumber(cJSON_GetArrayItem(v, 2));
    else
        ok = cJSON_IsNumber(v) && params_set_number(p, d, 0, v->valuedouble, msg, sizeof msg) == 0;
    for (int k = 0; ok && d->type == PT_VEC3 && k < 3; k++)
        ok = params_set_number(p, d, k, cJSON_GetArrayItem(v, k)->valuedouble, msg, sizeof msg) == 0;
    if (ok)
        return 0;
    char got[96];
    /* The value's kind where it is not the one expected (a string '1' for
     * a number); null and a value of the right kind show as themselves. */
    int text = d->type == PT_STRING || d->type == PT_CHOICE;
    int kind_ok = text ? cJSON_IsString(v) : (d->type == PT_VEC3 ? cJSON_IsArray(v) : cJSON_IsNumber(v));
    const char *what = kind_ok || cJSON_IsNull(v) ? "" : (cJSON_IsString(v) ? "the string" : json_type(v));
    /* The text form x,y,z is --param's; a scene file takes an array. */
    if (d->type == PT_VEC3 && cJSON_IsString(v))
        return err_at(err, errlen, file, "%s.%s: expected an array [x, y, z] in a scene file (the text 'x,y,z' is "
                      "--param's form), got the string %s", d->group, d->name, show(v, got, sizeof got));
    return err_at(err, errlen, file, "%s.%s: expected %s, got %s%s%s", d->group, d->name, exp, what,
                  *what ? " " : "", show(v, got, sizeof got));
}

static int read_group(fcl_params *p, const cJSON *obj, const char *file, char *err, size_t errlen)
{
    char got[96];
    int null = cJSON_IsNull(obj);   /* its type is its text: "got null", not "got null null" */
    if (!cJSON_IsObject(obj))
        return err_at(err, errlen, file, "%s: expected an object of parameters, got %s%s%s", obj->string,
                      json_type(obj), null ? "" : " ", null ? "" : show(obj, got, sizeof got));
    for (const cJSON *v = obj->child; v; v = v->next) {
        char key[160], names[1024] = "";
        snprintf(key, sizeof key, "%s.%s", obj->string, v->string);
        const fcl_param_def *d = params_find(key);
        if (d) {
            if (twice(obj->child, v, obj->string, file, err, errlen) || read_param(p, d, v, file, err, errlen))
                return -1;
            continue;
        }
        params_group_names(obj->string, strlen(obj->string), names, sizeof names);
        return err_at(err, errlen, file, "%.160s: unknown key (expected one of: %s)", key, names);
    }
    return 0;
}

static int is_group(const char *name)
{
    for (size_t i = 0; i < fcl_param_count; i++)
        if (strcmp(fcl_param_table[i].group, name) == 0)
            return 1;
    return 0;
}

/* A finite number within +-SCENE_COORD_MAX (and above 0 when positive). */
static int coord_ok(const cJSON *c, int positive)
{
    return cJSON_IsNumber(c) && isfinite(c->valuedouble) && fabs(c->valuedouble) <= SCENE_COORD_MAX &&
           (!positive || c->valuedouble > 0.0);
}

/* v as three coordinates; key names it in the message. */
static int vec3_value(const cJSON *v, const char *key, float out[3], const char *where, const char *file,
                      char *err, size_t errlen)
{
    char got[96];
    int ok = cJSON_IsArray(v) && cJSON_GetArraySize(v) == 3;
    for (int i = 0; ok && i < 3; i++) {
        const cJSON *c = cJSON_GetArrayItem(v, i);
        ok = coord_ok(c, 0);
        if (ok)
            out[i] = (float)c->valuedouble;
    }
    const char *unit = strcmp(key, "velocity") == 0 ? " m/s" : strcmp(key, "direction") == 0 ? "" : " m";
    return ok ? 0 : err_at(err, errlen, file, "%s.%s: expected three numbers [x, y, z] each in [-%g, %g]%s, got %s",
                           where, key, SCENE_COORD_MAX, SCENE_COORD_MAX, unit, show(v, got, sizeof got));
}

static int read_vec3(const cJSON *o, const char *key, float out[3], int required, const char *where,
                     const char *file, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        if (required)
            return err_at(err, errlen, file, "%s.%s: missing (expected three numbers [x, y, z])", where, key);
        return 0;
    }
    return vec3_value(v, key, out, where, file, err, errlen);
}

/* A positive length (radius, scale) within SCENE_COORD_MAX. */
static int read_positive(const cJSON *o, const char *key, float *out, const char *where, const char *file,
                         char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char got[96];
    if (coord_ok(v, 1)) {
        *out = (float)v->valuedouble;
        return 0;
    }
    return err_at(err, errlen, file, "%s.%s: expected a positive number up to %g, got %s", where, key,
                  SCENE_COORD_MAX, show(v, got, sizeof got));
}

static int check_block_keys(const cJSON *o, const char *const *allowed, const char *where, const char *file,
                            char *err, size_t errlen)
{
    for (const cJSON *v = o->child; v; v = v->next) {
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            ok |= strcmp(v->string, allowed[i]) == 0;
        if (ok && twice(o->child, v, where, file, err, errlen))
            return -1;
        if (!ok) {
            char names[160] = "";
            for (int i = 0; allowed[i]; i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", allowed[i]);
            return err_at(err, errlen, file, "%s.%.100s: unknown key (expected one of: %s)", where, v->string, names);
        }
    }
    return 0;
}

/* The "type" of a block or obstacle; -1 with the message when o is not an
 * object with a string "type". */
static int read_type(const cJSON *o, const char *where, const char *kinds, const char **type, const char *file,
                     char *err, size_t errlen)
{
    const cJSON *t = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, "type") : NULL;
    char got[96];
    if (cJSON_IsString(t)) {
        *type = t->valuestring;
        return 0;
    }
    if (!cJSON_IsObject(o))
        return err_at(err, errlen, file, "%s: expected an object with \"type\": %s, got %s", where, kinds,
                      show(o, got, sizeof got));
    return err_at(err, errlen, file, "%s.type: expected %s, got %s", where, kinds, show(t, got, sizeof got));
}

static int read_block(fcl_block *b, const cJSON *o, int idx, const char *file, char *err, size_t errlen)
{
    static const char *const box_keys[] = { "type", "min", "max", "velocity", "phase", NULL };
    static const char *const sphere_keys[] = { "type", "center", "radius", "velocity", "phase", NULL };
    char where[32];
    const char *t;
    snprintf(where, sizeof where, "fluid[%d]", idx);
    memset(b, 0, sizeof *b);
    if (read_type(o, where, "\"box\" or \"sphere\"", &t, file, err, errlen) != 0)
        return -1;
    if (strcmp(t, "box") == 0) {
        b->kind = FCL_SHAPE_BOX;
        if (check_block_keys(o, box_keys, where, file, err, errlen) ||
            read_vec3(o, "min", b->min, 1, where, file, err, errlen) ||
            read_vec3(o, "max", b->max, 1, where, file, err, errlen))
            return -1;
    } else if (strcmp(t, "sphere") == 0) {
        b->kind = FCL_SHAPE_SPHERE;
        if (check_block_keys(o, sphere_keys, where, file, err, errlen) ||
            read_vec3(o, "center", b->center, 1, where, file, err, errlen) ||
            read_positive(o, "radius", &b->radius, where, file, err, errlen))
            return -1;
    } else {
        return err_at(err, errlen, file, "%s.type: expected \"box\" or \"sphere\", got '%.40s'", where, t);
    }
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(o, "phase");
    char got[96];
    if (ph && (!cJSON_IsString(ph) || strlen(ph->valuestring) >= sizeof b->phase || !ph->valuestring[0]))
        return err_at(err, errlen, file, "%s.phase: expected the name of one of \"phases\", got %s", where,
                      show(ph, got, sizeof got));
    if (ph)
        snprintf(b->phase, sizeof b->phase, "%s", ph->valuestring);
    return read_vec3(o, "velocity", b->velocity, 0, where, file, err, errlen);
}

static int read_fluid(fcl_scene *s, const cJSON *arr, const char *file, char *err, size_t errlen)
{
    char got[96];
    if (!cJSON_IsArray(arr))
        return err_at(err, errlen, file, "fluid: expected an array of boxes and spheres, got %s %s", json_type(arr),
                      show(arr, got, sizeof got));
    int n = cJSON_GetArraySize(arr);
    s->blocks = calloc((size_t)n + 1, sizeof *s->blocks);
    if (!s->blocks)
        return err_at(err, errlen, file, "fluid: out of memory for %d blocks", n);
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++)
        if (read_block(&s->blocks[i], o, i, file, err, errlen) != 0)
            return -1;
    s->nblocks = n;
    return 0;
}

/* Mesh files are named relative to the scene file's folder; the meshes of
 * a scene built into the binary are looked up in the same table. */
static int mesh_path(char *out, size_t outlen, const char *scene, const char *name)
{
    int n;
    if (name[0] == '/' || strncmp(name, "embedded:", 9) == 0) {
        n = snprintf(out, outlen, "%s", name);
    } else if (strncmp(scene, "embedded:", 9) == 0) {
        n = snprintf(out, outlen, "embedded:%s", name);
    } else {
        const char *slash = strrchr(scene, '/');
        n = snprintf(out, outlen, "%.*s%s", slash ? (int)(slash - scene + 1) : 0, scene, name);
    }
    return n >= 0 && (size_t)n < outlen ? 0 : -1;
}

static int read_obstacle_mesh(fcl_obstacle *b, const cJSON *o, const char *where, const char *file,
                              char *err, size_t errlen)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "file");
    char got[96];
    if (!cJSON_IsString(f) || !f->valuestring[0])
        return err_at(err, errlen, file, "%s.file: expected the name of an OBJ file, got %s", where,
                      cJSON_IsString(f) ? "an empty string" : show(f, got, sizeof got));
    if (mesh_path(b->file, sizeof b->file, file, f->valuestring) != 0)
        return err_at(err, errlen, file, "%s.file: expected a path shorter than 1024 bytes, got '%.40s...'",
                      where, f->valuestring);
    b->scale = 1.0f;
    if (cJSON_GetObjectItemCaseSensitive(o, "scale") && read_positive(o, "scale", &b->scale, where, file, err, errlen))
        return -1;
    return read_vec3(o, "translate", b->translate, 0, where, file, err, errlen);
}

/* "vertices": 3 to FCL_POLY_MAX points [x, y, z]; then the polygon checks
 * (polygon.h: distinct vertices, an area, planar within 1e-4 of its
 * extent) and an optional positive "thickness". */
static int read_obstacle_polygon(fcl_obstacle *b, const cJSON *o, const char *where, const char *file, char *err,
                                 size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "vertices");
    char got[96], key[48], msg[400];
    int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
    if (n < 3 || n > FCL_POLY_MAX)
        return err_at(err, errlen, file, "%s.vertices: expected a list of 3 to %d vertices [x, y, z], got %s", where,
                      FCL_POLY_MAX, show(v, got, sizeof got));
    b->npoly = n;
    for (int i = 0; i < n; i++) {
        snprintf(key, sizeof key, "vertices[%d]", i);
        if (vec3_value(cJSON_GetArrayItem(v, i), key, b->poly[i], where, file, err, errlen) != 0)
            return -1;
    }
    if (polygon_check(b, msg, sizeof msg) != 0)
        return err_at(err, errlen, file, "%s.%s", where, msg);
    if (cJSON_GetObjectItemCaseSensitive(o, "thickness"))
        return read_positive(o, "thickness", &b->thickness, where, file, err, errlen);
    return 0;
}

/* Targets (allow_polygon = 0) take solids only: a polygon has no inside. */
static int read_obstacle(fcl_obstacle *b, const cJSON *o, const char *where, int allow_polygon, const char *file,
                         char *err, size_t errlen)
{
    static const char *const box_keys[] = { "type", "min", "max", NULL };
    static const char *const sphere_keys[] = { "type", "center", "radius", NULL };
    static const char *const mesh_keys[] = { "type", "file", "scale", "translate", NULL };
    static const char *const polygon_keys[] = { "type", "vertices", "thickness", NULL };
    const char *t, *kinds = allow_polygon ? "\"box\", \"sphere\", \"mesh\" or \"polygon\"" : "\"box\", \"sphere\" or \"mesh\"";
    memset(b, 0, sizeof *b);
    if (read_type(o, where, kinds, &t, file, err, errlen) != 0)
        return -1;
    if (strcmp(t, "box") == 0) {
        b->kind = FCL_SHAPE_BOX;
        return check_block_keys(o, box_keys, where, file, err, errlen) ||
               read_vec3(o, "min", b->min, 1, where, file, err, errlen) ||
               read_vec3(o, "max", b->max, 1, where, file, err, errlen) ? -1 : 0;
    }
    if (strcmp(t, "sphere") == 0) {
        b->kind = FCL_SHAPE_SPHERE;
        return check_block_keys(o, sphere_keys, where, file, err, errlen) ||
               read_vec3(o, "center", b->center, 1, where, file, err, errlen) ||
               read_positive(o, "radius", &b->radius, where, file, err, errlen) ? -1 : 0;
    }
    if (strcmp(t, "mesh") == 0) {
        b->kind = FCL_SHAPE_MESH;
        return check_block_keys(o, mesh_keys, where, file, err, errlen) ||
               read_obstacle_mesh(b, o, where, file, err, errlen) ? -1 : 0;
    }
    if (allow_polygon && strcmp(t, "polygon") == 0) {
        b->kind = FCL_SHAPE_POLYGON;
        return check_block_keys(o, polygon_keys, where, file, err, errlen) ||
               read_obstacle_polygon(b, o, where, file, err, errlen) ? -1 : 0;
    }
    return err_at(err, errlen, file, "%s.type: expected %s, got '%.40s'", where, kinds, t);
}

static int read_obstacles(fcl_scene *s, const cJSON *arr, const char *file, char *err, size_t errlen)
{
    char got[96];
    if (!cJSON_IsArray(arr))
        return err_at(err, errlen, file, "obstacles: expected an array of boxes, spheres, meshes and polygons, got %s %s",
                      json_type(arr), show(arr, got, sizeof got));
    int n = cJSON_GetArraySize(arr);
    s->obstacles = calloc((size_t)n + 1, sizeof *s->obstacles);
    if (!s->obstacles)
        return err_at(err, errlen, file, "obstacles: out of memory for %d obstacles", n);
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        char where[32];
        snprintf(where, sizeof where, "obstacles[%d]", i);
        if (read_obstacle(&s->obstacles[i], o, where, 1, file, err, errlen) != 0)
            return -1;
    }
    s->nobstacles = n;
    return 0;
}

static int unknown_top(const char *k, const char *file, char *err, size_t errlen)
{
    char groups[256] = "";
    for (size_t i = 0; i < fcl_param_count; i++)
        if (i == 0 || strcmp(fcl_param_table[i].group, fcl_param_table[i - 1].group) != 0)
            snprintf(groups + strlen(groups), sizeof groups - strlen(groups), ", %s", fcl_param_table[i].group);
    return err_at(err, errlen, file, "%.100s: unknown key (expected name, description, fluid, obstacles, targets, phases, emitters, outflows, or a "
                  "parameter group:%s)", k, groups + 1);
}

static int read_top(fcl_scene *s, const cJSON *root, const char *file, char *err, size_t errlen)
{
    char got[96];
    for (const cJSON *v = root->child; v; v = v->next) {
        const char *k = v->string;
        int text = strcmp(k, "name") == 0 || strcmp(k, "description") == 0;
        int known = text || strcmp(k, "fluid") == 0 || strcmp(k, "obstacles") == 0 || strcmp(k, "targets") == 0 ||
                    strcmp(k, "phases") == 0 || strcmp(k, "emitters") == 0 || strcmp(k, "outflows") == 0 ||
                    is_group(k);
        if (!known)
            return unknown_top(k, file, err, errlen);
        if (twice(root->child, v, "", file, err, errlen) != 0)
            return -1;
        if (text) {
            if (!cJSON_IsString(v))
                return err_at(err, errlen, file, "%s: expected a string, got %s", k, show(v, got, sizeof got));
            char *dst = k[0] == 'n' ? s->name : s->description;
            snprintf(dst, k[0] == 'n' ? sizeof s->name : sizeof s->description, "%s", v->valuestring);
        } else if (strcmp(k, "fluid") == 0) {
            if (read_fluid(s, v, file, err, errlen) != 0)
                return -1;
        } else if (strcmp(k, "obstacles") == 0) {
            if (read_obstacles(s, v, file, err, errlen) != 0)
                return -1;
        } else if (strcmp(k, "targets") == 0) {
            if (targets_read(s, v, file, err, errlen) != 0)
                return -1;
        } else if (strcmp(k, "phases") == 0) {
            if (phases_read(s, v, file, err, errlen) != 0)
                return -1;
        } else if (strcmp(k, "emitters") == 0) {
            if (emitters_read(s, v, file, err, errlen) != 0)
                return -1;
        } else if (strcmp(k, "outflows") == 0) {
            if (outflows_read(s, v, file, err, errlen) != 0)
                return -1;
        } else if (read_group(&s->params, v, file, err, errlen) != 0) {
            return -1;
        } else if (strcmp(k, "output") == 0 && cJSON_GetObjectItemCaseSensitive(v, "every")) {
            s->every_given = 1;   /* its 0 (no frames) is not the default's 0 */
        }
    }
    return 0;
}

int scene_parse(fcl_scene *s, const char *text, const char *file, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    snprintf(s->file, sizeof s->file, "%s", file);
    params_defaults(&s->params);
    /* Only white space may follow the top-level value. */
    cJSON *root = cJSON_ParseWithOpts(text, NULL, 1);
    if (!root)
        return scene_syntax_error(text, file, err, errlen);
    int rc = cJSON_IsObject(root) ? read_top(s, root, file, err, errlen)
                                  : err_at(err, errlen, file, "expected a JSON object at the top, got %s",
                                           json_type(root));
    cJSON_Delete(root);
    if (rc == 0 && !s->blocks)
        rc = err_at(err, errlen, file, "fluid: missing (expected a list of boxes and spheres)");
    if (rc == 0)
        rc = phases_resolve(s, file, err, errlen);
    if (rc == 0)
        rc = emitters_resolve(s, file, err, errlen);
    if (rc != 0)
        scene_free(s);
    return rc;
}

int scene_load_max(fcl_scene *s, const char *path, size_t max_bytes, char *err, size_t errlen)
{
    if (strncmp(path, "embedded:", 9) == 0) {
        const fcl_embedded_file *e = embedded_find(fcl_embedded_scenes, fcl_embedded_scene_count, path + 9);
        if (!e) {
            snprintf(err, errlen, "%s: no such embedded scene", path);
            return -1;
        }
        return scene_parse(s, e->text, path, err, errlen);
    }
    char *text;
    size_t len;
    memset(s, 0, sizeof *s);
    if (infile_read(path, max_bytes, "scene file", &text, &len, err, errlen) != 0)
        return -1;
    /* cJSON reads up to the first NUL; what follows would be ignored. */
    size_t nul = strlen(text);
    int rc = nul < len ? err_at(err, errlen, path, "a NUL byte at offset %zu (expected JSON text)", nul)
                       : scene_parse(s, text, path, err, errlen);
    free(text);
    return rc;
}

int scene_load(fcl_scene *s, const char *path, char *err, size_t errlen)
{
    fcl_params p;
    params_defaults(&p);
    return scene_load_max(s, path, infile_limit(&p), err, errlen);
}

static void block_bounds(const fcl_block *b, float lo[3], float hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = b->kind == FCL_SHAPE_BOX ? b->min[a] : b->center[a] - b->radius;
        hi[a] = b->kind == FCL_SHAPE_BOX ? b->max[a] : b->center[a] + b->radius;
    }
}

/* Boxes and spheres must be solid and reach into the domain; an obstacle
 * entirely outside could never touch the fluid and is surely a typo. */
static void block_dims(const fcl_block *b, float sp, double n[3]);

double scene_domain_gap2(const fcl_params *p, const double x[3])
{
    double gap2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double dl = p->domain_min[k], dh = p->domain_max[k];
        double g = x[k] < dl ? dl - x[k] : x[k] > dh ? x[k] - dh : 0.0;
        gap2 += g * g;
    }
    return gap2;
}

/* An obstacle's, or a target's, shape against the domain (name: its key). */
static int check_shape(const fcl_scene *s, const fcl_params *p, const fcl_obstacle *o, const char *name, char *err,
                       size_t errlen)
{
    const float *dl = p->domain_min, *dh = p->domain_max;
    float lo[3], hi[3];
    int solid = 1, overlap = 1;
    int flat = o->kind == FCL_SHAPE_POLYGON;
    if (o->kind == FCL_SHAPE_MESH)
        return 0;
    for (int k = 0; k < 3; k++) {
        lo[k] = o->kind == FCL_SHAPE_BOX ? o->min[k] : o->center[k] - o->radius;
        hi[k] = o->kind == FCL_SHAPE_BOX ? o->max[k] : o->center[k] + o->radius;
        for (int v = 0; flat && v < o->npoly; v++) {
            lo[k] = v ? fminf(lo[k], o->poly[v][k]) : o->poly[v][k];
            hi[k] = v ? fmaxf(hi[k], o->poly[v][k]) : o->poly[v][k];
        }
        /* A polygon is flat; on a face of the domain it still bounds it. */
        solid &= flat || hi[k] > lo[k];
        overlap &= flat ? lo[k] <= dh[k] && hi[k] >= dl[k] : lo[k] < dh[k] && hi[k] > dl[k];
    }
    /* A sphere by its distance to the domain, not its bounding box: one
     * off a corner whose box reached in was taken (a target's 437 control
     * particles all outside pulled the fluid to the corner; a review). */
    const double ctr[3] = { o->center[0], o->center[1], o->center[2] };
    double gap2 = o->kind == FCL_SHAPE_SPHERE ? scene_domain_gap2(p, ctr) : 0.0;
    int off_corner = o->kind == FCL_SHAPE_SPHERE && overlap && gap2 >= (double)o->radius * o->radius;
    overlap &= !off_corner;
    char a[64], b[400];
    snprintf(a, sizeof a, "%s%s", name, flat ? ".vertices" : "");
    if (!solid && o->kind == FCL_SHAPE_SPHERE) {   /* a sphere has no min or max (a review) */
        snprintf(a, sizeof a, "%s.radius", name);
        snprintf(b, sizeof b, "expected a sphere wider than a float's rounding at its center, got %g", o->radius);
    } else if (!solid)
        snprintf(b, sizeof b, "expected max above min in every component, got [%g, %g, %g] - [%g, %g, %g]",
                 lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    else if (off_corner)
        snprintf(b, sizeof b, "expected a shape overlapping the domain [%g, %g, %g] - [%g, %g, %g], got a sphere "
                 "of radius %g whose center [%g, %g, %g] lies %.4g from it", dl[0], dl[1], dl[2], dh[0], dh[1], dh[2],
                 o->radius, o->center[0], o->center[1], o->center[2], sqrt(gap2));
    else
        snprintf(b, sizeof b, "expected a shape overlapping the domain [%g, %g, %g] - [%g, %g, %g], got "
                 "[%g, %g, %g] - [%g, %g, %g]", dl[0], dl[1], dl[2], dh[0], dh[1], dh[2],
                 lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    return solid && overlap ? 0 : err_at(err, errlen, s->file, "%s: %s", a, b);
}

int scene_in_shape(const fcl_obstacle *o, const float p[3], double grow)
{
    if (o->kind == FCL_SHAPE_BOX)
        return p[0] > o->min[0] - grow && p[0] < o->max[0] + grow && p[1] > o->min[1] - grow &&
               p[1] < o->max[1] + grow && p[2] > o->min[2] - grow && p[2] < o->max[2] + grow;
    if (o->kind != FCL_SHAPE_SPHERE)
        return 0;
    double x = (double)p[0] - o->center[0], y = (double)p[1] - o->center[1], z = (double)p[2] - o->center[2],
           r = (double)o->radius + grow;
    return x * x + y * y + z * z < r * r;
}

int scene_check_mesh_bounds(const fcl_scene *s, const fcl_params *p, const char *key, const char *mesh, double scale,
                            const float lo[3], const float hi[3], char *err, size_t errlen)
{
    const float *dl = p->domain_min, *dh = p->domain_max;
    int overlap = 1, finite = 1;
    for (int k = 0; k < 3; k++) {
        overlap &= lo[k] < dh[k] && hi[k] > dl[k];
        finite &= isfinite(lo[k]) && isfinite(hi[k]);
    }
    if (!finite) {
        snprintf(err, errlen, "%s: %s.scale: %g places %s at [%g, %g, %g] - [%g, %g, %g], beyond float range: expected "
                 "a smaller scale or mesh", s->file, key, scale, mesh, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
        return -1;
    }
    if (overlap)
        return 0;
    snprintf(err, errlen, "%s: %s: expected a mesh overlapping the domain [%g, %g, %g] - [%g, %g, %g], got %s placed "
             "at [%g, %g, %g] - [%g, %g, %g]", s->file, key, dl[0], dl[1], dl[2], dh[0], dh[1], dh[2], mesh, lo[0], lo[1],
             lo[2], hi[0], hi[1], hi[2]);
    return -1;
}

/* surface.phases is a list of phases of the scene (0 alone without a
 * phases list): a phase it lacks meshed nothing, and a malformed list was
 * refused only with --mesh (a review). */
static int check_mesh_phases(const fcl_scene *s, const fcl_params *p, char *err, size_t errlen)
{
    int n = s->nphases > 0 ? s->nphases : 1;
    unsigned mask;
    if (params_phase_list(p->surface_phases, 32, &mask) != 0)
        return err_at(err, errlen, s->file, "surface.phases = '%s': expected phase indices separated by commas (0,2), "
                      "or empty for every particle", p->surface_phases);
    if (mask >> n)
        return err_at(err, errlen, s->file, "surface.phases = '%s': phase %d, and the scene has %d (0 to %d)",
                      p->surface_phases, 31 - __builtin_clz(mask), n, n - 1);
    return 0;
}

int scene_check(const fcl_scene *s, const fcl_params *p, char *err, size_t errlen)
{
    const float *dl = p->domain_min, *dh = p->domain_max;
    char a[160], b[400];
    if (params_check_order(p, b, sizeof b) != 0)
        return err_at(err, errlen, s->file, "%s", b);
    if (check_mesh_phases(s, p, err, errlen) != 0)
        return -1;
    for (int k = 0; k < 3; k++)
        if (!(dh[k] > dl[k])) {
            snprintf(a, sizeof a, "[%g, %g, %g] - [%g, %g, %g]", dl[0], dl[1], dl[2], dh[0], dh[1], dh[2]);
            return err_at(err, errlen, s->file, "domain.max: expected every component above domain.min, got %s", a);
        }
    float tol = 1e-4f * p->particles_spacing;
    for (int i = 0; i < s->nblocks; i++) {
        float lo[3], hi[3];
        block_bounds(&s->blocks[i], lo, hi);
        int inside = 1, solid = 1;
        for (int k = 0; k < 3; k++) {
            inside &= lo[k] >= dl[k] - tol && hi[k] <= dh[k] + tol;
            solid &= hi[k] > lo[k];
        }
        if (!solid) {   /* min and max swapped: say so, not "outside" (a review) */
            snprintf(a, sizeof a, "fluid[%d]", i);
            if (s->blocks[i].kind != FCL_SHAPE_BOX)
                return err_at(err, errlen, s->file, "%s.radius: expected a sphere wider than a float's rounding at "
                              "its center, got %g", a, s->blocks[i].radius);
            return err_at(err, errlen, s->file, "%s: expected max above min in every component, got [%g, %g, %g] - "
                          "[%g, %g, %g]", a, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
        }
        double dims[3];
        block_dims(&s->blocks[i], p->particles_spacing, dims);
        if (inside && dims[0] * dims[1] * dims[2] < 1.0) {
            snprintf(a, sizeof a, "fluid[%d]", i);
            return err_at(err, errlen, s->file, "%s: holds no particle at particles.spacing %g m (expected at least "
                          "a spacing along every side, got [%g, %g, %g] - [%g, %g, %g])", a, p->particles_spacing,
                          lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
        }
        if (!inside) {
            snprintf(a, sizeof a, "fluid[%d]", i);
            snprintf(b, sizeof b, "expected a block inside the domain [%g, %g, %g] - [%g, %g, %g], got "
                     "[%g, %g, %g] - [%g, %g, %g]", dl[0], dl[1], dl[2], dh[0], dh[1], dh[2],
                     lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
            return err_at(err, errlen, s->file, "%s: %s", a, b);
        }
    }
    for (int i = 0; i < s->nobstacles; i++) {
        snprintf(a, sizeof a, "obstacles[%d]", i);
        if (check_shape(s, p, &s->obstacles[i], a, err, errlen) != 0)
            return -1;
    }
    for (int i = 0; i < s->ntargets; i++) {
        snprintf(a, sizeof a, "targets[%d].shape", i);
        if (check_shape(s, p, &s->targets[i].shape, a, err, errlen) != 0)
            return -1;
    }
    return emitters_check(s, p, err, errlen) != 0 ? -1 : outflows_check(s, p, err, errlen);
}

/* Lattice points along each axis of a block, in double: a box from its
 * extent, a sphere 2 floor(r / sp) + 1. Finite and exact below 2^53. */
static void block_dims(const fcl_block *b, float sp, double n[3])
{
    double r = b->kind == FCL_SHAPE_SPHERE ? floor((double)b->radius / sp) : 0.0;
    for (int k = 0; k < 3; k++)
        n[k] = b->kind == FCL_SHAPE_BOX ? floor(((double)b->max[k] - b->min[k]) / sp + 1e-4) : 2.0 * r + 1.0;
    for (int k = 0; k < 3; k++)
        n[k] = n[k] < 0.0 ? 0.0 : n[k];
}

/* Lattice points of a block: boxes start half a spacing inside their
 * faces; spheres are centred on a lattice point. Writes pos and vel from
 * index at (if pos is not NULL) and returns the count. The caller has
 * bounded the count (scene_count_bound), so the loops fit. */
static size_t fill_block(const fcl_block *b, float sp, float4 *pos, float4 *vel, size_t at)
{
    double dims[3];
    block_dims(b, sp, dims);
    /* long: a bound of 4e9 points lets one side pass INT_MAX. */
    long n[3] = { (long)dims[0], (long)dims[1], (long)dims[2] }, r = (n[0] - 1) / 2;
    size_t count = 0;
    for (long z = 0; z < n[2]; z++)
        for (long y = 0; y < n[1]; y++)
            for (long x = 0; x < n[0]; x++) {
                float p[3];
                long idx[3] = { x, y, z };
                for (int k = 0; k < 3; k++)
                    p[k] = b->kind == FCL_SHAPE_BOX ? b->min[k] + ((float)idx[k] + 0.5f) * sp
                                              : b->center[k] + (float)(idx[k] - r) * sp;
                if (b->kind == FCL_SHAPE_SPHERE) {
                    float dx = p[0] - b->center[0], dy = p[1] - b->center[1], dz = p[2] - b->center[2];
                    if (dx * dx + dy * dy + dz * dz > b->radius * b->radius)
                        continue;
                }
                if (pos) {
                    pos[at + count] = fcl_f4(p[0], p[1], p[2], (float)b->phase_index);
                    vel[at + count] = fcl_f4(b->velocity[0], b->velocity[1], b->velocity[2], 0.0f);
                }
                count++;
            }
    return count;
}

double scene_count_bound(const fcl_scene *s, const fcl_params *p)
{
    double total = 0;
    for (int i = 0; i < s->nblocks; i++) {
        double n[3];
        block_dims(&s->blocks[i], p->particles_spacing, n);
        total += n[0] * n[1] * n[2];
    }
    return total;
}

double scene_count(const fcl_scene *s, const fcl_params *p)
{
    double total = 0;
    for (int i = 0; i < s->nblocks; i++) {
        const fcl_block *b = &s->blocks[i];
        double n[3];
        block_dims(b, p->particles_spacing, n);
        double cube = n[0] * n[1] * n[2];
        /* Boxes fill their whole lattice; a sphere is counted point by
         * point only when its lattice is small enough to walk quickly. */
        if (b->kind == FCL_SHAPE_BOX)
            total += cube;
        else
            total += cube > SCENE_WALK_MAX ? cube * 0.5236 : (double)fill_block(b, p->particles_spacing, NULL, NULL, 0);
    }
    return total;
}

int scene_particles(const fcl_scene *s, const fcl_params *p, float4 **pos, float4 **vel, size_t *n,
                    char *err, size_t errlen)
{
    double bound = scene_count_bound(s, p);
    *pos = *vel = NULL;
    *n = 0;
    if (bound > SCENE_WALK_MAX)
        return err_at(err, errlen, s->file, "particles.spacing: %g lattice points at spacing %g m are more than "
                      "fluidcl fills (%g): expected a larger spacing or a smaller fluid", bound,
                      (double)p->particles_spacing, SCENE_WALK_MAX);
    size_t total = (size_t)scene_count(s, p);
    *pos = malloc(total * sizeof(float4) + 16);
    *vel = malloc(total * sizeof(float4) + 16);
    if (!*pos || !*vel) {
        free(*pos);
        free(*vel);
        *pos = *vel = NULL;
        return err_at(err, errlen, s->file, "particles.spacing: not enough host memory for %zu particles", total);
    }
    size_t at = 0, *ends = malloc(sizeof(size_t) * (size_t)(s->nblocks + 1)),
           *dropped = malloc(sizeof(size_t) * (size_t)(s->nblocks + 1));
    for (int i = 0; ends && i < s->nblocks; i++)
        ends[i] = at += fill_block(&s->blocks[i], p->particles_spacing, *pos, *vel, at);
    /* Overlapping blocks are their union (overlap.c). */
    int rc = ends && dropped ? overlap_merge(*pos, *vel, ends, s->nblocks, p->particles_spacing, dropped) : -1;
    for (int i = 0; rc == 0 && i < s->nblocks; i++)
        if (dropped[i])
            fprintf(stderr, "fluidcl: note: %s: fluid[%d] overlaps an earlier block: %zu of its points there are left "
                    "out (the blocks' union is filled once)\n", s->file, i, dropped[i]);
    *n = rc == 0 && s->nblocks > 0 ? ends[s->nblocks - 1] : 0;
    free(ends);
    free(dropped);
    if (rc != 0) {
        free(*pos);
        free(*vel);
        *pos = *vel = NULL;
        return err_at(err, errlen, s->file, "fluid: not enough host memory to merge overlapping blocks of %zu "
                      "particles", total);
    }
    return 0;
}

void scene_free(fcl_scene *s)
{
    free(s->blocks);
    s->blocks = NULL;
    s->nblocks = 0;
    free(s->obstacles);
    s->obstacles = NULL;
    s->nobstacles = 0;
    targets_free(s);
}

/* The readers targets.c shares (scene_read.h). */
int scene_read_shape(fcl_obstacle *b, const cJSON *o, const char *where, const char *file, char *err, size_t errlen)
{
    return read_obstacle(b, o, where, 0, file, err, errlen);
}

int scene_read_vec3(const cJSON *o, const char *key, float out[3], int required, const char *where, const char *file,
                    char *err, size_t errlen)
{
    return read_vec3(o, key, out, required, where, file, err, errlen);
}

int scene_check_keys(const cJSON *o, const char *const *allowed, const char *where, const char *file, char *err,
                     size_t errlen)
{
    return check_block_keys(o, allowed, where, file, err, errlen);
}

const char *scene_json_type(const cJSON *v)
{
    return json_type(v);
}

const char *scene_json_show(const cJSON *v, char *buf, size_t len)
{
    return show(v, buf, len);
}

int scene_read_number(const cJSON *o, const char *key, double lo, double hi, int required, double *out,
                      const char *where, const char *file, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return required ? err_at(err, errlen, file, "%s.%s: missing (expected a number)", where, key) : 0;
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= lo && v->valuedouble <= hi) {
        *out = v->valuedouble;
        return 0;
    }
    if (cJSON_IsNumber(v))
        return err_at(err, errlen, file, "%s.%s: expected a number in [%g, %g], got %g", where, key, lo, hi,
                      v->valuedouble);
    char got[96];
    if (cJSON_IsNull(v))   /* "got null", once */
        return err_at(err, errlen, file, "%s.%s: expected a number in [%g, %g], got null", where, key, lo, hi);
    return err_at(err, errlen, file, "%s.%s: expected a number in [%g, %g], got %s %s", where, key, lo, hi,
                  json_type(v), show(v, got, sizeof got));
}
