/*
 * examples/animate_model.c — pose a whole model with cna_animator: every
 * skin's clip, the rigid (scene-node) clip and the morph weights of one
 * animation, at eight times, printing where one bone is and the first
 * morphed part's weights.
 *
 *   example_animate_model MODEL.gltf|MODEL.glb|MODEL.cnb [ANIMATION] [BONE]
 *
 * ANIMATION is a name or an index (default 0); BONE a bone index or name
 * (default: the last bone; a name picks the first bone with it, and glTF
 * names need not be unique: RobotExpressive has a mesh node and a joint
 * called "Head", bones 7 and 22). Exit status 1 on any error, with the library's message.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cna/cna.h"

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
    cna_animator *an = NULL;
    if (cna_animator_create(model, NULL, &an, &err) != CNA_OK) {
        fprintf(stderr, "%s\n", err.message);
        cna_model_free(model);
        return 1;
    }
    int status = 0;
    long anim = model->animation_count > 0 ? cna_animator_find(an, argc > 2 ? argv[2] : "0") : -1;
    int32_t bone = (int32_t)model->bone_count - 1;
    if (argc > 3) {
        char *end = NULL;
        long b = strtol(argv[3], &end, 10);
        bone = *argv[3] >= '0' && *argv[3] <= '9' && !*end ? (b < (long)model->bone_count ? (int32_t)b : -1)
                                                           : cna_model_find_bone(model, argv[3]);
    }
    if ((argc > 2 && anim < 0) || bone < 0) {
        fprintf(stderr, "%s: no %s '%s'\n", argv[1], bone < 0 ? "bone" : "animation",
                bone < 0 ? (argc > 3 ? argv[3] : "") : argv[2]);
        status = 1;
    } else if (cna_animator_select(an, anim, &err) != CNA_OK) {
        fprintf(stderr, "%s\n", err.message);
        status = 1;
    } else {
        const double duration = cna_animator_duration(an);
        printf("%s: animation %ld (%.3f s), bone %d \"%s\"\n", argv[1], anim, duration, (int)bone,
               model->bones[bone].name);
        for (int i = 0; i <= 7 && status == 0; i++) {
            if (cna_animator_pose(an, duration * i / 7.0, &err) != CNA_OK) {
                fprintf(stderr, "%s\n", err.message);
                status = 1;
                break;
            }
            /* The bone's absolute transform; translation in the last column. */
            const cna_mat4 *w = &cna_animator_absolute_transforms(an)[bone];
            printf("  t = %6.3f s  bone at (%8.4f, %8.4f, %8.4f)", cna_animator_time(an), (double)w->m[12],
                   (double)w->m[13], (double)w->m[14]);
            for (size_t mesh = 0; mesh < model->mesh_count; mesh++) {
                size_t count = 0;
                const float *weights = cna_animator_morph_weights(an, mesh, 0, &count);
                if (!weights) continue;
                printf("  weights");
                for (size_t k = 0; k < count && k < 4; k++) printf(" %.3f", (double)weights[k]);
                break;
            }
            printf("\n");
        }
    }
    cna_animator_free(an);
    cna_model_free(model);
    return status;
}
