/* mc_tables.c - the marching-cubes case tables, derived rather than typed:
 * for each of the 256 inside/outside patterns of a cube's corners, the
 * contour of every face is cut the same way (each run of inside corners,
 * walking a face counter-clockwise seen from outside, is cut off by one
 * segment from the edge where the walk enters the inside to the edge where
 * it leaves), the segments chain into closed loops around the cube, and
 * each loop becomes a triangle fan, from an apex whose diagonals never join
 * two vertices of an ambiguous face (the cell across that face could take
 * the same diagonal, and the edge would carry four triangles).
 * Why derive: the rule depends only on a face's own four corners, so the
 * two cells sharing a face cut it identically (the ambiguous faces too,
 * which the classic 1987 table gets inconsistent) and the mesh is closed
 * and consistently wound by construction, and a 2-manifold (each edge two
 * triangles) with the apex rule; tests/test_surface*.c check it.
 * Invariant: kernels/mc.cl's edge numbering: edge e runs along axis e >> 2
 * from the corner whose coordinates on axes (a+1)%3, (a+2)%3 are the bits
 * of e & 3; corner k is at (k & 1, (k >> 1) & 1, k >> 2).
 */
#include <string.h>

#include "mc.h"

static int corner_in(int cs, const int c[3])
{
    return (cs >> (c[0] | c[1] << 1 | c[2] << 2)) & 1;
}

/* The edge between two corners that differ on exactly one axis. */
static int edge_of(const int p[3], const int q[3])
{
    int a = p[0] != q[0] ? 0 : (p[1] != q[1] ? 1 : 2);
    const int *lo = p[a] < q[a] ? p : q;
    return a * 4 + lo[(a + 1) % 3] + 2 * lo[(a + 2) % 3];
}

/* Segments of face (axis a, side s) of case cs into next[]: next[entry
 * edge] = the exit edge that closes the same inside run; amb[e] |= 1 << f
 * for the face's edges when it is ambiguous (corners in, out, in, out). */
static void face_segments(int cs, int a, int s, int next[12], int amb[12])
{
    static const int quad[4][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 } };
    int u = (a + 1) % 3, v = (a + 2) % 3, c[4][3], in[4], e[4];
    for (int k = 0; k < 4; k++) {
        int q = s ? k : 3 - k;   /* counter-clockwise about the outward normal */
        c[k][a] = s;
        c[k][u] = quad[q][0];
        c[k][v] = quad[q][1];
        in[k] = corner_in(cs, c[k]);
    }
    for (int k = 0; k < 4; k++)
        e[k] = edge_of(c[k], c[(k + 1) % 4]);
    for (int k = 0; in[0] == in[2] && in[1] == in[3] && in[0] != in[1] && k < 4; k++)
        amb[e[k]] |= 1 << (2 * a + s);
    for (int k = 0; k < 4; k++) {
        if (in[k] || !in[(k + 1) % 4])
            continue;
        for (int j = 1; j < 4; j++) {
            int m = (k + j) % 4;
            if (in[m] && !in[(m + 1) % 4]) {
                next[e[k]] = e[m];
                break;
            }
        }
    }
}

/* The first vertex of the loop from which a fan's diagonals join no two
 * vertices of one ambiguous face (every case has one: tests check the
 * meshes; 18 loops of the 256 cases need another apex than the first). */
static int fan_apex(const int *loop, int len, const int amb[12])
{
    for (int r = 0; r < len; r++) {
        int ok = 1;
        for (int i = 2; ok && i <= len - 2; i++)
            ok = !(amb[loop[r]] & amb[loop[(r + i) % len]]);
        if (ok)
            return r;
    }
    return 0;
}

void mc_tables(int *tab)
{
    memset(tab, 0xff, sizeof(int) * MC_TABLE_LEN);
    for (int cs = 0; cs < 256; cs++) {
        int next[12], amb[12] = { 0 }, used[12] = { 0 }, nt = 0, *out = tab + 256 + cs * 30;
        memset(next, 0xff, sizeof next);
        for (int a = 0; a < 3; a++)
            for (int s = 0; s < 2; s++)
                face_segments(cs, a, s, next, amb);
        for (int e0 = 0; e0 < 12; e0++) {
            int loop[12], len = 0;
            for (int e = e0; e >= 0 && !used[e] && len < 12; e = next[e]) {
                used[e] = 1;
                loop[len++] = e;
            }
            int r = fan_apex(loop, len, amb);
            for (int i = 1; i + 1 < len; i++) {
                out[3 * nt] = loop[r];
                out[3 * nt + 1] = loop[(r + i) % len];
                out[3 * nt + 2] = loop[(r + i + 1) % len];
                nt++;
            }
        }
        tab[cs] = nt;
    }
}
