/*
 * examples/animate_model.c — two characters of one loaded model: both play
 * the same animation (every skin's clip, the rigid scene-node clip and the
 * morph weights) half a loop apart, advanced at 60 frames a second; eight
 * times over one loop it prints where one bone of each is and the first
 * morphed part's weights.
 *
 *   example_animate_model MODEL.gltf|MODEL.glb|MODEL.cnb [ANIMATION] [BONE]
 *
 * ANIMATION is a name or an index (default 0); BONE a bone name or index
 * (default: the last bone; a name prefers a joint over a mesh node of the
 * same name, as RobotExpressive has a mesh node and a joint called
 * "Foot.L"). Exit status 1 on any error, with the library's message.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cna/cna.h"

static int fail(const cna_error *err)
{
    fprintf(stderr, "%s\n", err->message);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL [ANIMATION] [BONE]\n", argv[0]);
        return 2;
    }
    cna_error err;
    cna_model *model = NULL;
    if (cna_model_load_any(argv[1], NULL, &model, &err) != CNA_OK) { /* .cnb by its magic, else glTF */
        fprintf(stderr, "%s: %s\n", argv[1], err.message);
        return 1;
    }
    size_t anim = 0;
    if (model->animation_count == 0 || cna_model_find_animation(model, argc > 2 ? argv[2] : "0", &anim, &err)) {
        fprintf(stderr, "%s: %s\n", argv[1], model->animation_count ? err.message : "no animations");
        cna_model_free(model);
        return 1;
    }
    int32_t bone = (int32_t)model->bone_count - 1;
    if (argc > 3) {
        char *end = NULL;
        long b = strtol(argv[3], &end, 10);
        bone = *argv[3] >= '0' && *argv[3] <= '9' && !*end ? (b < (long)model->bone_count ? (int32_t)b : -1)
                                                           : cna_model_find_bone(model, argv[3]);
    }
    if (bone < 0) {
        fprintf(stderr, "%s: no bone '%s'\n", argv[1], argv[3]);
        cna_model_free(model);
        return 1;
    }
    /* Two characters share the model; each owns its clock and pose. */
    cna_character *walker[2] = {NULL, NULL};
    int status = 0;
    for (int i = 0; i < 2 && status == 0; i++)
        if (cna_character_create(model, NULL, &walker[i], &err) || cna_character_play(walker[i], (long)anim, &err))
            status = fail(&err);
    const double duration = cna_ticks_to_seconds(cna_character_duration(walker[0]));
    if (status == 0 && cna_character_seek(walker[1], duration / 2, &err)) status = fail(&err);
    if (status == 0)
        printf("%s: animation %zu \"%s\" (%.3f s), bone %d \"%s\", %zu + %zu bytes per character\n", argv[1], anim,
               cna_model_animation_name(model, anim), duration, (int)bone, model->bones[bone].name,
               cna_character_size_bytes(walker[0]), cna_character_size_bytes(walker[1]));
    const int frames = (int)(duration * 60.0);
    for (int f = 0; f <= frames && status == 0; f++) {
        for (int i = 0; i < 2 && status == 0; i++)   /* one frame: advance the clock, pose */
            if (cna_character_update(walker[i], f == 0 ? 0.0 : 1.0 / 60.0, &err)) status = fail(&err);
        if (status || f % (frames / 7 > 0 ? frames / 7 : 1) != 0) continue;
        for (int i = 0; i < 2; i++) {
            /* the bone's absolute transform; translation in the last column */
            const cna_mat4 *w = cna_character_absolute_transform(walker[i], (size_t)bone);
            printf("  %s t = %6.3f s  bone at (%8.4f, %8.4f, %8.4f)", i ? "  second" : "first",
                   cna_character_time(walker[i]), (double)w->m[12], (double)w->m[13], (double)w->m[14]);
            for (size_t mesh = 0; mesh < model->mesh_count; mesh++) {
                size_t count = 0;
                const float *weights = cna_character_morph_weights(walker[i], mesh, 0, &count);
                if (!weights) continue;
                printf("  weights");
                for (size_t k = 0; k < count && k < 4; k++) printf(" %.3f", (double)weights[k]);
                break;
            }
            printf("\n");
        }
    }
    cna_character_free(walker[0]);
    cna_character_free(walker[1]);
    cna_model_free(model);   /* after its characters */
    return status;
}
