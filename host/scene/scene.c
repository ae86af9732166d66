/* scene.c - loading and checking scene files, and filling fluid blocks
 * with particles on a cubic lattice. Parameter groups are read through the
 * parameter table, so new parameters need no code here. Obstacles are only
 * described here (mesh paths resolved); boundary.c loads and samples them.
 */
#include "scene.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "scene_read.h"

static int err_at(char *err, size_t errlen, const char *file, const char *fmt, const char *a, const char *b)
{
    char msg[768];
    snprintf(msg, sizeof msg, fmt, a, b);
    snprintf(err, errlen, "%s: %s", file, msg);
    return -1;
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
    char key[160], got[64];
    snprintf(key, sizeof key, "%s.%s", d->group, d->name);
    if (cJSON_IsNumber(v))
        snprintf(got, sizeof got, "%g", v->valuedouble);
    else if (cJSON_IsString(v))
        snprintf(got, sizeof got, "'%.40s'", v->valuestring);
    else
        snprintf(got, sizeof got, "%s", json_type(v));
    snprintf(msg, sizeof msg, "expected %s, got %s", exp, got);
    return err_at(err, errlen, file, "%s: %s", key, msg);
}

static int read_group(fcl_params *p, const cJSON *obj, const char *file, char *err, size_t errlen)
{
    if (!cJSON_IsObject(obj))
        return err_at(err, errlen, file, "%s: expected an object of parameters, got %s", obj->string,
                      json_type(obj));
    for (const cJSON *v = obj->child; v; v = v->next) {
        char key[160], names[1024] = "";
        snprintf(key, sizeof key, "%s.%s", obj->string, v->string);
        const fcl_param_def *d = params_find(key);
        if (d) {
            if (read_param(p, d, v, file, err, errlen) != 0)
                return -1;
            continue;
        }
        for (size_t i = 0; i < fcl_param_count; i++)
            if (strcmp(fcl_param_table[i].group, obj->string) == 0)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", *names ? ", " : "",
                         fcl_param_table[i].name);
        return err_at(err, errlen, file, "%s: unknown key (expected one of: %s)", key, names);
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

static int read_vec3(const cJSON *o, const char *key, float out[3], int required, const char *where,
                     const char *file, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char k[96];
    snprintf(k, sizeof k, "%s.%s", where, key);
    if (!v) {
        if (required)
            return err_at(err, errlen, file, "%s: missing (expected %s)", k, "three numbers [x, y, z]");
        return 0;
    }
    int ok = cJSON_IsArray(v) && cJSON_GetArraySize(v) == 3;
    for (int i = 0; ok && i < 3; i++) {
        const cJSON *c = cJSON_GetArrayItem(v, i);
        ok = cJSON_IsNumber(c) && isfinite(c->valuedouble);
        if (ok)
            out[i] = (float)c->valuedouble;
    }
    return ok ? 0 : err_at(err, errlen, file, "%s: expected three numbers [x, y, z], got %s", k, json_type(v));
}

static int check_block_keys(const cJSON *o, const char *const *allowed, const char *where, const char *file,
                            char *err, size_t errlen)
{
    for (const cJSON *v = o->child; v; v = v->next) {
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            ok |= strcmp(v->string, allowed[i]) == 0;
        if (!ok) {
            char key[128], names[160] = "";
            snprintf(key, sizeof key, "%s.%s", where, v->string);
            for (int i = 0; allowed[i]; i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", allowed[i]);
            return err_at(err, errlen, file, "%s: unknown key (expected one of: %s)", key, names);
        }
    }
    return 0;
}

static int read_block(fcl_block *b, const cJSON *o, int idx, const char *file, char *err, size_t errlen)
{
    static const char *const box_keys[] = { "type", "min", "max", "velocity", NULL };
    static const char *const sphere_keys[] = { "type", "center", "radius", "velocity", NULL };
    char where[32];
    snprintf(where, sizeof where, "fluid[%d]", idx);
    memset(b, 0, sizeof *b);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
    if (!cJSON_IsObject(o) || !cJSON_IsString(type))
        return err_at(err, errlen, file, "%s: expected an object with \"type\": \"box\" or \"sphere\"%s", where, "");
    if (strcmp(type->valuestring, "box") == 0) {
        b->kind = FCL_BOX;
        if (check_block_keys(o, box_keys, where, file, err, errlen) ||
            read_vec3(o, "min", b->min, 1, where, file, err, errlen) ||
            read_vec3(o, "max", b->max, 1, where, file, err, errlen))
            return -1;
    } else if (strcmp(type->valuestring, "sphere") == 0) {
        b->kind = FCL_SPHERE;
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "radius");
        if (check_block_keys(o, sphere_keys, where, file, err, errlen) ||
            read_vec3(o, "center", b->center, 1, where, file, err, errlen))
            return -1;
        if (!cJSON_IsNumber(r) || !(r->valuedouble > 0.0))
            return err_at(err, errlen, file, "%s.radius: expected a positive number (m)%s", where, "");
        b->radius = (float)r->valuedouble;
    } else {
        return err_at(err, errlen, file, "%s.type: expected \"box\" or \"sphere\", got '%.40s'", where,
                      type->valuestring);
    }
    return read_vec3(o, "velocity", b->velocity, 0, where, file, err, errlen);
}

static int read_fluid(fcl_scene *s, const cJSON *arr, const char *file, char *err, size_t errlen)
{
    if (!cJSON_IsArray(arr))
        return err_at(err, errlen, file, "fluid: expected an array of boxes and spheres, got %s", json_type(arr), "");
    if (s->blocks)
        return err_at(err, errlen, file, "fluid: given twice (expected one list of boxes and spheres)%s%s", "", "");
    int n = cJSON_GetArraySize(arr);
    s->blocks = calloc((size_t)n + 1, sizeof *s->blocks);
    if (!s->blocks)
        return err_at(err, errlen, file, "out of memory%s%s", "", "");
    for (int i = 0; i < n; i++)
        if (read_block(&s->blocks[i], cJSON_GetArrayItem(arr, i), i, file, err, errlen) != 0)
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
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(o, "scale");
    if (!cJSON_IsString(f) || !f->valuestring[0])
        return err_at(err, errlen, file, "%s.file: expected the name of an OBJ file, got %s", where,
                      !f ? "nothing" : cJSON_IsString(f) ? "an empty string" : json_type(f));
    if (mesh_path(b->file, sizeof b->file, file, f->valuestring) != 0)
        return err_at(err, errlen, file, "%s.file: expected a path shorter than 1024 bytes, got '%.40s...'",
                      where, f->valuestring);
    b->scale = 1.0f;
    if (sc && (!cJSON_IsNumber(sc) || !(sc->valuedouble > 0.0) || !isfinite(sc->valuedouble)))
        return err_at(err, errlen, file, "%s.scale: expected a positive number, got %s", where, json_type(sc));
    if (sc)
        b->scale = (float)sc->valuedouble;
    return read_vec3(o, "translate", b->translate, 0, where, file, err, errlen);
}

static int read_obstacle(fcl_obstacle *b, const cJSON *o, const char *where, const char *file, char *err,
                         size_t errlen)
{
    static const char *const box_keys[] = { "type", "min", "max", NULL };
    static const char *const sphere_keys[] = { "type", "center", "radius", NULL };
    static const char *const mesh_keys[] = { "type", "file", "scale", "translate", NULL };
    memset(b, 0, sizeof *b);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
    if (!cJSON_IsObject(o) || !cJSON_IsString(type))
        return err_at(err, errlen, file, "%s: expected an object with \"type\": \"box\", \"sphere\" or \"mesh\"%s",
                      where, "");
    const char *t = type->valuestring;
    if (strcmp(t, "box") == 0) {
        b->kind = FCL_OBST_BOX;
        return check_block_keys(o, box_keys, where, file, err, errlen) ||
               read_vec3(o, "min", b->min, 1, where, file, err, errlen) ||
               read_vec3(o, "max", b->max, 1, where, file, err, errlen) ? -1 : 0;
    }
    if (strcmp(t, "sphere") == 0) {
        b->kind = FCL_OBST_SPHERE;
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "radius");
        if (check_block_keys(o, sphere_keys, where, file, err, errlen) ||
            read_vec3(o, "center", b->center, 1, where, file, err, errlen))
            return -1;
        if (!cJSON_IsNumber(r) || !(r->valuedouble > 0.0) || !isfinite(r->valuedouble))
            return err_at(err, errlen, file, "%s.radius: expected a positive number (m)%s", where, "");
        b->radius = (float)r->valuedouble;
        return 0;
    }
    if (strcmp(t, "mesh") == 0) {
        b->kind = FCL_OBST_MESH;
        return check_block_keys(o, mesh_keys, where, file, err, errlen) ||
               read_obstacle_mesh(b, o, where, file, err, errlen) ? -1 : 0;
    }
    return err_at(err, errlen, file, "%s.type: expected \"box\", \"sphere\" or \"mesh\", got '%.40s'", where, t);
}

