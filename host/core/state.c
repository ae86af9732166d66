/* state.c - save and restore a simulation's state (state.h). Layout,
 * little-endian as the host writes it (the file is for the same build):
 *   "FCLSTATE" u32 version, solver name (32 bytes), u64 n, u64 nb,
 *   u64 next id, device name (320 bytes), u64 parameter bytes and the
 *   parameters that enter the state as "group.name=value\n" lines in
 *   table order,
 *   i64 step, f64 time, fcl_step_stats, f64 emitter accumulators[16],
 *   i64 emitted, i64 refused, i64 removed, u64 the emitters' and
 *   outflows' fingerprint (inflow_fingerprint), u64 the phases'
 *   (phase_fingerprint), u64 the boundary samples' (boundary_fingerprint),
 *   u32 attributes,
 *   per attribute: name (64 bytes), u64 element bytes, the n elements;
 *   density and pressure (n floats each); u64 solver bytes, the solver's
 *   blob; u64 FNV-1a 64 of everything before it.
 * Invariant: the whole file is read and its checksum and header checked
 * before the simulation is touched.
 */
#include "state.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic.h"
#include "scene.h"
#include "sim.h"

/* tests/test_restart.sh crafts checkpoints by this layout. */
_Static_assert(sizeof(fcl_step_stats) == 144, "fcl_step_stats is 144 bytes in the checkpoint layout");

enum { STATE_VERSION = 9, NAME_BYTES = 32, DEVICE_BYTES = 320, PARAMS_MAX = 1 << 16, ATTR_NAME_BYTES = 64, SOLVER_BLOB_MAX = 4096 };
static const char MAGIC[8] = { 'F', 'C', 'L', 'S', 'T', 'A', 'T', 'E' };

/* A growable byte buffer with a read cursor. */
typedef struct blob {
    unsigned char *p;
    size_t len, cap, at;
    int bad;
} blob;

static void put(blob *b, const void *src, size_t n)
{
    if (b->bad)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q) {
            b->bad = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

/* Step over n bytes, within the blob (a crafted length field must not
 * move the cursor past its end). */
static int skip(blob *b, size_t n)
{
    if (b->bad || n > b->len - b->at) {
        b->bad = 1;
        return -1;
    }
    b->at += n;
    return 0;
}

static int get(blob *b, void *dst, size_t n)
{
    if (b->bad || n > b->len - b->at) {
        b->bad = 1;
        return -1;
    }
    memcpy(dst, b->p + b->at, n);
    b->at += n;
    return 0;
}

uint64_t fcl_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

/* The checksum's start: a digit short of FNV's basis, as files have it. */
static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    return fcl_fnv1a(1469598103934665603ull, p, n);
}

/* A device buffer's first bytes appended to b. */
static int put_buf(blob *b, fcl_backend *be, fcl_buf *buf, size_t bytes)
{
    void *tmp = malloc(bytes + 1);
    int rc = !tmp || be->ops->buf_read(be, buf, 0, bytes, tmp) != 0 ? -1 : 0;
    if (rc == 0)
        put(b, tmp, bytes);
    free(tmp);
    return rc;
}

/* Parameters a resumed run may change: how long it runs and what it
 * writes. They do not enter the state, so they are not saved either, and
 * two runs that differ only in them save the same bytes. */
static int may_change(const fcl_param_def *d)
{
    /* particles.capacity: buffer room, no value depends on it (the load
     * checks the saved particles fit); by default it follows sim.steps or
     * sim.duration in scenes with emitters (scene_emitter_capacity). */
    return strcmp(d->group, "output") == 0 || strcmp(d->group, "surface") == 0 ||
           (strcmp(d->group, "sim") == 0 && (strcmp(d->name, "steps") == 0 || strcmp(d->name, "duration") == 0)) ||
           (strcmp(d->group, "particles") == 0 && strcmp(d->name, "capacity") == 0) ||
           (strcmp(d->group, "boundary") == 0 && strcmp(d->name, "cache_dir") == 0) ||
           (strcmp(d->group, "input") == 0 && strcmp(d->name, "max_file_mb") == 0);
}

/* Parameter d as "group.name=value"; floats with 9 digits, so that two
 * different floats never print alike. */
