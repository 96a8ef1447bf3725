#!/usr/bin/env python3
"""Writes the hand-made glTF fixtures of the model tests into tests/data/fixtures/.

Run from anywhere: python3 tests/model/make_fixtures.py. The output is deterministic; the
files are committed, so the tests never run this script. What each fixture exercises is in
tests/data/fixtures/SOURCE.md.
"""
import base64
import json
import math
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "fixtures")

FLOAT, UBYTE, USHORT = 5126, 5121, 5123


# ---------------------------------------------------------------- 4x4 helpers (column-major)
def ident():
    return [1.0 if i % 5 == 0 else 0.0 for i in range(16)]


def mul(a, b):
    r = [0.0] * 16
    for c in range(4):
        for row in range(4):
            r[c * 4 + row] = sum(a[k * 4 + row] * b[c * 4 + k] for k in range(4))
    return r


def trs(t=(0, 0, 0), q=(0, 0, 0, 1), s=(1, 1, 1)):
    x, y, z, w = q
    m = [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0,
         2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0,
         2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0,
         t[0], t[1], t[2], 1]
    for c in range(3):
        for row in range(3):
            m[c * 4 + row] *= s[c]
    return m


def inverse(m):
    a = [[m[c * 4 + r] for c in range(4)] + [1.0 if r == i else 0.0 for i in range(4)]
         for r in range(4)]
    for i in range(4):
        p = max(range(i, 4), key=lambda r: abs(a[r][i]))
        a[i], a[p] = a[p], a[i]
        d = a[i][i]
        a[i] = [x / d for x in a[i]]
        for r in range(4):
            if r != i:
                f = a[r][i]
                a[r] = [x - f * y for x, y in zip(a[r], a[i])]
    return [a[r][4 + c] for c in range(4) for r in range(4)]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def quat_z(deg):
    h = math.radians(deg) / 2
    return (0.0, 0.0, math.sin(h), math.cos(h))


# ---------------------------------------------------------------- glTF builder
class Builder:
    def __init__(self):
        self.data = bytearray()
        self.views = []
        self.accessors = []

    def _view(self, raw):
        while len(self.data) % 4:
            self.data.append(0)
        self.views.append({"buffer": 0, "byteOffset": len(self.data), "byteLength": len(raw)})
        self.data += raw
        return len(self.views) - 1

    def accessor(self, comp, typ, values, minmax=False):
        fmt = {FLOAT: "f", UBYTE: "B", USHORT: "H"}[comp]
        n = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}[typ]
        flat = [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]
        raw = struct.pack("<%d%s" % (len(flat), fmt), *flat)
        acc = {"bufferView": self._view(raw), "componentType": comp, "type": typ,
               "count": len(flat) // n}
        if minmax:
            acc["min"] = [min(flat[i::n]) for i in range(n)]
            acc["max"] = [max(flat[i::n]) for i in range(n)]
        self.accessors.append(acc)
        return len(self.accessors) - 1

    def skinned_triangle(self, joints, weights=None):
        """A one-primitive mesh: three vertices, each bound to the given joint ordinals."""
        pos = self.accessor(FLOAT, "VEC3", [(0, 0, 0), (1, 0, 0), (0, 1, 0)], minmax=True)
        j = self.accessor(UBYTE, "VEC4", joints)
        w = self.accessor(FLOAT, "VEC4", weights or [(1, 0, 0, 0)] * 3)
        return {"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": j, "WEIGHTS_0": w}}]}

    def rigid_triangle(self):
        pos = self.accessor(FLOAT, "VEC3", [(0, 0, 0), (1, 0, 0), (0, 1, 0)], minmax=True)
        return {"primitives": [{"attributes": {"POSITION": pos}}]}

    def sampler(self, times, values, interpolation="LINEAR", typ="VEC3"):
        i = self.accessor(FLOAT, "SCALAR", times, minmax=True)
        o = self.accessor(FLOAT, typ, values)
        return {"input": i, "output": o, "interpolation": interpolation}

    def gltf(self, **parts):
        doc = {"asset": {"version": "2.0", "generator": "cna tests/model/make_fixtures.py"}}
        doc.update(parts)
        if self.data:
            doc["buffers"] = [{"byteLength": len(self.data), "uri":
                               "data:application/octet-stream;base64," +
                               base64.b64encode(bytes(self.data)).decode()}]
            doc["bufferViews"] = self.views
            doc["accessors"] = self.accessors
        return doc


def write(name, doc):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


# ---------------------------------------------------------------- fixtures
def skin_mesh_node_transform():
    """The spec's -50 fixture: mesh node T(0,0,50), one joint with identity bind and IBM."""
    b = Builder()
    mesh = b.skinned_triangle([(0, 0, 0, 0)] * 3)
    ibm = b.accessor(FLOAT, "MAT4", [ident()])
    write("skin-mesh-node-transform.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 1]}],
        nodes=[{"name": "MeshNode", "mesh": 0, "skin": 0, "translation": [0, 0, 50]},
               {"name": "Joint"}],
        meshes=[mesh], skins=[{"joints": [1], "inverseBindMatrices": ibm}]))


def armature():
    """Root joint under a transformed armature node; the mesh node elsewhere, transformed;
    skin.skeleton names the root joint (the walk must go above it)."""
    arm = trs((1, 2, 3), quat_z(90), (2, 2, 2))
    root_local = trs((0, 1, 0))
    tip_local = trs((0, 1, 0))
    root_world = mul(arm, root_local)
    tip_world = mul(root_world, tip_local)
    b = Builder()
    mesh = b.skinned_triangle([(0, 1, 0, 0)] * 3, [(0.5, 0.5, 0, 0)] * 3)
    ibm = b.accessor(FLOAT, "MAT4", [inverse(root_world), inverse(tip_world)])
    return b, mesh, ibm


