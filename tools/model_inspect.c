/*
 * tools/model_inspect.c — the model section of `cna inspect` (see
 * model_inspect.h): skins with their index-space tables, root prefixes and
 * clips, the scene-node clips, the animations' markers and the model's
 * diagnostics.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model_inspect.h"

static size_t clip_key_count(const cna_clip *c)
{
    size_t n = 0;
    for (size_t t = 0; t < c->track_count; t++) n += c->tracks[t].key_count;
    return n;
}

static void print_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void print_clip(FILE *out, size_t i, const cna_clip *c, const char *index_name)
{
    fprintf(out, "      clip %zu ", i);
    print_str(out, c->name);
    fprintf(out, ": target %s, duration %.9g s, %zu tracks, %zu keys\n", cna_clip_target_name(c->target),
            cna_ticks_to_seconds(c->duration), c->track_count, clip_key_count(c));
    for (size_t t = 0; t < c->track_count; t++)
        fprintf(out, "        %s %d: %zu keys\n", index_name, (int)c->tracks[t].bone, c->tracks[t].key_count);
}

/* true when skins a and b of m come from the same glTF skin and have the same
 * joint tables, hierarchy and root prefixes (bit for bit): a glTF skin
 * instanced by several nodes placed alike. Their clips then are the same too. */
static bool same_joints(const cna_model *m, size_t a, size_t b)
{
    const cna_model_skin *x = &m->skins[a], *y = &m->skins[b];
    size_t n = x->joint_count;
    if (x->gltf_skin != y->gltf_skin || n != y->joint_count || x->root_count != y->root_count) return false;
    if (memcmp(x->palette_to_gltf_node, y->palette_to_gltf_node, n * sizeof(int32_t)) != 0 ||
        memcmp(x->palette_to_ordinal, y->palette_to_ordinal, n * sizeof(int32_t)) != 0 ||
        memcmp(x->data.hierarchy, y->data.hierarchy, n * sizeof(int32_t)) != 0 ||
        memcmp(x->roots, y->roots, x->root_count * sizeof(int32_t)) != 0)
        return false;
    for (size_t r = 0; r < x->root_count; r++)
        if (memcmp(&x->data.root_prefix[x->roots[r]], &y->data.root_prefix[y->roots[r]], sizeof(cna_mat4)) != 0)
            return false;
    return true;
}

/* The first skin before s with the same joints, or -1. */
static long same_as(const cna_model *m, size_t s)
{
    for (size_t k = 0; k < s; k++)
        if (same_joints(m, k, s)) return (long)k;
    return -1;
}

static void print_skin_header(FILE *out, const cna_model *m, size_t s)
{
    const cna_model_skin *sk = &m->skins[s];
    fprintf(out, "    skin %zu: glTF skin %d, instanced by node %d (bone %d) ", s, (int)sk->gltf_skin,
            (int)m->bones[sk->mesh_node].gltf_node, (int)sk->mesh_node);
    print_str(out, m->bones[sk->mesh_node].name);
    fprintf(out, ", %zu joints, meshes [", sk->joint_count);
    for (size_t i = 0; i < sk->mesh_count; i++) fprintf(out, "%s%d", i ? ", " : "", (int)sk->meshes[i]);
    fprintf(out, "]\n");
}

/* After the distinct skins: "skins 1-13: same joints as skin 0" per run of
 * consecutive skins equal to the same earlier skin, with their instancing
 * nodes. */
static void print_same_skins(FILE *out, const cna_model *m)
{
    for (size_t s = 0; s < m->skin_count;) {
        long k = same_as(m, s);
        if (k < 0) {
            s++;
            continue;
        }
        size_t end = s + 1;
        while (end < m->skin_count && same_as(m, end) == k) end++;
        if (end - s == 1)
            fprintf(out, "    skin %zu: same joints as skin %ld (instanced by node", s, k);
        else
            fprintf(out, "    skins %zu-%zu: same joints as skin %ld (instanced by nodes", s, end - 1, k);
        for (size_t i = s; i < end; i++) fprintf(out, " %d", (int)m->bones[m->skins[i].mesh_node].gltf_node);
        fprintf(out, ")\n");
        s = end;
    }
}

/* Instances of every mesh (EXT_mesh_gpu_instancing): 0 for a mesh drawn once. */
static size_t instance_total(const cna_model *m, size_t *instanced_meshes)
{
    size_t total = 0, meshes = 0;
    for (size_t i = 0; i < m->mesh_count; i++)
        if (m->meshes[i].instance_count) total += m->meshes[i].instance_count, meshes++;
    if (instanced_meshes) *instanced_meshes = meshes;
    return total;
}

