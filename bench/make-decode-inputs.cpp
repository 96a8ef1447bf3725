// Writes the inputs of the decoded-size measurements (docs/reliability.md,
// "Bounded decoding"): small compressed files that decode to many bytes.
//
//   meshopt-N.glb   one non-indexed primitive of N vertices (N a multiple of 3)
//                   whose POSITION is an EXT_meshopt_compression ATTRIBUTES view
//                   (12-byte stride): runs of 4096 equal vertices, so a few
//                   hundred kB decode to 12 N bytes (36 MB for N = 3,000,000);
//   draco-G.glb     a G x G vertex grid (2 (G-1)^2 triangles) as one
//                   KHR_draco_mesh_compression primitive (edgebreaker, 14-bit
//                   positions): G = 1000 is a million vertices.
//
// Build and run (Debian's libdraco-dev and libmeshoptimizer-dev):
//   c++ -O2 -std=c++17 bench/make-decode-inputs.cpp -o /tmp/make-decode-inputs \
//       $(pkg-config --cflags --libs draco) -lmeshoptimizer
//   /tmp/make-decode-inputs OUT_DIR [N ...] [--draco G ...]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <draco/compression/encode.h>
#include <draco/core/encoder_buffer.h>
#include <draco/mesh/mesh.h>
#include <meshoptimizer.h>

static void pad4(std::vector<uint8_t> &v, uint8_t with)
{
    while (v.size() % 4) v.push_back(with);
}

static bool write_glb(const std::string &path, std::string json, std::vector<uint8_t> bin)
{
    while (json.size() % 4) json += ' ';
    pad4(bin, 0);
    uint32_t total = 12 + 8 + (uint32_t)json.size() + 8 + (uint32_t)bin.size();
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    uint32_t head[3] = {0x46546C67u, 2u, total};
    uint32_t jc[2] = {(uint32_t)json.size(), 0x4E4F534Au};
    uint32_t bc[2] = {(uint32_t)bin.size(), 0x004E4942u};
    bool ok = std::fwrite(head, 4, 3, f) == 3 && std::fwrite(jc, 4, 2, f) == 2 &&
              std::fwrite(json.data(), 1, json.size(), f) == json.size() && std::fwrite(bc, 4, 2, f) == 2 &&
              std::fwrite(bin.data(), 1, bin.size(), f) == bin.size();
    return std::fclose(f) == 0 && ok;
}

static bool meshopt_file(const std::string &dir, size_t n)
{
    std::vector<float> pos(n * 3);
    for (size_t i = 0; i < n; i++) {
        pos[3 * i + 0] = (float)((i / 4096) % 16); /* runs of equal vertices: the codec's best case */
        pos[3 * i + 1] = (float)((i / 8192) % 2);
        pos[3 * i + 2] = 0.0f;
    }
    std::vector<uint8_t> enc(meshopt_encodeVertexBufferBound(n, 12));
    enc.resize(meshopt_encodeVertexBuffer(enc.data(), enc.size(), pos.data(), n, 12));
    if (enc.empty()) return false;
    size_t len = enc.size();
    char json[2048];
    std::snprintf(json, sizeof json,
                  "{\"asset\":{\"version\":\"2.0\",\"generator\":\"cna bench/make-decode-inputs.cpp\"},"
                  "\"extensionsUsed\":[\"EXT_meshopt_compression\"],\"extensionsRequired\":[\"EXT_meshopt_compression\"],"
                  "\"buffers\":[{\"byteLength\":%zu},{\"byteLength\":%zu,\"extensions\":{\"EXT_meshopt_compression\":"
                  "{\"fallback\":true}}}],"
                  "\"bufferViews\":[{\"buffer\":1,\"byteLength\":%zu,\"byteStride\":12,\"target\":34962,\"extensions\":"
                  "{\"EXT_meshopt_compression\":{\"buffer\":0,\"byteLength\":%zu,\"byteStride\":12,\"count\":%zu,"
                  "\"mode\":\"ATTRIBUTES\"}}}],"
                  "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%zu,\"type\":\"VEC3\","
                  "\"min\":[0,0,0],\"max\":[15,1,0]}],"
                  "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
                  "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}",
                  (len + 3) & ~(size_t)3, n * 12, n * 12, len, n, n);
    std::string path = dir + "/meshopt-" + std::to_string(n) + ".glb";
    if (!write_glb(path, json, enc)) return false;
    std::printf("%s: %zu vertices, %zu compressed bytes, %zu decoded\n", path.c_str(), n, len, n * 12);
    return true;
}

