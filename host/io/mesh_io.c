/* mesh_io.c - surface meshes as files: binary little-endian PLY and
 * Wavefront OBJ, written atomically, and readers for exactly what the
 * writers produce (the tests' round trip, and tools that reload a mesh).
 * Invariant: a mesh file appears under its final name only once complete
 * (io/atomic.h, as every file fluidcl writes); a failed write leaves
 * neither file behind.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include <unistd.h>

#include "mc.h"

static const char ply_head_fmt[] =
    "ply\nformat binary_little_endian 1.0\ncomment fluidcl surface mesh\nelement vertex %zu\n"
    "property float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\n"
    "property float nz\nelement face %zu\nproperty list uchar uint vertex_indices\nend_header\n";

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (unsigned char)(v >> (8 * k));
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_f32(unsigned char *p, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    put_u32(p, v);
}

static float get_f32(const unsigned char *p)
{
    uint32_t v = get_u32(p);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

/* err as "PATH: why": every write error names its file (README, Exit
 * codes); -1. */
static int named(const char *path, char *err, size_t errlen)
{
    char why[1024];
    snprintf(why, sizeof why, "%s", err);
    snprintf(err, errlen, "%s: %s", path, why);
    return -1;
}

/* Into place when every write succeeded; otherwise say why and remove
 * the temporary. */
static int finish(fcl_atomic *a, int ok, char *err, size_t errlen)
{
    if (!ok)
        snprintf(err, errlen, "write to '%s' failed: %s", a->tmp, strerror(errno));
    return atomic_commit(a, ok, 0, err, errlen) != 0 ? named(a->path, err, errlen) : 0;
}

int mesh_write_ply(const char *path, const mc_mesh *m, char *err, size_t errlen)
{
    fcl_atomic a;
    if (atomic_open(&a, path, 0, err, errlen) != 0)
        return named(path, err, errlen);
    FILE *f = a.fp;
    int ok = fprintf(f, ply_head_fmt, m->nv, m->nt) > 0;
    unsigned char rec[24];
    for (size_t i = 0; ok && i < m->nv; i++) {
        const float c[6] = { m->v[i].x, m->v[i].y, m->v[i].z, m->n[i].x, m->n[i].y, m->n[i].z };
        for (int k = 0; k < 6; k++)
            put_f32(rec + 4 * k, c[k]);
        ok = fwrite(rec, 24, 1, f) == 1;
    }
    for (size_t t = 0; ok && t < m->nt; t++) {
        rec[0] = 3;
        for (int k = 0; k < 3; k++)
            put_u32(rec + 1 + 4 * k, m->tri[3 * t + k]);
        ok = fwrite(rec, 13, 1, f) == 1;
    }
    return finish(&a, ok, err, errlen);
}

int mesh_write_obj(const char *path, const mc_mesh *m, char *err, size_t errlen)
{
    fcl_atomic a;
    if (atomic_open(&a, path, 0, err, errlen) != 0)
        return named(path, err, errlen);
    FILE *f = a.fp;
    int ok = fprintf(f, "# fluidcl surface mesh: %zu vertices, %zu triangles\n", m->nv, m->nt) > 0;
    for (size_t i = 0; ok && i < m->nv; i++)
        ok = fprintf(f, "v %.9g %.9g %.9g\n", m->v[i].x, m->v[i].y, m->v[i].z) > 0;
    for (size_t i = 0; ok && i < m->nv; i++)
        ok = fprintf(f, "vn %.9g %.9g %.9g\n", m->n[i].x, m->n[i].y, m->n[i].z) > 0;
    for (size_t t = 0; ok && t < m->nt; t++) {
        unsigned a = m->tri[3 * t] + 1u, b = m->tri[3 * t + 1] + 1u, c = m->tri[3 * t + 2] + 1u;
        ok = fprintf(f, "f %u//%u %u//%u %u//%u\n", a, a, b, b, c, c) > 0;
    }
    return finish(&a, ok, err, errlen);
}

/* The open file's size in bytes, or 0 when it cannot be told. */
static size_t file_size(FILE *f)
{
    long at = ftell(f), end = -1;
    if (at >= 0 && fseek(f, 0, SEEK_END) == 0)
        end = ftell(f);
    if (at < 0 || fseek(f, at, SEEK_SET) != 0 || end < 0)
        return 0;
    return (size_t)end;
}

static int alloc_mesh(mc_mesh *m, size_t nv, size_t nt)
{
    m->nv = nv;
    m->nt = nt;
    m->v = calloc(nv + 1, sizeof(float4));
    m->n = calloc(nv + 1, sizeof(float4));
    m->tri = calloc(3 * nt + 1, sizeof(uint));
    return m->v && m->n && m->tri ? 0 : -1;
}

static int read_fail(FILE *f, mc_mesh *m, char *err, size_t errlen, const char *path, const char *what)
{
    snprintf(err, errlen, "%s: %s", path, what);
    if (f)
        fclose(f);
    mc_mesh_free(m);
    return -1;
}