static int read_obstacles(fcl_scene *s, const cJSON *arr, const char *file, char *err, size_t errlen)
{
    if (!cJSON_IsArray(arr))
        return err_at(err, errlen, file, "obstacles: expected an array of boxes, spheres and meshes, got %s",
                      json_type(arr), "");
    if (s->obstacles)
        return err_at(err, errlen, file, "obstacles: given twice (expected one list)%s%s", "", "");
    int n = cJSON_GetArraySize(arr);
    s->obstacles = calloc((size_t)n + 1, sizeof *s->obstacles);
    if (!s->obstacles)
        return err_at(err, errlen, file, "out of memory%s%s", "", "");
    for (int i = 0; i < n; i++) {
        char where[32];
        snprintf(where, sizeof where, "obstacles[%d]", i);
        if (read_obstacle(&s->obstacles[i], cJSON_GetArrayItem(arr, i), where, file, err, errlen) != 0)
            return -1;
    }
    s->nobstacles = n;
    return 0;
}

/* cJSON reports where parsing stopped; turn that into line:column. */
static int syntax_error(const char *text, const char *file, char *err, size_t errlen)
{
    const char *at = cJSON_GetErrorPtr();
    int line = 1, col = 1;
    for (const char *c = text; at && c < at && *c; c++) {
        if (*c == '\n') { line++; col = 1; } else { col++; }
    }
    char near[24] = "";
    if (at)
        snprintf(near, sizeof near, "%.16s", at);
    near[strcspn(near, "\n")] = '\0';
    snprintf(err, errlen, "%s:%d:%d: JSON syntax error near '%s'", file, line, col, near);
    return -1;
}

