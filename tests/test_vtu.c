/* test_vtu.c - the XML VTK frames (.vtu) and their ParaView collection
 * (.pvd) of host/io/: round trips bit for bit (special floats, ids above
 * 2^31, the surface flag, the solver's fields, 0, 1 and 1000 particles,
 * a frame without the surface flag); the on-disk layout other readers
 * depend on (little-endian appended blocks with UInt64 counts, offsets
 * that match the blocks, one VTK_VERTEX cell per point); damaged,
 * truncated and padded files refused naming the file; the collection
 * read back entry for entry, and a damaged one refused.
 * (tests/readers.py reads the same formats with meshio and VTK.)
 */
#include <float.h>
#include <stdint.h>

#include "fcl_test.h"
#include "output.h"

static char dir[64];

static const char *in_dir(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long n = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && (b = malloc((size_t)n + 2)) != NULL) {
        rewind(f);
        *len = fread(b, 1, (size_t)n, f);
        b[*len] = '\0';
    }
    if (f)
        fclose(f);
    return b;
}

static void spit(const char *path, const void *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(b, 1, len, f);
        fclose(f);
    }
}

typedef struct owned {
    size_t n;
    float4 *pos, *vel;
    float *den, *prs, *surf, *alpha, *div;
    uint32_t *id;
} owned;

static void make(owned *o, size_t n)
{
    size_t m = n ? n : 1;
    o->n = n;
    o->pos = calloc(m, sizeof(float4)); o->vel = calloc(m, sizeof(float4));
    o->den = calloc(m, 4); o->prs = calloc(m, 4); o->surf = calloc(m, 4);
    o->alpha = calloc(m, 4); o->div = calloc(m, 4); o->id = calloc(m, 4);
    for (size_t i = 0; i < n; i++) {
        float t = (float)i;
        o->pos[i] = fcl_f4(0.001f * t - 0.25f, sinf(t), -1e-3f * t * t, 0);
        o->vel[i] = fcl_f4(cosf(t) * 3.0f, 1.0f / (t + 1.0f), -t, 0);
        o->den[i] = 1000.0f + 0.5f * t;
        o->prs[i] = -12.75f * t + 1e-7f;
        o->id[i] = (uint32_t)((i * 7919u) % n);
        o->surf[i] = i % 5 == 0 ? 1.0f : 0.0f;
        o->alpha[i] = 1e-5f * t;
        o->div[i] = t - 250.5f;
    }
    if (n >= 8) {   /* values a text or byte-order path would change */
        o->pos[0].x = 1.5f;
        o->pos[1] = fcl_f4(-0.0f, FLT_MIN / 4, FLT_MAX, 0);
        o->vel[2] = fcl_f4(INFINITY, -INFINITY, NAN, 0);
        o->prs[4] = -NAN;
        o->id[5] = 0xFFFFFFFFu;
        o->id[6] = 0x80000000u;
        o->div[7] = -NAN;
    }
}

static void unmake(owned *o)
{
    free(o->pos); free(o->vel); free(o->den); free(o->prs);
    free(o->surf); free(o->alpha); free(o->div); free(o->id);
}

static fcl_frame view(const owned *o, int surface, int extras)
{
    fcl_frame f = { o->n, o->pos, o->vel, o->den, o->prs, o->id, surface ? o->surf : NULL, 0.0125, 0, { 0 }, { 0 } };
    if (extras) {
        f.nextra = 2;
        f.extra_name[0] = "alpha";
        f.extra[0] = o->alpha;
        f.extra_name[1] = "divergence_error";
        f.extra[1] = o->div;
    }
    return f;
}

static int same_bits(const void *a, const void *b, size_t n) { return n == 0 || memcmp(a, b, n) == 0; }

/* Every value back bit for bit (w of positions and velocities is 0). */
static int equal(const owned *o, const fcl_frame_data *d, int surface, int extras)
{
    int ok = d->n == o->n && d->has_surface == surface && d->nextra == (extras ? 2 : 0) && d->spacing == 0.0125;
    for (size_t i = 0; ok && i < o->n; i++) {
        float4 p = o->pos[i], v = o->vel[i];
        p.w = v.w = 0.0f;
        ok = same_bits(&p, &d->pos[i], 16) && same_bits(&v, &d->vel[i], 16);
    }
    ok = ok && same_bits(o->den, d->density, o->n * 4) && same_bits(o->prs, d->pressure, o->n * 4) &&
         same_bits(o->id, d->id, o->n * 4);
    ok = ok && (!surface || same_bits(o->surf, d->surface, o->n * 4));
    ok = ok && (!extras || (strcmp(d->extra_name[0], "alpha") == 0 && strcmp(d->extra_name[1], "divergence_error") == 0 &&
                            same_bits(o->alpha, d->extra[0], o->n * 4) && same_bits(o->div, d->extra[1], o->n * 4)));
    return ok;
}