def skin_armature_ancestor():
    b, mesh, ibm = armature()
    write("skin-armature-ancestor.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 3]}],
        nodes=[{"name": "Armature", "translation": [1, 2, 3], "rotation": list(quat_z(90)),
                "scale": [2, 2, 2], "children": [1]},
               {"name": "Root", "translation": [0, 1, 0], "children": [2]},
               {"name": "Tip", "translation": [0, 1, 0]},
               {"name": "MeshNode", "mesh": 0, "skin": 0, "translation": [0, 0, 5]}],
        meshes=[mesh], skins=[{"joints": [1, 2], "inverseBindMatrices": ibm, "skeleton": 1}]))


def chain(reversed_order):
    """Three joints in a chain (J0 -> J1 -> J2) with rotation and translation clips, listed
    parent-first or in reverse; JOINTS_0 follows the listing so both files are one model."""
    locals_ = [trs((0, 0, 0)), trs((0, 1, 0)), trs((0, 1, 0))]
    worlds = [locals_[0], mul(locals_[0], locals_[1]), mul(mul(locals_[0], locals_[1]), locals_[2])]
    order = [2, 1, 0] if reversed_order else [0, 1, 2]   # ordinal k -> chain joint order[k]
    ordinal = {j: k for k, j in enumerate(order)}
    b = Builder()
    mesh = b.skinned_triangle([(ordinal[0], ordinal[1], 0, 0), (ordinal[1], ordinal[2], 0, 0),
                               (ordinal[2], 0, 0, 0)],
                              [(0.75, 0.25, 0, 0), (0.5, 0.5, 0, 0), (1, 0, 0, 0)])
    ibm = b.accessor(FLOAT, "MAT4", [inverse(worlds[j]) for j in order])
    s_rot = b.sampler([0, 1, 2], [quat_z(0), quat_z(60), quat_z(-30)], "LINEAR", "VEC4")
    s_tr = b.sampler([0, 0.5, 2], [(0, 1, 0), (0.5, 1.5, 0), (0, 1, 0)], "LINEAR")
    s_step = b.sampler([0, 1, 1.5], [quat_z(0), quat_z(45), quat_z(90)], "STEP", "VEC4")
    # node indices: 0 mesh node, 1 + j = chain joint j
    nodes = [{"name": "MeshNode", "mesh": 0, "skin": 0},
             {"name": "J0", "children": [2]},
             {"name": "J1", "translation": [0, 1, 0], "children": [3]},
             {"name": "J2", "translation": [0, 1, 0]}]
    name = "skin-reversed-joints.gltf" if reversed_order else "skin-ordered-joints.gltf"
    write(name, b.gltf(
        scene=0, scenes=[{"nodes": [0, 1]}], nodes=nodes, meshes=[mesh],
        skins=[{"joints": [1 + j for j in order], "inverseBindMatrices": ibm}],
        animations=[{"name": "Bend", "samplers": [s_rot, s_tr, s_step],
                     "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}},
                                  {"sampler": 1, "target": {"node": 2, "path": "translation"}},
                                  {"sampler": 2, "target": {"node": 3, "path": "rotation"}}]}]))


def skin_73_joints():
    b = Builder()
    mesh = b.skinned_triangle([(0, 0, 0, 0)] * 3)
    nodes = [{"name": "MeshNode", "mesh": 0, "skin": 0}]
    for j in range(73):
        n = {"name": "J%d" % j, "translation": [0, 0.1, 0]}
        if j < 72:
            n["children"] = [2 + j]
        nodes.append(n)
    write("skin-73-joints.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 1]}], nodes=nodes, meshes=[mesh],
        skins=[{"joints": list(range(1, 74))}]))


def step_three_keys():
    """A rigid node whose x translation STEPs 0, 10, 20 at t = 0, 1, 2."""
    b = Builder()
    mesh = b.rigid_triangle()
    s = b.sampler([0, 1, 2], [(0, 0, 0), (10, 0, 0), (20, 0, 0)], "STEP")
    write("step-three-keys.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0]}], nodes=[{"name": "Box", "mesh": 0}], meshes=[mesh],
        animations=[{"name": "Step", "samplers": [s],
                     "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}]))


def cubic_rotation():
    """A CUBICSPLINE rotation from identity to 90 degrees about Z with zero tangents, and a
    LINEAR translation with a key at 0.5 s so the union has a key mid-curve."""
    b = Builder()
    mesh = b.rigid_triangle()
    z = (0.0, 0.0, 0.0, 0.0)
    rot = b.sampler([0, 1], [z, quat_z(0), z, z, quat_z(90), z], "CUBICSPLINE", "VEC4")
    tr = b.sampler([0, 0.5, 1], [(0, 0, 0), (1, 0, 0), (2, 0, 0)], "LINEAR")
    write("cubic-rotation.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0]}], nodes=[{"name": "Spinner", "mesh": 0}], meshes=[mesh],
        animations=[{"name": "Spin", "samplers": [rot, tr],
                     "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}},
                                  {"sampler": 1, "target": {"node": 0, "path": "translation"}}]}]))


def skin_two_instances():
    """One skin instanced by two nodes with different transforms (glTF ignores both)."""
    b, mesh, ibm = armature()
    write("skin-two-instances.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 3, 4]}],
        nodes=[{"name": "Armature", "translation": [1, 2, 3], "rotation": list(quat_z(90)),
                "scale": [2, 2, 2], "children": [1]},
               {"name": "Root", "translation": [0, 1, 0], "children": [2]},
               {"name": "Tip", "translation": [0, 1, 0]},
               {"name": "MeshA", "mesh": 0, "skin": 0, "translation": [0, 0, 50]},
               {"name": "MeshB", "mesh": 0, "skin": 0, "translation": [10, 0, 0],
                "rotation": list(quat_z(30)), "scale": [3, 3, 3]}],
        meshes=[mesh], skins=[{"joints": [1, 2], "inverseBindMatrices": ibm}]))


