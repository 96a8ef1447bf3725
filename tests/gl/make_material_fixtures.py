#!/usr/bin/env python3
"""Writes the material fixtures (glTF files and their small PNG textures) into
tests/data/fixtures-materials/.

Run from anywhere: python3 tests/gl/make_material_fixtures.py. The output is deterministic
(only the standard library: zlib and struct write the PNGs); the files are committed, so the
tests never run this script. What each fixture exercises, and the values the tests expect
from it, are in tests/data/fixtures-materials/SOURCE.md.

Every fixture is made of quads in the XY plane facing +Z (counter-clockwise seen from +Z)
unless said otherwise, sized so that a draw with identity view and projection covers known
parts of the screen; UV (0, 0) is the quad's top-left corner, v grows downwards (glTF's).
"""
import base64
import json
import math
import os
import struct
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "fixtures-materials")

FLOAT, USHORT = 5126, 5123
NEAREST, LINEAR, CLAMP = 9728, 9729, 33071


def png(width, height, rgba):
    """An 8-bit RGBA PNG of `rgba` (rows top to bottom, 4 ints a pixel)."""
    raw = b""
    for y in range(height):
        raw += b"\x00" + bytes(rgba[(y * width) * 4:(y * width + width) * 4])

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def solid(rgba):
    return png(1, 1, list(rgba))