static void round_trip(size_t n, int surface, int extras)
{
    owned o;
    make(&o, n);
    fcl_frame f = view(&o, surface, extras);
    char err[1024] = "", name[64];
    fcl_frame_data d;
    snprintf(name, sizeof name, "f%zu_%d%d.vtu", n, surface, extras);
    const char *path = in_dir(name);
    int rc = out_write_vtu(path, &f, 0.12, err, sizeof err);
    CHECK(rc == 0, "write %s: %s", name, err);
    rc = rc ? rc : out_read_frame(path, &d, err, sizeof err);
    CHECK(rc == 0, "read %s: %s", name, err);
    if (rc == 0) {
        CHECK(equal(&o, &d, surface, extras) && d.time == 0.12, "%s: the round trip is not exact (time %.17g)", name,
              d.time);
        /* Rewriting what was read gives the same bytes. */
        fcl_frame again = out_frame_view(&d);
        size_t l1 = 0, l2 = 0;
        CHECK(out_write_vtu(in_dir("again.vtu"), &again, d.time, err, sizeof err) == 0, "rewrite: %s", err);
        unsigned char *a = slurp(path, &l1), *b = slurp(in_dir("again.vtu"), &l2);
        CHECK(a && b && l1 == l2 && memcmp(a, b, l1) == 0, "%s: the rewritten file differs", name);
        free(a);
        free(b);
        out_frame_free(&d);
    }
    unmake(&o);
}

/* Little-endian 64-bit count at p. */
static unsigned long long u64le(const unsigned char *p)
{
    unsigned long long v = 0;
    for (int k = 0; k < 8; k++)
        v |= (unsigned long long)p[k] << (8 * k);
    return v;
}

/* The blocks follow the "_" where the offsets say, in the reverse of the
 * XML's order (frame_vtu.c says why), each n * size bytes behind its
 * count; the cell types come first and are VTK_VERTEX, the first
 * position is 1.5f little-endian; the file ends right after the last
 * block with the closing tags. */
static void layout(void)
{
    size_t len = 0;
    unsigned char *b = slurp(in_dir("f1000_11.vtu"), &len);
    CHECK(b != NULL, "cannot read f1000_11.vtu");
    if (!b)
        return;
    const char *names[] = { "types", "offsets", "connectivity", "position", "divergence_error", "alpha",
                            "surface", "id", "pressure", "density", "velocity" };
    const size_t sizes[] = { 1, 4, 4, 12, 4, 4, 4, 4, 4, 4, 12 };
    const char *data = strstr((const char *)b, "<AppendedData encoding=\"raw\">\n   _");
    CHECK(data && strstr((const char *)b, "header_type=\"UInt64\"") &&
              strstr((const char *)b, "byte_order=\"LittleEndian\""), "header lacks the raw appended data");
    size_t base = data ? (size_t)(data - (const char *)b) + strlen("<AppendedData encoding=\"raw\">\n   _") : 0;
    unsigned long long at = 0;
    for (int k = 0; data && k < 11; k++) {
        char want[160];
        snprintf(want, sizeof want, "Name=\"%s\"", names[k]);
        const char *tag = strstr((const char *)b, want), *off = tag ? strstr(tag, "offset=\"") : NULL;
        unsigned long long o = off ? strtoull(off + 8, NULL, 10) : ~0ull;
        CHECK(o == at && base + at + 8 <= len && u64le(b + base + at) == 1000 * sizes[k],
              "array %s: offset %llu (expected %llu), count %llu", names[k], o, at,
              base + at + 8 <= len ? u64le(b + base + at) : 0);
        at += 8 + 1000 * sizes[k];
    }
    const unsigned char le15[4] = { 0x00, 0x00, 0xc0, 0x3f };
    size_t pos = base + 3 * 8 + 1000 * (1 + 4 + 4) + 8;
    CHECK(data && pos + 4 <= len && memcmp(b + pos, le15, 4) == 0, "the first position is not 1.5f little-endian");
    const char *end = "\n  </AppendedData>\n</VTKFile>\n";
    CHECK(data && base + at + strlen(end) == len && memcmp(b + base + at, end, strlen(end)) == 0,
          "the file does not end right after the last block (%zu bytes, blocks end at %llu)", len, base + at);
    int types = data != NULL;
    for (size_t i = 0; types && i < 1000; i++)
        types = b[base + 8 + i] == 1;
    CHECK(types, "the cell types are not all VTK_VERTEX");
    free(b);
}