def skin_folded_node():
    """A non-joint node (animated) between two joints: folded into the child's bind pose."""
    mid_local = trs((0, 1, 0), quat_z(90))
    j0 = trs((0, 0, 0))
    j1 = trs((1, 0, 0))
    w1 = mul(mul(j0, mid_local), j1)
    b = Builder()
    mesh = b.skinned_triangle([(0, 1, 0, 0)] * 3, [(0.5, 0.5, 0, 0)] * 3)
    ibm = b.accessor(FLOAT, "MAT4", [inverse(j0), inverse(w1)])
    s_mid = b.sampler([0, 1], [(0, 1, 0), (0, 2, 0)], "LINEAR")
    s_j1 = b.sampler([0, 1], [quat_z(0), quat_z(90)], "LINEAR", "VEC4")
    write("skin-folded-node.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 1]}],
        nodes=[{"name": "MeshNode", "mesh": 0, "skin": 0},
               {"name": "J0", "children": [2]},
               {"name": "Mid", "translation": [0, 1, 0], "rotation": list(quat_z(90)), "children": [3]},
               {"name": "J1", "translation": [1, 0, 0]}],
        meshes=[mesh], skins=[{"joints": [1, 3], "inverseBindMatrices": ibm}],
        animations=[{"name": "Wave", "samplers": [s_mid, s_j1],
                     "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}},
                                  {"sampler": 1, "target": {"node": 3, "path": "rotation"}}]}]))


def skin_animated_fold():
    """An animated non-joint node between two joints: Mid's translation and rotation (LINEAR,
    rotating J1's offset on an arc) and J1's own rotation, keys at different times; the mesh
    node is moved (T(0,0,2))."""
    mid = trs((0, 1, 0), quat_z(30))
    j1 = trs((1, 0, 0))
    w1 = mul(mid, j1)
    b = Builder()
    mesh = b.skinned_triangle([(0, 1, 0, 0)] * 3, [(0.25, 0.75, 0, 0), (0, 1, 0, 0), (0.5, 0.5, 0, 0)])
    ibm = b.accessor(FLOAT, "MAT4", [ident(), inverse(w1)])
    s_mid_t = b.sampler([0, 1, 2], [(0, 1, 0), (0.5, 1.5, 0), (0, 1, 0)], "LINEAR")
    s_mid_r = b.sampler([0, 2], [quat_z(30), quat_z(120)], "LINEAR", "VEC4")
    s_j1 = b.sampler([0, 1.5], [quat_z(0), quat_z(90)], "LINEAR", "VEC4")
    write("skin-animated-fold.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 1]}],
        nodes=[{"name": "MeshNode", "mesh": 0, "skin": 0, "translation": [0, 0, 2]},
               {"name": "J0", "children": [2]},
               {"name": "Mid", "translation": [0, 1, 0], "rotation": list(quat_z(30)), "children": [3]},
               {"name": "J1", "translation": [1, 0, 0]}],
        meshes=[mesh], skins=[{"joints": [1, 3], "inverseBindMatrices": ibm}],
        animations=[{"name": "Swing", "samplers": [s_mid_t, s_mid_r, s_j1],
                     "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}},
                                  {"sampler": 1, "target": {"node": 2, "path": "rotation"}},
                                  {"sampler": 2, "target": {"node": 3, "path": "rotation"}}]}]))


def skin_animated_folds_stacked():
    """Two non-joint nodes stacked between two joints: A at rest (rotated about x), B animated
    (CUBICSPLINE translation, LINEAR rotation); J1 has no channel of its own. Above the root
    joint, Armature is animated (STEP rotation, LINEAR translation); the mesh node is elsewhere
    (T(0,0,5))."""
    h = math.radians(30) / 2
    qa = (math.sin(h), 0.0, 0.0, math.cos(h))
    arm = trs()
    j0 = trs((0, 1, 0))
    a = trs((0, 0.5, 0), qa)
    bn = trs((0, 0.5, 0))
    j1 = trs((0.8, 0, 0))
    w0 = mul(arm, j0)
    w1 = mul(mul(mul(w0, a), bn), j1)
    b = Builder()
    mesh = b.skinned_triangle([(0, 1, 0, 0)] * 3, [(0.5, 0.5, 0, 0), (0, 1, 0, 0), (0.2, 0.8, 0, 0)])
    ibm = b.accessor(FLOAT, "MAT4", [inverse(w0), inverse(w1)])
    s_arm_r = b.sampler([0, 1], [quat_z(0), quat_z(45)], "STEP", "VEC4")
    s_arm_t = b.sampler([0, 2], [(0, 0, 0), (1, 0, 0)], "LINEAR")
    # CUBICSPLINE: (in-tangent, value, out-tangent) per key
    s_b_t = b.sampler([0, 1, 2], [(0, 0, 0), (0, 0.5, 0), (1, 0, 0),
                                  (0, 0, 1), (0.3, 0.8, 0), (0, 0, -1),
                                  (-1, 0, 0), (0, 0.5, 0), (0, 0, 0)], "CUBICSPLINE")
    s_b_r = b.sampler([0, 2], [quat_z(0), quat_z(90)], "LINEAR", "VEC4")
    write("skin-animated-folds-stacked.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 5]}],
        nodes=[{"name": "Armature", "children": [1]},
               {"name": "J0", "translation": [0, 1, 0], "children": [2]},
               {"name": "A", "translation": [0, 0.5, 0], "rotation": list(qa), "children": [3]},
               {"name": "B", "translation": [0, 0.5, 0], "children": [4]},
               {"name": "J1", "translation": [0.8, 0, 0]},
               {"name": "MeshNode", "mesh": 0, "skin": 0, "translation": [0, 0, 5]}],
        meshes=[mesh], skins=[{"joints": [1, 4], "inverseBindMatrices": ibm}],
        animations=[{"name": "Stack", "samplers": [s_arm_r, s_arm_t, s_b_t, s_b_r],
                     "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}},
                                  {"sampler": 1, "target": {"node": 0, "path": "translation"}},
                                  {"sampler": 2, "target": {"node": 3, "path": "translation"}},
                                  {"sampler": 3, "target": {"node": 3, "path": "rotation"}}]}]))


