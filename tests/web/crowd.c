/*
 * tests/web/crowd.c — the crowd in the web build, which has no threads
 * (src/character/crowd.c): a crowd asked for 4 threads evaluates on the
 * calling thread (cna_crowd_thread_count 1), and its characters' palettes
 * are the bits of the same characters updated one by one.
 * Built by web/CMakeLists.txt (test-crowd.js), run by tests/web/run.sh:
 *   node build-web/obj/test-crowd.js MODEL.glb
 */
#include <stdio.h>
#include <string.h>

#include "cna/cna.h"

enum { COUNT = 40 };

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test-crowd MODEL.glb\n");
        return 2;
    }
    cna_error err;
    cna_model *m = NULL;
    if (cna_model_load_file(argv[1], NULL, &m, &err) != CNA_OK) {
        fprintf(stderr, "error: %s: %s\n", argv[1], err.message);
        return 1;
    }
    cna_crowd_options o;
    memset(&o, 0, sizeof o);
    o.thread_count = 4;
    cna_crowd *crowd = NULL;
    if (cna_crowd_create(&o, &crowd, &err) != CNA_OK) {
        fprintf(stderr, "error: cna_crowd_create: %s\n", err.message);
        return 1;
    }
    int failed = 0;
    if (cna_crowd_thread_count(crowd) != 1) {
        fprintf(stderr, "error: cna_crowd_thread_count %u, expected 1\n", (unsigned)cna_crowd_thread_count(crowd));
        failed = 1;
    }
    cna_character *a[COUNT], *b[COUNT];
    for (size_t i = 0; i < COUNT; i++) {
        if (cna_character_create(m, NULL, &a[i], &err) != CNA_OK || cna_character_create(m, NULL, &b[i], &err) != CNA_OK) {
            fprintf(stderr, "error: cna_character_create: %s\n", err.message);
            return 1;
        }
        const long anim = (long)(i % m->animation_count);
        cna_character_play(a[i], anim, NULL);
        cna_character_play(b[i], anim, NULL);
        cna_character_seek(a[i], 0.01 * (double)i, NULL);
        cna_character_seek(b[i], 0.01 * (double)i, NULL);
    }
    size_t compared = 0;
    for (int frame = 0; frame < 5 && !failed; frame++) {
        if (cna_crowd_update_characters(crowd, a, COUNT, 1.0 / 60.0, &err) != CNA_OK) {
            fprintf(stderr, "error: cna_crowd_update_characters: %s\n", err.message);
            return 1;
        }
        for (size_t i = 0; i < COUNT; i++) {
            cna_character_update(b[i], 1.0 / 60.0, NULL);
            for (size_t s = 0; s < m->skin_count; s++) {
                const size_t n = m->skins[s].joint_count * sizeof(cna_mat4);
                if (memcmp(cna_character_skin_transforms(a[i], s), cna_character_skin_transforms(b[i], s), n) != 0) {
                    fprintf(stderr, "error: frame %d, character %zu, skin %zu: the crowd's palette differs\n", frame,
                            i, s);
                    failed = 1;
                }
                compared++;
            }
        }
    }
    for (size_t i = 0; i < COUNT; i++) {
        cna_character_free(a[i]);
        cna_character_free(b[i]);
    }
    cna_crowd_free(crowd);
    cna_model_free(m);
    if (!failed)
        printf("crowd: 1 thread (4 asked), %d characters, %zu palettes the same bits as updated one by one\n", COUNT,
               compared);
    return failed;
}