int mesh_read_ply(const char *path, mc_mesh *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "rb");
    if (!f)
        return read_fail(NULL, m, err, errlen, path, strerror(errno));
    size_t nv, nt;
    char head[1024], want[1024];
    if (fscanf(f, "ply\nformat binary_little_endian 1.0\ncomment fluidcl surface mesh\nelement vertex %zu\n",
               &nv) != 1 || fseek(f, 0, SEEK_SET) != 0)
        return read_fail(f, m, err, errlen, path, "not a fluidcl surface PLY (header)");
    size_t got = fread(head, 1, sizeof head - 1, f);
    head[got] = '\0';   /* the header is text; the binary data after it may hold zeros */
    char *end = memmem(head, got, "end_header\n", 11), *face = strstr(head, "element face ");
    if (!end || !face || sscanf(face, "element face %zu", &nt) != 1)
        return read_fail(f, m, err, errlen, path, "not a fluidcl surface PLY (header)");
    size_t hlen = (size_t)(end - head) + 11;
    snprintf(want, sizeof want, ply_head_fmt, nv, nt);
    if (hlen != strlen(want) || memcmp(head, want, hlen) != 0 || fseek(f, (long)hlen, SEEK_SET) != 0)
        return read_fail(f, m, err, errlen, path, "unexpected PLY header (not written by fluidcl)");
    /* The counts before any allocation: the records they name must be the
     * rest of the file (a damaged header must not size the arrays). */
    size_t size = file_size(f);
    if (nv > size / 24 || nt > size / 13 || hlen + nv * 24 + nt * 13 != size)
        return read_fail(f, m, err, errlen, path, "the header's vertex and face counts do not match the file's size");
    if (alloc_mesh(m, nv, nt) != 0)
        return read_fail(f, m, err, errlen, path, "out of memory");
    unsigned char rec[24];
    for (size_t i = 0; i < nv; i++) {
        if (fread(rec, 24, 1, f) != 1)
            return read_fail(f, m, err, errlen, path, "truncated vertex data");
        m->v[i] = fcl_f4(get_f32(rec), get_f32(rec + 4), get_f32(rec + 8), 0.0f);
        m->n[i] = fcl_f4(get_f32(rec + 12), get_f32(rec + 16), get_f32(rec + 20), 0.0f);
    }
    for (size_t t = 0; t < nt; t++) {
        if (fread(rec, 13, 1, f) != 1 || rec[0] != 3)
            return read_fail(f, m, err, errlen, path, "truncated or non-triangle face data");
        for (int k = 0; k < 3; k++)
            if ((m->tri[3 * t + k] = get_u32(rec + 1 + 4 * k)) >= nv)
                return read_fail(f, m, err, errlen, path, "face index out of range");
    }
    if (fgetc(f) != EOF)
        return read_fail(f, m, err, errlen, path, "trailing bytes after the faces");
    fclose(f);
    return 0;
}

/* One "v", "vn" or "f" line of an OBJ into m (arrays sized by a first pass). */
static int obj_line(const char *line, mc_mesh *m, size_t *iv, size_t *in, size_t *it)
{
    float a, b, c;
    unsigned p[6];
    if (sscanf(line, "v %f %f %f", &a, &b, &c) == 3 && *iv < m->nv)
        m->v[(*iv)++] = fcl_f4(a, b, c, 0.0f);
    else if (sscanf(line, "vn %f %f %f", &a, &b, &c) == 3 && *in < m->nv)
        m->n[(*in)++] = fcl_f4(a, b, c, 0.0f);
    else if (sscanf(line, "f %u//%u %u//%u %u//%u", p, p + 1, p + 2, p + 3, p + 4, p + 5) == 6 && *it < m->nt) {
        for (int k = 0; k < 3; k++) {
            if (p[2 * k] != p[2 * k + 1] || p[2 * k] < 1 || p[2 * k] > m->nv)
                return -1;
            m->tri[3 * (*it) + k] = p[2 * k] - 1u;
        }
        (*it)++;
    } else if (line[0] != '#')
        return -1;
    return 0;
}

int mesh_read_obj(const char *path, mc_mesh *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f)
        return read_fail(NULL, m, err, errlen, path, strerror(errno));
    size_t nv, nt, iv = 0, in = 0, it = 0;
    char line[256];
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "# fluidcl surface mesh: %zu vertices, %zu triangles", &nv, &nt) != 2)
        return read_fail(f, m, err, errlen, path, "not a fluidcl surface OBJ (first line)");
    /* A "v" and a "vn" line take at least 8 bytes each, an "f" line 18. */
    size_t size = file_size(f);
    if (nv > size / 16 || nt > size / 18)
        return read_fail(f, m, err, errlen, path, "the first line's counts exceed what the file can hold");
    if (alloc_mesh(m, nv, nt) != 0)
        return read_fail(f, m, err, errlen, path, "out of memory");
    while (fgets(line, sizeof line, f))
        if (obj_line(line, m, &iv, &in, &it) != 0)
            return read_fail(f, m, err, errlen, path, "unexpected line (not written by fluidcl)");
    if (iv != nv || in != nv || it != nt)
        return read_fail(f, m, err, errlen, path, "fewer v, vn or f lines than the header says");
    fclose(f);
    return 0;
}
