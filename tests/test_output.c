/* test_output.c - round trips and failure modes of host/io/ (frames, CSV).
 *
 * Writes frames with known values (special floats included, the surface
 * flag and the particle spacing too) into a fresh mkdtemp directory, reads
 * them back with both readers and demands bit equality; checks the on-disk
 * layout byte by byte where ParaView and other readers depend on it; reads
 * files of the previous layout (no surface flag, no spacing), written here
 * byte by byte, with the flag absent and spacing 0; and checks that every
 * failure names its file.
 * Invariant: prints "N passed, M failed" last and exits 0 only if M == 0.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "fcl_test.h"
#include "atomic.h"
#include "output.h"
#include "progress.h"

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[64];

static char *path_in(const char *name)
{
    static char buf[8][256];
    static int k;
    k = (k + 1) % 8;    /* a few live at once, enough for one call's arguments */
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

/* The whole file in memory (NUL-terminated for string checks). */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, fp) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(fp);
    if (b) {
        b[n] = '\0';
        *len = (size_t)n;
    }
    return b;
}

static int spit(const char *path, const void *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    size_t w = fwrite(data, 1, len, fp);
    return fclose(fp) == 0 && w == len ? 0 : -1;
}

static const unsigned char *find(const unsigned char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; m <= n && i <= n - m; i++)
        if (memcmp(hay + i, needle, m) == 0)
            return hay + i;
    return NULL;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ---- the reference frame */

typedef struct {
    size_t n;
    float4 *pos, *vel;
    float *den, *prs, *surf;
    uint32_t *id;
    double spacing;
} owned_frame;

static void make_frame(owned_frame *o, size_t n, double spacing)
{
    o->n = n;
    o->spacing = spacing;
    o->surf = malloc((n ? n : 1) * sizeof(float));
    o->pos = aligned_alloc(16, (n ? n : 1) * sizeof(float4));
    o->vel = aligned_alloc(16, (n ? n : 1) * sizeof(float4));
    o->den = malloc((n ? n : 1) * sizeof(float));
    o->prs = malloc((n ? n : 1) * sizeof(float));
    o->id = malloc((n ? n : 1) * sizeof(uint32_t));
    for (size_t i = 0; i < n; i++) {
        float t = (float)i;
        o->pos[i] = fcl_f4(0.001f * t - 0.25f, sinf(t), -1e-3f * t * t, 99.0f);
        o->vel[i] = fcl_f4(cosf(t) * 3.0f, 1.0f / (t + 1.0f), -t, -7.0f);
        o->den[i] = 1000.0f + 0.5f * t;
        o->prs[i] = -12.75f * t + 1e-7f;
        o->id[i] = (uint32_t)((i * 7919u) % n);
        o->surf[i] = (i * 13u) % 5u == 0 ? 1.0f : 0.0f;
    }
    if (n >= 8) {   /* values a careless text or byte-order path would change */
        o->pos[0].x = 1.5f;   /* big-endian 3f c0 00 00, checked raw below */
        o->pos[1] = fcl_f4(-0.0f, FLT_MIN / 4, FLT_MAX, 0);
        o->vel[2] = fcl_f4(INFINITY, -INFINITY, NAN, 0);
        o->den[3] = FLT_EPSILON;
        o->prs[4] = -NAN;
        o->id[5] = 0xFFFFFFFFu;
        o->id[6] = 0x80000000u;
        o->surf[7] = -NAN;   /* the flag travels as raw bits too */
    }
}

static void free_frame(owned_frame *o)
{
    free(o->pos);
    free(o->vel);
    free(o->den);
    free(o->prs);
    free(o->id);
    free(o->surf);
}

static fcl_frame view(const owned_frame *o)
{
    fcl_frame f = {o->n, o->pos, o->vel, o->den, o->prs, o->id, o->surf, o->spacing, 0, {0}, {0}};
    return f;
}