static void param_line(const fcl_params *p, const fcl_param_def *d, char *out, size_t len)
{
    char v[FCL_STR_MAX + 64];
    const float *f = (const float *)((const char *)p + d->offset);
    if (d->type == PT_FLOAT)
        snprintf(v, sizeof v, "%.9g", f[0]);
    else if (d->type == PT_VEC3)
        snprintf(v, sizeof v, "%.9g,%.9g,%.9g", f[0], f[1], f[2]);
    else
        params_format(p, d, v, sizeof v);
    snprintf(out, len, "%s.%s=%s", d->group, d->name, v);
}

static void put_params(blob *b, const fcl_params *p)
{
    char line[FCL_STR_MAX + 200];
    blob t = { 0 };
    for (size_t k = 0; k < fcl_param_count; k++) {
        if (may_change(&fcl_param_table[k]))
            continue;
        param_line(p, &fcl_param_table[k], line, sizeof line);
        put(&t, line, strlen(line));
        put(&t, "\n", 1);
    }
    uint64_t bytes = t.bad ? 0 : t.len;
    b->bad |= t.bad;
    put(b, &bytes, 8);
    put(b, t.p, bytes);
    free(t.p);
}

/* Room for the solver's blob: the default, or what a grid solver says
 * its fields take (solver.h, save_bytes). */
static size_t solver_room(fcl_sim *s)
{
    size_t want = s->solver->save_bytes ? s->solver->save_bytes(s) : 0;
    return want > SOLVER_BLOB_MAX ? want : SOLVER_BLOB_MAX;
}

/* The scene's emitters and outflows, field by field: the accumulators
 * saved beside them mean nothing to others (a run once resumed into a
 * scene with another emitter speed and no outflow, silently). */
static uint64_t inflow_fingerprint(const fcl_sim *s)
{
    uint64_t h = fcl_fnv1a(FCL_FNV1A_BASIS, &s->nemitters, sizeof s->nemitters);
    for (int i = 0; i < s->nemitters; i++) {
        const fcl_emitter *e = &s->emitters[i];
        h = fcl_fnv1a(h, &e->disk, sizeof e->disk);
        h = fcl_fnv1a(h, e->center, sizeof e->center);
        h = fcl_fnv1a(h, e->dir, sizeof e->dir);
        h = fcl_fnv1a(h, e->size, sizeof e->size);
        h = fcl_fnv1a(h, &e->speed, sizeof e->speed);
        h = fcl_fnv1a(h, &e->start, sizeof e->start);
        h = fcl_fnv1a(h, &e->end, sizeof e->end);
        h = fcl_fnv1a(h, &e->rate, sizeof e->rate);
        h = fcl_fnv1a(h, &e->phase_index, sizeof e->phase_index);
    }
    h = fcl_fnv1a(h, &s->noutflows, sizeof s->noutflows);
    for (int i = 0; i < s->noutflows; i++)
        h = fcl_fnv1a(h, &s->outflows[i], sizeof s->outflows[i]);
    return h;
}

/* The phases' density, viscosity and sound speed (a two-fluid run once
 * resumed into other phases, silently). */
static uint64_t phase_fingerprint(const fcl_sim *s)
{
    uint64_t h = fcl_fnv1a(FCL_FNV1A_BASIS, &s->nphases, sizeof s->nphases);
    for (uint k = 0; k < s->nphases; k++) {
        const fcl_phase *f = &s->phase_table[k];
        h = fcl_fnv1a(h, &f->density, sizeof f->density);
        h = fcl_fnv1a(h, &f->viscosity, sizeof f->viscosity);
        h = fcl_fnv1a(h, &f->sound_speed, sizeof f->sound_speed);
    }
    return h;
}

/* The boundary samples' positions as the device holds them (walls and
 * every obstacle: a moved obstacle of as many samples once resumed
 * silently); not w, which a solver may compute on the device (a volume)
 * and so differ in its last bits between backends. 0 when they cannot be
 * read. */
static uint64_t boundary_fingerprint(fcl_sim *s)
{
    uint64_t h = fcl_fnv1a(FCL_FNV1A_BASIS, &s->nb, sizeof s->nb);
    float4 *b = s->nb ? malloc(s->nb * sizeof *b) : NULL;
    if (s->nb && (!b || s->be->ops->buf_read(s->be, sim_bpos(s), 0, s->nb * sizeof *b, b) != 0)) {
        free(b);
        return 0;
    }
    for (size_t i = 0; i < s->nb; i++) {
        const float x[3] = { b[i].x, b[i].y, b[i].z };
        h = fcl_fnv1a(h, x, sizeof x);
    }
    free(b);
    return h;
}

