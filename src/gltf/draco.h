/*
 * Private: Draco's mesh decoder behind C functions (src/gltf/draco_decode.cpp,
 * compiled only with CNA_WITH_DRACO). Draco is a C++ library; nothing of C++
 * crosses this interface (no exceptions, no C++ types). The decoded mesh is
 * Draco's own allocation (C++ new); what the document keeps is copied out of
 * it into the document's arena by the caller (src/gltf/draco.c).
 */
#ifndef CNA_GLTF_DRACO_H
#define CNA_GLTF_DRACO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/gltf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cna__draco_mesh cna__draco_mesh;

typedef enum cna__draco_status {
    CNA__DRACO_OK = 0,
    CNA__DRACO_INVALID,    /* not a Draco triangle mesh (message from Draco) */
    CNA__DRACO_NO_MEMORY   /* the decoder ran out of memory */
} cna__draco_status;

/* Decode `size` bytes into *out (free with cna__draco_free). On
 * CNA__DRACO_INVALID, msg receives Draco's reason (msg_size bytes at most). */
cna__draco_status cna__draco_decode(const uint8_t *data, size_t size, cna__draco_mesh **out, char *msg,
                                    size_t msg_size);
void cna__draco_free(cna__draco_mesh *mesh);
uint32_t cna__draco_point_count(const cna__draco_mesh *mesh);
uint32_t cna__draco_face_count(const cna__draco_mesh *mesh);
/* Components of the attribute with unique id `id`; 0 when there is none. */
int cna__draco_attribute_components(const cna__draco_mesh *mesh, uint32_t id);
/* The attribute's value for every point, `components` values of type `ct`
 * each, tightly packed, little-endian, into out (point_count * components *
 * component size bytes). false when a value does not convert to `ct` (Draco's
 * rules: integers must fit; normalized integers convert to and from [0, 1]
 * or [-1, 1] floats); *bad_point then names the point. */
bool cna__draco_read_attribute(const cna__draco_mesh *mesh, uint32_t id, cna_gltf_component_type ct, int components,
                               uint8_t *out, uint32_t *bad_point);
/* The three point indices of every face, face after face (face_count * 3 values). */
void cna__draco_read_indices(const cna__draco_mesh *mesh, uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif
