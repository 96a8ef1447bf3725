/*
 * tools/inspect.h — shared between the text (inspect.c) and JSON
 * (inspect_json.c) forms of `cna inspect`. Not part of the library.
 */
#ifndef CNA_TOOLS_INSPECT_H
#define CNA_TOOLS_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cna/gltf.h"
#include "cna/model.h"

/* Keys of one animation sampler, from its input accessor. */
typedef struct cna_cli_sampler_keys {
    size_t count;   /* number of keys (input accessor count) */
    double start;   /* first input time, seconds */
    double end;     /* last (largest) input time, seconds */
} cna_cli_sampler_keys;

/* Reads the first and last time of a sampler's input; zeros if unreadable. */
cna_cli_sampler_keys cna_cli_sampler_keys_of(const cna_gltf_document *doc,
                                             const cna_gltf_animation_sampler *sampler);

/* Duration of an animation: the largest input time of its samplers (0 if none). */
double cna_cli_animation_duration(const cna_gltf_document *doc, const cna_gltf_animation *anim);

/* Writes the summary of `doc` loaded from `path` as one JSON document to out;
 * returns false when memory ran out or writing failed. */
bool cna_cli_inspect_write_json(FILE *out, const char *path, const cna_gltf_document *doc,
                                const cna_import_options *opts);

/* The JSON of a .cnb model: {"file", "container": "cnb", "model"}; false
 * when memory ran out or writing failed. */
struct cna_model;
bool cna_cli_inspect_write_cnb_json(FILE *out, const char *path, const struct cna_model *model);

#endif