/* Counts values whose bit patterns differ; reports the first. */
static int compare(const owned_frame *o, const fcl_frame_data *d, const char *what)
{
    if (d->n != o->n) {
        printf("  %s: n %zu != %zu\n", what, d->n, o->n);
        return 1;
    }
    int bad = 0;
    /* The spacing is the simulation's float, recorded as its shortest text
     * (0.04, not 0.03999999910593033): it reads back as the same float. */
    float ds = (float)d->spacing, os = (float)o->spacing;
    if (!d->has_surface || (o->n > 0 && !d->surface) || bits(ds) != bits(os)) {
        printf("  %s: surface flag %s, spacing %.17g != %.17g\n", what, d->has_surface ? "present" : "absent",
               d->spacing, o->spacing);
        return 1;
    }
    for (size_t i = 0; i < o->n; i++) {
        uint32_t a[10] = {bits(o->pos[i].x), bits(o->pos[i].y), bits(o->pos[i].z),
                          bits(o->vel[i].x), bits(o->vel[i].y), bits(o->vel[i].z),
                          bits(o->den[i]), bits(o->prs[i]), o->id[i], bits(o->surf[i])};
        uint32_t b[10] = {bits(d->pos[i].x), bits(d->pos[i].y), bits(d->pos[i].z),
                          bits(d->vel[i].x), bits(d->vel[i].y), bits(d->vel[i].z),
                          bits(d->density[i]), bits(d->pressure[i]), d->id[i], bits(d->surface[i])};
        for (int k = 0; k < 10; k++)
            if (a[k] != b[k] && bad++ == 0)
                printf("  %s: particle %zu value %d: %08x != %08x\n", what, i, k,
                       (unsigned)b[k], (unsigned)a[k]);
        if (d->pos[i].w != 0.0f || d->vel[i].w != 0.0f)
            bad++;
    }
    return bad;
}

/* No "*.tmp" and no probe file may be left behind in dir. */
static int leftovers(const char *dir)
{
    DIR *dp = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL) {
        size_t len = strlen(e->d_name);
        if ((len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0) ||
            strncmp(e->d_name, ".fluidcl_probe", 14) == 0) {
            printf("  leftover: %s/%s\n", dir, e->d_name);
            n++;
        }
    }
    if (dp)
        closedir(dp);
    return n;
}

/* ---- tests */

static void test_prepare_dir(void)
{
    char err[512] = "";
    CHECK(out_prepare_dir(path_in("frames/a/b/"), err, sizeof err) == 0, "%s", err);
    CHECK(exists(path_in("frames/a/b")), "directory not created");
    CHECK(out_prepare_dir(path_in("frames/a/b"), err, sizeof err) == 0,
          "existing dir: %s", err);
    CHECK(leftovers(path_in("frames/a/b")) == 0, "probe file left");

    const char *afile = path_in("afile");
    CHECK(spit(afile, "x", 1) == 0, "cannot create %s", afile);
    const char *bad = path_in("afile/sub");
    err[0] = '\0';
    CHECK(out_prepare_dir(bad, err, sizeof err) != 0, "dir under a regular file accepted");
    CHECK(strstr(err, bad) != NULL, "message does not name %s: \"%s\"", bad, err);
    CHECK(strstr(err, "Not a directory") != NULL, "message lacks strerror: \"%s\"", err);
    CHECK(out_prepare_dir(afile, err, sizeof err) != 0, "regular file accepted as dir");
    CHECK(strstr(err, afile) != NULL, "message does not name %s: \"%s\"", afile, err);
    CHECK(out_prepare_dir("", err, sizeof err) != 0, "empty name accepted");
}

/* What a signal during a run's set-up removes (atomic_undo): the
 * temporaries open then and the folders made since atomic_settle, only
 * while empty; a kept temporary, a committed file and an earlier folder
 * stay. (A new --out folder and a cache's half-written temporary were
 * left behind.) */