static int read_top(fcl_scene *s, const cJSON *root, const char *file, char *err, size_t errlen)
{
    for (const cJSON *v = root->child; v; v = v->next) {
        const char *k = v->string;
        if (strcmp(k, "name") == 0 || strcmp(k, "description") == 0) {
            if (!cJSON_IsString(v))
                return err_at(err, errlen, file, "%s: expected a string, got %s", k, json_type(v));
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
        } else if (is_group(k)) {
            if (read_group(&s->params, v, file, err, errlen) != 0)
                return -1;
        } else {
            char groups[256] = "";
            for (size_t i = 0; i < fcl_param_count; i++)
                if (i == 0 || strcmp(fcl_param_table[i].group, fcl_param_table[i - 1].group) != 0)
                    snprintf(groups + strlen(groups), sizeof groups - strlen(groups), ", %s",
                             fcl_param_table[i].group);
            return err_at(err, errlen, file, "%s: unknown key (expected name, description, fluid, obstacles, targets, or a "
                          "parameter group:%s)", k, groups + 1);
        }
    }
    return 0;
}

int scene_parse(fcl_scene *s, const char *text, const char *file, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    snprintf(s->file, sizeof s->file, "%s", file);
    params_defaults(&s->params);
    cJSON *root = cJSON_Parse(text);
    if (!root)
        return syntax_error(text, file, err, errlen);
    int rc = cJSON_IsObject(root) ? read_top(s, root, file, err, errlen)
                                  : err_at(err, errlen, file, "expected a JSON object at the top%s%s", "", "");
    cJSON_Delete(root);
    if (rc == 0 && !s->blocks)
        rc = err_at(err, errlen, file, "fluid: missing (expected a list of boxes and spheres)%s%s", "", "");
    if (rc != 0)
        scene_free(s);
    return rc;
}

