/* obj.c - reading Wavefront OBJ files into closed triangle meshes, and the
 * edge map (open addressing on the vertex pair) that both checks closure
 * and lists a mesh's distinct edges in O(triangles). A face of more than
 * three vertices is a fan when convex, else ear-clipped (polygon.h).
 *
 * Invariant: obj_parse either returns a mesh that is closed, consistently
 * oriented and indexes only its own vertices, or frees everything it made
 * and says FILE:LINE and what was expected.
 */
#include "obj.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "infile.h"
#include "polygon.h"

/* ---- edge map */

typedef struct edge_slot {
    uint64_t key;        /* lower index << 32 | higher; EMPTY when free */
    unsigned uses;       /* triangles using the edge */
    unsigned fwd;        /* of those, the ones running it lower -> higher */
    unsigned t[2];       /* the first two of them */
} edge_slot;

typedef struct edge_map {
    edge_slot *slot;
    uint64_t mask;
    int shift;
} edge_map;

#define EMPTY UINT64_MAX

static int edge_map_init(edge_map *em, size_t ntri)
{
    /* At most 3 edges per triangle: 4 slots per triangle keeps the table
     * under 3/4 full even for a soup of unshared triangles. */
    size_t cap = 16;
    int bits = 4;
    while (cap < 4 * ntri) {
        cap *= 2;
        bits++;
    }
    em->slot = malloc(cap * sizeof *em->slot);
    if (!em->slot)
        return -1;
    for (size_t i = 0; i < cap; i++)
        em->slot[i].key = EMPTY;
    em->mask = cap - 1;
    em->shift = 64 - bits;
    return 0;
}

/* The slot of edge {a, b}, claimed if new. */
static edge_slot *edge_at(const edge_map *em, unsigned a, unsigned b)
{
    uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
    uint64_t i = (key * 0x9E3779B97F4A7C15ull) >> em->shift;
    while (em->slot[i].key != EMPTY && em->slot[i].key != key)
        i = (i + 1) & em->mask;
    edge_slot *s = &em->slot[i];
    if (s->key == EMPTY) {
        s->key = key;
        s->uses = s->fwd = 0;
    }
    return s;
}

static int edge_map_build(const fcl_mesh *m, edge_map *em)
{
    if (edge_map_init(em, m->ntri) != 0)
        return -1;
    for (size_t t = 0; t < m->ntri; t++)
        for (int k = 0; k < 3; k++) {
            unsigned a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
            edge_slot *s = edge_at(em, a, b);
            if (s->uses < 2)
                s->t[s->uses] = (unsigned)t;
            s->uses++;
            s->fwd += a < b;
        }
    return 0;
}

size_t obj_edges(const fcl_mesh *m, unsigned **edges)
{
    edge_map em;
    *edges = NULL;
    if (edge_map_build(m, &em) != 0)
        return (size_t)-1;
    /* No edge has more than 3 per triangle; most meshes need half that. */
    unsigned *e = malloc((3 * m->ntri + 1) * 2 * sizeof *e);
    size_t n = 0;
    for (size_t t = 0; e && t < m->ntri; t++)
        for (int k = 0; k < 3; k++) {
            unsigned a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
            /* A triangle's three edges are distinct, so an edge is listed
             * exactly when its first triangle comes by. */
            if (edge_at(&em, a, b)->t[0] == t) {
                e[2 * n] = a < b ? a : b;
                e[2 * n + 1] = a < b ? b : a;
                n++;
            }
        }
    free(em.slot);
    *edges = e;
    return e ? n : (size_t)-1;
}

/* ---- parser */

typedef struct parser {
    const char *file;
    char *err;
    size_t errlen;
    unsigned line;
    fcl_mesh *m;
    size_t vcap, tcap, lcap, fcap;
    unsigned *tline;     /* source line of each triangle, for messages */
    unsigned *face;      /* vertex indices of the face being read */
    char shown[96];      /* the current line as written, for messages */
} parser;

static int fail(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser *ps, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (ps->line)
        snprintf(ps->err, ps->errlen, "%s:%u: %s", ps->file, ps->line, msg);
    else
        snprintf(ps->err, ps->errlen, "%s: %s", ps->file, msg);
    return -1;
}

/* Make room for `need` elements of `size` bytes in *p (capacity *cap). */
static int grow(parser *ps, void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (!q)
        return fail(ps, "out of memory");
    *p = q;
    *cap = c;
    return 0;
}

/* "v x y z", "v x y z w" or "v x y z r g b" (the vertex colours MeshLab
 * and Blender write; they were refused): only x y z are kept. */