static void test_undo(void)
{
    char err[512] = "";
    fcl_atomic open_one, kept, done;
    atomic_settle();   /* test_prepare_dir's folders are not this test's */
    CHECK(out_prepare_dir(path_in("undo/new/deeper"), err, sizeof err) == 0, "%s", err);
    CHECK(out_prepare_dir(path_in("undo/full"), err, sizeof err) == 0, "%s", err);
    CHECK(atomic_open(&open_one, path_in("undo/new/deeper/cache.bin"), 1, err, sizeof err) == 0, "%s", err);
    CHECK(atomic_open(&kept, path_in("undo/full/rows.csv"), 0, err, sizeof err) == 0, "%s", err);
    CHECK(atomic_open(&done, path_in("undo/full/done.txt"), 0, err, sizeof err) == 0, "%s", err);
    atomic_keep(&kept);
    CHECK(atomic_commit(&done, 1, 0, err, sizeof err) == 0, "%s", err);
    char open_tmp[sizeof open_one.tmp];
    snprintf(open_tmp, sizeof open_tmp, "%s", open_one.tmp);
    CHECK(exists(open_tmp), "no temporary %s", open_tmp);
    atomic_undo();
    CHECK(!exists(open_tmp) && !exists(path_in("undo/new")), "the open temporary or the new folders stayed");
    CHECK(exists(kept.tmp) && exists(path_in("undo/full/done.txt")), "a kept temporary or a committed file went");
    CHECK(exists(path_in("undo/full")) && exists(tmpdir), "a folder holding files, or an earlier one, went");
    if (open_one.fp)
        fclose(open_one.fp);
    if (kept.fp)
        fclose(kept.fp);
    /* Settled folders are the run's: a later undo leaves them. */
    CHECK(out_prepare_dir(path_in("undo/settled"), err, sizeof err) == 0, "%s", err);
    atomic_settle();
    atomic_undo();
    CHECK(exists(path_in("undo/settled")), "a folder made before atomic_settle was removed");
}

static void test_vtk_layout(const char *path, const owned_frame *o)
{
    size_t len = 0;
    unsigned char *b = slurp(path, &len);
    CHECK(b != NULL, "cannot read back %s", path);
    if (!b)
        return;
    const char *head = "# vtk DataFile Version 3.0\nfluidcl frame time=0.12 spacing=0.0125\n"
                       "BINARY\nDATASET POLYDATA\nPOINTS 1000 float\n";
    size_t hl = strlen(head);
    CHECK(len > hl && memcmp(b, head, hl) == 0, "VTK header differs:\n%.*s", (int)hl, b);
    const unsigned char be15[4] = {0x3f, 0xc0, 0x00, 0x00};   /* 1.5f big-endian */
    CHECK(len > hl + 4 && memcmp(b + hl, be15, 4) == 0, "POINTS payload is not big-endian");
    const char *parts[] = {
        "\nVERTICES 1000 2000\n", "\nPOINT_DATA 1000\nVECTORS velocity float\n",
        "\nSCALARS density float 1\nLOOKUP_TABLE default\n",
        "\nSCALARS pressure float 1\nLOOKUP_TABLE default\n",
        "\nSCALARS id int 1\nLOOKUP_TABLE default\n",
        "\nSCALARS surface float 1\nLOOKUP_TABLE default\n",
    };
    size_t textlen = hl + 1;   /* + the final newline */
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        CHECK(find(b, len, parts[k]) != NULL, "VTK lacks \"%s\"", parts[k]);
        textlen += strlen(parts[k]);
    }
    CHECK(len == textlen + 48 * o->n, "VTK size %zu, expected %zu", len, textlen + 48 * o->n);
    const unsigned char *cells = find(b, len, "\nVERTICES 1000 2000\n");
    const unsigned char cell7[8] = {0, 0, 0, 1, 0, 0, 0, 7};   /* (1, 7) big-endian */
    CHECK(cells && memcmp(cells + 20 + 7 * 8, cell7, 8) == 0, "vertex cell 7 is not (1, 7)");
    free(b);
}

