// Draco's decoder for KHR_draco_mesh_compression, behind the C functions of
// src/gltf/draco.h. The only C++ of the library: every entry point catches
// whatever the decoder throws (std::bad_alloc) and answers with a status.
#include "gltf/draco.h"

#include <cstring>
#include <memory>
#include <new>
#include <string>

#include <draco/compression/decode.h>
#include <draco/core/decoder_buffer.h>
#include <draco/mesh/mesh.h>

struct cna__draco_mesh {
    std::unique_ptr<draco::Mesh> mesh;
};

static void copy_message(const std::string &text, char *msg, size_t msg_size)
{
    if (!msg || msg_size == 0) return;
    size_t n = text.size() < msg_size - 1 ? text.size() : msg_size - 1;
    std::memcpy(msg, text.data(), n);
    msg[n] = '\0';
}

extern "C" cna__draco_status cna__draco_decode(const uint8_t *data, size_t size, cna__draco_mesh **out, char *msg,
                                               size_t msg_size)
{
    try {
        draco::DecoderBuffer buffer;
        buffer.Init(reinterpret_cast<const char *>(data), size);
        draco::Decoder decoder;
        auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
        if (!decoded.ok()) {
            copy_message(decoded.status().error_msg_string(), msg, msg_size);
            return CNA__DRACO_INVALID;
        }
        std::unique_ptr<cna__draco_mesh> m(new cna__draco_mesh);
        m->mesh = std::move(decoded).value();
        if (!m->mesh) {
            copy_message("no mesh decoded", msg, msg_size);
            return CNA__DRACO_INVALID;
        }
        *out = m.release();
        return CNA__DRACO_OK;
    } catch (const std::bad_alloc &) {
        return CNA__DRACO_NO_MEMORY;
    } catch (...) {
        copy_message("the decoder failed", msg, msg_size);
        return CNA__DRACO_INVALID;
    }
}

extern "C" void cna__draco_free(cna__draco_mesh *mesh)
{
    delete mesh;
}

extern "C" uint32_t cna__draco_point_count(const cna__draco_mesh *mesh)
{
    return mesh->mesh->num_points();
}

extern "C" uint32_t cna__draco_face_count(const cna__draco_mesh *mesh)
{
    return mesh->mesh->num_faces();
}

extern "C" int cna__draco_attribute_components(const cna__draco_mesh *mesh, uint32_t id)
{
    const draco::PointAttribute *a = mesh->mesh->GetAttributeByUniqueId(id);
    return a ? a->num_components() : 0;
}

template <typename T>
static bool read_values(const draco::PointAttribute *a, uint32_t points, int components, uint8_t *out,
                        uint32_t *bad_point)
{
    T values[4];
    if (!a->is_mapping_identity() && a->indices_map_size() < points) return false; // every point needs a value
    for (uint32_t p = 0; p < points; p++) {
        draco::AttributeValueIndex index = a->mapped_index(draco::PointIndex(p));
        if (index.value() >= a->size() ||
            !a->ConvertValue<T>(index, static_cast<int8_t>(components), values)) {
            *bad_point = p;
            return false;
        }
        // little-endian hosts only (as the rest of the reader's fast paths)
        std::memcpy(out + static_cast<size_t>(p) * static_cast<size_t>(components) * sizeof(T), values,
                    static_cast<size_t>(components) * sizeof(T));
    }
    return true;
}

extern "C" bool cna__draco_read_attribute(const cna__draco_mesh *mesh, uint32_t id, cna_gltf_component_type ct,
                                          int components, uint8_t *out, uint32_t *bad_point)
{
    const draco::PointAttribute *a = mesh->mesh->GetAttributeByUniqueId(id);
    *bad_point = 0;
    if (!a || components < 1 || components > 4 || a->num_components() != components) return false;
    uint32_t points = mesh->mesh->num_points();
    switch (ct) {
    case CNA_GLTF_COMPONENT_BYTE: return read_values<int8_t>(a, points, components, out, bad_point);
    case CNA_GLTF_COMPONENT_UNSIGNED_BYTE: return read_values<uint8_t>(a, points, components, out, bad_point);
    case CNA_GLTF_COMPONENT_SHORT: return read_values<int16_t>(a, points, components, out, bad_point);
    case CNA_GLTF_COMPONENT_UNSIGNED_SHORT: return read_values<uint16_t>(a, points, components, out, bad_point);
    case CNA_GLTF_COMPONENT_UNSIGNED_INT: return read_values<uint32_t>(a, points, components, out, bad_point);
    case CNA_GLTF_COMPONENT_FLOAT: return read_values<float>(a, points, components, out, bad_point);
    default: return false;
    }
}

extern "C" void cna__draco_read_indices(const cna__draco_mesh *mesh, uint32_t *out)
{
    const draco::Mesh &m = *mesh->mesh;
    for (uint32_t f = 0; f < m.num_faces(); f++) {
        const draco::Mesh::Face &face = m.face(draco::FaceIndex(f));
        for (size_t k = 0; k < 3; k++) out[3 * static_cast<size_t>(f) + k] = face[k].value();
    }
}
