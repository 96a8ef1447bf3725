#!/usr/bin/env python3
"""Write a glTF with one skin of N joints and one skinned triangle, for timing
skin import with split palettes (docs/benchmarks.md, "glTF import").

Usage: bench/make-big-skin.py N {chain,flat} OUT.gltf
  chain: joint k is the child of joint k - 1;
  flat:  every joint is a child of one root joint (joint 0).
The triangle is bound to joint 0 with weight 1; no inverse bind matrices.
"""
import base64
import json
import struct
import sys


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in ("chain", "flat"):
        sys.exit(__doc__)
    n, shape, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    # nodes[0]: the mesh node; nodes[1 + k]: joint k
    nodes = [{"mesh": 0, "skin": 0}]
    for k in range(n):
        node = {"name": "j%d" % k}
        nodes.append(node)
    if shape == "chain":
        for k in range(n - 1):
            nodes[1 + k]["children"] = [2 + k]
    elif n > 1:
        nodes[1]["children"] = list(range(2, 1 + n))
    pos = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
    joints = struct.pack("<12B", *([0] * 12))
    weights = struct.pack("<12f", *([1, 0, 0, 0] * 3))
    blob = pos + joints + weights
    doc = {
        "asset": {"version": "2.0", "generator": "bench/make-big-skin.py"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
        "skins": [{"joints": list(range(1, 1 + n))}],
        "buffers": [{"byteLength": len(blob),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                        {"buffer": 0, "byteOffset": 36, "byteLength": 12},
                        {"buffer": 0, "byteOffset": 48, "byteLength": 48}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5121, "count": 3, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4"},
        ],
    }
    with open(out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