static int encode(fcl_sim *s, blob *b)
{
    char device[DEVICE_BYTES] = { 0 };
    snprintf(device, sizeof device, "%s", s->be->name);
    char name[NAME_BYTES] = { 0 };
    uint32_t version = STATE_VERSION, nattr = (uint32_t)s->grid.nattr;
    uint64_t n = s->n, nb = s->nb;
    int64_t step = s->step;
    snprintf(name, sizeof name, "%s", s->solver->name);
    uint64_t next_id = s->next_id;
    put(b, MAGIC, sizeof MAGIC); put(b, &version, 4); put(b, name, sizeof name); put(b, &n, 8); put(b, &nb, 8);
    put(b, &next_id, 8);
    put(b, device, sizeof device);
    put_params(b, s->prm);
    put(b, &step, 8); put(b, &s->time, 8); put(b, &s->stats, sizeof s->stats);
    put(b, s->emit_acc, sizeof s->emit_acc); put(b, &s->emitted, 8); put(b, &s->refused, 8);
    put(b, &s->removed, 8);
    uint64_t inflow = inflow_fingerprint(s), phases = phase_fingerprint(s), bound = boundary_fingerprint(s);
    if (s->nb && bound == 0)
        return -1;
    put(b, &inflow, 8);
    put(b, &phases, 8);
    put(b, &bound, 8);
    put(b, &nattr, 4);
    for (int a = 0; a < s->grid.nattr; a++) {
        char an[ATTR_NAME_BYTES] = { 0 };
        uint64_t elem = s->grid.attr[a].elem;
        snprintf(an, sizeof an, "%s", s->grid.attr[a].name);
        put(b, an, sizeof an);
        put(b, &elem, 8);
        if (put_buf(b, s->be, s->grid.attr[a].cur, s->n * elem) != 0)
            return -1;
    }
    if (put_buf(b, s->be, s->rho, s->n * 4) != 0 || put_buf(b, s->be, s->prs, s->n * 4) != 0)
        return -1;
    size_t room = solver_room(s);
    unsigned char *sblob = malloc(room);
    if (!sblob)
        return -1;
    size_t saved = s->solver->save ? s->solver->save(s, sblob, room) : 0;
    if (saved == FCL_SAVE_FAILED || saved > room) {
        free(sblob);
        return -1;
    }
    uint64_t sbytes = saved;
    put(b, &sbytes, 8);
    put(b, sblob, sbytes);
    free(sblob);
    uint64_t sum = fnv1a(b->p, b->len);
    put(b, &sum, 8);
    return b->bad ? -1 : 0;
}

int sim_state_save(fcl_sim *s, const char *path, char *err, size_t errlen)
{
    blob b = { 0 };
    char msg[4400];
    fcl_atomic a;
    if (encode(s, &b) != 0) {
        snprintf(err, errlen, "%s: collecting the simulation state failed", path);
        free(b.p);
        return -1;
    }
    int rc = atomic_open(&a, path, 0, msg, sizeof msg);
    if (rc == 0) {
        int ok = fwrite(b.p, 1, b.len, a.fp) == b.len;
        if (!ok)
            snprintf(msg, sizeof msg, "write to '%s' failed: %s", a.tmp, strerror(errno));
        rc = atomic_commit(&a, ok, 0, msg, sizeof msg);
    }
    if (rc != 0)
        snprintf(err, errlen, "%s: %s", path, msg);
    free(b.p);
    return rc;
}