static void test_ply_layout(const char *path, const owned_frame *o)
{
    size_t len = 0;
    unsigned char *b = slurp(path, &len);
    CHECK(b != NULL, "cannot read back %s", path);
    if (!b)
        return;
    const char *props = "comment fluidcl spacing 0.0125\nelement vertex 1000\nproperty float x\n"
        "property float y\nproperty float z\nproperty float vx\nproperty float vy\nproperty float vz\n"
        "property float density\nproperty float pressure\nproperty uint id\nproperty float surface\n"
        "end_header\n";
    CHECK(memcmp(b, "ply\nformat binary_little_endian 1.0\n", 36) == 0, "PLY preamble");
    const unsigned char *p = find(b, len, props);
    CHECK(p != NULL, "PLY header lacks the vertex element:\n%s", (const char *)b);
    if (p) {
        size_t hl = (size_t)(p - b) + strlen(props);
        CHECK(len == hl + 40 * o->n, "PLY size %zu, expected %zu", len, hl + 40 * o->n);
        const unsigned char le15[4] = {0x00, 0x00, 0xc0, 0x3f};   /* 1.5f little-endian */
        CHECK(memcmp(b + hl, le15, 4) == 0, "PLY payload is not little-endian");
    }
    free(b);
}

static void test_round_trip(size_t n, double spacing)
{
    owned_frame o;
    make_frame(&o, n, spacing);
    fcl_frame f = view(&o);
    char err[512] = "", name[64];
    fcl_frame_data d;
    snprintf(name, sizeof name, "frames/f%zu.vtk", n);
    const char *vtk = path_in(name);
    CHECK(out_write_vtk(vtk, &f, 0.12, err, sizeof err) == 0, "write vtk: %s", err);
    CHECK(out_read_vtk(vtk, &d, err, sizeof err) == 0, "read vtk: %s", err);
    CHECK(compare(&o, &d, "vtk") == 0, "VTK round trip of %zu particles not exact", n);
    CHECK(d.time == 0.12, "VTK time %.17g != 0.12", d.time);
    out_frame_free(&d);
    if (n == 1000)
        test_vtk_layout(vtk, &o);
    if (n == 0) {   /* VTK's own reader rejects "VERTICES 0 0" */
        size_t len = 0;
        unsigned char *b = slurp(vtk, &len);
        CHECK(b && !find(b, len, "VERTICES") && find(b, len, "POINT_DATA 0\n"),
              "empty VTK frame layout:\n%s", b ? (char *)b : "(none)");
        free(b);
    }

    snprintf(name, sizeof name, "frames/f%zu.ply", n);
    const char *ply = path_in(name);
    CHECK(out_write_ply(ply, &f, err, sizeof err) == 0, "write ply: %s", err);
    CHECK(out_read_ply(ply, &d, err, sizeof err) == 0, "read ply: %s", err);
    CHECK(compare(&o, &d, "ply") == 0, "PLY round trip of %zu particles not exact", n);
    CHECK(d.time == 0.0, "PLY time %g != 0", d.time);
    if (n == 1000)
        test_ply_layout(ply, &o);

    /* Rewriting what was read must give the same bytes. */
    fcl_frame again = out_frame_view(&d);
    const char *vtk2 = path_in("frames/again.vtk");
    CHECK(out_write_vtk(vtk2, &again, 0.12, err, sizeof err) == 0, "rewrite: %s", err);
    size_t l1 = 0, l2 = 0;
    unsigned char *b1 = slurp(vtk, &l1), *b2 = slurp(vtk2, &l2);
    CHECK(b1 && b2 && l1 == l2 && memcmp(b1, b2, l1) == 0, "rewritten VTK differs");
    free(b1);
    free(b2);
    unlink(vtk2);
    out_frame_free(&d);
    CHECK(d.n == 0 && d.pos == NULL && d.id == NULL, "out_frame_free leaves data");
    CHECK(leftovers(path_in("frames")) == 0, ".tmp files left behind");
    free_frame(&o);
}