static int parse_vertex(parser *ps, char **save)
{
    float xyz[6];
    int n = 0;
    for (char *tok; (tok = strtok_r(NULL, " \t\v\f", save)) != NULL; n++) {
        char *end;
        float f = strtof(tok, &end);
        if (n >= 6 || *end != '\0' || end == tok)
            return fail(ps, "expected 3 numbers after 'v' (or 4, or 6 with a colour), got '%s'", ps->shown);
        /* 1e300 is a number, but not a float's (it was told to give 3). */
        if (!isfinite(f))
            return fail(ps, "expected coordinates within +-3.4e38 (a float's), got '%s'", ps->shown);
        xyz[n] = f;
    }
    if (n < 3 || n == 5)
        return fail(ps, "expected 3 numbers after 'v' (or 4, or 6 with a colour), got '%s'", ps->shown);
    if (ps->m->nv >= UINT32_MAX - 1)
        return fail(ps, "more vertices than fluidcl can index (4e9)");
    if (grow(ps, (void **)&ps->m->v, &ps->vcap, 3 * (ps->m->nv + 1), sizeof(float)) != 0)
        return -1;
    memcpy(ps->m->v + 3 * ps->m->nv++, xyz, sizeof(float) * 3);
    return 0;
}

/* One face token: "a", "a/t", "a//n" or "a/t/n"; only a is kept, as a
 * 0-based index (negative a counts back from the last vertex read). */
static int parse_face_ref(parser *ps, const char *tok, unsigned *out)
{
    char *end;
    errno = 0;
    long a = strtol(tok, &end, 10);
    int ok = end != tok && errno == 0;
    for (int part = 0; ok && *end == '/' && part < 2; part++) {
        const char *t = end + 1;
        if (part == 0 && *t == '/') {   /* "a//n": no texture index */
            end = (char *)t;
            continue;
        }
        strtol(t, &end, 10);
        ok = end != t;
    }
    if (!ok || *end != '\0')
        return fail(ps, "expected a vertex reference like 3, 3/1, 3//2 or 3/1/2 after 'f', got '%s' in '%s'",
                    tok, ps->shown);
    if (a == 0)
        return fail(ps, "face index 0 in '%s': OBJ counts vertices from 1", ps->shown);
    long nv = (long)ps->m->nv;
    if (a > nv || a < -nv)   /* not -a > nv: strtol may give LONG_MIN */
        return fail(ps, "face index %ld out of range in '%s': %ld vertices defined so far", a, ps->shown, nv);
    *out = (unsigned)(a > 0 ? a - 1 : nv + a);
    return 0;
}

static int add_triangle(parser *ps, unsigned a, unsigned b, unsigned c)
{
    fcl_mesh *m = ps->m;
    if (a == b || b == c || c == a)
        return fail(ps, "degenerate face '%s': vertex %u appears twice in one triangle", ps->shown,
                    (a == b || a == c ? a : b) + 1);
    if (grow(ps, (void **)&m->tri, &ps->tcap, 3 * (m->ntri + 1), sizeof(unsigned)) != 0 ||
        grow(ps, (void **)&ps->tline, &ps->lcap, m->ntri + 1, sizeof(unsigned)) != 0)
        return -1;
    m->tri[3 * m->ntri] = a;
    m->tri[3 * m->ntri + 1] = b;
    m->tri[3 * m->ntri + 2] = c;
    ps->tline[m->ntri++] = ps->line;
    return 0;
}

/* A face of n > 3 vertices as a polygon in its own plane (polygon.h),
 * NULL past FCL_POLY_MAX vertices. */
static fcl_polygon_frame *face_frame(const parser *ps, size_t n, fcl_polygon_frame *f)
{
    fcl_obstacle o;
    if (n > FCL_POLY_MAX)
        return NULL;
    memset(&o, 0, sizeof o);
    o.kind = FCL_SHAPE_POLYGON;
    o.npoly = (int)n;
    for (size_t i = 0; i < n; i++)
        memcpy(o.poly[i], ps->m->v + 3 * ps->face[i], sizeof o.poly[i]);
    polygon_frame(&o, f);
    return f;
}

/* Whether every corner of the face turns the same way in its plane
 * (convex): then the fan around its first vertex covers it exactly. */
static int face_convex(const fcl_polygon_frame *f)
{
    double scale = 1e-12 * f->extent * f->extent;
    for (int i = 0; i < f->nv; i++) {
        const double *a = f->xy[(i + f->nv - 1) % f->nv], *b = f->xy[i], *c = f->xy[(i + 1) % f->nv];
        if ((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) < -scale)
            return 0;
    }
    return 1;
}

/* A polygon is split into a fan around its first vertex when convex, else
 * by ear clipping in its plane (a fan of a concave L-shaped cap stuck out
 * of the solid: 11 samples in the open notch; a review). */
