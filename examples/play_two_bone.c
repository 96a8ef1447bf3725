/*
 * play_two_bone — the spec's two-bone rig ("A worked two-bone example"),
 * built by hand and played at 60 frames per second for 1.25 s with looping.
 *
 * Bone 1 is a child of bone 0, offset by (0, 1, 0) in bind pose; the clip
 * "Move" moves bone 0 from the origin to (2, 0, 0) over one second. The table
 * shows the position, each bone's world (model-space) translation and its
 * skin (palette) matrix's translation, skin = world · inverse bind. The
 * inverse bind matrices are the identity, as in the spec, so both columns
 * agree; at 0.5 s bone 0 is at (1, 0, 0) and bone 1 at (1, 1, 0), and past
 * 1 s the clip wraps to its start.
 *
 * Usage: example_play_two_bone
 */
#include <stdio.h>

#include "cna/cna.h"

static int report(const char *what, const cna_error *err)
{
    fprintf(stderr, "play_two_bone: %s: %s\n", what, err->message);
    return 1;
}

static void print_frame(const cna_player *player, int frame)
{
    const cna_mat4 *world = cna_player_world_transforms(player);
    const cna_mat4 *skin = cna_player_skin_transforms(player);
    const double seconds = cna_ticks_to_seconds(cna_player_position(player));
    for (int bone = 0; bone < cna_player_bone_count(player); ++bone) {
        const float *w = &world[bone].m[12];
        const float *s = &skin[bone].m[12];
        printf("%5d  %8.4f  %4d  (%7.4f, %7.4f, %7.4f)  (%7.4f, %7.4f, %7.4f)\n", frame, seconds, bone,
               (double)w[0], (double)w[1], (double)w[2], (double)s[0], (double)s[1], (double)s[2]);
    }
}

int main(void)
{
    int32_t hierarchy[2] = {-1, 0}; /* bone 0 is a root, bone 1's parent is 0 */
    cna_mat4 bind[2], inverse_bind[2];
    cna_mat4_identity(&bind[0]);
    cna_mat4_translation(&bind[1], cna_vec3_make(0, 1, 0));
    cna_mat4_identity(&inverse_bind[0]);
    cna_mat4_identity(&inverse_bind[1]);

    const cna_keyframe keys[2] = {
        cna_keyframe_make(cna_ticks_from_seconds(0.0), cna_vec3_make(0, 0, 0)),
        cna_keyframe_make(cna_ticks_from_seconds(1.0), cna_vec3_make(2, 0, 0)),
    };
    const cna_bone_track track = cna_bone_track_make(0, keys, 2);
    const cna_clip clip = cna_clip_make("Move", cna_ticks_from_seconds(1.0), &track, 1);
    cna_skinning_data data = cna_skinning_data_make(2, hierarchy, bind, inverse_bind);
    data.clips = &clip;
    data.clip_count = 1;

    cna_error err;
    if (cna_skinning_data_validate(&data, &err) != CNA_OK) return report("skinning data", &err);
    cna_player *player = NULL; /* data must outlive the player */
    if (cna_player_create(&data, NULL, &player, &err) != CNA_OK) return report("player", &err);
    if (cna_player_start_clip(player, cna_skinning_data_find_clip(&data, "Move"), &err) != CNA_OK) {
        cna_player_free(player);
        return report("start clip", &err);
    }

    printf("two-bone rig, clip \"Move\" (1 s), 60 fps, looping\n");
    printf("frame  time (s)  bone  world translation            skin translation\n");
    const int64_t frame_ticks = cna_ticks_from_seconds(1.0 / 60.0);
    for (int frame = 0; frame <= 75; ++frame) {
        if (frame > 0 && cna_player_update(player, frame_ticks, true, true, &err) != CNA_OK) {
            cna_player_free(player);
            return report("update", &err);
        }
        if (frame % 15 == 0 || frame == 30 || frame == 59 || frame == 61) print_frame(player, frame);
    }
    cna_player_free(player);
    return 0;
}