def skin_animated_ancestor(name="skin-animated-ancestor.gltf", skeleton=None, time_bounds=True, basisu=False):
    """The root joint hangs under an animated non-joint node ("Armature": rotation and
    translation keys); the mesh node is elsewhere (T(0,0,5)); the tip joint is animated too.
    Variants for the lenient reader: a `skin.skeleton` hint, key-time accessors without
    min/max, a material whose base colour texture is a KHR_texture_basisu one (required; its
    image "face.ktx2" is not in the folder: without textures it is never read)."""
    b, _, ibm = armature()
    mesh = b.skinned_triangle([(0, 1, 0, 0)] * 3, [(0.5, 0.5, 0, 0), (1, 0, 0, 0), (0.25, 0.75, 0, 0)])
    s_arm_r = b.sampler([0, 1, 2], [quat_z(90), quat_z(120), quat_z(60)], "LINEAR", "VEC4")
    s_arm_t = b.sampler([0, 2], [(1, 2, 3), (3, 2, 3)], "LINEAR")
    s_tip = b.sampler([0, 1, 2], [quat_z(0), quat_z(45), quat_z(0)], "LINEAR", "VEC4")
    skin = {"joints": [1, 2], "inverseBindMatrices": ibm}
    if skeleton is not None:
        skin["skeleton"] = skeleton
    if not time_bounds:
        for smp in (s_arm_r, s_arm_t, s_tip):
            del b.accessors[smp["input"]]["min"], b.accessors[smp["input"]]["max"]
    extra = {}
    if basisu:
        mesh["primitives"][0]["material"] = 0
        extra = dict(
            extensionsUsed=["KHR_texture_basisu"], extensionsRequired=["KHR_texture_basisu"],
            images=[{"name": "Face", "uri": "face.ktx2", "mimeType": "image/ktx2"}],
            textures=[{"extensions": {"KHR_texture_basisu": {"source": 0}}}],
            materials=[{"name": "Skin", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}])
    write(name, b.gltf(**extra,
        scene=0, scenes=[{"nodes": [0, 3]}],
        nodes=[{"name": "Armature", "translation": [1, 2, 3], "rotation": list(quat_z(90)),
                "scale": [2, 2, 2], "children": [1]},
               {"name": "Root", "translation": [0, 1, 0], "children": [2]},
               {"name": "Tip", "translation": [0, 1, 0]},
               {"name": "MeshNode", "mesh": 0, "skin": 0, "translation": [0, 0, 5]}],
        meshes=[mesh], skins=[skin],
        animations=[{"name": "Sway", "samplers": [s_arm_r, s_arm_t, s_tip],
                     "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}},
                                  {"sampler": 1, "target": {"node": 0, "path": "translation"}},
                                  {"sampler": 2, "target": {"node": 2, "path": "rotation"}}]}]))


def empty_arrays():
    """An animation-only file (a node whose x translation STEPs 0, 10, 20 at t = 0, 1, 2)
    with empty top-level arrays where glTF requires at least one entry."""
    b = Builder()
    s = b.sampler([0, 1, 2], [(0, 0, 0), (10, 0, 0), (20, 0, 0)], "STEP")
    write("lenient-empty-arrays.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0]}], nodes=[{"name": "Mover"}], images=[], samplers=[], textures=[],
        materials=[], meshes=[], skins=[], cameras=[],
        animations=[{"name": "Step", "samplers": [s],
                     "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}]))


def skin_nested():
    """Nested skeletons: skin B's root joint B0 is a child of joint A1 of skin A; A0 moves,
    A1 and B1 rotate. One mesh is instanced by both skins (MeshA: skin A, MeshB: skin B)."""
    a0, a1, b0, b1 = trs((0, 0, 0)), trs((0, 1, 0)), trs((0, 1, 0)), trs((1, 0, 0))
    wa0 = a0
    wa1 = mul(wa0, a1)
    wb0 = mul(wa1, b0)
    wb1 = mul(wb0, b1)
    b = Builder()
    mesh = b.skinned_triangle([(0, 1, 0, 0)] * 3, [(0.5, 0.5, 0, 0), (1, 0, 0, 0), (0.25, 0.75, 0, 0)])
    ibm_a = b.accessor(FLOAT, "MAT4", [inverse(wa0), inverse(wa1)])
    ibm_b = b.accessor(FLOAT, "MAT4", [inverse(wb0), inverse(wb1)])
    s_a1 = b.sampler([0, 1, 2], [quat_z(0), quat_z(30), quat_z(-30)], "LINEAR", "VEC4")
    s_a0 = b.sampler([0, 2], [(0, 0, 0), (1, 0, 0)], "LINEAR")
    s_b1 = b.sampler([0, 1, 2], [quat_z(0), quat_z(90), quat_z(45)], "LINEAR", "VEC4")
    write("skin-nested.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 4, 5]}],
        nodes=[{"name": "A0", "children": [1]},
               {"name": "A1", "translation": [0, 1, 0], "children": [2]},
               {"name": "B0", "translation": [0, 1, 0], "children": [3]},
               {"name": "B1", "translation": [1, 0, 0]},
               {"name": "MeshA", "mesh": 0, "skin": 0},
               {"name": "MeshB", "mesh": 0, "skin": 1, "translation": [0, 0, 2]}],
        meshes=[mesh],
        skins=[{"joints": [0, 1], "inverseBindMatrices": ibm_a},
               {"joints": [2, 3], "inverseBindMatrices": ibm_b}],
        animations=[{"name": "Nest", "samplers": [s_a1, s_a0, s_b1],
                     "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}},
                                  {"sampler": 1, "target": {"node": 0, "path": "translation"}},
                                  {"sampler": 2, "target": {"node": 3, "path": "rotation"}}]}]))


def skin_animated_mesh_node():
    """The skinned mesh node itself is animated (translation and rotation); glTF ignores its
    transform for the skinned vertices, so they must not move with it."""
    root, tip = trs((0, 0, 0)), trs((0, 1, 0))
    b = Builder()
    mesh = b.skinned_triangle([(0, 1, 0, 0)] * 3, [(0.5, 0.5, 0, 0), (1, 0, 0, 0), (0.25, 0.75, 0, 0)])
    ibm = b.accessor(FLOAT, "MAT4", [inverse(root), inverse(mul(root, tip))])
    s_mt = b.sampler([0, 2], [(0, 0, 5), (4, 0, 5)], "LINEAR")
    s_mr = b.sampler([0, 2], [quat_z(0), quat_z(90)], "LINEAR", "VEC4")
    s_tip = b.sampler([0, 1, 2], [quat_z(0), quat_z(60), quat_z(0)], "LINEAR", "VEC4")
    write("skin-animated-mesh-node.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 2]}],
        nodes=[{"name": "Root", "children": [1]},
               {"name": "Tip", "translation": [0, 1, 0]},
               {"name": "MeshNode", "mesh": 0, "skin": 0, "translation": [0, 0, 5]}],
        meshes=[mesh], skins=[{"joints": [0, 1], "inverseBindMatrices": ibm}],
        animations=[{"name": "Drift", "samplers": [s_mt, s_mr, s_tip],
                     "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}},
                                  {"sampler": 1, "target": {"node": 2, "path": "rotation"}},
                                  {"sampler": 2, "target": {"node": 1, "path": "rotation"}}]}]))


