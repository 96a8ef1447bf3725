/*
 * examples/clip_library.c — a character playing the animations of another
 * file: a dog whose file has no animation walks with the clips of a fox's
 * animation library, bound by node name, then crossfades into a run.
 *
 *   example_clip_library [CHARACTER.glb LIBRARY.glb [FROM TO]]
 *
 * Defaults: the dog and the fox library of tests/data/libraries, "Walk" to
 * "Run". Prints the binding's warnings (the dog has no "Nose" joint, so
 * the library's nose channels bind to nothing), then every 0.25 s the two
 * layers' weights and where the head is. Exit status 1 on any error, with
 * its message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"

#ifndef CNA_EXAMPLE_CHARACTER
#define CNA_EXAMPLE_CHARACTER "fox-dog.glb"
#endif
#ifndef CNA_EXAMPLE_CLIPS
#define CNA_EXAMPLE_CLIPS "fox-animations.glb"
#endif

static int fail(const cna_error *err)
{
    fprintf(stderr, "error: %s\n", err->message);
    return 1;
}

int main(int argc, char **argv)
{
    const char *character_path = argc > 2 ? argv[1] : CNA_EXAMPLE_CHARACTER;
    const char *library_path = argc > 2 ? argv[2] : CNA_EXAMPLE_CLIPS;
    const char *from_name = argc > 4 ? argv[3] : "Walk";
    const char *to_name = argc > 4 ? argv[4] : "Run";
    cna_error err;
    cna_model *model = NULL, *bound = NULL;
    cna_clip_library *library = NULL;
    if (cna_model_load_file(character_path, NULL, &model, &err)) return fail(&err);
    if (cna_clip_library_load_file(library_path, NULL, &library, &err)) {
        cna_model_free(model);
        return fail(&err);
    }
    const cna_clip_library *libraries[1] = {library};
    cna_result r = cna_model_bind_clips(model, libraries, 1, NULL, &bound, &err);
    cna_clip_library_free(library); /* the bound model keeps what it needs */
    if (r) {
        cna_model_free(model);
        return fail(&err);
    }
    for (size_t i = model->diagnostic_count; i < bound->diagnostic_count; i++)
        printf("warning %s: %s\n", bound->diagnostics[i].code, bound->diagnostics[i].message);

    /* Library animations are numbered after the model's own; look them up by
     * name (an unknown name is an error, never the rest pose). */
    size_t from = 0, to = 0;
    int32_t head = cna_model_find_bone(bound, "Head");
    cna_character *c = NULL;
    int status = 1;
    if (cna_model_find_animation(bound, from_name, &from, &err) ||
        cna_model_find_animation(bound, to_name, &to, &err) ||
        cna_character_create(bound, NULL, &c, &err) || cna_character_play(c, (long)from, &err)) {
        fail(&err);
        goto done;
    }
    printf("%s (animation %zu) then %s (animation %zu)\n", from_name, from, to_name, to);
    for (int step = 0; step <= 8; step++) {
        if (step == 4 && cna_character_crossfade(c, 0, 1, (long)to, 0.5, CNA_CROSSFADE_SYNC_PHASE, &err)) {
            fail(&err);
            goto done;
        }
        if (cna_character_update(c, step > 0 ? 0.25 : 0.0, &err)) { /* step 0: pose the start */
            fail(&err);
            goto done;
        }
        printf("t=%.2f s  weights %.2f %.2f", 0.25 * step, (double)cna_character_layer_weight(c, 0),
               (double)cna_character_layer_weight(c, 1));
        if (head >= 0) {
            const cna_mat4 *w = cna_character_absolute_transform(c, (size_t)head);
            printf("  head at (%.3f, %.3f, %.3f)", (double)w->m[12], (double)w->m[13], (double)w->m[14]);
        }
        putchar('\n');
    }
    status = 0;
done:
    cna_character_free(c);
    cna_model_free(bound);  /* any order: the bound model holds a reference on the model */
    cna_model_free(model);
    return status;
}