static int parse_face(parser *ps, char **save)
{
    size_t n = 0;
    for (char *tok; (tok = strtok_r(NULL, " \t\v\f", save)) != NULL; n++)
        if (grow(ps, (void **)&ps->face, &ps->fcap, n + 1, sizeof(unsigned)) != 0 ||
            parse_face_ref(ps, tok, &ps->face[n]) != 0)
            return -1;
    if (n < 3)
        return fail(ps, "expected at least 3 vertices after 'f', got '%s'", ps->shown);
    fcl_polygon_frame f;
    if (n > 3 && face_frame(ps, n, &f) && !face_convex(&f)) {
        int tri[FCL_POLY_MAX][3], nt = polygon_triangulate(&f, tri);
        for (int k = 0; k < nt; k++)
            if (add_triangle(ps, ps->face[tri[k][0]], ps->face[tri[k][1]], ps->face[tri[k][2]]) != 0)
                return -1;
        return 0;
    }
    for (size_t k = 1; k + 1 < n; k++)
        if (add_triangle(ps, ps->face[0], ps->face[k], ps->face[k + 1]) != 0)
            return -1;
    return 0;
}

static int parse_line(parser *ps, char *line)
{
    static const char *const skipped[] = { "vt", "vn", "vp", "o", "g", "s", "usemtl", "mtllib", "l", NULL };
    line[strcspn(line, "#\r")] = '\0';   /* comments, and CR of CRLF files */
    line += strspn(line, " \t\v\f");
    size_t len = strlen(line);
    while (len && strchr(" \t\v\f", line[len - 1]))
        line[--len] = '\0';
    if (!len)
        return 0;
    snprintf(ps->shown, sizeof ps->shown, "%.80s%s", line, len > 80 ? "..." : "");
    char *save, *kw = strtok_r(line, " \t\v\f", &save);
    if (strcmp(kw, "v") == 0)
        return parse_vertex(ps, &save);
    if (strcmp(kw, "f") == 0)
        return parse_face(ps, &save);
    for (int i = 0; skipped[i]; i++)
        if (strcmp(kw, skipped[i]) == 0)
            return 0;
    return fail(ps, "expected a statement (v, f, vt, vn, o, g, s, usemtl, mtllib, l or #), got '%s'", ps->shown);
}

/* ---- closure and orientation */