/* "  instanced meshes: 1, instances: 5" and a line per instanced mesh. */
static void print_instances(FILE *out, const cna_model *m)
{
    size_t meshes = 0, total = instance_total(m, &meshes);
    fprintf(out, "  instanced meshes: %zu, instances: %zu\n", meshes, total);
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        if (!mesh->instance_count) continue;
        fprintf(out, "    mesh %zu ", i);
        print_str(out, mesh->name);
        fprintf(out, " (node %d): %zu instances\n", (int)mesh->gltf_node, mesh->instance_count);
    }
}

bool cna_cli_model_print(FILE *out, const cna_model *m)
{
    fprintf(out, "model (scene %d, clip mode %s, size %.9g):\n", (int)m->gltf_scene,
            cna_clip_mode_name(m->clip_mode), (double)m->size);
    fprintf(out, "  bones: %zu, meshes: %zu, effects: %zu, animations: %zu\n", m->bone_count,
            m->mesh_count, m->effect_count, m->animation_count);
    print_instances(out, m);
    fprintf(out, "  skins: %zu\n", m->skin_count);
    for (size_t s = 0; s < m->skin_count; s++) {
        const cna_model_skin *sk = &m->skins[s];
        if (same_as(m, s) >= 0) continue;   /* summarised below */
        print_skin_header(out, m, s);
        fprintf(out, "      %7s %7s %5s %5s %6s  %s\n", "palette", "ordinal", "bone", "node", "parent", "name");
        for (size_t p = 0; p < sk->joint_count; p++) {
            int32_t bone = sk->palette_to_node[p];
            char bone_s[16];
            if (bone >= 0) snprintf(bone_s, sizeof bone_s, "%d", (int)bone);
            else snprintf(bone_s, sizeof bone_s, "-");
            fprintf(out, "      %7zu %7d %5s %5d %6d  ", p, (int)sk->palette_to_ordinal[p], bone_s,
                    (int)sk->palette_to_gltf_node[p], (int)sk->data.hierarchy[p]);
            print_str(out, bone >= 0 ? m->bones[bone].name : "");
            fputc('\n', out);
        }
        fprintf(out, "      roots (prefix = inverse(W_mesh_node) · W_ancestor):\n");
        for (size_t r = 0; r < sk->root_count; r++) {
            int32_t p = sk->roots[r];
            const cna_mat4 *pm = &sk->data.root_prefix[p];
            cna_vec3 t, sc;
            cna_quat q;
            bool ok = cna_mat4_decompose(pm, &t, &q, &sc);
            fprintf(out, "        palette %d (node %d): ", (int)p, (int)sk->palette_to_gltf_node[p]);
            if (cna_mat4_is_identity(pm))
                fprintf(out, "identity\n");
            else if (ok)
                fprintf(out, "T(%.9g, %.9g, %.9g) R(%.9g, %.9g, %.9g, %.9g) S(%.9g, %.9g, %.9g)\n",
                        (double)t.x, (double)t.y, (double)t.z, (double)q.x, (double)q.y, (double)q.z,
                        (double)q.w, (double)sc.x, (double)sc.y, (double)sc.z);
            else
                fprintf(out, "not a TRS matrix\n");
            fprintf(out, "          [");
            for (int i = 0; i < 16; i++) fprintf(out, "%s%.9g", i ? ", " : "", (double)pm->m[i]);
            fprintf(out, "]\n");
        }
        fprintf(out, "      clips: %zu\n", sk->data.clip_count);
        for (size_t c = 0; c < sk->data.clip_count; c++) print_clip(out, c, &sk->data.clips[c], "palette");
    }
    print_same_skins(out, m);
    /* each skinned part's palette: its skin's, or a split part's sub-palette */
    size_t skinned = 0;
    for (size_t i = 0; i < m->mesh_count; i++)
        if (m->meshes[i].skin >= 0) skinned += m->meshes[i].part_count;
    fprintf(out, "  skinned parts: %zu\n", skinned);
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        if (mesh->skin < 0) continue;
        const size_t joints = m->skins[mesh->skin].joint_count;
        for (size_t k = 0; k < mesh->part_count; k++) {
            const cna_model_part *part = &mesh->parts[k];
            fprintf(out, "    mesh %zu ", i);
            print_str(out, mesh->name);
            fprintf(out, " part %zu (primitive %d): %zu vertices, palette %zu of %zu%s\n", k,
                    (int)part->gltf_primitive, part->vertex_count,
                    part->palette_map ? part->palette_map_count : joints, joints, part->palette_map ? " (split)" : "");
        }
    }
    fprintf(out, "  morph target names:");
    size_t named = 0;
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        if (!mesh->target_names) continue;
        fprintf(out, "\n    mesh %zu ", i);
        print_str(out, mesh->name);
        fputc(':', out);
        for (size_t t = 0; t < mesh->target_name_count; t++) {
            fputc(' ', out);
            print_str(out, mesh->target_names[t]);
        }
        named++;
    }
    fputs(named ? "\n" : " none\n", out);
    fprintf(out, "  scene-node clips: %zu\n", m->animation_count);
    for (size_t c = 0; c < m->animation_count; c++) print_clip(out, c, &m->node_clips[c], "bone");
    size_t markers = 0;
    for (size_t c = 0; c < m->animation_count; c++) {
        size_t n = 0;
        cna_model_markers(m, c, &n);
        markers += n;
    }
    fprintf(out, "  markers: %zu\n", markers);
    for (size_t c = 0; markers && c < m->animation_count; c++) {
        size_t n = 0;
        const cna_marker *k = cna_model_markers(m, c, &n);
        if (n == 0) continue;
        fprintf(out, "    animation %zu ", c);
        print_str(out, cna_model_animation_name(m, c));
        fprintf(out, ": %zu\n", n);
        for (size_t i = 0; i < n; i++) {
            fprintf(out, "      marker %zu ", i);
            print_str(out, k[i].name);
            fprintf(out, " at %.9g s (%lld ticks)\n", cna_ticks_to_seconds(k[i].ticks), (long long)k[i].ticks);
        }
    }
    fprintf(out, "  model diagnostics: %zu\n", m->diagnostic_count);
    for (size_t d = 0; d < m->diagnostic_count; d++) {
        fprintf(out, "    %s x%zu: ", m->diagnostics[d].code, m->diagnostics[d].count);
        print_str(out, m->diagnostics[d].message);
        fputc('\n', out);
    }
    return !ferror(out);
}