/* The whole file, if it is a regular file no larger than limit. */
static int slurp(const char *path, size_t limit, blob *b, char *err, size_t errlen)
{
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (!f || fstat(fileno(f), &st) != 0) {
        snprintf(err, errlen, "%s: cannot open the state file: %s", path, strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || (unsigned long long)st.st_size > limit) {
        snprintf(err, errlen, S_ISREG(st.st_mode) ? "%s: %lld bytes is not a state of this simulation (at most %zu)"
                                                  : "%s: not a regular file (%lld bytes, at most %zu)",
                 path, (long long)st.st_size, limit);
        fclose(f);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    b->p = malloc(size + 1);
    b->len = b->cap = size;
    if (!b->p || fread(b->p, 1, size, f) != size) {
        snprintf(err, errlen, "%s: reading the state failed", path);
        fclose(f);
        return -1;
    }
    fclose(f);
    return 0;
}

/* f in the fewest digits that read back as f (0.2, not the stored
 * 0.200000003 a message once showed), without an exponent where a plain
 * number is as short to read (1000, not the 1e+03 of %.1g). */
static void short_float(float f, char *out, size_t len)
{
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(out, len, "%.*g", digits, f);
        if (strtof(out, NULL) == f)
            break;
    }
    int exp10 = f != 0.0f && isfinite(f) ? (int)floor(log10(fabs((double)f))) : 0;
    if (strchr(out, 'e') && exp10 >= 0 && exp10 < 9) {
        char plain[64];
        snprintf(plain, sizeof plain, "%.*g", exp10 + 1, f);
        if (strtof(plain, NULL) == f && !strchr(plain, 'e'))
            snprintf(out, len, "%s", plain);
    }
}

/* A "group.name=value" line of param_line's for messages: float values
 * in their shortest form. */
static void readable_line(const fcl_param_def *d, const char *line, size_t l, char *out, size_t len)
{
    const char *eq = memchr(line, '=', l);
    snprintf(out, len, "%.*s", (int)(l < 300 ? l : 300), line);
    if (!eq || (d->type != PT_FLOAT && d->type != PT_VEC3))
        return;
    size_t at = (size_t)(eq - line) + 1;
    char num[32], *next = (char *)line + at;
    out[at < len ? at : len - 1] = '\0';
    for (int k = 0; k < (d->type == PT_VEC3 ? 3 : 1) && next < line + l; k++) {
        float f = strtof(next, &next);
        short_float(f, num, sizeof num);
        size_t o = strlen(out);
        snprintf(out + o, len - o, "%s%s", k ? "," : "", num);
        next += next < line + l && *next == ',';
    }
}

/* The saved line of key d ("group.name=..."), or NULL; *l its length. */
static const char *saved_line(const fcl_param_def *d, const char *text, size_t len, size_t *l)
{
    char key[160];
    int kl = snprintf(key, sizeof key, "%s.%s=", d->group, d->name);
    for (const char *at = text, *end = text + len; at < end;) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        size_t n = nl ? (size_t)(nl - at) : (size_t)(end - at);
        if (n >= (size_t)kl && memcmp(at, key, (size_t)kl) == 0) {
            *l = n;
            return at;
        }
        at += n + 1;
    }
    return NULL;
}

/* A saved line whose key this build does not save (a parameter since
 * removed), or NULL. */
static const char *unknown_line(const char *text, size_t len, size_t *l)
{
    for (const char *at = text, *end = text + len; at < end;) {
        const char *nl = memchr(at, '\n', (size_t)(end - at)), *eq;
        size_t n = nl ? (size_t)(nl - at) : (size_t)(end - at);
        int known = 0;
        for (size_t k = 0; k < fcl_param_count && !known && (eq = memchr(at, '=', n)) != NULL; k++) {
            const fcl_param_def *d = &fcl_param_table[k];
            size_t gl = strlen(d->group);
            known = !may_change(d) && (size_t)(eq - at) == gl + 1 + strlen(d->name) && memcmp(at, d->group, gl) == 0 &&
                    at[gl] == '.' && memcmp(at + gl + 1, d->name, strlen(d->name)) == 0;
        }
        if (!known && n > 0) {
            *l = n;
            return at;
        }
        at += n + 1;
    }
    return NULL;
}

/* Parameters whose default is not the behaviour the builds before them
 * had: a checkpoint without one resumes only at the value given here.
 * dfsph.warm_share: the density solver's warm start took all of last
 * step's pressure (a resumed 0.85 changed the frames with no message, a
 * review). */
static const struct { const char *key, *value; } LEGACY[] = {
    { "dfsph.warm_share", "1" },
};

/* What a run must have of d to resume a checkpoint written before d
 * existed: its default, or its LEGACY value, as a saved line. */
static void line_before(const fcl_param_def *d, char *out, size_t len)
{
    fcl_params old;
    char key[160], err[256];
    params_defaults(&old);
    snprintf(key, sizeof key, "%s.%s", d->group, d->name);
    for (size_t k = 0; k < sizeof LEGACY / sizeof LEGACY[0]; k++)
        if (strcmp(LEGACY[k].key, key) == 0)
            params_set_text(&old, d, LEGACY[k].value, err, sizeof err);
    param_line(&old, d, out, len);
}

/* A parameter the running solver does not read: another solver's group,
 * a shared key it declares unread (its ignores, which test_solvers holds
 * to bit-identical steps), material.viscosity where phases replace it.
 * The run notes each as unused, so a resume does not hold it against the
 * checkpoint (it refused material.viscosity with phases; a review). */
