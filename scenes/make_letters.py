#!/usr/bin/env python3
"""make_letters.py - writes letters.obj, the fluid-control target of
control_letters.json: the block letters "FCL", 5 x 7 pixels each, pixel
2 cm, extruded 4 cm deep (z from 0 to 0.04), standing on y = 0, x from 0.

The mesh is the boundary of the union of the pixel cubes: one quad (two
triangles) on every cube face whose neighbor across it is empty, so
shared faces vanish and the surface is closed. The font has no pixels
that touch only along an edge (that would make an edge of four faces).

Invariant: the mesh is closed, every edge joins exactly two triangles
that run it in opposite directions, and the enclosed volume equals the
pixel count times the cube volume; the script checks all three before
writing anything. Run from anywhere: python3 scenes/make_letters.py
"""
import os
import sys

PIXEL = 0.02
DEPTH = 0.04
GAP = 1  # empty columns between letters

FONT = {
    "F": ["#####", "#....", "#....", "####.", "#....", "#....", "#...."],
    "C": ["#####", "#....", "#....", "#....", "#....", "#....", "#####"],
    "L": ["#....", "#....", "#....", "#....", "#....", "#....", "#####"],
}


def pixels(text):
    """Filled (column, row) cells, row 0 at the bottom."""
    cells = set()
    x0 = 0
    for ch in text:
        rows = FONT[ch]
        for r, line in enumerate(rows):
            for c, v in enumerate(line):
                if v == "#":
                    cells.add((x0 + c, len(rows) - 1 - r))
        x0 += len(rows[0]) + GAP
    return cells


def check_no_edge_contacts(cells):
    for (x, y) in cells:
        for dx, dy in ((1, 1), (1, -1)):
            if (x + dx, y + dy) in cells and (x + dx, y) not in cells and (x, y + dy) not in cells:
                sys.exit("make_letters.py: pixels (%d,%d) and (%d,%d) touch along an edge only" % (x, y, x + dx, y + dy))


def mesh(cells):
    verts, index, tris = [], {}, []

    def v(p):
        if p not in index:
            index[p] = len(verts)
            verts.append(p)
        return index[p]

    def quad(a, b, c, d):
        ia, ib, ic, id_ = v(a), v(b), v(c), v(d)
        tris.append((ia, ib, ic))
        tris.append((ia, ic, id_))

    for (x, y) in sorted(cells):
        # integer corners: x, y in pixels, z in {0, 1} (front and back)
        if (x - 1, y) not in cells:
            quad((x, y, 0), (x, y, 1), (x, y + 1, 1), (x, y + 1, 0))
        if (x + 1, y) not in cells:
            quad((x + 1, y, 0), (x + 1, y + 1, 0), (x + 1, y + 1, 1), (x + 1, y, 1))
        if (x, y - 1) not in cells:
            quad((x, y, 0), (x + 1, y, 0), (x + 1, y, 1), (x, y, 1))
        if (x, y + 1) not in cells:
            quad((x, y + 1, 0), (x, y + 1, 1), (x + 1, y + 1, 1), (x + 1, y + 1, 0))
        quad((x, y, 0), (x, y + 1, 0), (x + 1, y + 1, 0), (x + 1, y, 0))  # back, z = 0, normal -z
        quad((x, y, 1), (x + 1, y, 1), (x + 1, y + 1, 1), (x, y + 1, 1))  # front, z = 1, normal +z
    return verts, tris


def scaled(p):
    return (p[0] * PIXEL, p[1] * PIXEL, p[2] * DEPTH)


def check(verts, tris, cells):
    edges = {}
    for t in tris:
        for k in range(3):
            a, b = t[k], t[(k + 1) % 3]
            edges[(a, b)] = edges.get((a, b), 0) + 1
    for (a, b), n in edges.items():
        if n != 1 or edges.get((b, a), 0) != 1:
            sys.exit("make_letters.py: edge %d-%d is not shared by exactly two opposite triangles" % (a, b))
    vol = 0.0
    for t in tris:
        p, q, r = (scaled(verts[i]) for i in t)
        vol += (p[0] * (q[1] * r[2] - q[2] * r[1]) - p[1] * (q[0] * r[2] - q[2] * r[0])
                + p[2] * (q[0] * r[1] - q[1] * r[0])) / 6.0
    want = len(cells) * PIXEL * PIXEL * DEPTH
    if abs(vol - want) > 1e-9 * max(1.0, want) + 1e-12:
        sys.exit("make_letters.py: volume %.9g, expected %.9g (orientation?)" % (vol, want))
    return vol


def main():
    cells = pixels("FCL")
    check_no_edge_contacts(cells)
    verts, tris = mesh(cells)
    vol = check(verts, tris, cells)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "letters.obj")
    with open(out, "w") as f:
        f.write("# letters.obj - block letters FCL, written by make_letters.py\n")
        f.write("# %d vertices, %d triangles, volume %.6g m^3, closed, normals outward\n" % (len(verts), len(tris), vol))
        for p in verts:
            f.write("v %.6g %.6g %.6g\n" % scaled(p))
        for t in tris:
            f.write("f %d %d %d\n" % (t[0] + 1, t[1] + 1, t[2] + 1))
    print("wrote %s: %d vertices, %d triangles, %d pixels, volume %.6g m^3" % (out, len(verts), len(tris), len(cells), vol))


if __name__ == "__main__":
    main()