/* ---- the previous layout, written here byte by byte (not through
 * frame_vtk.c, frame_ply.c), as fluidcl wrote frames before the surface flag and the
 * spacing: 3 particles with values v(i, k) = 10 i + k. */

struct bytes {
    unsigned char b[2048];
    size_t len;
};

static void put_text(struct bytes *o, const char *t)
{
    memcpy(o->b + o->len, t, strlen(t));
    o->len += strlen(t);
}

static void put_word(struct bytes *o, uint32_t u, int big)
{
    for (int k = 0; k < 4; k++)
        o->b[o->len++] = (unsigned char)(u >> (8 * (big ? 3 - k : k)));
}

static float old_value(size_t i, int k) { return (float)(10 * i + k) + 0.25f; }

static void old_vtk(struct bytes *o)
{
    static const char *const scal[3] = { "\nSCALARS density float 1\nLOOKUP_TABLE default\n",
                                         "\nSCALARS pressure float 1\nLOOKUP_TABLE default\n",
                                         "\nSCALARS id int 1\nLOOKUP_TABLE default\n" };
    o->len = 0;
    put_text(o, "# vtk DataFile Version 3.0\nfluidcl frame time=0.5\nBINARY\nDATASET POLYDATA\nPOINTS 3 float\n");
    for (size_t i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            put_word(o, bits(old_value(i, k)), 1);
    put_text(o, "\nVERTICES 3 6\n");
    for (uint32_t i = 0; i < 3; i++) {
        put_word(o, 1, 1);
        put_word(o, i, 1);
    }
    put_text(o, "\nPOINT_DATA 3\nVECTORS velocity float\n");
    for (size_t i = 0; i < 3; i++)
        for (int k = 3; k < 6; k++)
            put_word(o, bits(old_value(i, k)), 1);
    for (int k = 6; k < 9; k++) {
        put_text(o, scal[k - 6]);
        for (size_t i = 0; i < 3; i++)
            put_word(o, k == 8 ? (uint32_t)(100 + i) : bits(old_value(i, k)), 1);
    }
    put_text(o, "\n");
}

static void old_ply(struct bytes *o)
{
    o->len = 0;
    put_text(o, "ply\nformat binary_little_endian 1.0\ncomment fluidcl particle frame\nelement vertex 3\n"
                "property float x\nproperty float y\nproperty float z\nproperty float vx\nproperty float vy\n"
                "property float vz\nproperty float density\nproperty float pressure\nproperty uint id\n"
                "end_header\n");
    for (size_t i = 0; i < 3; i++) {
        for (int k = 0; k < 8; k++)
            put_word(o, bits(old_value(i, k)), 0);
        put_word(o, (uint32_t)(100 + i), 0);
    }
}

/* Counts values that differ from what old_vtk / old_ply wrote. */
static int old_mismatches(const fcl_frame_data *d)
{
    int bad = d->n != 3;
    for (size_t i = 0; !bad && i < 3; i++) {
        float v[8] = { d->pos[i].x, d->pos[i].y, d->pos[i].z, d->vel[i].x, d->vel[i].y, d->vel[i].z,
                       d->density[i], d->pressure[i] };
        for (int k = 0; k < 8; k++)
            bad += bits(v[k]) != bits(old_value(i, k));
        bad += d->id[i] != 100 + i;
    }
    return bad;
}

static void test_old_layout(void)
{
    struct bytes o;
    char err[512] = "";
    fcl_frame_data d;
    for (int ply = 0; ply < 2; ply++) {
        const char *path = path_in(ply ? "old.ply" : "old.vtk");
        if (ply)
            old_ply(&o);
        else
            old_vtk(&o);
        CHECK(spit(path, o.b, o.len) == 0, "cannot write %s", path);
        int rc = ply ? out_read_ply(path, &d, err, sizeof err) : out_read_vtk(path, &d, err, sizeof err);
        CHECK(rc == 0, "previous-layout %s refused: %s", ply ? "PLY" : "VTK", err);
        if (rc != 0)
            continue;
        CHECK(old_mismatches(&d) == 0, "previous-layout %s read wrong values", ply ? "PLY" : "VTK");
        CHECK(!d.has_surface && d.surface == NULL, "previous-layout %s: surface flag not absent",
              ply ? "PLY" : "VTK");
        CHECK(d.spacing == 0.0, "previous-layout %s: spacing %g, expected 0 (unknown)", ply ? "PLY" : "VTK",
              d.spacing);
        CHECK(d.time == (ply ? 0.0 : 0.5), "previous-layout %s: time %g", ply ? "PLY" : "VTK", d.time);
        /* Rewritten, it keeps its data sections and gains the title. */
        fcl_frame f = out_frame_view(&d);
        const char *again = path_in(ply ? "old_again.ply" : "old_again.vtk");
        CHECK(f.surface == NULL && (ply ? out_write_ply(again, &f, err, sizeof err)
                                        : out_write_vtk(again, &f, 0.5, err, sizeof err)) == 0,
              "rewrite of a previous-layout frame: %s", err);
        out_frame_free(&d);
        rc = ply ? out_read_ply(again, &d, err, sizeof err) : out_read_vtk(again, &d, err, sizeof err);
        CHECK(rc == 0 && old_mismatches(&d) == 0 && !d.has_surface && d.spacing == 0.0,
              "rewritten previous-layout %s does not read back the same: %s", ply ? "PLY" : "VTK", err);
        out_frame_free(&d);
    }
    /* A title that is neither layout's is still refused. */
    old_vtk(&o);
    memcpy(o.b + 27 + 19, "x", 1);   /* "time=0.5" -> "time=x.5" */
    spit(path_in("old_bad.vtk"), o.b, o.len);
    CHECK(out_read_vtk(path_in("old_bad.vtk"), &d, err, sizeof err) != 0 && strstr(err, "time"),
          "bad time in title accepted: %s", err);
}

/* A frame without the surface flag (surface NULL) writes the previous
 * data layout under the new title, and reads back as such. */
static void test_no_surface(void)
{
    owned_frame o;
    make_frame(&o, 50, 0.02);
    fcl_frame f = view(&o);
    f.surface = NULL;
    char err[512] = "";
    fcl_frame_data d;
    for (int ply = 0; ply < 2; ply++) {
        const char *path = path_in(ply ? "nosurf.ply" : "nosurf.vtk");
        int rc = ply ? out_write_ply(path, &f, err, sizeof err) : out_write_vtk(path, &f, 1.0, err, sizeof err);
        CHECK(rc == 0, "write without surface: %s", err);
        rc = ply ? out_read_ply(path, &d, err, sizeof err) : out_read_vtk(path, &d, err, sizeof err);
        CHECK(rc == 0 && d.n == 50 && !d.has_surface && !d.surface && d.spacing == 0.02,
              "%s without surface: rc %d, has_surface %d, spacing %g: %s", ply ? "PLY" : "VTK", rc,
              d.has_surface, d.spacing, err);
        size_t len = 0;
        unsigned char *b = slurp(path, &len);
        CHECK(b && !find(b, len, "surface\n") && !find(b, len, "surface float"),
              "%s without surface names a surface field", ply ? "PLY" : "VTK");
        free(b);
        out_frame_free(&d);
    }
    free_frame(&o);
}

typedef int (*reader_fn)(const char *, fcl_frame_data *, char *, size_t);

/* Every cut of a good file, and a good file plus one byte, must be refused
 * with a message naming the file. */
static void test_damaged(const char *good, reader_fn reader, const char *fmt)
{
    size_t len = 0;
    unsigned char *b = slurp(path_in(good), &len);
    CHECK(b != NULL, "cannot read %s", good);
    if (!b)
        return;
    const char *bad = path_in("damaged");
    size_t cuts[] = {0, 1, 10, 30, 60, 100, 150, 200, 300, 400, len / 2, len - 37, len - 1};
    int refused = 0, named = 0, tried = 0;
    char err[512];
    fcl_frame_data d;
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++, tried++) {
        err[0] = '\0';
        spit(bad, b, cuts[k] < len ? cuts[k] : len - 1);
        refused += reader(bad, &d, err, sizeof err) != 0;
        named += strstr(err, bad) != NULL;
        if (k == sizeof cuts / sizeof cuts[0] - 1)
            printf("  (%s, cut at %zu of %zu bytes: %s)\n", fmt, len - 1, len, err);
    }
    CHECK(refused == tried, "%s: %d of %d truncated files accepted", fmt, tried - refused, tried);
    CHECK(named == tried, "%s: %d of %d errors do not name the file", fmt, tried - named, tried);
    b[len] = 'x';
    spit(bad, b, len + 1);
    CHECK(reader(bad, &d, err, sizeof err) != 0, "%s: trailing byte accepted", fmt);
    CHECK(d.n == 0 && d.pos == NULL, "%s: failed read left data", fmt);
    CHECK(reader(path_in("nonexistent"), &d, err, sizeof err) != 0 &&
          strstr(err, "nonexistent") != NULL, "%s: missing file: \"%s\"", fmt, err);
    CHECK(reader(tmpdir, &d, err, sizeof err) != 0, "%s: directory accepted", fmt);
    unlink(bad);
    free(b);
}

