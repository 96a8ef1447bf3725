/*
 * tools/model_inspect.h — the model part of `cna inspect`:
 * per skin, the table of the three index spaces (palette index, joint ordinal,
 * bone index, glTF node, name, parent palette index), the root joints with
 * their prefixes, and the clips with their target space and key counts; each
 * skinned part's palette size ("palette 72 of 300" for a split part); then
 * the scene-node clips and the model's diagnostics. Not part of the library.
 */
#ifndef CNA_TOOLS_MODEL_INSPECT_H
#define CNA_TOOLS_MODEL_INSPECT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "cna/model.h"

/* Import `doc` with `opts` (NULL: the defaults) and print the model section
 * (text) to out. When the import fails, prints "model: refused: <message>"
 * instead. Returns false only when writing failed. */
bool cna_cli_model_inspect_text(FILE *out, const cna_gltf_document *doc, const cna_import_options *opts);

/* The same as a JSON object ({"model": ...} member value): NULL when out of
 * memory; {"refused": "<message>"} when the import fails. */
cJSON *cna_cli_model_inspect_json(const cna_gltf_document *doc, const cna_import_options *opts);

/* The text for an already imported (or loaded) model. A skin equal to an
 * earlier one (same glTF skin, joint tables and root prefixes) is summarised
 * on one line ("skins 1-13: same joints as skin 0"). */
bool cna_cli_model_print(FILE *out, const cna_model *m);

/* The model's key facts in two lines (cna inspect --brief). */
bool cna_cli_model_brief(FILE *out, const cna_model *m);

/* The JSON object of an already imported (or loaded) model; NULL when out of
 * memory. */
cJSON *cna_cli_model_json(const cna_model *m);

#endif