/* Cuts, a trailing byte and damaged header bytes: refused, file named. */
static void damaged(void)
{
    size_t len = 0;
    unsigned char *b = slurp(in_dir("f1000_11.vtu"), &len);
    if (!b)
        return;
    const char *bad = in_dir("bad.vtu");
    char err[1024];
    fcl_frame_data d;
    size_t cuts[] = { 0, 1, 30, 200, 600, 1200, len / 2, len - 30, len - 1 };
    int refused = 0, named = 0, tried = 0;
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++, tried++) {
        err[0] = '\0';
        spit(bad, b, cuts[k]);
        refused += out_read_vtu(bad, &d, err, sizeof err) != 0;
        named += strstr(err, bad) != NULL;
    }
    CHECK(refused == tried && named == tried, "%d of %d cut files refused, %d named", refused, tried, named);
    b[len] = 'x';
    spit(bad, b, len + 1);
    CHECK(out_read_vtu(bad, &d, err, sizeof err) != 0 && strstr(err, bad), "a trailing byte was accepted");
    /* A byte of the XML changed: "Float32" of density into "Float64". */
    char *t = strstr((char *)b, "type=\"Float32\" Name=\"density\"");
    if (t) {
        t[11] = '6';
        t[12] = '4';
    }
    spit(bad, b, len);
    int rc = out_read_vtu(bad, &d, err, sizeof err);
    CHECK(t && rc != 0 && strstr(err, bad) && strstr(err, "header"), "a changed array type gave %d: %s", rc, err);
    printf("damaged header: %s\n", err);
    free(b);
}

static void collection(void)
{
    fcl_pvd_entry e[3] = { { 0.0, "frame_000000.vtu", "" }, { 0.0012500000593718141, "frame_000005.vtu", "" },
                           { 1.0 / 3.0, "frame_000010.vtu", "" } }, *back = NULL;
    char err[1024] = "";
    size_t n = 0;
    const char *path = in_dir("frames.pvd");
    CHECK(out_write_pvd(path, e, 3, err, sizeof err) == 0, "write pvd: %s", err);
    int rc = out_read_pvd(path, &back, &n, err, sizeof err);
    CHECK(rc == 0 && n == 3, "read pvd: %d, %zu entries: %s", rc, n, err);
    for (size_t k = 0; rc == 0 && k < n && k < 3; k++)
        CHECK(back[k].time == e[k].time && strcmp(back[k].file, e[k].file) == 0, "entry %zu: %.17g %s", k,
              back[k].time, back[k].file);
    free(back);
    size_t len = 0;
    unsigned char *b = slurp(path, &len);
    CHECK(b && strstr((char *)b, "<DataSet timestep=\"0.3333333333333333\" group=\"\" part=\"0\" "
                                 "file=\"frame_000010.vtu\"/>"), "pvd text:\n%s", b ? (char *)b : "");
    char *q = b ? strstr((char *)b, "part=\"0\"") : NULL;
    if (q)
        q[6] = '1';
    spit(in_dir("bad.pvd"), b, len);
    CHECK(q && out_read_pvd(in_dir("bad.pvd"), &back, &n, err, sizeof err) != 0 && strstr(err, "bad.pvd"),
          "a changed DataSet line was accepted: %s", err);
    spit(in_dir("bad.pvd"), b, len > 20 ? len - 20 : 0);
    CHECK(out_read_pvd(in_dir("bad.pvd"), &back, &n, err, sizeof err) != 0 && strstr(err, "bad.pvd"),
          "a truncated collection was accepted");
    CHECK(out_write_pvd(path, (fcl_pvd_entry[]){ { 1.0, "a\"b.vtu", "" } }, 1, err, sizeof err) != 0,
          "a file name with a quote was written into the XML");
    /* Entries added in place give out_write_pvd's bytes; a file changed
     * since (another size) is refused, to be written whole. */
    fcl_pvd_entry f[3];
    for (int k = 0; k < 3; k++)
        out_pvd_entry(&f[k], e[k].time, e[k].file);
    const char *grown = in_dir("grown.pvd");
    CHECK(out_write_pvd(grown, f, 1, err, sizeof err) == 0, "write pvd: %s", err);
    size_t l1 = 0, l3 = 0;
    free(slurp(grown, &l1));
    long long bytes = (long long)l1;
    int added = out_append_pvd(grown, f, 2, &bytes) == 0 && out_append_pvd(grown, f, 3, &bytes) == 0;
    unsigned char *g = slurp(grown, &l3), *whole = slurp(in_dir("frames.pvd"), &len);   /* b: part="1" above */
    CHECK(added && g && whole && l3 == len && (long long)l3 == bytes && memcmp(g, whole, len) == 0,
          "entries added in place: %d, %zu bytes against the whole file's %zu", added, l3, len);
    free(g);
    free(whole);
    bytes -= 1;
    CHECK(out_append_pvd(grown, f, 3, &bytes) != 0, "an entry added over a file of another size");
    free(b);
}

int main(void)
{
    strcpy(dir, "/tmp/test_vtu_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    round_trip(1000, 1, 1);
    round_trip(1000, 1, 0);
    round_trip(1000, 0, 0);
    round_trip(1, 1, 1);
    round_trip(0, 1, 1);
    layout();
    damaged();
    collection();
    ft_remove_tree(dir);
    return ft_done();
}
