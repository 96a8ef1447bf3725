/*
 * tools/blend.c — the blending options that `cna pose` and `cna render`
 * share: --blend I|NAME, --blend-time SECONDS, --weight W (tools/cli.h).
 *
 * A blended pose is a character with two layers (cna/character.h,
 * "layers"): layer 0 plays the command's --animation at weight 1 - W and
 * layer 1 plays --blend at weight W, both clocks in ONCE mode. By the
 * override rule this gives lerp(a, b, W) for every translation, scale and
 * morph weight both animate and slerp(qa, qb, W) for every rotation; a value
 * only one of them animates is mixed with its rest value by the other's
 * weight.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cna/cna.h"

bool cna_cli_is_blend_option(const char *arg)
{
    return strcmp(arg, "--blend") == 0 || strcmp(arg, "--blend-time") == 0 || strcmp(arg, "--weight") == 0;
}

int cna_cli_blend_parse(const cna_cli_command *cmd, const char *arg, const char *value, cna_cli_blend *b)
{
    char *end = NULL;
    if (strcmp(arg, "--blend") == 0) {
        b->animation = value;
    } else if (strcmp(arg, "--blend-time") == 0) {
        errno = 0;
        double t = strtod(value, &end);
        if (errno || !*value || *end || !isfinite(t))
            return cna_cli_usage_error(cmd, "--blend-time: '%s' is not a number of seconds", value);
        b->time = t;
        b->time_text = value;
    } else {
        errno = 0;
        double w = strtod(value, &end);
        if (errno || !*value || *end || !(w >= 0.0 && w <= 1.0))
            return cna_cli_usage_error(cmd, "--weight: '%s' is not a weight in [0, 1]", value);
        b->weight = (float)w;
        b->weight_text = value;
    }
    return -1;
}

int cna_cli_blend_check(const cna_cli_command *cmd, cna_cli_blend *b)
{
    if (!b->animation && b->weight_text) return cna_cli_usage_error(cmd, "--weight needs --blend I|NAME");
    if (!b->animation && b->time_text) return cna_cli_usage_error(cmd, "--blend-time needs --blend I|NAME");
    if (!b->weight_text) b->weight = 0.5f;
    return -1;
}

int cna_cli_blend_setup(cna_character *c, const char *path, const char *time_text, double time, cna_cli_blend *b)
{
    const cna_model *m = cna_character_model(c);
    size_t index = 0;
    if (cna_model_find_animation(m, b->animation, &index, NULL) != CNA_OK) {
        cna_cli_no_animation(path, "--blend", b->animation, m);
        return CNA_CLI_EXIT_FAILURE;
    }
    b->index = (long)index;
    cna_error err;
    /* layer 0: --animation at 1 - W; layer 1: --blend at W */
    if (cna_character_layer_set_loop_mode(c, 1, CNA_LOOP_MODE_ONCE, &err) != CNA_OK ||
        cna_character_layer_play(c, 1, b->index, &err) != CNA_OK ||
        cna_character_layer_set_weight(c, 0, 1.0f - b->weight, &err) != CNA_OK ||
        cna_character_layer_set_weight(c, 1, b->weight, &err) != CNA_OK)
        return cna_cli_report_error(path, &err);
    /* --blend-time, else --time (as typed, before it was clamped to --animation) */
    const char *option = b->time_text ? "--blend-time" : "--time";
    const char *text = b->time_text ? b->time_text : time_text;
    const double t = b->time_text ? b->time : time;
    const double duration = cna_ticks_to_seconds(cna_character_layer_duration(c, 1));
    b->seconds = text ? cna_cli_clamp_option_time(option, text, t, cna_model_animation_name(m, index), duration)
                      : 0.0;
    return -1;
}