/* A solver's fields (after the surface flag, VTK): names and values back
 * bit for bit, the rest of the frame unchanged; a frame without the
 * surface flag carries none; a garbled field header is refused by name. */
static void test_extra_fields(void)
{
    owned_frame o;
    make_frame(&o, 500, 0.0125);
    float *a = malloc(500 * sizeof *a), *b = malloc(500 * sizeof *b);
    for (size_t i = 0; i < 500; i++) {
        a[i] = 1e-5f * (float)i;
        b[i] = (float)i - 250.5f;
    }
    b[3] = -NAN;
    fcl_frame f = view(&o);
    f.nextra = 2;
    f.extra_name[0] = "alpha";
    f.extra[0] = a;
    f.extra_name[1] = "divergence_error";
    f.extra[1] = b;
    const char *path = path_in("extra.vtk");
    char err[512];
    fcl_frame_data d;
    CHECK(out_write_vtk(path, &f, 0.5, err, sizeof err) == 0, "write with fields: %s", err);
    int rc = out_read_vtk(path, &d, err, sizeof err);
    CHECK(rc == 0 && compare(&o, &d, "fields") == 0 && d.nextra == 2 && strcmp(d.extra_name[0], "alpha") == 0 &&
              strcmp(d.extra_name[1], "divergence_error") == 0 && memcmp(d.extra[0], a, 500 * 4) == 0 &&
              memcmp(d.extra[1], b, 500 * 4) == 0,
          "solver fields did not round-trip: %s (%d fields)", rc ? err : "", rc ? 0 : d.nextra);
    if (rc == 0)
        out_frame_free(&d);
    f.surface = NULL;
    CHECK(out_write_vtk(path, &f, 0.5, err, sizeof err) == 0 && out_read_vtk(path, &d, err, sizeof err) == 0 &&
              d.nextra == 0 && !d.has_surface,
          "a frame without the surface flag: %d fields read", d.nextra);
    out_frame_free(&d);
    /* "SCALARS alpha" garbled into "SCALARS al+ha": refused, naming the line. */
    f.surface = o.surf;
    f.extra_name[0] = "al+ha";
    CHECK(out_write_vtk(path, &f, 0.5, err, sizeof err) == 0, "write: %s", err);
    rc = out_read_vtk(path, &d, err, sizeof err);
    CHECK(rc != 0 && strstr(err, "al+ha") && strstr(err, path), "a bad field header gave %d: '%s'", rc, err);
    free(a);
    free(b);
    free_frame(&o);
}

