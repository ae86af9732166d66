#!/usr/bin/env python3
"""plot_fps.py - the seed's figure 4 (steps per second against grid
resolution, log scale) redrawn from `fluidcl bench --json` files of the
mac solver, as an SVG with no plotting library.

usage: plot_fps.py OUT.svg FILE.json...   (files named BACKEND_N_PPC.json:
       backend, cells per axis, particles per cell)

Each file gives one point: 1000 / wall_ms_per_step steps per second, one
step being the seed's 0.01 s (CFL substeps inside). One polyline per
backend and particles-per-cell value; the seed's own points (GT 240M GPU)
are drawn as crosses for comparison. Also prints the points as a table.
"""
import json
import math
import os
import sys

SEED = [(20, 125, 9.06), (30, 27, 5.92), (30, 8, 14.26)]  # (N, ppc, fps), seed 003 section 5


def load(paths):
    pts = {}
    for p in paths:
        be, n, ppc = os.path.basename(p)[:-5].split("_")
        d = json.load(open(p))["backends"][0]
        pts.setdefault((be, int(ppc)), []).append((int(n), 1000.0 / d["wall_ms_per_step"], d))
    for k in pts:
        pts[k].sort()
    return pts


def svg(pts, out):
    W, H, L, B = 640, 420, 70, 50
    nmax = max(n for v in pts.values() for n, _, _ in v)
    fps = [f for v in pts.values() for _, f, _ in v] + [f for _, _, f in SEED]
    lo, hi = math.floor(math.log10(min(fps))), math.ceil(math.log10(max(fps)))
    X = lambda n: L + (W - L - 20) * n / (nmax * 1.05)
    Y = lambda f: H - B - (H - B - 20) * (math.log10(f) - lo) / (hi - lo)
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>']
    for e in range(lo, hi + 1):
        y = Y(10 ** e)
        s.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - 20}" y2="{y:.1f}" stroke="#ddd"/>')
        s.append(f'<text x="{L - 8}" y="{y + 4:.1f}" text-anchor="end">{10 ** e:g}</text>')
    for n in sorted({n for v in pts.values() for n, _, _ in v}):
        s.append(f'<text x="{X(n):.1f}" y="{H - B + 18}" text-anchor="middle">{n}</text>')
    s.append(f'<text x="{(L + W) / 2}" y="{H - 10}" text-anchor="middle">cells per axis (N, an N^3 grid)</text>')
    s.append(f'<text x="16" y="{H / 2}" transform="rotate(-90 16 {H / 2})" text-anchor="middle">steps per second (0.01 s each)</text>')
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f"]
    for k, ((be, ppc), v) in enumerate(sorted(pts.items())):
        c = colors[k % len(colors)]
        path = " ".join(f"{X(n):.1f},{Y(f):.1f}" for n, f, _ in v)
        s.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
        for n, f, _ in v:
            s.append(f'<circle cx="{X(n):.1f}" cy="{Y(f):.1f}" r="3" fill="{c}"/>')
        s.append(f'<text x="{W - 190}" y="{30 + 16 * k}" fill="{c}">{be}, {ppc} per cell</text>')
    for n, ppc, f in SEED:
        x, y = X(n), Y(f)
        s.append(f'<path d="M{x - 5:.1f},{y - 5:.1f}L{x + 5:.1f},{y + 5:.1f}M{x - 5:.1f},{y + 5:.1f}L{x + 5:.1f},{y - 5:.1f}" stroke="black"/>')
        s.append(f'<text x="{x + 7:.1f}" y="{y + 4:.1f}">seed {ppc}/cell</text>')
    s.append("</svg>")
    open(out, "w").write("\n".join(s) + "\n")


def table(pts):
    print("| backend | N | per cell | markers | substeps | CG iterations | ms/step | steps/s |")
    print("|---|---|---|---|---|---|---|---|")
    for (be, ppc), v in sorted(pts.items()):
        for n, f, d in v:
            print(f"| {be} | {n} | {ppc} | {d['particles']:,} | {d['substeps']:.2f} | {d['cg_iterations']:.1f} | "
                  f"{d['wall_ms_per_step']:.1f} | {f:.1f} |")


if __name__ == "__main__":
    pts = load(sys.argv[2:])
    svg(pts, sys.argv[1])
    table(pts)
