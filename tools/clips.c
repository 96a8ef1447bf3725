/*
 * tools/clips.c — `--clips FILE` (repeatable) on inspect, pose, render, view,
 * bench, convert and play: the animations of other glTF/GLB files bound to the
 * model by node name (cna/clips.h), numbered after the model's own.
 *
 * main() takes the options out of the command line before the command sees
 * it (cna_cli_clips_take); the model loaders of tools/paths.c then bind them
 * (cna_cli_clips_bind), so that every command plays them like the model's
 * own animations. The model a bound model was made from is kept here and
 * given up at exit (the bound model holds its own reference on it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cna/clips.h"
#include "cna/model.h"

static bool g_retarget, g_align;
static const char *g_map_path, *g_hips;
static const char **g_paths;
static size_t g_count;
static cna_model **g_bases;
static size_t g_base_count;
/* The libraries of the last binding (g_count of them) and the model it made: what
 * cna_cli_clips_print lists, without loading the files again. */
static cna_clip_library **g_libs;
static const cna_model *g_libs_bound;
static bool g_keep_libs;

void cna_cli_clips_keep_libraries(void) { g_keep_libs = true; }

static void free_libs(void)
{
    for (size_t i = 0; g_libs && i < g_count; i++) cna_clip_library_free(g_libs[i]);
    free(g_libs);
    g_libs = NULL;
    g_libs_bound = NULL;
}

static void free_bases(void)
{
    free_libs();
    for (size_t i = 0; i < g_base_count; i++) cna_model_free(g_bases[i]);
    free(g_bases);
    free(g_paths);
    g_bases = NULL;
    g_paths = NULL;
    g_base_count = g_count = 0;
}

int cna_cli_clips_take(const cna_cli_command *command, int *argc, char **argv)
{
    static const char *const takers[] = {"inspect", "pose", "render", "view", "bench", "convert", "play"};
    bool takes = false;
    for (size_t i = 0; i < sizeof takers / sizeof takers[0]; i++) takes = takes || strcmp(command->name, takers[i]) == 0;
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            while (i < *argc) argv[out++] = argv[i++];
            break;
        }
        const char *arg = argv[i];
        if (strcmp(arg, "--retarget") == 0 || strcmp(arg, "--retarget-align") == 0 ||
            strcmp(arg, "--retarget-map") == 0 || strcmp(arg, "--retarget-hips") == 0) {
            if (!takes) return cna_cli_usage_error(command, "unknown option '%s'", arg);
            if (strcmp(arg, "--retarget") == 0) g_retarget = true;
            else if (strcmp(arg, "--retarget-align") == 0) g_align = true;
            else if (i + 1 >= *argc) return cna_cli_usage_error(command, "%s needs a value", arg);
            else if (strcmp(arg, "--retarget-map") == 0) g_map_path = argv[++i];
            else g_hips = argv[++i];
            continue;
        }
        if (strcmp(arg, "--clips") != 0) {
            argv[out++] = argv[i];
            continue;
        }
        if (!takes) return cna_cli_usage_error(command, "unknown option '--clips'");
        if (i + 1 >= *argc) return cna_cli_usage_error(command, "--clips needs a value");
        const char **grown = (const char **)realloc(g_paths, (g_count + 1) * sizeof *g_paths);
        if (!grown) {
            fprintf(stderr, "error: out of memory\n");
            return CNA_CLI_EXIT_FAILURE;
        }
        if (!g_paths) atexit(free_bases);
        g_paths = grown;
        g_paths[g_count++] = argv[++i];
    }
    argv[out] = NULL;
    *argc = out;
    if ((g_align || g_map_path || g_hips) && !g_retarget)
        return cna_cli_usage_error(command, "%s needs --retarget",
                                   g_align ? "--retarget-align" : g_map_path ? "--retarget-map" : "--retarget-hips");
    if (g_retarget && g_count == 0) return cna_cli_usage_error(command, "--retarget needs --clips FILE");
    return -1;
}

size_t cna_cli_clips_count(void) { return g_count; }

const char *cna_cli_clips_path(size_t i) { return i < g_count ? g_paths[i] : NULL; }

