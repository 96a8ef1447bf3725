/* The consumer program of tests/packaging/test_consumers.sh that links the runtime alone
 * (README: game.c), built against an installed cna by the README's commands (pkg-config and
 * find_package): loads the .cnb model named by its argument, plays its walk for one second
 * and prints what the test compares exactly (what app.c prints for the .glb it came from). */
#include <stdio.h>
#include <string.h>

#include <cna/cna.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: game MODEL.cnb\n", stderr);
        return 2;
    }
    cna_error err;
    cna_model *model;
    if (cna_cnb_load_file(argv[1], NULL, &model, &err) != CNA_OK) {
        printf("error: %s\n", err.message);
        return 1;
    }
    int rc = 1;
    size_t walk;
    cna_character *c = NULL;
    if (cna_model_find_animation(model, "Robot_Walking", &walk, &err) != CNA_OK ||
        cna_character_create(model, NULL, &c, &err) != CNA_OK ||
        cna_character_play(c, (long)walk, &err) != CNA_OK) {
        printf("error: %s\n", err.message);
        goto done;
    }
    for (int frame = 0; frame < 60; frame++) {
        if (cna_character_update(c, 1.0 / 60.0, &err) != CNA_OK) {
            printf("error: %s\n", err.message);
            goto done;
        }
    }
    printf("cna %s: %zu bones, %zu animations, %zu skins\n", cna_version(), model->bone_count,
           model->animation_count, model->skin_count);
    rc = 0;
done:
    cna_character_free(c);
    cna_model_free(model);
    return rc;
}
