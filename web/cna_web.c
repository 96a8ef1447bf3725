/*
 * web/cna_web.c — the C side of the WebAssembly module (cna-core.wasm) that
 * web/cna-web.mjs wraps (docs/web.md). Plain functions over the public API
 * with only numbers and pointers in their signatures (no 64-bit integers,
 * no structs by value), so that JavaScript calls them directly.
 *
 * Failures return 0 (a NULL pointer or a non-zero result code) and leave
 * the library's message in one error buffer, read with cnaw_error(): the
 * module is single-threaded, one call at a time.
 */
#include <stdint.h>
#include <string.h>

#include "cna/cna.h"

static cna_error g_err;

/* The message of the last failure ("" before any). */
const char *cnaw_error(void) { return g_err.message; }

/* Its code (a cna_result; 0 before any). */
int cnaw_error_code(void) { return (int)g_err.code; }

const char *cnaw_version(void) { return cna_version(); }

/* Bits of cnaw_model_load's flags. */
enum {
    CNAW_SPLIT_PALETTES = 1, /* cna_import_options.split_palettes */
    CNAW_NO_TEXTURES = 2,    /* cna_gltf_options.no_textures */
    CNAW_CLIPS_UNION = 4     /* cna_import_options.clip_mode = CNA_CLIP_MODE_UNION */
};

/* A model from the bytes of a .glb, a self-contained .gltf (buffers in data:
 * URIs) or a .cnb, recognised by its contents. NULL on failure. */
cna_model *cnaw_model_load(const void *bytes, size_t size, int flags)
{
    memset(&g_err, 0, sizeof g_err);
    cna_model *m = NULL;
    if (cna_cnb_is_cnb(bytes, size)) {
        if (cna_cnb_load_memory(bytes, size, NULL, &m, &g_err) != CNA_OK) return NULL;
        return m;
    }
    cna_import_options opts;
    memset(&opts, 0, sizeof opts);
    opts.split_palettes = (flags & CNAW_SPLIT_PALETTES) != 0;
    opts.gltf.no_textures = (flags & CNAW_NO_TEXTURES) != 0;
    opts.clip_mode = (flags & CNAW_CLIPS_UNION) ? CNA_CLIP_MODE_UNION : CNA_CLIP_MODE_DEFAULT;
    cna_gltf_document *doc = NULL;
    if (cna_gltf_load_memory(bytes, size, &opts.gltf, &doc, &g_err) != CNA_OK) return NULL;
    const cna_result r = cna_model_import_gltf(doc, &opts, &m, &g_err);
    cna_gltf_document_free(doc);
    return r == CNA_OK ? m : NULL;
}

void cnaw_model_free(cna_model *m) { cna_model_free(m); }

size_t cnaw_model_animation_count(const cna_model *m) { return m->animation_count; }

const char *cnaw_model_animation_name(const cna_model *m, size_t i) { return cna_model_animation_name(m, i); }

/* Animation i's duration in seconds: the longest of its clips (the skins'
 * and the scene nodes'), as a character playing it measures it. */
double cnaw_model_animation_duration(const cna_model *m, size_t i)
{
    if (i >= m->animation_count) return 0.0;
    int64_t d = m->node_clips ? m->node_clips[i].duration : 0;
    for (size_t s = 0; s < m->skin_count; s++)
        if (i < m->skins[s].data.clip_count && m->skins[s].data.clips[i].duration > d) d = m->skins[s].data.clips[i].duration;
    return cna_ticks_to_seconds(d);
}

/* The animation with this name (or decimal index), -1 when there is none. */
long cnaw_model_find_animation(const cna_model *m, const char *name)
{
    size_t index = 0;
    return cna_model_find_animation(m, name, &index, NULL) == CNA_OK ? (long)index : -1;
}

size_t cnaw_model_bone_count(const cna_model *m) { return m->bone_count; }
const char *cnaw_model_bone_name(const cna_model *m, size_t b) { return b < m->bone_count ? m->bones[b].name : ""; }
int32_t cnaw_model_bone_parent(const cna_model *m, size_t b) { return b < m->bone_count ? m->bones[b].parent : -1; }
int32_t cnaw_model_find_bone(const cna_model *m, const char *name) { return cna_model_find_bone(m, name); }

size_t cnaw_model_mesh_count(const cna_model *m) { return m->mesh_count; }

/* out[0..3]: part count, skin (-1 rigid), parent bone, instance count. */
void cnaw_model_mesh_info(const cna_model *m, size_t mesh, int32_t *out)
{
    const cna_model_mesh *me = &m->meshes[mesh];
    out[0] = (int32_t)me->part_count;
    out[1] = me->skin;
    out[2] = me->parent_bone;
    out[3] = (int32_t)me->instance_count;
}

/* out[0..7]: vertex count, stride, element count, index count, primitive type
 * (cna_primitive_type), vertices (address of the model's bytes), indices
 * (address of index_count uint32), palette size (the split part's
 * palette_map_count, else the skin's joint count, 0 rigid).
 * rgba[0..3]: the material's base colour factor. 0 when out of range. */