static int unread(const fcl_sim *s, const fcl_param_def *d, size_t id)
{
    return !solver_reads_group(s->solver, d->group, strlen(d->group)) ||
           solver_reads_instead(s->solver, (fcl_param_id)id) != NULL ||
           (id == FCL_P_material_viscosity && s->nphases > 0);
}

/* The saved parameters against s's, by key, but for those a resumed run
 * may change. A parameter the checkpoint lacks (written before it
 * existed) resumes at the behaviour the older build had: its default, or
 * its LEGACY value. Matched by position, one new parameter made every
 * later line differ, and an older checkpoint was refused naming two
 * unrelated keys (a review). */
static int check_params(const fcl_sim *s, const char *text, size_t len, const char *path, char *err,
                        size_t errlen)
{
    const fcl_params *p = s->prm;
    char want[FCL_STR_MAX + 200], dflt[FCL_STR_MAX + 200], was[400], now[400];
    size_t l;
    const char *at = unknown_line(text, len, &l);
    if (at) {
        snprintf(err, errlen, "%s: the checkpoint has %.*s, a parameter this build does not have: resume it with the "
                 "build that wrote it", path, (int)(l < 300 ? l : 300), at);
        return -1;
    }
    for (size_t k = 0; k < fcl_param_count; k++) {
        const fcl_param_def *d = &fcl_param_table[k];
        if (may_change(d) || unread(s, d, k))
            continue;
        param_line(p, d, want, sizeof want);
        if (!(at = saved_line(d, text, len, &l))) {
            line_before(d, dflt, sizeof dflt);
            if (strcmp(want, dflt) == 0)
                continue;
            readable_line(d, want, strlen(want), now, sizeof now);
            readable_line(d, dflt, strlen(dflt), was, sizeof was);
            snprintf(err, errlen, "%s: the checkpoint was written before %s.%s existed, and this run has %s: it "
                     "resumes only as the build that wrote it ran, with --param %s", path, d->group, d->name, now, was);
            return -1;
        }
        if (l != strlen(want) || memcmp(at, want, l) != 0) {
            readable_line(d, at, l, was, sizeof was);
            readable_line(d, want, strlen(want), now, sizeof now);
            snprintf(err, errlen, "%s: the checkpoint was written with %s, this run has %s", path, was, now);
            return -1;
        }
    }
    return 0;
}

/* The device name and the parameters: the latter must be this run's. */
static int check_run(fcl_sim *s, blob *b, const char *path, char *err, size_t errlen)
{
    uint64_t bytes = 0;
    skip(b, 8 + DEVICE_BYTES);    /* next id, device (state.h: sim_state_info) */
    if (get(b, &bytes, 8) != 0 || bytes > PARAMS_MAX || bytes > b->len - b->at) {
        snprintf(err, errlen, "%s: the parameters' length is damaged", path);
        return -1;
    }
    b->at += (size_t)bytes;
    return check_params(s, (const char *)b->p + b->at - bytes, (size_t)bytes, path, err, errlen);
}

/* Which particle attributes of nattr in the file (b at the first, n
 * particles) the simulation lacks, and which of its own the file does,
 * into out, named (a scene with fluid-control targets keeps two more, and
 * a resume across was told only the counts; a review). b is left as it
 * was. */
static void attr_diff(const fcl_sim *s, blob *b, uint64_t n, uint32_t nattr, char *out, size_t len)
{
    blob w = *b;
    char names[16][ATTR_NAME_BYTES], extra[512] = "", lack[512] = "";
    uint32_t k = 0;
    for (; k < nattr && k < 16; k++) {
        uint64_t elem = 0;
        if (get(&w, names[k], ATTR_NAME_BYTES) != 0 || get(&w, &elem, 8) != 0 || elem > 64 ||
            n * elem > w.len - w.at)
            break;
        names[k][ATTR_NAME_BYTES - 1] = '\0';
        w.at += (size_t)(n * elem);
        int here = 0;
        for (int a = 0; a < s->grid.nattr && !here; a++)
            here = strncmp(names[k], s->grid.attr[a].name, ATTR_NAME_BYTES - 1) == 0;
        if (!here)
            snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "%s'%s'", extra[0] ? ", " : "", names[k]);
    }
    for (int a = 0; a < s->grid.nattr; a++) {
        int there = 0;
        for (uint32_t j = 0; j < k && !there; j++)
            there = strncmp(names[j], s->grid.attr[a].name, ATTR_NAME_BYTES - 1) == 0;
        if (!there)
            snprintf(lack + strlen(lack), sizeof lack - strlen(lack), "%s'%s'", lack[0] ? ", " : "",
                     s->grid.attr[a].name);
    }
    snprintf(out, len, "%s%s%s%s%s%s%s", extra[0] ? "it holds " : "", extra,
             extra[0] ? ", which this simulation has not" : "", extra[0] && lack[0] ? ", and " : "",
             lack[0] ? "it lacks " : "", lack, lack[0] ? ", which this one has" : "");
}

