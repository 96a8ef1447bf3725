/*
 * tools/inspect.c — `cna inspect FILE [--json | --brief]`: load a glTF 2.0
 * file with the library's reader and print what it holds (the text form here,
 * the JSON form in inspect_json.c), or print why it is refused. A .cnb baked
 * model has no glTF document: only its model section is printed.
 *
 * Exit codes: 0 loaded, 1 refused (error: FILE: message on stderr), 2 usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cna/baked.h"
#include "inspect.h"
#include "model_inspect.h"

void cna_cli_inspect_help(FILE *out)
{
    fprintf(out,
            "usage: cna inspect FILE [--json | --brief] [--asset-root DIR] [--split-palettes]\n"
            "                   [--no-textures] [--max-decoded-size N]\n"
            "\n"
            "Loads FILE (.gltf or .glb) with cna's glTF 2.0 reader, which validates the\n"
            "whole document, and prints a summary: asset, scenes (the default marked),\n"
            "nodes as a tree with their transforms, meshes and primitives with their\n"
            "attributes, skins with their joints, animations with their channels,\n"
            "interpolation modes and durations, materials, and the reader's diagnostics;\n"
            "then the imported model: skins with their index spaces (a skin equal to an\n"
            "earlier one on one line), each skinned part's palette (\"palette 72 of 300\"\n"
            "for a part split by --split-palettes), morph target names, clips, each animation's\n"
            "markers and diagnostics. A .cnb baked model (cna convert) has no glTF\n"
            "document: only the model part, with the markers cna convert --marker stored.\n"
            "\n"
            "options:\n"
            "  --json               print the same summary as one JSON document\n"
            "  --brief              print a few lines: the document's counts and the model's\n"
            "                       key facts\n"
            CNA_CLI_ASSET_ROOT_HELP("     ", "                       ")
            CNA_CLI_CLIPS_HELP("         ", "                       ")
            CNA_CLI_SPLIT_PALETTES_HELP("     ", "                       ")
            CNA_CLI_NO_TEXTURES_HELP("     ", "                       ")
            CNA_CLI_MAX_DECODED_HELP(" ", "                       ")
            "  --                   end of options (for a FILE starting with '-')\n"
            "  -h, --help           print this help\n"
            "\n"
            "exit status: 0 the file loads; 1 it is refused (\"error: FILE: message\" on\n"
            "stderr, nothing on stdout); 2 usage error.\n");
}

/* ------------------------------------------------------------ shared helpers */

cna_cli_sampler_keys cna_cli_sampler_keys_of(const cna_gltf_document *doc,
                                             const cna_gltf_animation_sampler *sampler)
{
    cna_cli_sampler_keys keys = {0, 0.0, 0.0};
    if (sampler->input < 0 || (size_t)sampler->input >= doc->accessor_count) return keys;
    const cna_gltf_accessor *input = &doc->accessors[sampler->input];
    float first = 0.0f, last = 0.0f;
    if (input->count == 0 ||
        cna_gltf_accessor_read_element_floats(doc, sampler->input, 0, &first, 1, NULL) != CNA_OK ||
        cna_gltf_accessor_read_element_floats(doc, sampler->input, input->count - 1, &last, 1,
                                              NULL) != CNA_OK)
        return keys;
    keys.count = input->count;
    keys.start = first;
    keys.end = last;
    return keys;
}

double cna_cli_animation_duration(const cna_gltf_document *doc, const cna_gltf_animation *anim)
{
    double duration = 0.0;
    for (size_t i = 0; i < anim->sampler_count; i++) {
        cna_cli_sampler_keys keys = cna_cli_sampler_keys_of(doc, &anim->samplers[i]);
        if (keys.end > duration) duration = keys.end;
    }
    return duration;
}

/* ------------------------------------------------------------ text form */

/* A name from the file, quoted, with control characters and quotes escaped
 * (names are untrusted input). Prints nothing for NULL. */
static void print_name(FILE *out, const char *name)
{
    if (!name) return;
    fputs(" \"", out);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* The shortest decimal form that reads back as exactly v (at most 9 digits). */
static void print_float(FILE *out, float v)
{
    char buf[32];
    for (int digits = 6; digits <= 9; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, (double)v);
        if (strtof(buf, NULL) == v || v != v) break;
    }
    fputs(buf, out);
}

static void print_floats(FILE *out, const float *v, size_t n)
{
    fputc('(', out);
    for (size_t i = 0; i < n; i++) {
        if (i) fputs(", ", out);
        print_float(out, v[i]);
    }
    fputc(')', out);
}