static char *slurp(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open scene file: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len + 65536 + 1 > cap) {
            cap = (len + 65536 + 1) * 2;
            char *grown = realloc(buf, cap);
            if (!grown) {
                free(buf);
                fclose(f);
                snprintf(err, errlen, "%s: out of memory", path);
                return NULL;
            }
            buf = grown;
        }
        got = fread(buf + len, 1, 65536, f);
        len += got;
    } while (got > 0);
    fclose(f);
    buf[len] = '\0';
    return buf;
}

int scene_load(fcl_scene *s, const char *path, char *err, size_t errlen)
{
    if (strncmp(path, "embedded:", 9) == 0) {
        const fcl_embedded_file *e = embedded_find(fcl_embedded_scenes, fcl_embedded_scene_count, path + 9);
        if (!e) {
            snprintf(err, errlen, "%s: no such embedded scene", path);
            return -1;
        }
        return scene_parse(s, e->text, path, err, errlen);
    }
    char *text = slurp(path, err, errlen);
    if (!text)
        return -1;
    int rc = scene_parse(s, text, path, err, errlen);
    free(text);
    return rc;
}

static void block_bounds(const fcl_block *b, float lo[3], float hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = b->kind == FCL_BOX ? b->min[a] : b->center[a] - b->radius;
        hi[a] = b->kind == FCL_BOX ? b->max[a] : b->center[a] + b->radius;
    }
}

/* Boxes and spheres must be solid and reach into the domain; an obstacle
 * entirely outside could never touch the fluid and is surely a typo. */
