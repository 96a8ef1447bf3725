/*
 * A program of cna.dll (scripts/build-windows.sh): compiled without CNA_STATIC,
 * so every cna function is declared __declspec(dllimport) and reached through
 * the DLL's import library. Loads the robot given as argv[1], plays
 * Robot_Walking for one second at 60 frames a second and prints the version,
 * the model's counts and the root bone's height; exits 0 when every call
 * succeeded.
 */
#include <stdio.h>

#include <cna/cna.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: dll_consumer ROBOT.glb\n");
        return 2;
    }
    cna_error err;
    cna_model *model = NULL;
    if (cna_model_load_file(argv[1], NULL, &model, &err) != CNA_OK) {
        fprintf(stderr, "error: %s\n", err.message);
        return 1;
    }
    size_t walk = 0;
    cna_character *c = NULL;
    int status = 1;
    if (cna_model_find_animation(model, "Robot_Walking", &walk, &err) == CNA_OK &&
        cna_character_create(model, NULL, &c, &err) == CNA_OK && cna_character_play(c, (long)walk, &err) == CNA_OK) {
        status = 0;
        for (int frame = 0; frame < 60 && status == 0; frame++)
            if (cna_character_update(c, 1.0 / 60.0, &err) != CNA_OK) status = 1;
    }
    if (status == 0) {
        const cna_mat4 *root = cna_character_absolute_transform(c, 0);
        printf("cna %s (cna.dll): %zu bones, %zu animations; after 1 s of Robot_Walking bone 0 is at y = %.4f\n",
               cna_version(), model->bone_count, model->animation_count, (double)root->m[13]);
    } else {
        fprintf(stderr, "error: %s\n", err.message);
    }
    cna_character_free(c);
    cna_model_free(model);
    return status;
}
