/* Clip extraction (spec: "Clip extraction"); filled in below. */
#include "model/model_internal.h"

cna_result cna__import_clips(cna__import_ctx *ctx, cna_error *err)
{
    (void)ctx;
    (void)err;
    return CNA_OK;
}