static const char *node_name(const cna_gltf_document *doc, int32_t node)
{
    if (node < 0 || (size_t)node >= doc->node_count) return NULL;
    return doc->nodes[node].name;
}

static void print_asset(FILE *out, const char *path, const cna_gltf_document *doc)
{
    fprintf(out, "file: %s (%s)\n", path, doc->is_glb ? "GLB" : "glTF JSON");
    fprintf(out, "asset: version %s", doc->asset.version ? doc->asset.version : "?");
    if (doc->asset.min_version) fprintf(out, ", minVersion %s", doc->asset.min_version);
    if (doc->asset.generator) {
        fputs(", generator", out);
        print_name(out, doc->asset.generator);
    }
    if (doc->asset.copyright) {
        fputs(", copyright", out);
        print_name(out, doc->asset.copyright);
    }
    fputc('\n', out);
    fputs("extensions used:", out);
    for (size_t i = 0; i < doc->extensions_used_count; i++)
        fprintf(out, " %s", doc->extensions_used[i]);
    fputs(doc->extensions_used_count ? "\n" : " none\n", out);
    fputs("extensions required:", out);
    for (size_t i = 0; i < doc->extensions_required_count; i++)
        fprintf(out, " %s", doc->extensions_required[i]);
    fputs(doc->extensions_required_count ? "\n" : " none\n", out);
}

static void print_buffers(FILE *out, const cna_gltf_document *doc)
{
    fprintf(out, "buffers: %zu\n", doc->buffer_count);
    for (size_t i = 0; i < doc->buffer_count; i++) {
        const cna_gltf_buffer *b = &doc->buffers[i];
        fprintf(out, "  buffer %zu", i);
        print_name(out, b->name);
        fprintf(out, ": %zu bytes, %s", b->byte_length, cna_gltf_source_name(b->source));
        if (b->uri) {
            fputs(" uri", out);
            print_name(out, b->uri);
        }
        fputc('\n', out);
    }
}

static void print_scenes(FILE *out, const cna_gltf_document *doc)
{
    fprintf(out, "scenes: %zu", doc->scene_count);
    if (doc->scene >= 0)
        fprintf(out, " (default %d)\n", doc->scene);
    else
        fputs(" (no default scene)\n", out);
    for (size_t i = 0; i < doc->scene_count; i++) {
        const cna_gltf_scene *s = &doc->scenes[i];
        fprintf(out, "  scene %zu", i);
        print_name(out, s->name);
        if ((int32_t)i == doc->scene) fputs(" (default)", out);
        fputs(": roots", out);
        for (size_t r = 0; r < s->node_count; r++) fprintf(out, " %d", s->nodes[r]);
        fputs(s->node_count ? "\n" : " none\n", out);
    }
}

static void print_node_line(FILE *out, const cna_gltf_document *doc, int32_t index, size_t depth)
{
    static const float identity_q[4] = {0, 0, 0, 1};
    const cna_gltf_node *n = &doc->nodes[index];
    fprintf(out, "  %*s[%d]", (int)(depth > 1000 ? 2000 : depth * 2), "", index);
    print_name(out, n->name);
    if (n->mesh >= 0) fprintf(out, " mesh %d", n->mesh);
    if (n->skin >= 0) fprintf(out, " skin %d", n->skin);
    if (n->camera >= 0) fprintf(out, " camera %d", n->camera);
    if (n->instance_count) fprintf(out, " instances %zu", n->instance_count);
    if (n->has_matrix) {
        fputs(" matrix", out);
        print_floats(out, n->matrix.m, 16);
    } else {
        if (n->translation.x != 0 || n->translation.y != 0 || n->translation.z != 0) {
            const float t[3] = {n->translation.x, n->translation.y, n->translation.z};
            fputs(" T", out);
            print_floats(out, t, 3);
        }
        const float q[4] = {n->rotation.x, n->rotation.y, n->rotation.z, n->rotation.w};
        if (memcmp(q, identity_q, sizeof q) != 0) {
            fputs(" R", out);
            print_floats(out, q, 4);
        }
        if (n->scale.x != 1 || n->scale.y != 1 || n->scale.z != 1) {
            const float s[3] = {n->scale.x, n->scale.y, n->scale.z};
            fputs(" S", out);
            print_floats(out, s, 3);
        }
    }
    if (n->weight_count) {
        fputs(" weights", out);
        print_floats(out, n->weights, n->weight_count);
    }
    fputc('\n', out);
}

/* The forest, depth first, children in file order. Iterative: the node
 * graph is validated acyclic but may be arbitrarily deep. */
static bool print_nodes(FILE *out, const cna_gltf_document *doc)
{
    fprintf(out, "nodes: %zu\n", doc->node_count);
    if (doc->node_count == 0) return true;
    typedef struct { int32_t node; size_t depth; } entry;
    entry *stack = malloc(doc->node_count * sizeof *stack);
    if (!stack) return false;
    for (size_t root = 0; root < doc->node_count; root++) {
        if (doc->nodes[root].parent >= 0) continue;
        size_t top = 0;
        stack[top++] = (entry){(int32_t)root, 0};
        while (top > 0) {
            entry e = stack[--top];
            print_node_line(out, doc, e.node, e.depth);
            const cna_gltf_node *n = &doc->nodes[e.node];
            for (size_t c = n->child_count; c-- > 0 && top < doc->node_count;)
                stack[top++] = (entry){n->children[c], e.depth + 1};
        }
    }
    free(stack);
    return true;
}

static void print_accessor_brief(FILE *out, const cna_gltf_document *doc, int32_t index)
{
    fprintf(out, "accessor %d", index);
    if (index < 0 || (size_t)index >= doc->accessor_count) return;
    const cna_gltf_accessor *a = &doc->accessors[index];
    fprintf(out, " (%zu x %s %s%s%s)", a->count, cna_gltf_type_name(a->type),
            cna_gltf_component_type_name(a->component_type), a->normalized ? " normalized" : "",
            a->is_sparse ? " sparse" : "");
}

static void print_primitive(FILE *out, const cna_gltf_document *doc, const cna_gltf_primitive *p,
                            size_t index)
{
    fprintf(out, "    primitive %zu: %s, %zu vertices, ", index, cna_gltf_primitive_mode_name(p->mode),
            p->vertex_count);
    if (p->indices >= 0) {
        fputs("indices ", out);
        print_accessor_brief(out, doc, p->indices);
    } else {
        fputs("not indexed", out);
    }
    if (p->material >= 0)
        fprintf(out, ", material %d", p->material);
    else
        fputs(", default material", out);
    fprintf(out, ", %zu morph targets\n", p->target_count);
    for (size_t a = 0; a < p->attribute_count; a++) {
        fputs("     ", out);
        print_name(out, p->attributes[a].name);
        fputc(' ', out);
        print_accessor_brief(out, doc, p->attributes[a].accessor);
        fputc('\n', out);
    }
    for (size_t t = 0; t < p->target_count; t++) {
        const cna_gltf_morph_target *target = &p->targets[t];
        fprintf(out, "      target %zu:", t);
        for (size_t a = 0; a < target->attribute_count; a++) {
            print_name(out, target->attributes[a].name);
            fprintf(out, " accessor %d%s", target->attributes[a].accessor,
                    a + 1 < target->attribute_count ? "," : "");
        }
        fputc('\n', out);
    }
}

static void print_meshes(FILE *out, const cna_gltf_document *doc)
{
    fprintf(out, "meshes: %zu\n", doc->mesh_count);
    for (size_t i = 0; i < doc->mesh_count; i++) {
        const cna_gltf_mesh *m = &doc->meshes[i];
        fprintf(out, "  mesh %zu", i);
        print_name(out, m->name);
        fprintf(out, ": %zu primitives, %zu morph targets", m->primitive_count, m->target_count);
        if (m->target_count) {
            fputs(", default weights ", out);
            print_floats(out, m->weights, m->target_count);
        }
        if (m->target_names) {
            fputs(", targetNames", out);
            for (size_t t = 0; t < m->target_count; t++) print_name(out, m->target_names[t]);
        }
        fputc('\n', out);
        for (size_t p = 0; p < m->primitive_count; p++) print_primitive(out, doc, &m->primitives[p], p);
    }
}

static void print_skins(FILE *out, const cna_gltf_document *doc)
{
    fprintf(out, "skins: %zu\n", doc->skin_count);
    for (size_t i = 0; i < doc->skin_count; i++) {
        const cna_gltf_skin *s = &doc->skins[i];
        fprintf(out, "  skin %zu", i);
        print_name(out, s->name);
        fprintf(out, ": %zu joints, skeleton ", s->joint_count);
        if (s->skeleton >= 0) {
            fprintf(out, "%d", s->skeleton);
            print_name(out, node_name(doc, s->skeleton));
        } else {
            fputs("none", out);
        }
        if (s->inverse_bind_matrices >= 0)
            fprintf(out, ", inverseBindMatrices accessor %d\n", s->inverse_bind_matrices);
        else
            fputs(", inverseBindMatrices identity\n", out);
        fputs("    joints:", out);
        for (size_t j = 0; j < s->joint_count; j++) fprintf(out, " %d", s->joints[j]);
        fputc('\n', out);
    }
}

