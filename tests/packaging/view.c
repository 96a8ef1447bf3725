/* The renderer's consumer program of tests/packaging/test_consumers.sh, built against an
 * installed cna by the README's commands (pkg-config and find_package): loads the model named
 * by its first argument, makes its GPU objects in a headless 16x16 context, clears the frame
 * to (0.2, 0.4, 0.6, 1), reads one pixel back, writes the frame to the PNG named by its
 * second argument, and prints what the test compares exactly. */
#include <stdio.h>

#include <cna/cna.h>
#include <cna/gl.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: view MODEL OUT.png\n", stderr);
        return 2;
    }
    cna_error err;
    cna_model *model;
    if (cna_model_load_file(argv[1], NULL, &model, &err) != CNA_OK) {
        printf("error: %s\n", err.message);
        return 1;
    }
    int rc = 1;
    cna_gl_context *gl = NULL;
    cna_gl_model *glm = NULL;
    cna_gl_context_options o = {0};
    o.width = 16;
    o.height = 16;
    static unsigned char rgba[16 * 16 * 4];
    const float background[4] = {0.2f, 0.4f, 0.6f, 1.0f};
    if (cna_gl_context_create(&o, &gl, &err) != CNA_OK || cna_gl_model_create(gl, model, &glm, &err) != CNA_OK) {
        printf("error: %s\n", err.message);
        goto done;
    }
    cna_gl_begin_frame(gl, background);
    if (cna_gl_read_pixels(gl, rgba, sizeof rgba, &err) != CNA_OK ||
        cna_gl_write_png(argv[2], 16, 16, rgba, &err) != CNA_OK) {
        printf("error: %s\n", err.message);
        goto done;
    }
    printf("%zu bones, %zu meshes, pixel %u %u %u %u\n", model->bone_count, model->mesh_count, rgba[0], rgba[1],
           rgba[2], rgba[3]);
    rc = 0;
done:
    cna_gl_model_free(glm);
    cna_gl_context_free(gl);
    cna_model_free(model);
    return rc;
}
