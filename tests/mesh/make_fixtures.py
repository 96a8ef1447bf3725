#!/usr/bin/env python3
"""Writes the hand-made glTF fixtures of the mesh tests into tests/data/fixtures-mesh/.

Run from anywhere: python3 tests/mesh/make_fixtures.py. The output is deterministic; the
files are committed, so the tests never run this script. What each fixture exercises is in
tests/data/fixtures-mesh/SOURCE.md.
"""
import base64
import json
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "fixtures-mesh")

FLOAT, UBYTE, USHORT, UINT = 5126, 5121, 5123, 5125


class Builder:
    def __init__(self):
        self.data = bytearray()
        self.views = []
        self.accessors = []

    def _view(self, raw, target=None):
        while len(self.data) % 4:
            self.data.append(0)
        view = {"buffer": 0, "byteOffset": len(self.data), "byteLength": len(raw)}
        if target:
            view["target"] = target
        self.data += raw
        self.views.append(view)
        return len(self.views) - 1

    def accessor(self, comp, typ, values, normalized=False, target=None, minmax=False):
        fmt = {FLOAT: "f", UBYTE: "B", USHORT: "H", UINT: "I"}[comp]
        n = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[typ]
        flat = [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]
        raw = struct.pack("<%d%s" % (len(flat), fmt), *flat)
        acc = {"bufferView": self._view(raw, target), "componentType": comp, "type": typ,
               "count": len(flat) // n}
        if normalized:
            acc["normalized"] = True
        if minmax:
            acc["min"] = [min(flat[i::n]) for i in range(n)]
            acc["max"] = [max(flat[i::n]) for i in range(n)]
        self.accessors.append(acc)
        return len(self.accessors) - 1

    def sparse_vec3(self, count, indices, values):
        """A VEC3 FLOAT accessor without bufferView (zeros) with sparse substitution."""
        iview = self._view(struct.pack("<%dH" % len(indices), *indices))
        flat = [x for v in values for x in v]
        vview = self._view(struct.pack("<%df" % len(flat), *flat))
        comps = [[v[i] for v in values] + ([0] if len(indices) < count else []) for i in range(3)]
        self.accessors.append({"componentType": FLOAT, "type": "VEC3", "count": count,
                               "min": [min(c) for c in comps], "max": [max(c) for c in comps],
                               "sparse": {"count": len(indices),
                                          "indices": {"bufferView": iview, "componentType": USHORT},
                                          "values": {"bufferView": vview}}})
        return len(self.accessors) - 1

    def gltf(self, **parts):
        doc = {"asset": {"version": "2.0", "generator": "cna tests/mesh/make_fixtures.py"}}
        doc.update(parts)
        uri = "data:application/octet-stream;base64," + base64.b64encode(bytes(self.data)).decode()
        doc["buffers"] = [{"byteLength": len(self.data), "uri": uri}]
        doc["bufferViews"] = self.views
        doc["accessors"] = self.accessors
        return doc


def write(name, doc):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def influences():
    """A skinned quad with JOINTS_1/WEIGHTS_1, joints listed child-first."""
    b = Builder()
    pos = b.accessor(FLOAT, "VEC3", [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)], minmax=True)
    nrm = b.accessor(FLOAT, "VEC3", [(0, 0, 1)] * 4)
    j0 = b.accessor(UBYTE, "VEC4", [(0, 1, 2, 0), (0, 1, 0, 0), (2, 0, 0, 0), (1, 2, 9, 0)])
    w0 = b.accessor(FLOAT, "VEC4", [(0.3, 0.2, 0.1, 0.05), (0.25, 0.25, 0, 0), (1, 0, 0, 0),
                                    (0.5, 0.5, 0, 0)])
    j1 = b.accessor(UBYTE, "VEC4", [(1, 2, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0), (7, 0, 0, 0)])
    w1 = b.accessor(FLOAT, "VEC4", [(0.15, 0.12, 0.08, 0), (0, 0, 0, 0), (0, 0, 0, 0),
                                    (0, 0, 0, 0)])
    idx = b.accessor(USHORT, "SCALAR", [0, 1, 2, 1, 3, 2], target=34963)
    prim = {"attributes": {"POSITION": pos, "NORMAL": nrm, "JOINTS_0": j0, "WEIGHTS_0": w0,
                           "JOINTS_1": j1, "WEIGHTS_1": w1}, "indices": idx}
    write("mesh-influences.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 1]}],
        nodes=[{"name": "skinned", "mesh": 0, "skin": 0},
               {"name": "J0", "children": [2]},
               {"name": "J1", "children": [3], "translation": [0, 1, 0]},
               {"name": "J2", "translation": [0, 1, 0]}],
        meshes=[{"name": "quad", "primitives": [prim]}],
        skins=[{"joints": [3, 1, 2]}]))