/* Header, counts, parameters and attribute layout against s; 0 when
 * they match. */
static int check_header(fcl_sim *s, blob *b, const char *path, char *err, size_t errlen)
{
    char magic[8] = { 0 }, name[NAME_BYTES] = { 0 };
    uint32_t version = 0, nattr = 0;
    uint64_t n = 0, nb = 0;
    if (get(b, magic, 8) != 0 || memcmp(magic, MAGIC, 8) != 0 || get(b, &version, 4) != 0) {
        snprintf(err, errlen, "%s: not a fluidcl state file", path);
        return -1;
    }
    if (version != STATE_VERSION) {
        snprintf(err, errlen, "%s: state format version %u, this build reads %d", path, version, STATE_VERSION);
        return -1;
    }
    get(b, name, sizeof name);
    name[NAME_BYTES - 1] = '\0';
    get(b, &n, 8);
    get(b, &nb, 8);
    /* Particles may have been added since the scene started: any count
     * up to the capacity restores. */
    if (strcmp(name, s->solver->name) != 0 || n > s->cap || nb != s->nb) {
        int other = strcmp(name, s->solver->name) != 0;
        /* A parameter that differs (particles.spacing, say) is the cause
         * to name; the counts only follow from it (a review: a resume at
         * another spacing was told the counts). */
        if (!other && check_run(s, b, path, err, errlen) != 0)
            return -1;
        const char *why = other ? "it was written by another solver"
                          : nb != s->nb ? "another boundary: the domain, walls or obstacles differ, or this build "
                                          "samples them otherwise than the one that wrote the state (a sampler "
                                          "change: rerun from the scene)"
                                        : "more particles than particles.capacity: the state of a scene whose "
                                          "fluid holds more (its parameters are this scene's), or raise "
                                          "particles.capacity to at least the state's count";
        snprintf(err, errlen, "%s: a state of solver %s with %llu particles and %llu boundary particles, but the "
                 "simulation has %s with room for %zu particles (particles.capacity) and %zu boundary particles: %s",
                 path, name, (unsigned long long)n, (unsigned long long)nb, s->solver->name, s->cap, s->nb, why);
        return -1;
    }
    if (check_run(s, b, path, err, errlen) != 0)
        return -1;
    skip(b, 8 + 8 + sizeof s->stats + sizeof s->emit_acc + 24);
    uint64_t inflow = 0;
    if (get(b, &inflow, 8) != 0 || inflow != inflow_fingerprint(s)) {
        /* Only their fingerprint is saved: what differs cannot be told. */
        snprintf(err, errlen, "%s: saved with other emitters or outflows than the scene's (it has %d emitter%s and %d "
                 "outflow%s; their number, shapes, positions, speeds, times or rates differ from the saved ones): a "
                 "resumed run needs the same \"emitters\" and \"outflows\"", path, s->nemitters,
                 s->nemitters == 1 ? "" : "s", s->noutflows, s->noutflows == 1 ? "" : "s");
        return -1;
    }
    uint64_t phases = 0, bound = 0;
    if (get(b, &phases, 8) != 0 || phases != phase_fingerprint(s)) {
        snprintf(err, errlen, "%s: saved with other fluid phases than the scene's (%u here; their density, viscosity "
                 "or sound speed differ): a resumed run needs the same \"phases\"", path, s->nphases);
        return -1;
    }
    if (get(b, &bound, 8) != 0 || bound != boundary_fingerprint(s)) {
        snprintf(err, errlen, "%s: saved with other boundary samples than the scene's (as many, %zu, but elsewhere: "
                 "walls, obstacles or particles.spacing differ): a resumed run needs the same \"domain\", "
                 "\"boundary\" and \"obstacles\"", path, s->nb);
        return -1;
    }
    if (get(b, &nattr, 4) != 0 || nattr != (uint32_t)s->grid.nattr) {
        char diff[1100];
        attr_diff(s, b, n, nattr, diff, sizeof diff);
        snprintf(err, errlen, "%s: %u particle attributes, the simulation has %d%s%s (fluid control's targets keep a "
                 "spring for each particle; a checkpoint resumes into the scene that wrote it)", path, nattr,
                 s->grid.nattr, diff[0] ? ": " : "", diff);
        return -1;
    }
    return 0;
}