static void print_animation(FILE *out, const cna_gltf_document *doc, const cna_gltf_animation *anim,
                            size_t index)
{
    size_t modes[CNA_GLTF_INTERPOLATION_COUNT] = {0};
    for (size_t s = 0; s < anim->sampler_count; s++) {
        cna_gltf_interpolation i = anim->samplers[s].interpolation;
        if ((unsigned)i < CNA_GLTF_INTERPOLATION_COUNT) modes[i]++;
    }
    fprintf(out, "  animation %zu", index);
    print_name(out, anim->name);
    fprintf(out, ": %zu channels, %zu samplers, duration %g s, interpolation", anim->channel_count,
            anim->sampler_count, cna_cli_animation_duration(doc, anim));
    for (int i = 0; i < CNA_GLTF_INTERPOLATION_COUNT; i++)
        if (modes[i])
            fprintf(out, " %s x%zu", cna_gltf_interpolation_name((cna_gltf_interpolation)i), modes[i]);
    fputc('\n', out);
    for (size_t c = 0; c < anim->channel_count; c++) {
        const cna_gltf_animation_channel *ch = &anim->channels[c];
        fprintf(out, "    channel %zu: ", c);
        if (ch->target_node >= 0) {
            fprintf(out, "node %d", ch->target_node);
            print_name(out, node_name(doc, ch->target_node));
        } else {
            fputs("no target node", out);
        }
        fprintf(out, " %s <- sampler %d", cna_gltf_animation_path_name(ch->path), ch->sampler);
        if (ch->sampler >= 0 && (size_t)ch->sampler < anim->sampler_count) {
            const cna_gltf_animation_sampler *s = &anim->samplers[ch->sampler];
            cna_cli_sampler_keys keys = cna_cli_sampler_keys_of(doc, s);
            fprintf(out, " (%s, %zu keys, %g..%g s)", cna_gltf_interpolation_name(s->interpolation),
                    keys.count, keys.start, keys.end);
        }
        fputc('\n', out);
    }
}

static void print_texture_ref(FILE *out, const char *what, const cna_gltf_texture_ref *ref)
{
    if (ref->texture < 0) return;
    const cna_gltf_texture_transform *t = &ref->transform;
    fprintf(out, ", %s texture %d (TEXCOORD_%d)", what, ref->texture, t->texcoord >= 0 ? t->texcoord : ref->texcoord);
    if (t->present)
        fprintf(out, " transform offset (%g, %g) rotation %g scale (%g, %g)", (double)t->offset[0],
                (double)t->offset[1], (double)t->rotation, (double)t->scale[0], (double)t->scale[1]);
}

static void print_materials(FILE *out, const cna_gltf_document *doc)
{
    fprintf(out, "materials: %zu\n", doc->material_count);
    for (size_t i = 0; i < doc->material_count; i++) {
        const cna_gltf_material *m = &doc->materials[i];
        const float base[4] = {m->base_color_factor.x, m->base_color_factor.y, m->base_color_factor.z,
                               m->base_color_factor.w};
        fprintf(out, "  material %zu", i);
        print_name(out, m->name);
        fputs(": baseColor ", out);
        print_floats(out, base, 4);
        fprintf(out, ", metallic %g, roughness %g, alphaMode %s", (double)m->metallic_factor,
                (double)m->roughness_factor, cna_gltf_alpha_mode_name(m->alpha_mode));
        if (m->alpha_mode == CNA_GLTF_ALPHA_MASK) fprintf(out, " (cutoff %g)", (double)m->alpha_cutoff);
        if (m->double_sided) fputs(", double-sided", out);
        if (m->emissive_strength != 1.0f) fprintf(out, ", emissive strength %g", (double)m->emissive_strength);
        if (m->unlit) fputs(", unlit", out);
        print_texture_ref(out, "baseColor", &m->base_color_texture);
        print_texture_ref(out, "metallicRoughness", &m->metallic_roughness_texture);
        print_texture_ref(out, "normal", &m->normal_texture);
        print_texture_ref(out, "occlusion", &m->occlusion_texture);
        print_texture_ref(out, "emissive", &m->emissive_texture);
        fputc('\n', out);
    }
}