cna_result cna_cli_clips_bind(cna_model **model, cna_cli_files *files, cna_error *err)
{
    if (g_count == 0) return CNA_OK;
    cna_model **grown = (cna_model **)realloc(g_bases, (g_base_count + 1) * sizeof *g_bases);
    cna_clip_library **libs = (cna_clip_library **)calloc(g_count, sizeof *libs);
    if (!grown || !libs) {
        if (grown) g_bases = grown;
        free(libs);
        err->code = CNA_ERROR_OUT_OF_MEMORY;
        snprintf(err->message, sizeof err->message, "out of memory");
        return CNA_ERROR_OUT_OF_MEMORY;
    }
    g_bases = grown;
    cna_result r = CNA_OK;
    for (size_t i = 0; i < g_count && r == CNA_OK; i++) {
        if (files && !cna_cli_files_add(files, g_paths[i], "--clips file %zu", i + 1)) {
            err->code = r = CNA_ERROR_OUT_OF_MEMORY;
            snprintf(err->message, sizeof err->message, "out of memory");
            break;
        }
        r = cna_clip_library_load_file(g_paths[i], NULL, &libs[i], err);
    }
    cna_model *bound = NULL;
    cna_bind_options o;
    memset(&o, 0, sizeof o);
    cna_retarget_map *map = NULL;
    o.retarget = g_retarget;
    o.retarget_align = g_align;
    o.retarget_hips = g_hips;
    if (r == CNA_OK && g_map_path) {
        if (files && !cna_cli_files_add(files, g_map_path, "the --retarget-map file")) {
            err->code = r = CNA_ERROR_OUT_OF_MEMORY;
            snprintf(err->message, sizeof err->message, "out of memory");
        }
        if (r == CNA_OK) r = cna_retarget_map_load_file(g_map_path, &map, err);
        if (r == CNA_OK) o.retarget_map = cna_retarget_map_pairs(map, &o.retarget_map_count);
    }
    if (r == CNA_OK) r = cna_model_bind_clips(*model, (const cna_clip_library *const *)libs, g_count, &o, &bound, err);
    cna_retarget_map_free(map);
    if (r != CNA_OK || !g_keep_libs) {
        for (size_t i = 0; i < g_count; i++) cna_clip_library_free(libs[i]);
        free(libs);
    } else {
        free_libs();
        g_libs = libs;
        g_libs_bound = bound;
    }
    if (r != CNA_OK) return r;
    g_bases[g_base_count++] = *model;
    *model = bound;
    return CNA_OK;
}

bool cna_cli_clips_print(FILE *out, const cna_model *bound)
{
    size_t first = 0;
    cna_error err;
    /* the model's own animations come first: the bound model has this many more */
    size_t added = 0;
    /* the libraries the binding loaded (they are loaded again only for another model) */
    const bool kept = g_libs && g_libs_bound == bound;
    cna_clip_library **libs = kept ? g_libs : (cna_clip_library **)calloc(g_count ? g_count : 1, sizeof *libs);
    if (!libs) return false;
    bool ok = true;
    for (size_t i = 0; i < g_count && ok; i++) {
        if (!kept && cna_clip_library_load_file(g_paths[i], NULL, &libs[i], &err) != CNA_OK) ok = false;
        else added += cna_clip_library_animation_count(libs[i]);
    }
    if (ok) first = bound->animation_count - added;
    for (size_t i = 0; i < g_count && ok; i++) {
        const cna_clip_library *lib = libs[i];
        size_t n = cna_clip_library_animation_count(lib);
        fprintf(out, "clips %s: %zu animation%s, bound as animations %zu..%zu\n", g_paths[i], n, n == 1 ? "" : "s",
                first, first + n - 1);
        for (size_t a = 0; a < n; a++) {
            size_t targets = cna_clip_library_target_count(lib, a), matched = 0;
            for (size_t t = 0; t < targets; t++)
                if (cna_model_find_bone(bound, cna_clip_library_target_name(lib, a, t)) >= 0 &&
                    cna_clip_library_target_name(lib, a, t)[0])
                    matched++;
            fprintf(out, "  animation %zu \"%s\": %zu of %zu targets matched", first + a,
                    cna_clip_library_animation_name(lib, a), matched, targets);
            if (matched < targets) {
                fputs("; unmatched:", out);
                for (size_t t = 0; t < targets; t++) {
                    const char *name = cna_clip_library_target_name(lib, a, t);
                    if (name[0] && cna_model_find_bone(bound, name) >= 0) continue;
                    fprintf(out, " \"%s\"", name);
                }
            }
            fputc('\n', out);
        }
        first += n;
    }
    if (ok) {
        const char *codes[] = {CNA_MODEL_DIAG_CLIP_UNBOUND, CNA_MODEL_DIAG_CLIP_UNREACHED,
                               CNA_MODEL_DIAG_CLIP_NAME_AMBIGUOUS, CNA_MODEL_DIAG_RETARGET_UNMAPPED,
                               CNA_MODEL_DIAG_RETARGET_MAP_UNUSED, CNA_MODEL_DIAG_RETARGET_HIPS};
        for (size_t c = 0; c < sizeof codes / sizeof codes[0]; c++) {
            const cna_model_diagnostic *d = cna_model_find_diagnostic(bound, codes[c]);
            if (d) fprintf(out, "  warning %s (x%zu): %s\n", d->code, d->count, d->message);
        }
    }
    if (!kept) {
        for (size_t i = 0; i < g_count; i++) cna_clip_library_free(libs[i]);
        free(libs);
    }
    return ok && !ferror(out);
}
