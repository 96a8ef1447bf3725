/*
 * tools/model_util.c — small look-ups on an imported model shared by the
 * commands that play it (pose, render, view).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cna/model.h"

long cna_cli_find_animation(const cna_model *m, const char *spec)
{
    char *end = NULL;
    errno = 0;
    long i = strtol(spec, &end, 10);
    if (!errno && *spec && !*end && i >= 0 && (size_t)i < m->animation_count) return i;
    for (size_t k = 0; k < m->animation_count; k++)
        if (m->node_clips[k].name && strcmp(m->node_clips[k].name, spec) == 0) return (long)k;
    return -1;
}

double cna_cli_model_animation_duration(const cna_model *m, long anim)
{
    if (anim < 0) return 0.0;
    int64_t d = m->node_clips[anim].duration;
    for (size_t s = 0; s < m->skin_count; s++)
        if (m->skins[s].data.clips[anim].duration > d) d = m->skins[s].data.clips[anim].duration;
    return cna_ticks_to_seconds(d);
}