static void print_images(FILE *out, const cna_gltf_document *doc)
{
    fprintf(out, "textures: %zu, images: %zu, samplers: %zu, cameras: %zu\n", doc->texture_count,
            doc->image_count, doc->sampler_count, doc->camera_count);
    for (size_t i = 0; i < doc->image_count; i++) {
        const cna_gltf_image *im = &doc->images[i];
        fprintf(out, "  image %zu", i);
        print_name(out, im->name);
        fprintf(out, ": %s", cna_gltf_source_name(im->source));
        if (im->uri) {
            fputs(" uri", out);
            print_name(out, im->uri);
        }
        if (im->mime_type) fprintf(out, " %s", im->mime_type);
        fputs(im->available ? "\n" : doc->textures_skipped ? " (not read)\n" : " (missing)\n", out);
    }
}

static void print_diagnostics(FILE *out, const cna_gltf_document *doc)
{
    size_t n = cna_gltf_document_diagnostic_count(doc);
    fprintf(out, "diagnostics: %zu%s", n, n ? "\n" : " (none)\n");
    for (size_t i = 0; i < n; i++) {
        const cna_gltf_diagnostic *d = cna_gltf_document_diagnostic(doc, i);
        fprintf(out, "  warning %s (x%zu): %s\n", d->code, d->count, d->message);
    }
}

static bool print_text(FILE *out, const char *path, const cna_gltf_document *doc, const cna_import_options *opts)
{
    print_asset(out, path, doc);
    print_buffers(out, doc);
    print_scenes(out, doc);
    if (!print_nodes(out, doc)) return false;
    print_meshes(out, doc);
    print_skins(out, doc);
    fprintf(out, "animations: %zu\n", doc->animation_count);
    for (size_t i = 0; i < doc->animation_count; i++) print_animation(out, doc, &doc->animations[i], i);
    print_materials(out, doc);
    print_images(out, doc);
    print_diagnostics(out, doc);
    /* The imported model: skins with their three index spaces, root
     * prefixes, clips (tools/model_inspect.c). */
    return cna_cli_model_inspect_text(out, doc, opts);
}

/* --brief: the document's counts in two lines, then the model's key facts. */
static bool print_brief(FILE *out, const char *path, const cna_gltf_document *doc, const cna_import_options *opts)
{
    size_t primitives = 0;
    for (size_t i = 0; i < doc->mesh_count; i++) primitives += doc->meshes[i].primitive_count;
    fprintf(out, "file: %s (%s)", path, doc->is_glb ? "GLB" : "glTF JSON");
    if (doc->asset.generator) {
        fputs(", generator", out);
        print_name(out, doc->asset.generator);
    }
    fputc('\n', out);
    fprintf(out,
            "document: %zu scenes, %zu nodes, %zu meshes (%zu primitives), %zu skins, %zu animations, "
            "%zu materials, %zu images, %zu diagnostics\n",
            doc->scene_count, doc->node_count, doc->mesh_count, primitives, doc->skin_count, doc->animation_count,
            doc->material_count, doc->image_count, cna_gltf_document_diagnostic_count(doc));
    cna_model *m = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    if (cna_model_import_gltf(doc, opts, &m, &err) != CNA_OK) {
        fputs("model: refused:", out);
        print_name(out, err.message);
        fputc('\n', out);
        return !ferror(out);
    }
    bool ok = cna_cli_model_brief(out, m);
    cna_model_free(m);
    return ok;
}

/* A .cnb file: the model alone (its glTF document was not kept). */
static int inspect_cnb(const char *path, bool json, bool brief)
{
    cna_model *m = NULL;
    cna_error err;
    if (cna_cnb_load_file(path, NULL, &m, &err) != CNA_OK) return cna_cli_report_error(NULL, &err);
    bool ok;
    if (json) {
        ok = cna_cli_inspect_write_cnb_json(stdout, path, m);
    } else {
        fprintf(stdout, "file: %s (.cnb baked model: the model as imported; no glTF document is kept)\n", path);
        ok = brief ? cna_cli_model_brief(stdout, m) : cna_cli_model_print(stdout, m);
    }
    cna_model_free(m);
    if (fflush(stdout) != 0 || ferror(stdout)) ok = false;
    if (!ok) {
        fprintf(stderr, "error: %s: out of memory or cannot write the summary\n", path);
        return CNA_CLI_EXIT_FAILURE;
    }
    return CNA_CLI_EXIT_OK;
}

