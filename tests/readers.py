"""readers.py - fluidcl's frames read by other programs' readers.

Usage: /usr/bin/python3 readers.py DIR...   (each DIR from `fluidcl run
--out DIR --param output.format=all`). Debian's python3-meshio and
python3-vtk9 read every frame:

- frame_*.vtu with meshio and with VTK's vtkXMLUnstructuredGridReader
  (what ParaView and PyVista use),
- frame_*.vtk (legacy) with VTK's vtkPolyDataReader,
- frame_*.ply with meshio,
- grid_*.vti (output.grid, the mac solver) with vtkXMLImageDataReader:
  its fields and shapes, flags in {0, 1, 2}, no pressure off the fluid,
  the frame's time,
- frames.pvd with xml.etree: one DataSet per .vtu, in order, whose
  timestep is the frame's TimeValue.

Positions and every field must agree bit for bit across all readers
(compared as raw 32-bit patterns, so NaNs compare too); ids must be a
permutation of 0..n-1; the .vtu's TimeValue must equal the time in the
legacy title. Prints "N passed, M failed" last; exit 77 when meshio or
VTK is missing, 1 on a failure.
"""
import glob
import os
import sys
import xml.etree.ElementTree as ET

try:
    import meshio
    import numpy as np
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
except ImportError as e:
    print(f"SKIP: {e} (Debian packages python3-meshio, python3-vtk9; run with /usr/bin/python3)")
    sys.exit(77)

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}")


def bits(a):
    """Raw 32-bit patterns of a float32/uint32 array, flattened."""
    a = np.ascontiguousarray(a)
    check(a.dtype.itemsize == 4, f"array of dtype {a.dtype}, expected 32-bit values")
    return a.view(np.uint32).reshape(-1)


def same(a, b):
    a, b = bits(a), bits(b)
    return a.shape == b.shape and np.array_equal(a, b)


def vtk_arrays(data):
    pd = data.GetPointData()
    out = {pd.GetArrayName(k): vtk_to_numpy(pd.GetArray(k)) for k in range(pd.GetNumberOfArrays())}
    return vtk_to_numpy(data.GetPoints().GetData()), out


def read_vtu_vtk(path):
    r = vtk.vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    g = r.GetOutput()
    cells = g.GetNumberOfCells()
    types = {g.GetCellType(k) for k in range(cells)}
    time = g.GetFieldData().GetArray("TimeValue").GetValue(0)
    pts, arrays = vtk_arrays(g)
    return pts, arrays, time, cells, types


def read_legacy(path):
    r = vtk.vtkPolyDataReader()
    r.SetFileName(path)
    r.ReadAllScalarsOn()
    r.ReadAllVectorsOn()
    r.Update()
    title = r.GetHeader()
    pts, arrays = vtk_arrays(r.GetOutput())
    return pts, arrays, title


def frame(base):
    """One frame in its three files, every reader against the others."""
    name = os.path.basename(base)
    m = meshio.read(base + ".vtu")
    vpts, varr, vtime, cells, types = read_vtu_vtk(base + ".vtu")
    lpts, larr, title = read_legacy(base + ".vtk")
    p = meshio.read(base + ".ply")
    n = len(m.points)
    check(n > 0 and len(vpts) == n and len(lpts) == n and len(p.points) == n,
          f"{name}: point counts {n}, {len(vpts)}, {len(lpts)}, {len(p.points)}")
    check(cells == n and types == {vtk.VTK_VERTEX}, f"{name}: {cells} cells of types {types}")
    check(same(m.points, vpts) and same(m.points, lpts) and same(m.points, p.points),
          f"{name}: positions differ between the readers")
    names = set(m.point_data)
    check(names == set(varr) and names == set(larr),
          f"{name}: fields {sorted(names)} (meshio), {sorted(varr)} (VTK), {sorted(larr)} (legacy)")
    check({"velocity", "density", "pressure", "id", "surface"} <= names, f"{name}: fields {sorted(names)}")
    for f in sorted(names & set(varr) & set(larr)):
        check(same(m.point_data[f], varr[f]) and same(m.point_data[f], larr[f]),
              f"{name}: field {f} differs between the readers")
    ply = {"velocity": np.stack([p.point_data[k] for k in ("vx", "vy", "vz")], axis=1)}
    ply.update({k: p.point_data[k] for k in ("density", "pressure", "id", "surface")})
    for f, a in ply.items():
        check(f in m.point_data and same(m.point_data[f], a), f"{name}: PLY field {f} differs")
    ids = np.sort(m.point_data["id"].astype(np.int64))
    check(np.array_equal(ids, np.arange(n)), f"{name}: ids are not a permutation of 0..{n - 1}")
    legacy_time = float(title.split("time=")[1].split()[0])
    check(m.field_data["TimeValue"][0] == vtime == legacy_time,
          f"{name}: TimeValue {m.field_data['TimeValue'][0]!r} (meshio), {vtime!r} (VTK), title {title!r}")
    return vtime