def quat_y(deg):
    h = math.radians(deg) / 2
    return (0.0, math.sin(h), 0.0, math.cos(h))


def quat_mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def skin_root_motion():
    """A walker: the root joint moves forward along +Z (2 units per 1 s loop) with a vertical
    bob, turns about +Y (0 -> 20 -> 40 degrees) and leans about X; the tip joint swings. Two
    animations: "Walk" (root motion) and "Wave" (the tip only), for root-motion and blending tests."""
    root, tip = trs((0, 0, 0)), trs((0, 1, 0))
    b = Builder()
    mesh = b.skinned_triangle([(0, 1, 0, 0)] * 3, [(0.5, 0.5, 0, 0), (1, 0, 0, 0), (0.25, 0.75, 0, 0)])
    ibm = b.accessor(FLOAT, "MAT4", [inverse(root), inverse(mul(root, tip))])
    lean = (math.sin(math.radians(5) / 2), 0.0, 0.0, math.cos(math.radians(5) / 2))
    s_t = b.sampler([0, 0.25, 0.5, 0.75, 1], [(0, 0, 0), (0.1, 0.1, 0.5), (0, 0, 1), (-0.1, 0.1, 1.5), (0, 0, 2)],
                    "LINEAR")
    s_r = b.sampler([0, 0.5, 1], [quat_mul(quat_y(0), lean), quat_mul(quat_y(20), lean), quat_mul(quat_y(40), lean)],
                    "LINEAR", "VEC4")
    s_tip = b.sampler([0, 0.5, 1], [quat_z(0), quat_z(30), quat_z(0)], "LINEAR", "VEC4")
    s_wave = b.sampler([0, 0.4, 0.8], [quat_z(0), quat_z(-60), quat_z(0)], "LINEAR", "VEC4")
    write("skin-root-motion.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 2]}],
        nodes=[{"name": "Root", "children": [1]},
               {"name": "Tip", "translation": [0, 1, 0]},
               {"name": "MeshNode", "mesh": 0, "skin": 0}],
        meshes=[mesh], skins=[{"joints": [0, 1], "inverseBindMatrices": ibm}],
        animations=[{"name": "Walk", "samplers": [s_t, s_r, s_tip],
                     "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}},
                                  {"sampler": 1, "target": {"node": 0, "path": "rotation"}},
                                  {"sampler": 2, "target": {"node": 1, "path": "rotation"}}]},
                    {"name": "Wave", "samplers": [s_wave],
                     "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}]))


def reduce_keys():
    """A three-joint chain (Root -> Mid -> Tip) for key reduction: Root's translation is a
    straight ramp x = 0, 1, 2, 3, 4 at t = 0..4 s with an identity rotation (every inner key
    exactly redundant), Mid's rotation turns 0, 40, 10, 50, 0 degrees about z (no key
    redundant), Tip has no track."""
    locals_ = [trs((0, 0, 0)), trs((0, 1, 0)), trs((0, 1, 0))]
    worlds = [locals_[0], mul(locals_[0], locals_[1]), mul(mul(locals_[0], locals_[1]), locals_[2])]
    b = Builder()
    mesh = b.skinned_triangle([(0, 1, 0, 0), (1, 2, 0, 0), (2, 0, 0, 0)],
                              [(0.5, 0.5, 0, 0), (0.5, 0.5, 0, 0), (1, 0, 0, 0)])
    ibm = b.accessor(FLOAT, "MAT4", [inverse(w) for w in worlds])
    times = [0, 1, 2, 3, 4]
    s_tr = b.sampler(times, [(x, 0, 0) for x in range(5)], "LINEAR")
    s_rr = b.sampler(times, [quat_z(0)] * 5, "LINEAR", "VEC4")
    s_mr = b.sampler(times, [quat_z(d) for d in (0, 40, 10, 50, 0)], "LINEAR", "VEC4")
    write("reduce-keys.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 3]}],
        nodes=[{"name": "Root", "children": [1]},
               {"name": "Mid", "translation": [0, 1, 0], "children": [2]},
               {"name": "Tip", "translation": [0, 1, 0]},
               {"name": "MeshNode", "mesh": 0, "skin": 0}],
        meshes=[mesh], skins=[{"joints": [0, 1, 2], "inverseBindMatrices": ibm}],
        animations=[{"name": "Sway", "samplers": [s_tr, s_rr, s_mr],
                     "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}},
                                  {"sampler": 1, "target": {"node": 0, "path": "rotation"}},
                                  {"sampler": 2, "target": {"node": 1, "path": "rotation"}}]}]))