def flat_strip():
    """No normals, a triangle strip, a sparse morph target, two placements, cubic weights."""
    b = Builder()
    pos = b.accessor(FLOAT, "VEC3", [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)], minmax=True)
    target = b.sparse_vec3(4, [3], [(0, 0, 2)])
    times = b.accessor(FLOAT, "SCALAR", [0.0, 1.0], minmax=True)
    # CUBICSPLINE: per key (in-tangent, value, out-tangent), one target each
    cubic = b.accessor(FLOAT, "SCALAR", [0.0, 0.0, 2.0, -1.0, 1.0, 0.0])
    other = b.accessor(FLOAT, "SCALAR", [0.25, 0.75])
    prim = {"attributes": {"POSITION": pos}, "mode": 5, "targets": [{"POSITION": target}]}
    write("mesh-flat-strip.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [1, 0]}],
        nodes=[{"name": "first", "mesh": 0},
               {"name": "second", "mesh": 0, "weights": [1.0], "translation": [5, 0, 0]}],
        meshes=[{"name": "strip", "primitives": [prim], "weights": [0.5]}],
        animations=[{"name": "pulse",
                     "samplers": [{"input": times, "output": cubic, "interpolation": "CUBICSPLINE"},
                                  {"input": times, "output": other}],
                     "channels": [{"sampler": 1, "target": {"node": 1, "path": "weights"}},
                                  {"sampler": 0, "target": {"node": 0, "path": "weights"}}]}]))


def modes():
    """One mesh, one primitive per topology and attribute combination."""
    b = Builder()
    five = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (-1, 1, 0)]
    p5 = b.accessor(FLOAT, "VEC3", five, minmax=True)
    n5 = b.accessor(FLOAT, "VEC3", [(0, 0, 1)] * 5)
    fan_idx = b.accessor(UBYTE, "SCALAR", [0, 1, 2, 3, 4], target=34963)
    tri7 = b.accessor(UINT, "SCALAR", [0, 1, 2, 2, 3, 0, 4], target=34963)
    col = b.accessor(UBYTE, "VEC3", [(255, 0, 0), (0, 255, 0), (0, 0, 255), (10, 20, 30),
                                     (255, 255, 255)], normalized=True)
    uv1 = b.accessor(FLOAT, "VEC2", [(0.5, 0.25)] * 5)
    tan = b.accessor(FLOAT, "VEC4", [(1, 0, 0, -1)] * 5)
    b.accessors.append({"componentType": FLOAT, "type": "VEC2", "count": 5})  # TEXCOORD_0: zeros
    uv0 = len(b.accessors) - 1
    prims = [
        {"attributes": {"POSITION": p5, "NORMAL": n5}, "indices": fan_idx, "mode": 6},
        {"attributes": {"POSITION": p5, "NORMAL": n5}, "mode": 2},
        {"attributes": {"POSITION": p5}, "mode": 0},
        {"attributes": {"POSITION": p5, "NORMAL": n5, "COLOR_0": col, "TEXCOORD_0": uv0,
                        "TEXCOORD_1": uv1},
         "indices": tri7},
        {"attributes": {"POSITION": p5, "NORMAL": n5, "TANGENT": tan}, "mode": 3},
        {"attributes": {"POSITION": p5, "TANGENT": tan}, "indices": fan_idx, "mode": 4},
    ]
    write("mesh-modes.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0]}], nodes=[{"mesh": 0}],
        meshes=[{"name": "modes", "primitives": prims}]))


if __name__ == "__main__":
    influences()
    flat_strip()
    modes()