static void test_write_errors(void)
{
    owned_frame o;
    make_frame(&o, 16, 0.02);
    fcl_frame f = view(&o);
    char err[512] = "";
    const char *p = path_in("no/such/dir/x.vtk");
    CHECK(out_write_vtk(p, &f, 0, err, sizeof err) != 0, "write into missing dir succeeded");
    CHECK(strstr(err, p) != NULL, "message does not name the file: \"%s\"", err);
    fcl_frame broken = f;
    broken.id = NULL;
    CHECK(out_write_ply(path_in("broken.ply"), &broken, err, sizeof err) != 0,
          "NULL array accepted");
    CHECK(!exists(path_in("broken.ply")) && !exists(path_in("broken.ply.tmp")),
          "refused frame left a file");
    free_frame(&o);
}

static void test_csv(void)
{
    const char *cols[] = {"step", "time", "max_speed", NULL};
    const char *path = path_in("stats.csv");
    char err[512] = "", tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    fcl_csv *c = out_csv_open(path, cols, err, sizeof err);
    CHECK(c != NULL, "open: %s", err);
    if (!c)
        return;
    /* Whole numbers in full (step 1234567890 was written 1.23456789e+09),
     * the rest to nine significant digits. */
    double rows[4][3] = {{0, 0, 1.5}, {1, 0.001, 1.0 / 3.0}, {2, 1e-10, -123456789.25}, {1234567890, 2.5, 70602}};
    const char *want = "step,time,max_speed\n0,0,1.5\n1,0.001,0.333333333\n2,1e-10,-123456789\n"
                       "1234567890,2.5,70602\n";
    for (int r = 0; r < 4; r++)
        CHECK(out_csv_row(c, rows[r]) == 0, "row %d: %s", r, out_csv_error(c));
    size_t len = 0;
    unsigned char *b = slurp(tmp, &len);
    CHECK(b && strcmp((char *)b, want) == 0, "rows not flushed to the .tmp, or not as expected:\n%s", b ? (char *)b : "");
    CHECK(!exists(path), "final CSV exists before close");
    free(b);
    CHECK(out_csv_close(c) == 0, "close failed");
    b = slurp(path, &len);
    CHECK(b && strcmp((char *)b, want) == 0, "CSV content:\n%s\nexpected:\n%s",
          b ? (char *)b : "(none)", want);
    CHECK(b && strstr((char *)b, "1,0.001,0.333333333\n"), "%%.9g formatting");
    free(b);
    CHECK(!exists(tmp), ".tmp left after close");
    const char *badcols[] = {"a,b", NULL};
    CHECK(out_csv_open(path, badcols, err, sizeof err) == NULL, "comma in column accepted");
    CHECK(out_csv_open(path_in("no/dir/s.csv"), cols, err, sizeof err) == NULL &&
          strstr(err, "no/dir/s.csv.tmp") != NULL, "bad path: \"%s\"", err);
    CHECK(out_csv_close(NULL) == 0, "close(NULL)");
}

int main(void)
{
    strcpy(tmpdir, "/tmp/test_output_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_prepare_dir();
    test_undo();
    test_round_trip(1000, 0.0125);
    test_round_trip(0, 1.0 / 3.0);
    test_round_trip(1, (double)0.02f);   /* a float spacing, as the sim's */
    test_old_layout();
    test_no_surface();
    test_damaged("frames/f1000.vtk", out_read_vtk, "vtk");
    test_damaged("frames/f1000.ply", out_read_ply, "ply");
    test_damaged("frames/f0.vtk", out_read_vtk, "vtk n=0");
    test_extra_fields();
    test_write_errors();
    test_csv();

    fcl_progress q;   /* quiet mode must be silent and harmless */
    progress_start(&q, NULL, 10);
    progress_update(&q, 5, "x");
    progress_end(&q);

    ft_remove_tree(tmpdir);
    return ft_done();
}