def grid(path, time):
    """A grid_*.vti (output.grid) read by VTK's vtkXMLImageDataReader: its
    fields, their shapes, the flags' values, zero pressure off fluid, the
    level set positive in solid and negative in (nearly every) fluid cell,
    and the frame's time."""
    r = vtk.vtkXMLImageDataReader()
    r.SetFileName(path)
    r.Update()
    g = r.GetOutput()
    dims = g.GetDimensions()
    cells = (dims[0] - 1) * (dims[1] - 1) * (dims[2] - 1)
    cd = g.GetCellData()
    a = {cd.GetArrayName(k): vtk_to_numpy(cd.GetArray(k)) for k in range(cd.GetNumberOfArrays())}
    name = os.path.basename(path)
    check(cells > 0 and g.GetNumberOfCells() == cells, f"{name}: dimensions {dims}, {g.GetNumberOfCells()} cells")
    want = {"flags", "pressure", "velocity", "levelset"}
    check(set(a) == want, f"{name}: fields {sorted(a)}")
    if set(a) != want:
        return
    check(a["flags"].shape == (cells,) and a["pressure"].shape == (cells,) and a["velocity"].shape == (cells, 3)
          and a["levelset"].shape == (cells,),
          f"{name}: shapes {a['flags'].shape} {a['pressure'].shape} {a['velocity'].shape} {a['levelset'].shape}")
    fluid, solid = a["flags"] == 1.0, a["flags"] == 2.0
    check((a["levelset"][solid] > 0).all() and (a["levelset"][fluid] < 0).mean() >= 0.9,
          f"{name}: level set not positive in solids or not negative in most fluid cells")
    check(set(np.unique(a["flags"])) <= {0.0, 1.0, 2.0} and (a["flags"] == 1.0).any(),
          f"{name}: flags {np.unique(a['flags'])}")
    check(not a["pressure"][a["flags"] != 1.0].any(), f"{name}: pressure off the fluid cells")
    check(g.GetFieldData().GetArray("TimeValue").GetValue(0) == time, f"{name}: not at the frame's time {time!r}")


def run_dir(d):
    frames = sorted(glob.glob(os.path.join(d, "frame_*.vtu")))
    check(len(frames) >= 2, f"{d}: {len(frames)} .vtu frames")
    times = {os.path.basename(f): frame(f[:-4]) for f in frames}
    root = ET.parse(os.path.join(d, "frames.pvd")).getroot()
    sets = root.findall("./Collection/DataSet")
    check(root.get("type") == "Collection" and [s.get("file") for s in sets] == sorted(times),
          f"{d}/frames.pvd lists {[s.get('file') for s in sets]}")
    for s in sets:
        f = s.get("file")
        check(f in times and float(s.get("timestep")) == times[f],
              f"{d}/frames.pvd: {f} at {s.get('timestep')}, the frame says {times.get(f)!r}")
    grids = sorted(glob.glob(os.path.join(d, "grid_*.vti")))
    for f in grids:
        frame_name = "frame_" + os.path.basename(f)[5:-4] + ".vtu"
        check(frame_name in times, f"{f}: no frame {frame_name}")
        grid(f, times.get(frame_name))
    print(f"{d}: {len(frames)} frames read by meshio, VTK (XML and legacy) and meshio (PLY), all equal"
          + (f"; {len(grids)} grids (.vti) read by VTK" if grids else ""))


for d in sys.argv[1:]:
    run_dir(d)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed or not sys.argv[1:] else 0)