def animation_pointer(pointer):
    """Rigid and morph animation through KHR_animation_pointer (pointer=True) or the core
    targets (pointer=False), otherwise identical: "Mover" translates and turns, the morphed
    triangle's weight ramps 0 -> 1 -> 0 (a "/meshes/1/weights" pointer), and, in the pointer
    file only, a material colour channel that cna does not animate."""
    b = Builder()
    rigid = b.rigid_triangle()
    pos = b.accessor(FLOAT, "VEC3", [(0, 0, 0), (1, 0, 0), (0, 1, 0)], minmax=True)
    dpos = b.accessor(FLOAT, "VEC3", [(0, 0, 1), (0, 0, 1), (0, 0, 1)], minmax=True)
    morph = {"primitives": [{"attributes": {"POSITION": pos}, "targets": [{"POSITION": dpos}], "material": 0}],
             "weights": [0.0]}
    s_t = b.sampler([0, 1, 2], [(0, 0, 0), (1, 2, 0), (3, 0, 1)], "LINEAR")
    s_r = b.sampler([0, 2], [quat_z(0), quat_z(90)], "LINEAR", "VEC4")
    s_w = b.sampler([0, 1, 2], [0.0, 1.0, 0.0], "LINEAR", "SCALAR")
    samplers = [s_t, s_r, s_w]

    def target(node, path, ptr):
        if pointer:
            return {"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": ptr}}}
        return {"node": node, "path": path}
    channels = [{"sampler": 0, "target": target(0, "translation", "/nodes/0/translation")},
                {"sampler": 1, "target": target(0, "rotation", "/nodes/0/rotation")},
                {"sampler": 2, "target": target(1, "weights", "/meshes/1/weights")}]
    extra = {}
    if pointer:
        samplers.append(b.sampler([0, 2], [(1, 0, 0, 1), (0, 0, 1, 1)], "LINEAR", "VEC4"))
        channels.append({"sampler": 3, "target": target(-1, "", "/materials/0/pbrMetallicRoughness/baseColorFactor")})
        extra = {"extensionsUsed": ["KHR_animation_pointer"], "extensionsRequired": ["KHR_animation_pointer"]}
    write("animation-pointer.gltf" if pointer else "animation-pointer-core.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 1]}],
        nodes=[{"name": "Mover", "mesh": 0}, {"name": "Morpher", "mesh": 1, "translation": [2, 0, 0]}],
        meshes=[rigid, morph], materials=[{"name": "Paint"}],
        animations=[{"name": "Move", "samplers": samplers, "channels": channels}], **extra))
# ---------------------------------------------------------------- split palettes
def big_rig(joint_count, strand, first_node, name):
    """A tree of joint_count joints: J0 at the root, then strands of `strand` joints hanging
    from J0, each strand starting in its own direction and bending a little at every joint.
    Returns (nodes, worlds): glTF nodes first_node .. first_node + joint_count - 1 (children
    as glTF node indices) and each joint's bind-pose world matrix."""
    parent = [-1] + [0 if (j - 1) % strand == 0 else j - 1 for j in range(1, joint_count)]
    nodes, worlds = [], []
    for j in range(joint_count):
        if j == 0:
            t, q = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)
        elif parent[j] == 0:
            a = 2 * math.pi * ((j - 1) // strand) / ((joint_count - 2) // strand + 1)
            t, q = (0.3 * math.cos(a), 0.2, 0.3 * math.sin(a)), quat_z(5.0)
        else:
            t, q = (0.0, 0.1, 0.0), quat_z(3.0 if j % 2 else -2.0)
        n = {"name": "%s%d" % (name, j), "translation": list(t)}
        if j:
            n["rotation"] = list(q)
        kids = [first_node + k for k in range(joint_count) if parent[k] == j]
        if kids:
            n["children"] = kids
        nodes.append(n)
        local = trs(t, q)
        worlds.append(local if j == 0 else mul(worlds[parent[j]], local))
    return nodes, worlds, parent


def rig_mesh(b, worlds, parent, ordinal_of, normals=True, morph=False, offset=0.0):
    """Two vertices per joint (either side of the joint's bind position), bound to the joint,
    its parent and a far joint (weights 0.6, 0.3, 0.1; the fourth influence 0), so that the
    triangles between a joint and its parent, and those spanning far joints, need many
    joints: the primitive cannot be drawn with one palette of 72."""
    J = len(worlds)
    pos, jnt, wgt, nrm = [], [], [], []
    for j in range(J):
        w = worlds[j]
        for side in (-1.0, 1.0):
            pos.append((w[12] + side * 0.05 + offset, w[13], w[14] + 0.02 * side))
            far = (j + 37) % J
            jnt.append((ordinal_of[j], ordinal_of[max(parent[j], 0)], ordinal_of[far], ordinal_of[0]))
            wgt.append((0.6, 0.3, 0.1, 0.0))
            nrm.append((0.0, 0.0, 1.0))
    tri = []
    for j in range(1, J):
        p = parent[j]
        tri += [2 * j, 2 * j + 1, 2 * p, 2 * j + 1, 2 * p + 1, 2 * p]
    for j in range(0, J, 3):
        tri += [2 * j, 2 * ((j + 101) % J) + 1, 2 * ((j + 57) % J)]
    attrs = {"POSITION": b.accessor(FLOAT, "VEC3", pos, minmax=True),
             "JOINTS_0": b.accessor(USHORT, "VEC4", jnt),
             "WEIGHTS_0": b.accessor(FLOAT, "VEC4", wgt)}
    if normals:
        attrs["NORMAL"] = b.accessor(FLOAT, "VEC3", nrm)
    prim = {"attributes": attrs, "indices": b.accessor(USHORT, "SCALAR", tri)}
    mesh = {"primitives": [prim]}
    if morph:
        # every third vertex moves up and out
        delta = [(0.01 * (v % 5), 0.05, 0.0) if v % 3 == 0 else (0.0, 0.0, 0.0) for v in range(2 * J)]
        prim["targets"] = [{"POSITION": b.accessor(FLOAT, "VEC3", delta, minmax=True)}]
        mesh["weights"] = [0.25]
    return mesh


def rig_animation(b, first_node, joint_count, name, weights_node=None):
    """Keys at 0, 1, 2 s: every fifth joint bends about z (LINEAR rotation), the root
    moves (LINEAR translation); with weights_node, its morph weight ramps 0 -> 1 -> 0.5."""
    samplers, channels = [], []
    for j in range(1, joint_count, 5):
        a = 10.0 + (j % 7) * 3.0
        samplers.append(b.sampler([0, 1, 2], [quat_z(3.0 if j % 2 else -2.0), quat_z(a), quat_z(-a / 2)],
                                  "LINEAR", "VEC4"))
        channels.append({"sampler": len(samplers) - 1, "target": {"node": first_node + j, "path": "rotation"}})
    samplers.append(b.sampler([0, 1, 2], [(0, 0, 0), (0.5, 0.25, 0), (0, 0.5, 0.5)], "LINEAR"))
    channels.append({"sampler": len(samplers) - 1, "target": {"node": first_node, "path": "translation"}})
    if weights_node is not None:
        samplers.append(b.sampler([0, 1, 2], [0.0, 1.0, 0.5], "LINEAR", "SCALAR"))
        channels.append({"sampler": len(samplers) - 1, "target": {"node": weights_node, "path": "weights"}})
    return {"name": name, "samplers": samplers, "channels": channels}


def permuted(J):
    """Joint listing order: ordinal k lists joint (7 k) mod J, so ordinals are not palette indices."""
    order = [(7 * k) % J for k in range(J)]
    return order, {j: k for k, j in enumerate(order)}


def split_shared_skin():
    """(a) Two meshes sharing one 300-joint skin."""
    b = Builder()
    J = 300
    nodes = [{"name": "MeshA", "mesh": 0, "skin": 0}, {"name": "MeshB", "mesh": 1, "skin": 0,
                                                          "translation": [0, 0, 2]}]
    rig, worlds, parent = big_rig(J, 25, 2, "J")
    order, ordinal = permuted(J)
    meshes = [rig_mesh(b, worlds, parent, ordinal), rig_mesh(b, worlds, parent, ordinal, offset=0.5)]
    ibm = b.accessor(FLOAT, "MAT4", [inverse(worlds[j]) for j in order])
    anim = rig_animation(b, 2, J, "Bend")
    write("split-shared-skin.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 1, 2]}], nodes=nodes + rig, meshes=meshes,
        skins=[{"joints": [2 + j for j in order], "inverseBindMatrices": ibm}], animations=[anim]))