static int check_obstacle(const fcl_scene *s, const fcl_params *p, int i, char *err, size_t errlen)
{
    const fcl_obstacle *o = &s->obstacles[i];
    const float *dl = p->domain_min, *dh = p->domain_max;
    float lo[3], hi[3];
    int solid = 1, overlap = 1;
    if (o->kind == FCL_OBST_MESH)
        return 0;
    for (int k = 0; k < 3; k++) {
        lo[k] = o->kind == FCL_OBST_BOX ? o->min[k] : o->center[k] - o->radius;
        hi[k] = o->kind == FCL_OBST_BOX ? o->max[k] : o->center[k] + o->radius;
        solid &= hi[k] > lo[k];
        overlap &= lo[k] < dh[k] && hi[k] > dl[k];
    }
    char a[32], b[400];
    snprintf(a, sizeof a, "obstacles[%d]", i);
    if (!solid)
        snprintf(b, sizeof b, "expected max above min in every component, got [%g, %g, %g] - [%g, %g, %g]",
                 lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    else
        snprintf(b, sizeof b, "expected an obstacle overlapping the domain [%g, %g, %g] - [%g, %g, %g], got "
                 "[%g, %g, %g] - [%g, %g, %g]", dl[0], dl[1], dl[2], dh[0], dh[1], dh[2],
                 lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    return solid && overlap ? 0 : err_at(err, errlen, s->file, "%s: %s", a, b);
}

int scene_check(const fcl_scene *s, const fcl_params *p, char *err, size_t errlen)
{
    const float *dl = p->domain_min, *dh = p->domain_max;
    char a[160], b[400];
    for (int k = 0; k < 3; k++)
        if (!(dh[k] > dl[k])) {
            snprintf(a, sizeof a, "[%g, %g, %g] - [%g, %g, %g]", dl[0], dl[1], dl[2], dh[0], dh[1], dh[2]);
            return err_at(err, errlen, s->file, "domain.max: expected every component above domain.min, got %s%s", a, "");
        }
    float tol = 1e-4f * p->particles_spacing;
    for (int i = 0; i < s->nblocks; i++) {
        float lo[3], hi[3];
        block_bounds(&s->blocks[i], lo, hi);
        int inside = 1;
        for (int k = 0; k < 3; k++)
            inside &= lo[k] >= dl[k] - tol && hi[k] <= dh[k] + tol && hi[k] > lo[k];
        if (!inside) {
            snprintf(a, sizeof a, "fluid[%d]", i);
            snprintf(b, sizeof b, "expected a block inside the domain [%g, %g, %g] - [%g, %g, %g], got "
                     "[%g, %g, %g] - [%g, %g, %g]", dl[0], dl[1], dl[2], dh[0], dh[1], dh[2],
                     lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
            return err_at(err, errlen, s->file, "%s: %s", a, b);
        }
    }
    for (int i = 0; i < s->nobstacles; i++)
        if (check_obstacle(s, p, i, err, errlen) != 0)
            return -1;
    return 0;
}

/* Lattice points of a block: boxes start half a spacing inside their
 * faces; spheres are centred on a lattice point. Calls emit (if not NULL)
 * for each point and returns the count. */
static double fill_block(const fcl_block *b, float sp, float4 *pos, float4 *vel, size_t at)
{
    double count = 0;
    int n[3], r = b->kind == FCL_SPHERE ? (int)floorf(b->radius / sp) : 0;
    for (int k = 0; k < 3; k++)
        n[k] = b->kind == FCL_BOX ? (int)floor((b->max[k] - b->min[k]) / sp + 1e-4) : 2 * r + 1;
    if (b->kind == FCL_BOX && !pos)
        return (double)n[0] * n[1] * n[2];
    for (int z = 0; z < n[2]; z++)
        for (int y = 0; y < n[1]; y++)
            for (int x = 0; x < n[0]; x++) {
                float p[3];
                int idx[3] = { x, y, z };
                for (int k = 0; k < 3; k++)
                    p[k] = b->kind == FCL_BOX ? b->min[k] + (idx[k] + 0.5f) * sp : b->center[k] + (idx[k] - r) * sp;
                if (b->kind == FCL_SPHERE) {
                    float dx = p[0] - b->center[0], dy = p[1] - b->center[1], dz = p[2] - b->center[2];
                    if (dx * dx + dy * dy + dz * dz > b->radius * b->radius)
                        continue;
                }
                if (pos) {
                    pos[at + (size_t)count] = fcl_f4(p[0], p[1], p[2], 0.0f);
                    vel[at + (size_t)count] = fcl_f4(b->velocity[0], b->velocity[1], b->velocity[2], 0.0f);
                }
                count++;
            }
    return count;
}

double scene_count(const fcl_scene *s, const fcl_params *p)
{
    double total = 0;
    for (int i = 0; i < s->nblocks; i++) {
        const fcl_block *b = &s->blocks[i];
        double est = b->kind == FCL_SPHERE ? pow(2.0 * b->radius / p->particles_spacing + 1.0, 3) : 0.0;
        /* Do not walk a lattice of billions just to count it. */
        total += est > 4e9 ? est * 0.5236 : fill_block(b, p->particles_spacing, NULL, NULL, 0);
    }
    return total;
}

int scene_particles(const fcl_scene *s, const fcl_params *p, float4 **pos, float4 **vel, size_t *n,
                    char *err, size_t errlen)
{
    double total = scene_count(s, p);
    *pos = *vel = NULL;
    *n = 0;
    if (total > 4.0e9)
        return err_at(err, errlen, s->file, "particles.spacing: %s particles is more than fluidcl can "
                      "index (4e9): expected a larger spacing%s", "too many", "");
    *pos = malloc((size_t)total * sizeof(float4) + 16);
    *vel = malloc((size_t)total * sizeof(float4) + 16);
    if (!*pos || !*vel) {
        free(*pos);
        free(*vel);
        *pos = *vel = NULL;
        return err_at(err, errlen, s->file, "particles.spacing: not enough host memory for the particles%s%s", "", "");
    }
    size_t at = 0;
    for (int i = 0; i < s->nblocks; i++)
        at += (size_t)fill_block(&s->blocks[i], p->particles_spacing, *pos, *vel, at);
    *n = at;
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
    return read_obstacle(b, o, where, file, err, errlen);
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
