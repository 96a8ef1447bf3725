#!/usr/bin/env python3
"""Writes the showcase tentacle into assets/Tentacle/: tentacle.gltf, tentacle.bin, tentacle.png.

Run from anywhere: python3 assets/Tentacle/make_tentacle.py. The output is deterministic
(the same bytes on every run); the files are committed, so neither the build nor the tests
run this script. What the model holds, and how its compressed twin is made: SOURCE.md.

The model: a tapering tube standing along +Y, skinned to a chain of 150 joints (more than
the 72 one skinned draw takes, so it loads with `split_palettes`), textured with a generated
PNG that a KHR_texture_transform scale repeats along the tube, and one looping animation,
"Wave": a wave travelling from the base to the tip, LINEAR rotation keys on every joint.
"""
import json
import math
import os
import struct
import zlib

OUT = os.path.dirname(os.path.abspath(__file__))

FLOAT, UBYTE, USHORT = 5126, 5121, 5123
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963

JOINTS = 150            # joints in the chain, Bone000 (base) .. Bone149 (tip)
SEGMENT = 0.03          # distance between two joints
LENGTH = JOINTS * SEGMENT
SIDES = 16              # vertices around a ring (plus one on the texture seam)
RADIUS_BASE, RADIUS_TIP = 0.3, 0.02
DURATION = 2.0          # seconds; the wave repeats exactly after it
KEYS_PER_SECOND = 12
WAVELENGTH = 60.0       # joints between two crests
AMPLITUDE = 3.5         # degrees per joint of the travelling bend, at the tip
CURL = 2.4              # degrees per joint of the standing curl, at the tip
TEXTURE_SIZE = 64
UV_SCALE = [3.0, 12.0]  # KHR_texture_transform: three tiles around, twelve along