/* The attributes, density, pressure and the solver's blob into s. */
static int restore(fcl_sim *s, blob *b, const char *path, char *err, size_t errlen)
{
    fcl_backend *be = s->be;
    for (int a = 0; a < s->grid.nattr; a++) {
        char an[ATTR_NAME_BYTES];
        uint64_t elem;
        if (get(b, an, sizeof an) != 0 || get(b, &elem, 8) != 0 || elem != s->grid.attr[a].elem ||
            strncmp(an, s->grid.attr[a].name, sizeof an - 1) != 0 || s->n * elem > b->len - b->at) {
            snprintf(err, errlen, "%s: particle attribute %d does not match the simulation's '%s'", path, a,
                     s->grid.attr[a].name);
            return -1;
        }
        if (be->ops->buf_write(be, s->grid.attr[a].cur, 0, s->n * elem, b->p + b->at) != 0)
            return -1;
        b->at += s->n * elem;
    }
    return 0;
}

/* The whole file, its checksum and its header checked against s; on
 * success b holds the bytes before the checksum. */
static int read_checked(fcl_sim *s, const char *path, blob *b, char *err, size_t errlen)
{
    size_t limit = 1024 + DEVICE_BYTES + PARAMS_MAX + solver_room(s) + sizeof s->stats + sizeof s->emit_acc + 32 +
                   (size_t)s->grid.nattr * (ATTR_NAME_BYTES + 8) +
                   s->cap * 8;
    for (int a = 0; a < s->grid.nattr; a++)
        limit += s->cap * s->grid.attr[a].elem;
    /* Room for another solver's state of the same scene, so that the
     * header can say whose it is. */
    limit = 2 * limit + 4 * s->n * 16;
    if (slurp(path, limit, b, err, errlen) != 0)
        return -1;
    uint64_t sum = 0;
    if (b->len < 8 + sizeof MAGIC || (memcpy(&sum, b->p + b->len - 8, 8), sum != fnv1a(b->p, b->len - 8))) {
        snprintf(err, errlen, "%s: checksum mismatch: the file is damaged or truncated", path);
        return -1;
    }
    b->len -= 8;
    return check_header(s, b, path, err, errlen);
}

/* Count, ids, step, time and statistics, then the attributes. */
static int restore_state(fcl_sim *s, blob *b, const char *path, char *err, size_t errlen)
{
    uint64_t n = 0, next_id = 0;
    int64_t step = 0;
    b->at = sizeof MAGIC + 4 + NAME_BYTES;
    get(b, &n, 8);
    skip(b, 8);
    get(b, &next_id, 8);
    uint64_t pbytes = 0;
    skip(b, DEVICE_BYTES);
    get(b, &pbytes, 8);
    skip(b, (size_t)pbytes);   /* checked by check_run */
    get(b, &step, 8);
    get(b, &s->time, 8);
    get(b, &s->stats, sizeof s->stats);
    get(b, s->emit_acc, sizeof s->emit_acc);
    get(b, &s->emitted, 8);
    get(b, &s->refused, 8);
    get(b, &s->removed, 8);
    skip(b, 3 * 8 + 4);   /* the inflow, phase and boundary fingerprints (checked), the attribute count */
    if (b->bad) {
        snprintf(err, errlen, "%s: truncated before the particles", path);
        return -1;
    }
    /* The checksum guards against damage, not against a file written by
     * hand: a crafted next_id of 3 gave duplicate ids, a NaN time ran on
     * (a review). Ids are unique below next_id, so it is at least n. */
    const char *bad = step < 0 ? "step" : !(isfinite(s->time) && s->time >= 0.0) ? "time"
                    : next_id < n || next_id > UINT32_MAX ? "next_id"
                    : s->emitted < 0 || s->refused < 0 || s->removed < 0 ? "emitted/refused/removed"
                    : !sim_emit_acc_valid(s) ? "emitters' travel since their last layer" : NULL;
    if (bad) {
        snprintf(err, errlen, "%s: its %s is impossible (step %lld, time %g s, next id %llu for %llu particles): "
                 "not a checkpoint fluidcl wrote", path, bad, (long long)step, s->time, (unsigned long long)next_id,
                 (unsigned long long)n);
        return -1;
    }
    s->n = (size_t)n;
    s->next_id = (uint)next_id;
    s->step = step;
    grid_set_count(&s->grid, s->n);
    sim_update_consts(s);
    return restore(s, b, path, err, errlen);
}