static int cmp_xyz(const void *pa, const void *pb)
{
    const float *a = pa, *b = pb;
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* Vertices at another vertex's position: a mesh whose faces each have
 * their own corners (as STL converters write) is closed only once they
 * are welded. */
static size_t repeated_positions(const fcl_mesh *m)
{
    float *v = malloc(m->nv * 3 * sizeof *v + 1);
    size_t same = 0;
    if (!v)
        return 0;
    memcpy(v, m->v, m->nv * 3 * sizeof *v);
    qsort(v, m->nv, 3 * sizeof *v, cmp_xyz);
    for (size_t i = 1; i < m->nv; i++)
        same += cmp_xyz(v + 3 * (i - 1), v + 3 * i) == 0;
    free(v);
    return same;
}

static int report_open(parser *ps, const edge_slot *s, unsigned t)
{
    unsigned a = (unsigned)(s->key >> 32), b = (unsigned)s->key;
    size_t same = repeated_positions(ps->m);
    char weld[160] = "";
    if (same)
        snprintf(weld, sizeof weld, "; %zu vertices repeat another's position: weld them (faces must share their "
                 "corners' vertices)", same);
    ps->line = ps->tline[t];
    if (s->uses == 1)
        return fail(ps, "mesh is not closed: edge between vertices %u and %u (line %u) is used by 1 face%s",
                    a + 1, b + 1, ps->tline[s->t[0]], weld);
    return fail(ps, "mesh is not closed: edge between vertices %u and %u (lines %u, %u) is used by %u faces%s",
                a + 1, b + 1, ps->tline[s->t[0]], ps->tline[s->t[1]], s->uses, weld);
}

/* An edge run the same way by both its faces: one of them is flipped. The
 * face with the most such edges is named, which for a single flipped
 * triangle is that triangle (all three of its edges disagree). */
static int report_flipped(parser *ps, const edge_map *em)
{
    const fcl_mesh *m = ps->m;
    int best = 0;
    unsigned bt = 0;
    const edge_slot *bs = NULL;
    for (size_t t = 0; t < m->ntri; t++) {
        int bad = 0;
        const edge_slot *first = NULL;
        for (int k = 0; k < 3; k++) {
            const edge_slot *s = edge_at(em, m->tri[3 * t + k], m->tri[3 * t + (k + 1) % 3]);
            if (s->fwd != 1 && bad++ == 0)
                first = s;
        }
        if (bad > best) {
            best = bad;
            bt = (unsigned)t;
            bs = first;
        }
    }
    if (!bs)
        return 0;
    unsigned other = bs->t[0] == bt ? bs->t[1] : bs->t[0];
    ps->line = ps->tline[bt];
    return fail(ps, "mesh is not consistently oriented: edge between vertices %u and %u runs the same way "
                "in this face and the face on line %u (expected opposite directions, normals all outward)",
                (unsigned)(bs->key >> 32) + 1, (unsigned)bs->key + 1, ps->tline[other]);
}

static int check_closed(parser *ps)
{
    const fcl_mesh *m = ps->m;
    edge_map em;
    if (edge_map_build(m, &em) != 0)
        return fail(ps, "out of memory");
    int rc = 0;
    for (size_t t = 0; rc == 0 && t < m->ntri; t++)
        for (int k = 0; rc == 0 && k < 3; k++) {
            const edge_slot *s = edge_at(&em, m->tri[3 * t + k], m->tri[3 * t + (k + 1) % 3]);
            if (s->uses != 2)
                rc = report_open(ps, s, (unsigned)t);
        }
    if (rc == 0)
        rc = report_flipped(ps, &em);
    free(em.slot);
    return rc;
}

/* ---- public */

int obj_parse(const char *text, size_t len, const char *file, fcl_mesh *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    parser ps = { .file = file, .err = err, .errlen = errlen, .m = m };
    /* A private NUL-terminated copy that strtok_r may cut into lines. */
    char *buf = malloc(len + 1);
    if (!buf)
        return fail(&ps, "out of memory");
    memcpy(buf, text, len);
    buf[len] = '\0';
    int rc = 0;
    /* A UTF-8 byte order mark, as Windows tools write (it was refused as
     * an unknown statement shown as nothing; a review). */
    size_t bom = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    for (char *s = buf + bom; rc == 0 && s < buf + len;) {
        char *nl = memchr(s, '\n', (size_t)(buf + len - s));
        if (nl)
            *nl = '\0';
        ps.line++;
        rc = parse_line(&ps, s);
        s = nl ? nl + 1 : buf + len;
    }
    ps.line = 0;
    if (rc == 0 && m->ntri == 0)
        rc = fail(&ps, "no faces: expected a closed triangle mesh");
    if (rc == 0)
        rc = check_closed(&ps);
    free(buf);
    free(ps.tline);
    free(ps.face);
    if (rc != 0)
        obj_free(m);
    return rc;
}

int obj_read(const char *path, size_t max_bytes, char **text, size_t *len, char *err, size_t errlen)
{
    *text = NULL;
    *len = 0;
    if (strncmp(path, "embedded:", 9) != 0)
        return infile_read(path, max_bytes, "mesh file", text, len, err, errlen);
    const fcl_embedded_file *e = embedded_find(fcl_embedded_scenes, fcl_embedded_scene_count, path + 9);
    if (!e) {
        snprintf(err, errlen, "%s: no such embedded mesh", path);
        return -1;
    }
    *text = malloc(e->len + 1);
    if (!*text) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    memcpy(*text, e->text, e->len + 1);
    *len = e->len;
    return 0;
}

int obj_load(const char *path, size_t max_bytes, fcl_mesh *m, char *err, size_t errlen)
{
    char *text;
    size_t len;
    memset(m, 0, sizeof *m);
    if (obj_read(path, max_bytes, &text, &len, err, errlen) != 0)
        return -1;
    int rc = obj_parse(text, len, path, m, err, errlen);
    free(text);
    return rc;
}

void obj_free(fcl_mesh *m)
{
    free(m->v);
    free(m->tri);
    memset(m, 0, sizeof *m);
}

void obj_place(fcl_mesh *m, float scale, const float translate[3])
{
    for (size_t i = 0; i < m->nv; i++)
        for (int a = 0; a < 3; a++)
            m->v[3 * i + a] = scale * m->v[3 * i + a] + translate[a];
}

void obj_place_exact(fcl_mesh *m, float scale, const float translate[3])
{
    for (size_t i = 0; i < m->nv; i++)
        for (int a = 0; a < 3; a++)
            m->v[3 * i + a] = (float)((double)scale * m->v[3 * i + a] + translate[a]);
}

void obj_bounds(const fcl_mesh *m, float lo[3], float hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
    for (size_t i = 0; i < m->nv; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fminf(lo[a], m->v[3 * i + a]);
            hi[a] = fmaxf(hi[a], m->v[3 * i + a]);
        }
}
