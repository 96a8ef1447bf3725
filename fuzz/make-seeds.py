#!/usr/bin/env python3
"""Writes some of cna's own glTF fuzz seeds into fuzz/corpus/gltf/ (self-contained: buffers
as data URIs), one per reader path that the lenient rules and the decoded-size limit added:

  key-times-equal.gltf        equal consecutive key times (LINEAR translation and morph
                              weights, STEP at equal first times): the key-times-equal path
  unlit-required.gltf         a KHR_materials_unlit material, the extension required
  meshopt-fallback-data.gltf  an EXT_meshopt_compression fallback buffer that holds data and
                              that an uncompressed view also reads (meshopt-fallback-read)
  meshopt-decoded-limit.gltf  a meshopt view declaring one byte more than the default
                              decoded-size limit (24 MiB): refused before decoding
  texture-basisu-required.gltf  KHR_texture_basisu required; it ends with a newline, whose
                              bit 1 makes the harnesses load it without textures (no_textures)

Run from anywhere: python3 fuzz/make-seeds.py. Deterministic; the meshopt stream is encoded by
Debian's libmeshoptimizer through ctypes. The other files of fuzz/corpus/gltf are hand-written.
"""
import base64
import ctypes
import ctypes.util
import json
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "gltf")


def uri(data):
    return "data:application/octet-stream;base64," + base64.b64encode(data).decode()


def write(name, doc, newline=False):
    text = json.dumps(doc, separators=(",", ":"))
    with open(os.path.join(OUT, name), "w") as f:
        f.write(text + ("\n" if newline else ""))


def floats(*v):
    return struct.pack("<%df" % len(v), *v)


def key_times_equal():
    data = (floats(0, 1, 1, 2) + floats(0, 0, 0, 10, 0, 0, 20, 0, 0, 30, 0, 0) +
            floats(0, 0, 0, 1, 0, 0, 0, 1, 0) + floats(0, 0, 1, 0, 0, 1, 0, 0, 1) + floats(0, 0.5, 1, 0.25) +
            floats(0, 0, 1) + floats(0, 5, 0, 0, 7, 0, 0, 9, 0))
    views = [(0, 16), (16, 48), (64, 36), (100, 36), (136, 16), (152, 12), (164, 36)]
    write("key-times-equal.gltf", {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1, 2]}],
        "nodes": [{}, {"mesh": 0}, {}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 2}, "targets": [{"POSITION": 3}]}], "weights": [0]}],
        "buffers": [{"byteLength": len(data), "uri": uri(data)}],
        "bufferViews": [{"buffer": 0, "byteOffset": o, "byteLength": n} for o, n in views],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "SCALAR", "min": [0], "max": [2]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 1], "max": [0, 0, 1]},
            {"bufferView": 4, "componentType": 5126, "count": 4, "type": "SCALAR"},
            {"bufferView": 5, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0], "max": [1]},
            {"bufferView": 6, "componentType": 5126, "count": 3, "type": "VEC3"}],
        "animations": [{"samplers": [{"input": 0, "output": 1}, {"input": 0, "output": 4},
                                     {"input": 5, "output": 6, "interpolation": "STEP"}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}},
                                     {"sampler": 1, "target": {"node": 1, "path": "weights"}},
                                     {"sampler": 2, "target": {"node": 2, "path": "translation"}}]}]})


def triangle(extra_material, **doc):
    data = floats(0, 0, 0, 1, 0, 0, 0, 1, 0)
    base = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "material": 0}]}],
            "materials": [extra_material],
            "buffers": [{"byteLength": len(data), "uri": uri(data)}],
            "bufferViews": [{"buffer": 0, "byteLength": len(data)}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                           "min": [0, 0, 0], "max": [1, 1, 0]}]}
    base.update(doc)
    return base


def unlit_required():
    write("unlit-required.gltf", triangle(
        {"name": "Flat", "pbrMetallicRoughness": {"baseColorFactor": [0.5, 0.25, 1, 1]},
         "extensions": {"KHR_materials_unlit": {}}},
        extensionsUsed=["KHR_materials_unlit"], extensionsRequired=["KHR_materials_unlit"]))


def texture_basisu_required():
    write("texture-basisu-required.gltf", triangle(
        {"name": "Skin", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}},
        extensionsUsed=["KHR_texture_basisu"], extensionsRequired=["KHR_texture_basisu"],
        images=[{"uri": "face.ktx2", "mimeType": "image/ktx2"}],
        textures=[{"extensions": {"KHR_texture_basisu": {"source": 0}}}]), newline=True)


def meshopt_encode(vertices, count, stride):
    lib = ctypes.CDLL(ctypes.util.find_library("meshoptimizer") or "libmeshoptimizer.so")
    lib.meshopt_encodeVertexBufferBound.restype = ctypes.c_size_t
    lib.meshopt_encodeVertexBufferBound.argtypes = [ctypes.c_size_t, ctypes.c_size_t]
    lib.meshopt_encodeVertexBuffer.restype = ctypes.c_size_t
    lib.meshopt_encodeVertexBuffer.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
                                               ctypes.c_size_t]
    bound = lib.meshopt_encodeVertexBufferBound(count, stride)
    out = ctypes.create_string_buffer(bound)
    n = lib.meshopt_encodeVertexBuffer(out, bound, vertices, count, stride)
    if n == 0:
        raise SystemExit("meshopt_encodeVertexBuffer failed")
    return out.raw[:n]


def meshopt_fallback_data():
    fb = floats(*[float(i * i) - 3.5 for i in range(19)])      # 4 vertices of 16 bytes, then 12 more
    enc = meshopt_encode(fb[:64], 4, 16)
    write("meshopt-fallback-data.gltf", {
        "asset": {"version": "2.0"}, "extensionsUsed": ["EXT_meshopt_compression"],
        "buffers": [{"byteLength": len(enc), "uri": uri(enc)},
                    {"byteLength": 76, "uri": uri(fb), "extensions": {"EXT_meshopt_compression": {"fallback": True}}}],
        "bufferViews": [{"buffer": 1, "byteLength": 64, "byteStride": 16, "extensions": {"EXT_meshopt_compression": {
                            "buffer": 0, "byteLength": len(enc), "byteStride": 16, "count": 4, "mode": "ATTRIBUTES"}}},
                        {"buffer": 1, "byteOffset": 64, "byteLength": 12}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC4"},
                      {"bufferView": 1, "componentType": 5126, "count": 1, "type": "VEC3"}]})


def meshopt_decoded_limit():
    n = (24 << 20) // 4 + 1
    write("meshopt-decoded-limit.gltf", {
        "asset": {"version": "2.0"}, "extensionsUsed": ["EXT_meshopt_compression"],
        "buffers": [{"byteLength": 4, "uri": uri(b"\0\0\0\0")},
                    {"byteLength": 4 * n, "extensions": {"EXT_meshopt_compression": {"fallback": True}}}],
        "bufferViews": [{"buffer": 1, "byteLength": 4 * n, "byteStride": 4, "extensions": {"EXT_meshopt_compression": {
            "buffer": 0, "byteLength": 4, "byteStride": 4, "count": n, "mode": "ATTRIBUTES"}}}]})


def main():
    os.makedirs(OUT, exist_ok=True)
    key_times_equal()
    unlit_required()
    meshopt_fallback_data()
    meshopt_decoded_limit()
    texture_basisu_required()


if __name__ == "__main__":
    main()