bool cna_cli_model_brief(FILE *out, const cna_model *m)
{
    size_t parts = 0, distinct = 0;
    for (size_t i = 0; i < m->mesh_count; i++) parts += m->meshes[i].part_count;
    for (size_t s = 0; s < m->skin_count; s++)
        if (same_as(m, s) < 0) distinct++;
    const size_t instances = instance_total(m, NULL);
    fprintf(out, "model: scene %d, %zu bones, %zu meshes (%zu parts", (int)m->gltf_scene, m->bone_count, m->mesh_count,
            parts);
    if (instances) fprintf(out, ", %zu instances", instances);
    fprintf(out, "), %zu skins", m->skin_count);
    if (m->skin_count > 0) {
        fprintf(out, " (%zu distinct; joints", distinct);
        for (size_t s = 0; s < m->skin_count; s++)
            if (same_as(m, s) < 0) fprintf(out, " %zu", m->skins[s].joint_count);
        fputc(')', out);
    }
    fprintf(out, ", size %.9g, clip mode %s, %zu diagnostics\n", (double)m->size, cna_clip_mode_name(m->clip_mode),
            m->diagnostic_count);
    fprintf(out, "animations: %zu", m->animation_count);
    for (size_t c = 0; c < m->animation_count; c++) {
        fprintf(out, "%s", c ? ", " : " ");
        print_str(out, m->node_clips[c].name);
        fprintf(out, " %g s", cna_ticks_to_seconds(m->node_clips[c].duration));
        size_t n = 0;
        cna_model_markers(m, c, &n);
        if (n) fprintf(out, " (%zu marker%s)", n, n == 1 ? "" : "s");
    }
    fputc('\n', out);
    return !ferror(out);
}

bool cna_cli_model_inspect_text(FILE *out, const cna_gltf_document *doc, const cna_import_options *opts)
{
    cna_model *m = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    if (cna_model_import_gltf(doc, opts, &m, &err) != CNA_OK) {
        fprintf(out, "model: refused: ");
        print_str(out, err.message);
        fputc('\n', out);
        return !ferror(out);
    }
    bool ok = cna_cli_model_print(out, m);
    cna_model_free(m);
    return ok;
}

static cJSON *mat_json(const cna_mat4 *m)
{
    float v[16];
    memcpy(v, m->m, sizeof v);
    return cJSON_CreateFloatArray(v, 16);
}