# ---------------------------------------------------------------- the texture
def png(width, height, rows):
    """A PNG file (8-bit RGB) from rows of (r, g, b) tuples."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    raw = b"".join(b"\0" + bytes(c for px in row for c in px) for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def texture():
    """One tile: a band from deep violet to coral down the tile, with a pale round spot
    (a sucker) in its middle, its edge softened over two pixels."""
    n = TEXTURE_SIZE
    top, bottom, spot = (70, 30, 110), (235, 110, 90), (250, 225, 190)
    rows = []
    for y in range(n):
        t = (y + 0.5) / n
        g = 0.5 - 0.5 * math.cos(2 * math.pi * t)   # 0 at the tile's edges, 1 in the middle
        base = [a + (b - a) * g for a, b in zip(top, bottom)]
        row = []
        for x in range(n):
            d = math.hypot(x + 0.5 - n / 2, y + 0.5 - n / 2)
            s = min(1.0, max(0.0, (n * 0.22 - d) / 2.0))
            row.append(tuple(int(round(c + (p - c) * s)) for c, p in zip(base, spot)))
        rows.append(row)
    return png(n, n, rows)


# ---------------------------------------------------------------- geometry
def radius(y):
    t = min(1.0, max(0.0, y / LENGTH))
    return RADIUS_TIP + (RADIUS_BASE - RADIUS_TIP) * (1.0 - t) ** 1.3


def slope(y):
    """dr/dy, for the normals."""
    t = min(1.0, max(0.0, y / LENGTH))
    return -(RADIUS_BASE - RADIUS_TIP) * 1.3 * (1.0 - t) ** 0.3 / LENGTH


def tube():
    """Rings at every joint (ring k at joint k's origin, bound half to joint k - 1 and half
    to joint k, so a bend splits over the two), a last ring half a segment past the tip
    joint, a tip vertex, and a base cap. Unused joint slots repeat the first joint with
    weight 0, so a vertex names only the joints that move it."""
    pos, nrm, uv, jnt, wgt, tri = [], [], [], [], [], []

    def ring(y, joints, weights):
        first = len(pos)
        r, dr = radius(y), slope(y)
        for s in range(SIDES + 1):
            a = 2 * math.pi * s / SIDES
            c, sn = math.cos(a), math.sin(a)
            pos.append((r * c, y, r * sn))
            ln = math.sqrt(1 + dr * dr)
            nrm.append((c / ln, -dr / ln, sn / ln))
            uv.append((s / SIDES, y / LENGTH))
            jnt.append(joints)
            wgt.append(weights)
        return first

    rings = [ring(0.0, (0, 0, 0, 0), (1.0, 0.0, 0.0, 0.0))]
    for k in range(1, JOINTS):
        rings.append(ring(k * SEGMENT, (k - 1, k, k - 1, k - 1), (0.5, 0.5, 0.0, 0.0)))
    last = JOINTS - 1
    rings.append(ring((last + 0.5) * SEGMENT, (last, last, last, last), (1.0, 0.0, 0.0, 0.0)))
    for a, b in zip(rings, rings[1:]):
        for s in range(SIDES):
            tri += [a + s, b + s, a + s + 1, a + s + 1, b + s, b + s + 1]
    # the tip: a fan to one vertex
    tip_y = (last + 0.5) * SEGMENT + RADIUS_TIP
    tip = len(pos)
    pos.append((0.0, tip_y, 0.0))
    nrm.append((0.0, 1.0, 0.0))
    uv.append((0.5, tip_y / LENGTH))
    jnt.append((last, last, last, last))
    wgt.append((1.0, 0.0, 0.0, 0.0))
    b = rings[-1]
    for s in range(SIDES):
        tri += [b + s, tip, b + s + 1]
    # the base: a flat cap facing down, its own vertices (its normal differs from the ring's)
    centre = len(pos)
    pos.append((0.0, 0.0, 0.0))
    nrm.append((0.0, -1.0, 0.0))
    uv.append((0.5, 0.0))
    jnt.append((0, 0, 0, 0))
    wgt.append((1.0, 0.0, 0.0, 0.0))
    for s in range(SIDES + 1):
        a = 2 * math.pi * s / SIDES
        pos.append((RADIUS_BASE * math.cos(a), 0.0, RADIUS_BASE * math.sin(a)))
        nrm.append((0.0, -1.0, 0.0))
        uv.append((s / SIDES, 0.0))
        jnt.append((0, 0, 0, 0))
        wgt.append((1.0, 0.0, 0.0, 0.0))
    for s in range(SIDES):
        tri += [centre, centre + 1 + s, centre + 2 + s]
    return pos, nrm, uv, jnt, wgt, tri


# ---------------------------------------------------------------- animation
def quat_mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def wave(j, t):
    """Joint j's rotation at time t: a curl about Z that grows towards the tip, a bend about
    Z travelling up the chain (one crest every WAVELENGTH joints, one period per DURATION)
    and a smaller one about X a quarter period behind it, both growing towards the tip."""
    u = j / (JOINTS - 1)
    curl = math.radians(CURL) * u * u
    amp = math.radians(AMPLITUDE) * (0.3 + 0.7 * u)
    phase = 2 * math.pi * (t / DURATION - j / WAVELENGTH)
    az = curl + amp * math.sin(phase)
    ax = 0.5 * amp * math.cos(phase)
    qz = (0.0, 0.0, math.sin(az / 2), math.cos(az / 2))
    qx = (math.sin(ax / 2), 0.0, 0.0, math.cos(ax / 2))
    return quat_mul(qz, qx)


# ---------------------------------------------------------------- glTF
class Builder:
    def __init__(self):
        self.data = bytearray()
        self.views = []
        self.accessors = []

    def view(self, raw, target=None, stride=None):
        while len(self.data) % 4:
            self.data.append(0)
        v = {"buffer": 0, "byteOffset": len(self.data), "byteLength": len(raw)}
        if target:
            v["target"] = target
        if stride:
            v["byteStride"] = stride
        self.views.append(v)
        self.data += raw
        return len(self.views) - 1

    def accessor(self, comp, typ, values, minmax=False, target=None):
        fmt = {FLOAT: "f", UBYTE: "B", USHORT: "H"}[comp]
        n = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}[typ]
        flat = [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]
        raw = struct.pack("<%d%s" % (len(flat), fmt), *flat)
        acc = {"bufferView": self.view(raw, target), "componentType": comp, "type": typ,
               "count": len(flat) // n}
        if minmax:
            f32 = [struct.unpack("<" + fmt, struct.pack("<" + fmt, x))[0] for x in flat]
            acc["min"] = [min(f32[i::n]) for i in range(n)]
            acc["max"] = [max(f32[i::n]) for i in range(n)]
        self.accessors.append(acc)
        return len(self.accessors) - 1


def main():
    b = Builder()
    pos, nrm, uv, jnt, wgt, tri = tube()
    prim = {
        "attributes": {
            "POSITION": b.accessor(FLOAT, "VEC3", pos, minmax=True, target=ARRAY_BUFFER),
            "NORMAL": b.accessor(FLOAT, "VEC3", nrm, target=ARRAY_BUFFER),
            "TEXCOORD_0": b.accessor(FLOAT, "VEC2", uv, target=ARRAY_BUFFER),
            "JOINTS_0": b.accessor(UBYTE, "VEC4", jnt, target=ARRAY_BUFFER),
            "WEIGHTS_0": b.accessor(FLOAT, "VEC4", wgt, target=ARRAY_BUFFER),
        },
        "indices": b.accessor(USHORT, "SCALAR", tri, target=ELEMENT_ARRAY_BUFFER),
        "material": 0,
    }
    # joint j sits at (0, j * SEGMENT, 0) at rest: its inverse bind matrix moves it back
    ibm = []
    for j in range(JOINTS):
        m = [1.0 if i % 5 == 0 else 0.0 for i in range(16)]
        m[13] = -j * SEGMENT
        ibm.append(m)
    skin = {"name": "TentacleRig", "joints": [1 + j for j in range(JOINTS)],
            "skeleton": 1, "inverseBindMatrices": b.accessor(FLOAT, "MAT4", ibm)}

    keys = int(DURATION * KEYS_PER_SECOND) + 1
    times = [i / KEYS_PER_SECOND for i in range(keys)]
    time_accessor = b.accessor(FLOAT, "SCALAR", times, minmax=True)
    samplers, channels = [], []
    for j in range(JOINTS):
        values = [wave(j, t) for t in times]
        samplers.append({"input": time_accessor, "output": b.accessor(FLOAT, "VEC4", values),
                         "interpolation": "LINEAR"})
        channels.append({"sampler": j, "target": {"node": 1 + j, "path": "rotation"}})

    image = texture()
    with open(os.path.join(OUT, "tentacle.png"), "wb") as f:
        f.write(image)
    with open(os.path.join(OUT, "tentacle.bin"), "wb") as f:
        f.write(bytes(b.data))

    nodes = [{"name": "Tentacle", "mesh": 0, "skin": 0}]
    for j in range(JOINTS):
        n = {"name": "Bone%03d" % j}
        if j:
            n["translation"] = [0.0, SEGMENT, 0.0]
        if j + 1 < JOINTS:
            n["children"] = [2 + j]
        nodes.append(n)

    doc = {
        "asset": {"version": "2.0", "generator": "cna assets/Tentacle/make_tentacle.py",
                  "copyright": "The cna authors, MIT licence"},
        "extensionsUsed": ["KHR_texture_transform"],
        "scene": 0,
        "scenes": [{"name": "Tentacle", "nodes": [0, 1]}],
        "nodes": nodes,
        "meshes": [{"name": "Tentacle", "primitives": [prim]}],
        "skins": [skin],
        "animations": [{"name": "Wave", "samplers": samplers, "channels": channels}],
        "materials": [{
            "name": "Skin",
            "pbrMetallicRoughness": {
                "baseColorTexture": {"index": 0, "extensions": {
                    "KHR_texture_transform": {"scale": UV_SCALE}}},
                "metallicFactor": 0.0,
                "roughnessFactor": 0.45,
            },
        }],
        "textures": [{"sampler": 0, "source": 0}],
        "samplers": [{"magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497}],
        "images": [{"name": "tentacle", "uri": "tentacle.png", "mimeType": "image/png"}],
        "buffers": [{"byteLength": len(b.data), "uri": "tentacle.bin"}],
        "bufferViews": b.views,
        "accessors": b.accessors,
    }
    with open(os.path.join(OUT, "tentacle.gltf"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