int cnaw_model_part_info(const cna_model *m, size_t mesh, size_t part, uint32_t *out, float *rgba)
{
    if (mesh >= m->mesh_count || part >= m->meshes[mesh].part_count) return 0;
    const cna_model_mesh *me = &m->meshes[mesh];
    const cna_model_part *p = &me->parts[part];
    out[0] = (uint32_t)p->vertex_count;
    out[1] = p->declaration.stride;
    out[2] = p->declaration.element_count;
    out[3] = (uint32_t)p->index_count;
    out[4] = (uint32_t)p->primitive_type;
    out[5] = (uint32_t)(uintptr_t)p->vertices;
    out[6] = (uint32_t)(uintptr_t)p->indices;
    out[7] = p->palette_map ? (uint32_t)p->palette_map_count
             : me->skin >= 0 ? (uint32_t)m->skins[me->skin].joint_count : 0u;
    const cna_vec4 white = {1.0f, 1.0f, 1.0f, 1.0f};
    const cna_vec4 c = p->effect >= 0 && (size_t)p->effect < m->effect_count
                           ? m->effects[p->effect].params.base_color_factor : white;
    rgba[0] = c.x;
    rgba[1] = c.y;
    rgba[2] = c.z;
    rgba[3] = c.w;
    return 1;
}

/* out[0..3]: the element's offset, format (cna_vertex_format), usage
 * (cna_vertex_usage), usage index. 0 when out of range. */
int cnaw_model_part_element(const cna_model *m, size_t mesh, size_t part, size_t e, uint32_t *out)
{
    if (mesh >= m->mesh_count || part >= m->meshes[mesh].part_count) return 0;
    const cna_vertex_declaration *d = &m->meshes[mesh].parts[part].declaration;
    if (e >= d->element_count) return 0;
    out[0] = d->elements[e].offset;
    out[1] = (uint32_t)d->elements[e].format;
    out[2] = (uint32_t)d->elements[e].usage;
    out[3] = d->elements[e].usage_index;
    return 1;
}

size_t cnaw_model_skin_joint_count(const cna_model *m, size_t skin)
{
    return skin < m->skin_count ? m->skins[skin].joint_count : 0;
}

/* A character of `m` with `layers` layers (0: 2). NULL on failure. */
cna_character *cnaw_character_create(const cna_model *m, size_t layers)
{
    memset(&g_err, 0, sizeof g_err);
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = layers;
    cna_character *c = NULL;
    return cna_character_create(m, &o, &c, &g_err) == CNA_OK ? c : NULL;
}

void cnaw_character_free(cna_character *c) { cna_character_free(c); }

int cnaw_character_play(cna_character *c, long animation) { return (int)cna_character_play(c, animation, &g_err); }

int cnaw_character_crossfade(cna_character *c, size_t from, size_t to, long animation, double seconds, unsigned flags)
{
    return (int)cna_character_crossfade(c, from, to, animation, seconds, flags, &g_err);
}

int cnaw_character_set_loop_mode(cna_character *c, int mode)
{
    return (int)cna_character_set_loop_mode(c, (cna_loop_mode)mode, &g_err);
}

int cnaw_character_set_time_scale(cna_character *c, double scale)
{
    return (int)cna_character_set_time_scale(c, scale, &g_err);
}

int cnaw_character_seek(cna_character *c, double seconds) { return (int)cna_character_seek(c, seconds, &g_err); }
int cnaw_character_update(cna_character *c, double seconds) { return (int)cna_character_update(c, seconds, &g_err); }
int cnaw_character_pose(cna_character *c) { return (int)cna_character_pose(c, &g_err); }
double cnaw_character_time(const cna_character *c) { return cna_character_time(c); }
double cnaw_character_duration(const cna_character *c) { return cna_ticks_to_seconds(cna_character_duration(c)); }
long cnaw_character_animation(const cna_character *c) { return cna_character_animation(c); }
long cnaw_character_layer_animation(const cna_character *c, size_t l) { return cna_character_layer_animation(c, l); }
double cnaw_character_layer_time(const cna_character *c, size_t l) { return cna_character_layer_time(c, l); }
double cnaw_character_layer_weight(const cna_character *c, size_t l) { return cna_character_layer_weight(c, l); }

/* The palette part `part` of mesh `mesh` is drawn with (count * 16 floats,
 * column-major 4x4 matrices), *count its matrices; NULL for a rigid mesh. */
const float *cnaw_character_part_palette(const cna_character *c, size_t mesh, size_t part, size_t *count)
{
    const cna_mat4 *p = cna_character_part_palette(c, mesh, part, count);
    return p ? p[0].m : NULL;
}

/* Skin `skin`'s palette (its joint count of matrices). */
const float *cnaw_character_skin_palette(const cna_character *c, size_t skin)
{
    const cna_mat4 *p = cna_character_skin_transforms(c, skin);
    return p ? p[0].m : NULL;
}

/* Bone `bone`'s model-space transform at the last pose (16 floats). */
const float *cnaw_character_absolute_transform(const cna_character *c, size_t bone)
{
    const cna_mat4 *p = cna_character_absolute_transform(c, bone);
    return p ? p->m : NULL;
}

/* The part's vertex bytes as the character draws them (morphed), *size their bytes. */
const void *cnaw_character_part_vertices(const cna_character *c, size_t mesh, size_t part, size_t *size)
{
    return cna_character_part_vertices(c, mesh, part, size);
}
