/*
 * examples/load_and_play.c — the README's snippet as a program: load a glTF
 * model, play one clip of its first skin with an AnimationPlayer, and print the
 * model-space position of the last joint every quarter second.
 *
 *   build/examples/example_load_and_play assets/RobotExpressive/robot.glb Robot_Walking
 */
#include <stdio.h>

#include <cna/cna.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE.gltf|FILE.glb [CLIP]\n", argv[0]);
        return 2;
    }
    cna_error err;
    cna_model *model;
    if (cna_model_load_file(argv[1], NULL, &model, &err) != CNA_OK) {
        fprintf(stderr, "error: %s\n", err.message);
        return 1;
    }
    const cna_skinning_data *skin = cna_model_skinning_data(model); /* the first skin (spec: Tag) */
    if (!skin) {
        fprintf(stderr, "error: %s has no skin\n", argv[1]);
        cna_model_free(model);
        return 1;
    }
    const cna_clip *clip = argc > 2 ? cna_skinning_data_find_clip(skin, argv[2])
                                    : (skin->clip_count ? &skin->clips[0] : NULL);
    if (!clip) { /* a NULL clip is refused: say which name was not found */
        if (argc > 2) fprintf(stderr, "error: %s: no clip \"%s\"\n", argv[1], argv[2]);
        else fprintf(stderr, "error: %s: the first skin has no clips\n", argv[1]);
        cna_model_free(model);
        return 1;
    }
    cna_player *player;
    if (cna_player_create(skin, NULL, &player, &err) != CNA_OK ||
        cna_player_start_clip(player, clip, &err) != CNA_OK) {
        fprintf(stderr, "error: %s\n", err.message);
        cna_model_free(model);
        return 1;
    }
    printf("%s: %d joints, clip \"%s\"\n", argv[1], cna_player_bone_count(player),
           clip && clip->name ? clip->name : "(none)");
    for (int frame = 0; frame <= 60; frame++) {
        /* frame 0 seeks to 0 (start_clip only rewinds; update computes the pose) */
        const double dt = frame == 0 ? 0.0 : 1.0 / 60.0;
        if (cna_player_update_seconds(player, dt, true, true, &err) != CNA_OK) {
            fprintf(stderr, "error: %s\n", err.message);
            break;
        }
        if (frame % 15 == 0) {
            /* cna_player_skin_transforms(player) is the palette a skinned effect takes;
             * the world transforms are model-space joint poses (a weapon in a hand). */
            const int32_t last = cna_player_bone_count(player) - 1;
            const cna_mat4 *world = &cna_player_world_transforms(player)[last];
            printf("t = %.2f s: joint %d at (%.4f, %.4f, %.4f)\n",
                   cna_ticks_to_seconds(cna_player_position(player)), (int)last,
                   (double)world->m[12], (double)world->m[13], (double)world->m[14]);
        }
    }
    cna_player_free(player);
    cna_model_free(model);
    return 0;
}
