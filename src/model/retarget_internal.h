/*
 * Retargeting (src/import/retarget.c), called by the binding (src/import/bind.c).
 * Not installed.
 */
#ifndef CNA_RETARGET_INTERNAL_H
#define CNA_RETARGET_INTERNAL_H

#include "cna/clips.h"
#include "model/model_internal.h"

/* Retarget every animation of `doc` (imported here), or of the model
 * `source` when doc is NULL (a .cnb library at `path`), onto `target`:
 * clips first + a of ctx->model's skins and node_clips[first + a], keys in
 * ctx->arena, key magnitudes into ctx->node_key_*; diagnostics on
 * ctx->model. Errors name the library. */
cna_result cna__retarget_library(cna__import_ctx *ctx, const cna_model *target, const cna_gltf_document *doc,
                                 const cna_model *source, const char *path, const cna_bind_options *options,
                                 size_t first, cna_clip *node_clips, cna_error *err);

/* A list of names for a message: "\"a\", \"b\", ... and N more" (the first 12). */
typedef struct cna__name_list {
    char text[400];
    size_t count, shown;
} cna__name_list;

void cna__name_list_add(cna__name_list *l, const char *name);
/* " and N more" when names were left out, else "" (written to buf). */
const char *cna__name_list_tail(const cna__name_list *l, char *buf, size_t size);

/* true for "hips" or "pelvis" in any case, after a "...:", "...|" or "DEF-" prefix. */
bool cna__retarget_is_hips(const char *name);
/* The humanoid key of a name ("L:upperleg"), false when it has none. */
bool cna__retarget_canonical(const char *name, char *out, size_t size);

#endif