static cJSON *clip_json(const cna_clip *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "name", c->name ? c->name : "");
    cJSON_AddStringToObject(o, "target", cna_clip_target_name(c->target));
    cJSON_AddNumberToObject(o, "duration", cna_ticks_to_seconds(c->duration));
    cJSON_AddNumberToObject(o, "keys", (double)clip_key_count(c));
    cJSON *tracks = cJSON_AddArrayToObject(o, "tracks");
    for (size_t t = 0; tracks && t < c->track_count; t++) {
        cJSON *tr = cJSON_CreateObject();
        if (!tr) break;
        cJSON_AddItemToArray(tracks, tr);
        cJSON_AddNumberToObject(tr, c->target == CNA_CLIP_TARGET_SCENE_NODE ? "bone" : "palette",
                                c->tracks[t].bone);
        cJSON_AddNumberToObject(tr, "keys", (double)c->tracks[t].key_count);
    }
    return o;
}

cJSON *cna_cli_model_json(const cna_model *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "scene", m->gltf_scene);
    cJSON_AddStringToObject(o, "clipMode", cna_clip_mode_name(m->clip_mode));
    cJSON_AddNumberToObject(o, "size", (double)m->size);
    cJSON_AddNumberToObject(o, "boneCount", (double)m->bone_count);
    cJSON_AddNumberToObject(o, "instanceCount", (double)instance_total(m, NULL));
    cJSON *meshes = cJSON_AddArrayToObject(o, "meshes");
    for (size_t i = 0; meshes && i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        cJSON *mo = cJSON_CreateObject();
        if (!mo) break;
        cJSON_AddItemToArray(meshes, mo);
        cJSON_AddNumberToObject(mo, "index", (double)i);
        cJSON_AddStringToObject(mo, "name", mesh->name);
        cJSON_AddNumberToObject(mo, "mesh", mesh->gltf_mesh);
        cJSON_AddNumberToObject(mo, "node", mesh->gltf_node);
        cJSON_AddNumberToObject(mo, "bone", mesh->parent_bone);
        if (mesh->skin >= 0) cJSON_AddNumberToObject(mo, "skin", mesh->skin);
        else cJSON_AddNullToObject(mo, "skin");
        cJSON_AddNumberToObject(mo, "partCount", (double)mesh->part_count);
        cJSON_AddNumberToObject(mo, "instanceCount", (double)mesh->instance_count);
        /* each part's palette: the skin's (paletteMap null), or a split part's sub-palette */
        cJSON *parts = cJSON_AddArrayToObject(mo, "parts");
        for (size_t k = 0; parts && k < mesh->part_count; k++) {
            const cna_model_part *part = &mesh->parts[k];
            cJSON *po = cJSON_CreateObject();
            if (!po) break;
            cJSON_AddItemToArray(parts, po);
            cJSON_AddNumberToObject(po, "primitive", part->gltf_primitive);
            cJSON_AddNumberToObject(po, "vertexCount", (double)part->vertex_count);
            cJSON_AddNumberToObject(po, "indexCount", (double)part->index_count);
            if (mesh->skin < 0) {
                cJSON_AddNullToObject(po, "palette");
                cJSON_AddNullToObject(po, "paletteOf");
                cJSON_AddNullToObject(po, "paletteMap");
                continue;
            }
            const size_t joints = m->skins[mesh->skin].joint_count;
            cJSON_AddNumberToObject(po, "palette", (double)(part->palette_map ? part->palette_map_count : joints));
            cJSON_AddNumberToObject(po, "paletteOf", (double)joints);
            if (part->palette_map)
                cJSON_AddItemToObject(po, "paletteMap", cJSON_CreateIntArray(part->palette_map,
                                                                             (int)part->palette_map_count));
            else
                cJSON_AddNullToObject(po, "paletteMap");
        }
        if (mesh->target_names)
            cJSON_AddItemToObject(mo, "targetNames", cJSON_CreateStringArray(mesh->target_names,
                                                                             (int)mesh->target_name_count));
        else
            cJSON_AddNullToObject(mo, "targetNames");
    }
    cJSON *skins = cJSON_AddArrayToObject(o, "skins");
    for (size_t s = 0; skins && s < m->skin_count; s++) {
        const cna_model_skin *sk = &m->skins[s];
        cJSON *so = cJSON_CreateObject();
        if (!so) break;
        cJSON_AddItemToArray(skins, so);
        cJSON_AddNumberToObject(so, "index", (double)s);
        cJSON_AddNumberToObject(so, "skin", sk->gltf_skin);
        cJSON_AddNumberToObject(so, "meshNode", m->bones[sk->mesh_node].gltf_node);
        cJSON_AddNumberToObject(so, "meshBone", sk->mesh_node);
        const long same = same_as(m, s);
        if (same >= 0) cJSON_AddNumberToObject(so, "sameJointsAs", (double)same);
        else cJSON_AddNullToObject(so, "sameJointsAs");
        cJSON *joints = cJSON_AddArrayToObject(so, "joints");
        for (size_t p = 0; joints && p < sk->joint_count; p++) {
            cJSON *j = cJSON_CreateObject();
            if (!j) break;
            cJSON_AddItemToArray(joints, j);
            int32_t bone = sk->palette_to_node[p];
            cJSON_AddNumberToObject(j, "palette", (double)p);
            cJSON_AddNumberToObject(j, "ordinal", sk->palette_to_ordinal[p]);
            if (bone >= 0) cJSON_AddNumberToObject(j, "bone", bone);
            else cJSON_AddNullToObject(j, "bone");
            cJSON_AddNumberToObject(j, "node", sk->palette_to_gltf_node[p]);
            cJSON_AddStringToObject(j, "name", bone >= 0 ? m->bones[bone].name : "");
            cJSON_AddNumberToObject(j, "parent", sk->data.hierarchy[p]);
        }
        cJSON *roots = cJSON_AddArrayToObject(so, "roots");
        for (size_t r = 0; roots && r < sk->root_count; r++) {
            cJSON *ro = cJSON_CreateObject();
            if (!ro) break;
            cJSON_AddItemToArray(roots, ro);
            cJSON_AddNumberToObject(ro, "palette", sk->roots[r]);
            cJSON_AddItemToObject(ro, "prefix", mat_json(&sk->data.root_prefix[sk->roots[r]]));
        }
        cJSON *clips = cJSON_AddArrayToObject(so, "clips");
        for (size_t c = 0; clips && c < sk->data.clip_count; c++)
            cJSON_AddItemToArray(clips, clip_json(&sk->data.clips[c]));
    }
    cJSON *anims = cJSON_AddArrayToObject(o, "animations");
    for (size_t c = 0; anims && c < m->animation_count; c++) {
        cJSON *ao = cJSON_CreateObject();
        if (!ao) break;
        cJSON_AddItemToArray(anims, ao);
        cJSON_AddNumberToObject(ao, "index", (double)c);
        cJSON_AddStringToObject(ao, "name", cna_model_animation_name(m, c));
        cJSON_AddNumberToObject(ao, "duration", cna_ticks_to_seconds(m->node_clips[c].duration));
        cJSON *mk = cJSON_AddArrayToObject(ao, "markers");
        size_t n = 0;
        const cna_marker *k = cna_model_markers(m, c, &n);
        for (size_t i = 0; mk && i < n; i++) {
            cJSON *ko = cJSON_CreateObject();
            if (!ko) break;
            cJSON_AddItemToArray(mk, ko);
            cJSON_AddStringToObject(ko, "name", k[i].name);
            cJSON_AddNumberToObject(ko, "time", cna_ticks_to_seconds(k[i].ticks));
            cJSON_AddNumberToObject(ko, "ticks", (double)k[i].ticks);
        }
    }
    cJSON *nc = cJSON_AddArrayToObject(o, "nodeClips");
    for (size_t c = 0; nc && c < m->animation_count; c++) cJSON_AddItemToArray(nc, clip_json(&m->node_clips[c]));
    cJSON *diags = cJSON_AddArrayToObject(o, "diagnostics");
    for (size_t d = 0; diags && d < m->diagnostic_count; d++) {
        cJSON *dj = cJSON_CreateObject();
        if (!dj) break;
        cJSON_AddItemToArray(diags, dj);
        cJSON_AddStringToObject(dj, "code", m->diagnostics[d].code);
        cJSON_AddNumberToObject(dj, "count", (double)m->diagnostics[d].count);
        cJSON_AddStringToObject(dj, "message", m->diagnostics[d].message);
    }
    return o;
}

cJSON *cna_cli_model_inspect_json(const cna_gltf_document *doc, const cna_import_options *opts)
{
    cna_model *m = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    if (cna_model_import_gltf(doc, opts, &m, &err) != CNA_OK) {
        cJSON *o = cJSON_CreateObject();
        if (o) cJSON_AddStringToObject(o, "refused", err.message);
        return o;
    }
    cJSON *o = cna_cli_model_json(m);
    cna_model_free(m);
    return o;
}