/* --clips: the model bound to the libraries, each bound animation with its
 * matched and unmatched targets (tools/clips.c). */
static int inspect_clips(const char *path, const cna_import_options *io)
{
    cna_model *m = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_cli_files files;
    memset(&files, 0, sizeof files);
    cna_cli_clips_keep_libraries(); /* listed below: loaded once */
    cna_result r = cna_cli_load_any(path, io, &m, &files, &err);
    cna_cli_files_free(&files);
    if (r != CNA_OK) return cna_cli_report_error(NULL, &err);
    bool ok = cna_cli_clips_print(stdout, m);
    cna_model_free(m);
    if (!ok) {
        fprintf(stderr, "error: %s: cannot list the --clips bindings\n", path);
        return CNA_CLI_EXIT_FAILURE;
    }
    return CNA_CLI_EXIT_OK;
}

/* ------------------------------------------------------------ command */

int cna_cli_inspect_run(int argc, char **argv)
{
    const cna_cli_command *self = cna_cli_find("inspect");
    const char *path = NULL, *asset_root = NULL;
    bool json = false, brief = false, options_done = false, split_palettes = false, no_textures = false;
    size_t max_decoded = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int md = options_done ? -2 : cna_cli_max_decoded_option(self, argc, argv, &i, &max_decoded);
        if (md == -1) continue;
        if (md >= 0) return md;
        if (!options_done && arg[0] == '-' && arg[1] != '\0') {
            if (strcmp(arg, "--") == 0) {
                options_done = true;
            } else if (strcmp(arg, "--json") == 0) {
                json = true;
            } else if (strcmp(arg, "--brief") == 0) {
                brief = true;
            } else if (strcmp(arg, "--split-palettes") == 0) {
                split_palettes = true;
            } else if (strcmp(arg, "--no-textures") == 0) {
                no_textures = true;
            } else if (strcmp(arg, "--asset-root") == 0) {
                if (i + 1 >= argc) return cna_cli_usage_error(self, "--asset-root needs a value");
                asset_root = argv[++i];
            } else if (cna_cli_is_help(arg)) {
                cna_cli_inspect_help(stdout);
                return CNA_CLI_EXIT_OK;
            } else {
                return cna_cli_usage_error(self, "unknown option '%s'", arg);
            }
        } else if (path) {
            return cna_cli_usage_error(self, "takes one FILE ('%s' and '%s' given)", path, arg);
        } else {
            path = arg;
        }
    }
    if (!path) return cna_cli_usage_error(self, "missing FILE");
    if (json && brief) return cna_cli_usage_error(self, "--json and --brief do not combine");
    if (json && cna_cli_clips_count() > 0)
        return cna_cli_usage_error(self, "--clips lists its bindings in the text output; it does not combine "
                                         "with --json");

    const cna_cli_file_kind kind = cna_cli_probe_file(path, true);
    if (kind == CNA_CLI_FILE_UNUSABLE) return CNA_CLI_EXIT_FAILURE;
    if (kind == CNA_CLI_FILE_CNB) {
        int rc = inspect_cnb(path, json, brief);
        if (rc == CNA_CLI_EXIT_OK && cna_cli_clips_count() > 0) rc = inspect_clips(path, NULL);
        return rc;
    }
    cna_gltf_document *doc = NULL;
    cna_error err;
    cna_gltf_options gltf_options;
    memset(&gltf_options, 0, sizeof gltf_options);
    gltf_options.asset_root = asset_root;
    gltf_options.no_textures = no_textures;
    gltf_options.max_decoded_size = max_decoded;
    if (cna_gltf_load_file(path, &gltf_options, &doc, &err) != CNA_OK) return cna_cli_report_error(path, &err);
    cna_import_options io;
    memset(&io, 0, sizeof io);
    io.split_palettes = split_palettes;
    bool ok = json    ? cna_cli_inspect_write_json(stdout, path, doc, &io)
              : brief ? print_brief(stdout, path, doc, &io)
                      : print_text(stdout, path, doc, &io);
    cna_gltf_document_free(doc);
    if (ok && cna_cli_clips_count() > 0) {
        int rc = inspect_clips(path, &io);
        if (rc != CNA_CLI_EXIT_OK) return rc;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) ok = false;
    if (!ok) {
        fprintf(stderr, "error: %s: out of memory or cannot write the summary\n", path);
        return CNA_CLI_EXIT_FAILURE;
    }
    return CNA_CLI_EXIT_OK;
}