def split_two_skins():
    """(b) Two skins (100 and 300 joints) on separate meshes."""
    b = Builder()
    nodes = [{"name": "SmallMesh", "mesh": 0, "skin": 0}, {"name": "BigMesh", "mesh": 1, "skin": 1}]
    small, w_small, p_small = big_rig(100, 11, 2, "S")
    big, w_big, p_big = big_rig(300, 30, 102, "B")
    o_small, ord_small = permuted(100)
    o_big, ord_big = permuted(300)
    meshes = [rig_mesh(b, w_small, p_small, ord_small), rig_mesh(b, w_big, p_big, ord_big)]
    ibm_small = b.accessor(FLOAT, "MAT4", [inverse(w_small[j]) for j in o_small])
    ibm_big = b.accessor(FLOAT, "MAT4", [inverse(w_big[j]) for j in o_big])
    a_small = rig_animation(b, 2, 100, "Bend")
    a_big = rig_animation(b, 102, 300, "Bend")
    anim = {"name": "Bend", "samplers": a_small["samplers"] + a_big["samplers"],
            "channels": a_small["channels"] +
            [{"sampler": c["sampler"] + len(a_small["samplers"]), "target": c["target"]}
             for c in a_big["channels"]]}
    write("split-two-skins.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 1, 2, 102]}], nodes=nodes + small + big, meshes=meshes,
        skins=[{"joints": [2 + j for j in o_small], "inverseBindMatrices": ibm_small},
               {"joints": [102 + j for j in o_big], "inverseBindMatrices": ibm_big}],
        animations=[anim]))


def split_morph():
    """(c) A morph target on a skinned part of a 100-joint skin, without normals (flat split)."""
    b = Builder()
    J = 100
    nodes = [{"name": "MorphMesh", "mesh": 0, "skin": 0}]
    rig, worlds, parent = big_rig(J, 11, 1, "J")
    order, ordinal = permuted(J)
    meshes = [rig_mesh(b, worlds, parent, ordinal, normals=False, morph=True)]
    ibm = b.accessor(FLOAT, "MAT4", [inverse(worlds[j]) for j in order])
    anim = rig_animation(b, 1, J, "Bend", weights_node=0)
    write("split-morph.gltf", b.gltf(
        scene=0, scenes=[{"nodes": [0, 1]}], nodes=nodes + rig, meshes=meshes,
        skins=[{"joints": [1 + j for j in order], "inverseBindMatrices": ibm}], animations=[anim]))


# ---------------------------------------------------------------- EXT_mesh_gpu_instancing
INSTANCE_T = [(-2.0, 0.0, 0.0), (-1.0, 0.25, 0.0), (0.0, 0.0, 0.5), (1.0, -0.25, 0.0), (2.0, 0.0, -0.5)]
INSTANCE_R = [(0.0, 0.0, 0.0, 1.0), (0.0, 0.6, 0.0, 0.8), (0.6, 0.0, 0.0, 0.8), (0.0, 0.0, 0.8, 0.6),
              (0.28, 0.96, 0.0, 0.0)]
INSTANCE_S = [(1.0, 1.0, 1.0), (0.5, 0.5, 0.5), (1.5, 0.75, 1.0), (0.75, 0.75, 0.75), (-0.8, 0.8, 0.8)]
INSTANCING_NODE = {"translation": [0.0, 0.5, 0.0], "rotation": [0.0, 0.28, 0.0, 0.96], "scale": [0.75, 0.75, 0.75]}


