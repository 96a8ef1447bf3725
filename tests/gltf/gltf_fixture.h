/*
 * A small, complete, valid glTF document used by the validation tests: a
 * skinned triangle (two joints), a morphed triangle (one target), a material
 * with a texture chain, and one animation animating a translation (LINEAR), a
 * rotation (STEP) and morph weights. Every object is used, so the base loads
 * with no diagnostic. Each validation test applies one textual edit (or one
 * byte change) and asserts the exact error.
 *
 * Buffer layout (376 bytes):
 *   view 0    0  POSITION   VEC3 float x3  (0,0,0) (1,0,0) (0,1,0)
 *   view 1   36  indices    u16 x3         0 1 2            (+2 bytes padding)
 *   view 2   44  times      float x3       0 0.5 1
 *   view 3   56  translation VEC3 float x3 (0,0,0) (1,0,0) (2,0,0)
 *   view 4   92  rotation   VEC4 float x3  identity x3
 *   view 5  140  JOINTS_0   VEC4 u8 x3     (0,1,0,0) (1,0,0,0) (0,0,0,0)
 *   view 6  152  WEIGHTS_0  VEC4 float x3  (.5,.5,0,0) (1,0,0,0) (1,0,0,0)
 *   view 7  200  IBM        MAT4 float x2  identity x2
 *   view 8  328  target POSITION deltas VEC3 float x3  (0,0,1) x3
 *   view 9  364  morph weights SCALAR float x3  0 0.5 1
 * Accessor 10 (TEXCOORD_0 of the skinned triangle, for the material's texture)
 * has no bufferView: zeros.
 */
#ifndef CNA_TESTS_GLTF_FIXTURE_H
#define CNA_TESTS_GLTF_FIXTURE_H

#include "gltf/gltf_test_util.h"

#define FIX_SIZE 376
#define FIX_INDICES 36
#define FIX_TIMES 44
#define FIX_JOINTS 140
#define FIX_WEIGHTS 152

static inline void fixture_bytes(uint8_t *b)
{
    memset(b, 0, FIX_SIZE);
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    for (int i = 0; i < 9; i++) tu_put_f32(b + 0 + 4 * i, pos[i]);
    for (int i = 0; i < 3; i++) tu_put_u16(b + FIX_INDICES + 2 * i, (uint32_t)i);
    const float times[3] = {0.0f, 0.5f, 1.0f};
    for (int i = 0; i < 3; i++) tu_put_f32(b + FIX_TIMES + 4 * i, times[i]);
    for (int i = 0; i < 3; i++) tu_put_f32(b + 56 + 12 * i, (float)i);
    for (int i = 0; i < 3; i++) tu_put_f32(b + 92 + 16 * i + 12, 1.0f);
    const uint8_t joints[12] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    memcpy(b + FIX_JOINTS, joints, 12);
    const float weights[12] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    for (int i = 0; i < 12; i++) tu_put_f32(b + FIX_WEIGHTS + 4 * i, weights[i]);
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 4; k++) tu_put_f32(b + 200 + 64 * m + 20 * k, 1.0f);
    for (int i = 0; i < 3; i++) tu_put_f32(b + 328 + 12 * i + 8, 1.0f);
    for (int i = 0; i < 3; i++) tu_put_f32(b + 364 + 4 * i, times[i]);
}

static const char FIXTURE_JSON[] =
    "{\"asset\":{\"version\":\"2.0\",\"generator\":\"cna tests\"},\n"
    "\"buffers\":[{\"byteLength\":376,\"uri\":\"@BUF@\"}],\n"
    "\"bufferViews\":[\n"
    " {\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},\n"
    " {\"buffer\":0,\"byteOffset\":36,\"byteLength\":6},\n"
    " {\"buffer\":0,\"byteOffset\":44,\"byteLength\":12},\n"
    " {\"buffer\":0,\"byteOffset\":56,\"byteLength\":36},\n"
    " {\"buffer\":0,\"byteOffset\":92,\"byteLength\":48},\n"
    " {\"buffer\":0,\"byteOffset\":140,\"byteLength\":12},\n"
    " {\"buffer\":0,\"byteOffset\":152,\"byteLength\":48},\n"
    " {\"buffer\":0,\"byteOffset\":200,\"byteLength\":128},\n"
    " {\"buffer\":0,\"byteOffset\":328,\"byteLength\":36},\n"
    " {\"buffer\":0,\"byteOffset\":364,\"byteLength\":12}],\n"
    "\"accessors\":[\n"
    " {\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},\n"
    " {\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"},\n"
    " {\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},\n"
    " {\"bufferView\":3,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},\n"
    " {\"bufferView\":4,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},\n"
    " {\"bufferView\":5,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},\n"
    " {\"bufferView\":6,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},\n"
    " {\"bufferView\":7,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},\n"
    " {\"bufferView\":8,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,1],\"max\":[0,0,1]},\n"
    " {\"bufferView\":9,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},\n"
    " {\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}],\n"
    "\"meshes\":[\n"
    " {\"name\":\"skinned\",\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":5,\"WEIGHTS_0\":6,\"TEXCOORD_0\":10},"
    "\"indices\":1,\"material\":0}]},\n"
    " {\"name\":\"morphed\",\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[{\"POSITION\":8}]}],"
    "\"weights\":[0.5]}],\n"
    "\"materials\":[{\"name\":\"red\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,0,0,1],"
    "\"baseColorTexture\":{\"index\":0}}}],\n"
    "\"textures\":[{\"source\":0,\"sampler\":0}],\n"
    "\"images\":[{\"uri\":\"data:image/png;base64,iVBORw0KGgo=\"}],\n"
    "\"samplers\":[{}],\n"
    "\"nodes\":[\n"
    " {\"name\":\"root\",\"children\":[1,2]},\n"
    " {\"name\":\"skinned\",\"mesh\":0,\"skin\":0},\n"
    " {\"name\":\"joint0\",\"children\":[3],\"translation\":[0,1,0]},\n"
    " {\"name\":\"joint1\",\"rotation\":[0,0,0,1]},\n"
    " {\"name\":\"morph\",\"mesh\":1}],\n"
    "\"skins\":[{\"joints\":[2,3],\"inverseBindMatrices\":7,\"skeleton\":2}],\n"
    "\"scenes\":[{\"nodes\":[0,4]}],\n"
    "\"scene\":0,\n"
    "\"animations\":[{\"name\":\"clip\",\n"
    " \"samplers\":[{\"input\":2,\"output\":3},{\"input\":2,\"output\":4,\"interpolation\":\"STEP\"},"
    "{\"input\":2,\"output\":9}],\n"
    " \"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"translation\"}},"
    "{\"sampler\":1,\"target\":{\"node\":3,\"path\":\"rotation\"}},"
    "{\"sampler\":2,\"target\":{\"node\":4,\"path\":\"weights\"}}]}]\n"
    "}\n";

#endif