static bool draco_file(const std::string &dir, int g)
{
    draco::Mesh mesh;
    const size_t n = (size_t)g * (size_t)g;
    mesh.set_num_points((uint32_t)n);
    draco::GeometryAttribute ga;
    ga.Init(draco::GeometryAttribute::POSITION, nullptr, 3, draco::DT_FLOAT32, false, sizeof(float) * 3, 0);
    const int att = mesh.AddAttribute(ga, true, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        float p[3] = {(float)(i % (size_t)g), (float)(i / (size_t)g), 0.0f};
        mesh.attribute(att)->SetAttributeValue(draco::AttributeValueIndex((uint32_t)i), p);
    }
    for (int y = 0; y + 1 < g; y++)
        for (int x = 0; x + 1 < g; x++) {
            uint32_t a = (uint32_t)(y * g + x), b = a + 1, c = a + (uint32_t)g, d = c + 1;
            mesh.AddFace({draco::PointIndex(a), draco::PointIndex(b), draco::PointIndex(d)});
            mesh.AddFace({draco::PointIndex(a), draco::PointIndex(d), draco::PointIndex(c)});
        }
    draco::Encoder encoder;
    encoder.SetAttributeQuantization(draco::GeometryAttribute::POSITION, 14);
    encoder.SetEncodingMethod(draco::MESH_EDGEBREAKER_ENCODING);
    draco::EncoderBuffer out;
    if (!encoder.EncodeMeshToBuffer(mesh, &out).ok()) return false;
    std::vector<uint8_t> bin(out.data(), out.data() + out.size());
    const size_t faces = mesh.num_faces();
    const int uid = (int)mesh.attribute(att)->unique_id();
    char json[2048];
    std::snprintf(json, sizeof json,
                  "{\"asset\":{\"version\":\"2.0\",\"generator\":\"cna bench/make-decode-inputs.cpp\"},"
                  "\"extensionsUsed\":[\"KHR_draco_mesh_compression\"],"
                  "\"extensionsRequired\":[\"KHR_draco_mesh_compression\"],"
                  "\"buffers\":[{\"byteLength\":%zu}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu}],"
                  "\"accessors\":[{\"componentType\":5126,\"count\":%zu,\"type\":\"VEC3\",\"min\":[0,0,0],"
                  "\"max\":[%d,%d,0]},{\"componentType\":5125,\"count\":%zu,\"type\":\"SCALAR\"}],"
                  "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1,\"extensions\":"
                  "{\"KHR_draco_mesh_compression\":{\"bufferView\":0,\"attributes\":{\"POSITION\":%d}}}}]}],"
                  "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}",
                  (bin.size() + 3) & ~(size_t)3, bin.size(), n, g - 1, g - 1, faces * 3, uid);
    std::string path = dir + "/draco-" + std::to_string(g) + ".glb";
    if (!write_glb(path, json, bin)) return false;
    std::printf("%s: %zu vertices, %zu triangles, %zu compressed bytes, %zu decoded\n", path.c_str(), n, faces,
                bin.size(), n * 12 + faces * 12);
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: make-decode-inputs OUT_DIR [N ...] [--draco G ...]\n");
        return 2;
    }
    bool draco = false;
    for (int i = 2; i < argc; i++) {
        if (!std::strcmp(argv[i], "--draco")) {
            draco = true;
            continue;
        }
        long v = std::strtol(argv[i], nullptr, 10);
        if (v <= 0 || (!draco && v % 3)) {
            std::fprintf(stderr, "make-decode-inputs: '%s': a positive count (vertices: a multiple of 3)\n", argv[i]);
            return 2;
        }
        if (!(draco ? draco_file(argv[1], (int)v) : meshopt_file(argv[1], (size_t)v))) {
            std::fprintf(stderr, "make-decode-inputs: cannot write %s\n", argv[i]);
            return 1;
        }
    }
    return 0;
}