class Gltf:
    """Builds one glTF file: a buffer (embedded as a data URI), meshes of quads, materials."""

    def __init__(self):
        self.bin = b""
        self.doc = {"asset": {"version": "2.0", "generator": "cna make_material_fixtures.py"},
                    "scene": 0, "scenes": [{"nodes": []}], "nodes": [], "meshes": [], "materials": [],
                    "textures": [], "images": [], "samplers": [], "accessors": [], "bufferViews": []}

    def view(self, data):
        while len(self.bin) % 4:
            self.bin += b"\x00"
        self.doc["bufferViews"].append({"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)})
        self.bin += data
        return len(self.doc["bufferViews"]) - 1

    def accessor(self, values, comps, ctype=FLOAT, minmax=False):
        fmt = "<%d%s" % (len(values), "f" if ctype == FLOAT else "H")
        acc = {"bufferView": self.view(struct.pack(fmt, *values)), "componentType": ctype,
               "count": len(values) // comps, "type": {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4"}[comps]}
        if minmax:
            acc["min"] = [min(values[i::comps]) for i in range(comps)]
            acc["max"] = [max(values[i::comps]) for i in range(comps)]
        self.doc["accessors"].append(acc)
        return len(self.doc["accessors"]) - 1

    def sampler(self, mag=NEAREST, minf=NEAREST, wrap=CLAMP):
        self.doc["samplers"].append({"magFilter": mag, "minFilter": minf, "wrapS": wrap, "wrapT": wrap})
        return len(self.doc["samplers"]) - 1

    def texture(self, name, png_bytes, files, sampler):
        """An external PNG image `name`.png (written next to the glTF) and a texture of it."""
        files[name + ".png"] = png_bytes
        self.doc["images"].append({"name": name, "uri": name + ".png", "mimeType": "image/png"})
        self.doc["textures"].append({"source": len(self.doc["images"]) - 1, "sampler": sampler})
        return len(self.doc["textures"]) - 1

    def material(self, m):
        self.doc["materials"].append(m)
        return len(self.doc["materials"]) - 1

    def quad(self, name, x0, y0, x1, y1, z, material, normal_z=1.0, tangent=False, uv0=None, uv1=False,
             back=False):
        """A quad from (x0, y0) to (x1, y1) at depth z. back: the normal is -Z and the winding clockwise
        seen from +Z (a plane seen from behind)."""
        pos = [x0, y0, z, x1, y0, z, x1, y1, z, x0, y1, z]
        nz = -1.0 if back else normal_z
        attrs = {"POSITION": self.accessor(pos, 3, minmax=True), "NORMAL": self.accessor([0, 0, nz] * 4, 3)}
        if tangent:
            attrs["TANGENT"] = self.accessor([1, 0, 0, 1] * 4, 4)
        uv = [0, 1, 1, 1, 1, 0, 0, 0]
        attrs["TEXCOORD_0"] = self.accessor(uv0 if uv0 is not None else uv, 2)
        if uv1:
            attrs["TEXCOORD_1"] = self.accessor(uv, 2)
        idx = [0, 2, 1, 0, 3, 2] if back else [0, 1, 2, 0, 2, 3]
        self.doc["meshes"].append({"name": name, "primitives": [
            {"attributes": attrs, "indices": self.accessor(idx, 1, USHORT), "material": material}]})
        self.doc["nodes"].append({"name": name, "mesh": len(self.doc["meshes"]) - 1})
        self.doc["scenes"][0]["nodes"].append(len(self.doc["nodes"]) - 1)

    def write(self, path, used=None, required=None):
        doc = dict(self.doc)
        doc["buffers"] = [{"byteLength": len(self.bin),
                           "uri": "data:application/octet-stream;base64," + base64.b64encode(self.bin).decode()}]
        for key in ("textures", "images", "samplers", "materials"):
            if not doc[key]:
                del doc[key]
        if used:
            doc["extensionsUsed"] = used
        if required:
            doc["extensionsRequired"] = required
        with open(path, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")


# 8 colours whose channels are 0 or 255 (exact through sRGB decoding and the 1/2.2 encoding).
PALETTE = [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (255, 0, 255), (0, 255, 255),
           (255, 255, 255)]


def grid4():
    """4x4 texels; texel (column c, row r) is PALETTE[(4 r + c) % 8]."""
    px = []
    for r in range(4):
        for c in range(4):
            px += list(PALETTE[(4 * r + c) % 8]) + [255]
    return png(4, 4, px)


def texture_transform(files):
    g = Gltf()
    s = g.sampler()
    tex = g.texture("grid", grid4(), files, s)
    mat = g.material({"name": "Transformed", "pbrMetallicRoughness": {
        "metallicFactor": 0,
        "baseColorTexture": {"index": tex, "texCoord": 0, "extensions": {"KHR_texture_transform": {
            "offset": [0, 1], "rotation": math.pi / 2, "scale": [0.5, 0.5], "texCoord": 1}}}}})
    # TEXCOORD_0 is the constant (0.99, 0.01) (texel column 3, row 0): what a reader that ignores the
    # texCoord override would show everywhere.
    g.quad("Quad", -1, -1, 1, 1, 0, mat, uv0=[0.99, 0.01] * 4, uv1=True)
    g.write(os.path.join(OUT, "texture-transform.gltf"), used=["KHR_texture_transform"],
            required=["KHR_texture_transform"])


def emissive_strength(files):
    g = Gltf()
    black = {"baseColorFactor": [0, 0, 0, 1], "metallicFactor": 0}
    strong = g.material({"name": "Strong", "pbrMetallicRoughness": black, "emissiveFactor": [0.1, 0.05, 0.2],
                         "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 4}}})
    plain = g.material({"name": "Plain", "pbrMetallicRoughness": black, "emissiveFactor": [0.1, 0.05, 0.2]})
    g.quad("Left", -1, -1, 0, 1, 0, strong)
    g.quad("Right", 0, -1, 1, 1, 0, plain)
    g.write(os.path.join(OUT, "emissive-strength.gltf"), used=["KHR_materials_emissive_strength"],
            required=["KHR_materials_emissive_strength"])


def unlit(files):
    g = Gltf()
    colour = {"baseColorFactor": [0.5, 0.25, 1, 1], "metallicFactor": 0}
    flat = g.material({"name": "Flat", "pbrMetallicRoughness": colour, "emissiveFactor": [0.2, 0.2, 0.2],
                       "extensions": {"KHR_materials_unlit": {}}})
    lit = g.material({"name": "Lit", "pbrMetallicRoughness": colour, "emissiveFactor": [0.2, 0.2, 0.2]})
    g.quad("Left", -1, -1, 0, 1, 0, flat)
    g.quad("Right", 0, -1, 1, 1, 0, lit)
    g.write(os.path.join(OUT, "unlit.gltf"), used=["KHR_materials_unlit"], required=["KHR_materials_unlit"])


def pbr_five_maps(files):
    g = Gltf()
    s = g.sampler()
    base = g.texture("base", solid((255, 255, 0, 255)), files, s)
    mr = g.texture("metal_rough", solid((0, 255, 0, 255)), files, s)      # G roughness 1, B metallic 0
    # tangent-space normal tilted 45 degrees towards +u: (sin 45, 0, cos 45) encoded as (n + 1) / 2
    nrm = g.texture("normal", solid((218, 128, 218, 255)), files, s)
    occ = g.texture("occlusion", solid((128, 128, 128, 255)), files, s)   # R 128/255: ao 0.502 at strength 1
    emi = g.texture("emissive", solid((0, 0, 255, 255)), files, s)
    five = {"name": "Five", "pbrMetallicRoughness": {
        "baseColorFactor": [1, 1, 1, 1], "metallicFactor": 1, "roughnessFactor": 1,
        "baseColorTexture": {"index": base}, "metallicRoughnessTexture": {"index": mr}},
        "normalTexture": {"index": nrm, "scale": 1}, "occlusionTexture": {"index": occ, "strength": 1},
        "emissiveTexture": {"index": emi}, "emissiveFactor": [0, 0, 0.25]}
    m = g.material(five)
    # the left quad carries tangents; the right one has none (its normal map frame comes from
    # screen-space derivatives) and must look the same
    g.quad("WithTangents", -1, -1, 0, 1, 0, m, tangent=True)
    g.quad("WithoutTangents", 0, -1, 1, 1, 0, m)
    g.write(os.path.join(OUT, "pbr-five-maps.gltf"))


def alpha_modes(files):
    g = Gltf()
    s = g.sampler()
    # left texel alpha 64 (below the 0.5 cutoff: discarded), right texel alpha 200 (kept)
    cut = g.texture("cutout", png(2, 1, [255, 255, 255, 64, 255, 255, 255, 200]), files, s)
    mask = g.material({"name": "Mask", "alphaMode": "MASK", "alphaCutoff": 0.5, "pbrMetallicRoughness": {
        "baseColorFactor": [1, 0, 0, 1], "metallicFactor": 0, "baseColorTexture": {"index": cut}}})
    blend = g.material({"name": "Glass", "alphaMode": "BLEND", "pbrMetallicRoughness": {
        "baseColorFactor": [1, 0, 0, 0.5], "metallicFactor": 0}})
    green = g.material({"name": "Green", "pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 1],
                                                                  "metallicFactor": 0}})
    g.quad("Mask", -1, -1, 0, 1, 0, mask)
    # the blended quad comes first in the file and in front (smaller z); the opaque one behind it is
    # drawn before it all the same
    g.quad("Glass", 0, -1, 1, 1, -0.5, blend)
    g.quad("Behind", 0, -1, 1, 1, 0.5, green)
    g.write(os.path.join(OUT, "alpha-modes.gltf"))


def double_sided(files):
    g = Gltf()
    grey = {"baseColorFactor": [0.5, 0.5, 0.5, 1], "metallicFactor": 0}
    two = g.material({"name": "TwoSided", "doubleSided": True, "pbrMetallicRoughness": grey})
    one = g.material({"name": "OneSided", "pbrMetallicRoughness": grey})
    g.quad("DoubleSided", -1, -1, 0, 1, 0, two, back=True)
    g.quad("SingleSided", 0, -1, 1, 1, 0, one, back=True)
    g.write(os.path.join(OUT, "double-sided.gltf"))


def missing_image(files):
    g = Gltf()
    s = g.sampler()
    ok = g.texture("body_c", solid((255, 255, 255, 255)), files, s)
    g.doc["images"].append({"name": "body_n", "uri": "body_n.png"})      # never written: missing
    g.doc["textures"].append({"source": 1, "sampler": s})
    body = g.material({"name": "Body", "pbrMetallicRoughness": {"metallicFactor": 0, "baseColorTexture": {"index": ok}},
                       "normalTexture": {"index": 1}})
    g.quad("Body", -1, -1, 1, 1, 0, body)
    g.write(os.path.join(OUT, "missing-image.gltf"))


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {}
    for make in (texture_transform, emissive_strength, unlit, pbr_five_maps, alpha_modes, double_sided, missing_image):
        make(files)
    for name, data in sorted(files.items()):
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