def box_mesh(b):
    """A closed box [-0.25, 0.25]^3: 24 vertices with per-face normals, faces wound
    counter-clockwise seen from outside, USHORT indices, one orange material."""
    pos, nrm, idx = [], [], []
    for axis in range(3):
        for sign in (-1, 1):
            ua, va = (axis + 1) % 3, (axis + 2) % 3
            if sign < 0:
                ua, va = va, ua
            first = len(pos)
            for su, sv in ((0, 0), (1, 0), (1, 1), (0, 1)):
                p = [0.0, 0.0, 0.0]
                p[axis] = 0.25 * sign
                p[ua] = 0.25 if su else -0.25
                p[va] = 0.25 if sv else -0.25
                n = [0.0, 0.0, 0.0]
                n[axis] = float(sign)
                pos.append(tuple(p))
                nrm.append(tuple(n))
            idx += [first + k for k in (0, 1, 2, 0, 2, 3)]
    p = b.accessor(FLOAT, "VEC3", pos, minmax=True)
    n = b.accessor(FLOAT, "VEC3", nrm)
    i = b.accessor(USHORT, "SCALAR", idx)
    return {"name": "Box", "primitives": [{"attributes": {"POSITION": p, "NORMAL": n}, "indices": i, "material": 0}]}


def instancing():
    """The box instanced five times by one node (EXT_mesh_gpu_instancing, required), and
    its twin: the same node transform on a parent of five plain child nodes, one per
    instance with the instance's TRS."""
    material = [{"name": "Orange", "pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.45, 0.15, 1.0],
                                                             "metallicFactor": 0.0, "roughnessFactor": 0.8}}]
    b = Builder()
    mesh = box_mesh(b)
    t = b.accessor(FLOAT, "VEC3", INSTANCE_T)
    r = b.accessor(FLOAT, "VEC4", INSTANCE_R)
    s = b.accessor(FLOAT, "VEC3", INSTANCE_S)
    node = dict(name="Boxes", mesh=0, **INSTANCING_NODE)
    node["extensions"] = {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": t, "ROTATION": r, "SCALE": s}}}
    write("instancing.gltf", b.gltf(extensionsUsed=["EXT_mesh_gpu_instancing"],
                                    extensionsRequired=["EXT_mesh_gpu_instancing"], materials=material,
                                    meshes=[mesh], nodes=[node], scenes=[{"nodes": [0]}], scene=0))
    b = Builder()
    mesh = box_mesh(b)
    nodes = [dict(name="Boxes", children=[1, 2, 3, 4, 5], **INSTANCING_NODE)]
    for k in range(5):
        nodes.append({"name": "Box%d" % k, "mesh": 0, "translation": list(INSTANCE_T[k]),
                      "rotation": list(INSTANCE_R[k]), "scale": list(INSTANCE_S[k])})
    write("instancing-nodes.gltf", b.gltf(materials=material, meshes=[mesh], nodes=nodes,
                                          scenes=[{"nodes": [0]}], scene=0))


def instancing_skinned():
    """A skinned box (two joints: the top half follows a bending "Tip") instanced three
    times by its mesh node (EXT_mesh_gpu_instancing): every instance bends alike, the
    instance transform applied after skinning, in the node's space."""
    material = [{"name": "Orange", "pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.45, 0.15, 1.0],
                                                             "metallicFactor": 0.0, "roughnessFactor": 0.8}}]
    b = Builder()
    mesh = box_mesh(b)
    prim = mesh["primitives"][0]
    pos = b.accessors[prim["attributes"]["POSITION"]]
    count = pos["count"]
    # the box's 24 vertices: those above y = 0 follow the tip joint
    raw = b.data[b.views[pos["bufferView"]]["byteOffset"]:][:count * 12]
    ys = [struct.unpack_from("<3f", raw, 12 * k)[1] for k in range(count)]
    prim["attributes"]["JOINTS_0"] = b.accessor(UBYTE, "VEC4", [(1 if y > 0 else 0, 0, 0, 0) for y in ys])
    prim["attributes"]["WEIGHTS_0"] = b.accessor(FLOAT, "VEC4", [(1, 0, 0, 0)] * count)
    root, tip = trs((0, -0.25, 0)), trs((0, 0.25, 0))
    ibm = b.accessor(FLOAT, "MAT4", [inverse(root), inverse(mul(root, tip))])
    bend = b.sampler([0, 1], [quat_z(0), quat_z(40)], "LINEAR", "VEC4")
    t = b.accessor(FLOAT, "VEC3", [(-1.0, 0.0, 0.0), (0.0, 0.25, 0.0), (1.0, 0.0, 0.0)])
    r = b.accessor(FLOAT, "VEC4", [quat_z(0), quat_y(30), quat_z(-20)])
    sc = b.accessor(FLOAT, "VEC3", [(1, 1, 1), (0.8, 1.2, 0.8), (1.1, 1.1, 1.1)])
    node = {"name": "Boxes", "mesh": 0, "skin": 0, "translation": [0.0, 0.5, 0.0],
            "extensions": {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": t, "ROTATION": r, "SCALE": sc}}}}
    write("instancing-skinned.gltf", b.gltf(
        extensionsUsed=["EXT_mesh_gpu_instancing"], materials=material, meshes=[mesh],
        nodes=[node, {"name": "Root", "translation": [0, -0.25, 0], "children": [2]},
               {"name": "Tip", "translation": [0, 0.25, 0]}],
        skins=[{"joints": [1, 2], "inverseBindMatrices": ibm}],
        animations=[{"name": "Bend", "samplers": [bend],
                     "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}]}],
        scenes=[{"nodes": [0, 1]}], scene=0))


def main():
    os.makedirs(OUT, exist_ok=True)
    skin_mesh_node_transform()
    skin_armature_ancestor()
    chain(False)
    chain(True)
    skin_73_joints()
    step_three_keys()
    cubic_rotation()
    skin_two_instances()
    skin_folded_node()
    skin_animated_fold()
    skin_animated_folds_stacked()
    skin_animated_ancestor()
    skin_animated_ancestor("lenient-skeleton-hint.gltf", skeleton=2)
    skin_animated_ancestor("lenient-time-bounds.gltf", time_bounds=False)
    skin_animated_ancestor("lenient-texture-basisu.gltf", basisu=True)
    empty_arrays()
    skin_nested()
    skin_animated_mesh_node()
    skin_root_motion()
    reduce_keys()
    animation_pointer(True)
    animation_pointer(False)
    split_shared_skin()
    split_two_skins()
    split_morph()
    instancing()
    instancing_skinned()

if __name__ == "__main__":
    main()