/* The solver's scalar state, the derived fields of the restored positions
 * (solver buffers, lists), then the saved density and pressure over them:
 * a WCSPH frame holds the step's start density, which prepare would not. */
static int finish_load(fcl_sim *s, blob *b, const char *path, char *err, size_t errlen)
{
    uint64_t sbytes = 0;
    char why[512] = "its size does not match";
    if (s->n * 8 > b->len - b->at) {
        snprintf(err, errlen, "%s: truncated before the density", path);
        return -1;
    }
    const unsigned char *dens = b->p + b->at;
    b->at += s->n * 8;
    if (get(b, &sbytes, 8) != 0 || sbytes != b->len - b->at ||
        (s->solver->load && s->solver->load(s, b->p + b->at, (size_t)sbytes, why, sizeof why) != 0)) {
        snprintf(err, errlen, "%s: the %s solver's state does not match this run's: %s (a checkpoint resumes into "
                 "the scene that wrote it)", path, s->solver->name, why);
        return -1;
    }
    /* Prepared only with particles, as a fresh run is (sim.c, emit.c): mac
     * seeds its field at its first prepare, from the markers there are. */
    if ((s->n > 0 && s->solver->prepare(s) != 0) || s->be->ops->buf_write(s->be, s->rho, 0, s->n * 4, dens) != 0 ||
        s->be->ops->buf_write(s->be, s->prs, 0, s->n * 4, dens + s->n * 4) != 0 || s->be->ops->finish(s->be) != 0) {
        snprintf(err, errlen, "%s: restoring the state on %s failed", path, s->be->name);
        return -1;
    }
    return 0;
}

int sim_state_load(fcl_sim *s, const char *path, char *err, size_t errlen)
{
    blob b = { 0 };
    int rc = read_checked(s, path, &b, err, errlen);
    if (rc == 0)
        rc = restore_state(s, &b, path, err, errlen);
    if (rc == 0)
        rc = finish_load(s, &b, path, err, errlen);
    free(b.p);
    return rc;
}

int sim_state_is_file(const char *path)
{
    char head[8];
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return got == sizeof head && memcmp(head, MAGIC, 8) == 0;
}

int sim_state_info(const char *path, fcl_state_info *info, char *err, size_t errlen)
{
    unsigned char head[8 + 4 + NAME_BYTES + 24 + DEVICE_BYTES];
    memset(info, 0, sizeof *info);
    /* Before any open: a FIFO's would wait for a writer for ever. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s): expected a state file 'run --checkpoint' wrote", path,
                 S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a pipe" : "a device or socket");
        return -1;
    }
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    /* The step and time follow the parameters' text (encode). */
    uint64_t pbytes = 0;
    int64_t step = -1;
    double time = 0.0;
    if (f && got == sizeof head && fread(&pbytes, 8, 1, f) == 1 && pbytes <= PARAMS_MAX &&
        fseek(f, (long)pbytes, SEEK_CUR) == 0 && (fread(&step, 8, 1, f) != 1 || fread(&time, 8, 1, f) != 1))
        step = -1;
    info->step = (long)step;
    info->time = time;
    if (f)
        fclose(f);
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the state file: %s", path, strerror(errno));
        return -1;
    }
    uint32_t version = 0;
    if (got == sizeof head)
        memcpy(&version, head + 8, 4);
    if (got < 8 || memcmp(head, MAGIC, 8) != 0) {
        snprintf(err, errlen, "%s: not a fluidcl state file", path);
        return -1;
    }
    if (got != sizeof head) {   /* its own kind, cut inside the header (it was called foreign; a review) */
        snprintf(err, errlen, "%s: a fluidcl state file of %zu bytes, shorter than its %zu-byte header: it is "
                 "truncated", path, got, sizeof head);
        return -1;
    }
    if (version != STATE_VERSION) {
        snprintf(err, errlen, "%s: state format version %u, this build reads %d", path, version, STATE_VERSION);
        return -1;
    }
    uint64_t n = 0;
    memcpy(info->solver, head + 12, NAME_BYTES);
    info->solver[sizeof info->solver - 1] = '\0';
    memcpy(&n, head + 12 + NAME_BYTES, 8);
    info->n = (size_t)n;
    memcpy(info->device, head + 12 + NAME_BYTES + 24, DEVICE_BYTES);
    info->device[sizeof info->device - 1] = '\0';
    return 0;
}
