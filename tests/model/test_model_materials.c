/*
 * Materials as exporters write them (tests/data/fixtures-materials, made by
 * tests/gl/make_material_fixtures.py): KHR_texture_transform read by the glTF
 * reader and carried per texture slot into the model (transform, texCoord
 * override, sampler), KHR_materials_emissive_strength, KHR_materials_unlit, the five texture
 * slots of a metallic-roughness material, material names, the diagnostic of
 * a material whose image is missing, and all of it through a .cnb and back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model/model_test.h"

#define FIX "fixtures-materials/"

static cna_gltf_document *read_doc(const char *rel)
{
    char path[1024];
    cna_gltf_document *doc = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_result r = cna_gltf_load_file(model_test_path(path, sizeof path, rel), NULL, &doc, &err);
    if (r) print_error("%s: %s\n", rel, err.message);
    assert_int_equal(r, CNA_OK);
    return doc;
}

static const cna_model_diagnostic *find_diag(const cna_model *m, const char *code)
{
    for (size_t i = 0; i < m->diagnostic_count; i++)
        if (strcmp(m->diagnostics[i].code, code) == 0) return &m->diagnostics[i];
    return NULL;
}

static void the_reader_reads_khr_texture_transform(void **state)
{
    (void)state;
    cna_gltf_document *doc = read_doc(FIX "texture-transform.gltf");
    assert_int_equal(doc->extensions_required_count, 1);
    assert_string_equal(doc->extensions_required[0], "KHR_texture_transform");
    assert_int_equal(doc->diagnostic_count, 0);   /* implemented: no extension-ignored */
    const cna_gltf_texture_ref *ref = &doc->materials[0].base_color_texture;
    assert_int_equal(ref->texture, 0);
    assert_int_equal(ref->texcoord, 0);
    assert_true(ref->transform.present);
    assert_true(ref->transform.offset[0] == 0.0f && ref->transform.offset[1] == 1.0f);
    assert_true(ref->transform.rotation == (float)1.5707963267948966);
    assert_true(ref->transform.scale[0] == 0.5f && ref->transform.scale[1] == 0.5f);
    assert_int_equal(ref->transform.texcoord, 1);
    /* a reference without the extension: the identity, no override */
    const cna_gltf_texture_ref *none = &doc->materials[0].normal_texture;
    assert_int_equal(none->texture, -1);
    assert_false(none->transform.present);
    assert_int_equal(none->transform.texcoord, -1);
    assert_true(none->transform.scale[0] == 1.0f && none->transform.scale[1] == 1.0f);
    cna_gltf_document_free(doc);
}

static void the_model_carries_the_transform_and_the_texcoord_override(void **state)
{
    (void)state;
    cna_model *m = model_test_load(FIX "texture-transform.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(m->effect_count, 1);
    const cna_effect_material *p = &m->effects[0].params;
    assert_string_equal(p->name, "Transformed");
    assert_int_equal(p->base_color.image, 0);
    assert_int_equal(p->base_color.texcoord, 1);   /* the extension's texCoord replaces 0 */
    assert_true(p->base_color.uv_offset[0] == 0.0f && p->base_color.uv_offset[1] == 1.0f);
    assert_true(p->base_color.uv_rotation == (float)1.5707963267948966);
    assert_true(p->base_color.uv_scale[0] == 0.5f && p->base_color.uv_scale[1] == 0.5f);
    assert_int_equal(p->base_color.mag_filter, 9728);
    assert_int_equal(p->base_color.min_filter, 9728);
    assert_int_equal(p->base_color.wrap_s, 33071);
    assert_int_equal(p->base_color.wrap_t, 33071);
    /* T · R · S, column-major: (sx cos, -sx sin), (sy sin, sy cos), (ox, oy) */
    float t[9];
    cna_effect_texture_matrix(&p->base_color, t);
    const float c = cosf((float)1.5707963267948966), s = sinf((float)1.5707963267948966);
    const float want[9] = {0.5f * c, -0.5f * s, 0, 0.5f * s, 0.5f * c, 0, 0, 1, 1};
    for (int i = 0; i < 9; i++) assert_true(t[i] == want[i]);
    /* uv (0.25, 0.25) -> (0.125, 0.875) (up to cos(pi/2)'s rounding) */
    float u = t[0] * 0.25f + t[3] * 0.25f + t[6], v = t[1] * 0.25f + t[4] * 0.25f + t[7];
    assert_true(fabsf(u - 0.125f) < 1e-6f && fabsf(v - 0.875f) < 1e-6f);
    /* the image is used, so it is carried (its external path) */
    assert_non_null(m->images[0].path);
    assert_null(m->images[0].problem);
    cna_model_free(m);
}

static void texture_matrix_of_null_is_the_identity(void **state)
{
    (void)state;
    float t[9];
    cna_effect_texture_matrix(NULL, t);
    const float id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < 9; i++) assert_true(t[i] == id[i]);
    cna_effect_texture_matrix(NULL, NULL);   /* nothing */
    cna_effect e;
    cna_effect_init(&e, CNA_EFFECT_KIND_PBR);
    assert_string_equal(e.params.name, "");
    assert_true(e.params.emissive_strength == 1.0f);
    for (int k = 0; k < CNA_EFFECT_SLOT_COUNT; k++) {
        const cna_effect_texture *x = cna_effect_material_texture(&e.params, (cna_effect_slot)k);
        assert_int_equal(x->image, -1);
        assert_true(x->uv_scale[0] == 1.0f && x->uv_scale[1] == 1.0f && x->uv_rotation == 0.0f);
        assert_int_equal(x->wrap_s, 0);
        cna_effect_texture_matrix(x, t);
        for (int i = 0; i < 9; i++) assert_true(t[i] == id[i]);
    }
    assert_null(cna_effect_material_texture(&e.params, CNA_EFFECT_SLOT_COUNT));
    assert_null(cna_effect_material_texture(NULL, CNA_EFFECT_SLOT_NORMAL));
    assert_string_equal(cna_effect_slot_name(CNA_EFFECT_SLOT_OCCLUSION), "occlusionTexture");
    assert_string_equal(cna_effect_slot_name(CNA_EFFECT_SLOT_COUNT), "unknown");
}

static void emissive_strength_is_read_and_carried(void **state)
{
    (void)state;
    cna_gltf_document *doc = read_doc(FIX "emissive-strength.gltf");
    assert_int_equal(doc->diagnostic_count, 0);
    assert_true(doc->materials[0].emissive_strength == 4.0f);
    assert_true(doc->materials[1].emissive_strength == 1.0f);   /* the default */
    cna_gltf_document_free(doc);
    cna_model *m = model_test_load(FIX "emissive-strength.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(m->effect_count, 2);
    assert_string_equal(m->effects[0].params.name, "Strong");
    assert_true(m->effects[0].params.emissive_strength == 4.0f);
    assert_true(m->effects[0].params.emissive_factor.x == 0.1f && m->effects[0].params.emissive_factor.z == 0.2f);
    assert_string_equal(m->effects[1].params.name, "Plain");
    assert_true(m->effects[1].params.emissive_strength == 1.0f);
    cna_model_free(m);
}

/* KHR_materials_unlit (required by the file): read as the material's
 * `unlit`, carried to its effect; the lit twin and the default material are
 * lit; an extension value that is not an object is refused. */
static void unlit_is_read_and_carried(void **state)
{
    (void)state;
    cna_gltf_document *doc = read_doc(FIX "unlit.gltf");
    assert_int_equal(doc->diagnostic_count, 0);
    assert_int_equal(doc->extensions_required_count, 1);
    assert_true(doc->materials[0].unlit);
    assert_false(doc->materials[1].unlit);
    cna_gltf_document_free(doc);
    cna_model *m = model_test_load(FIX "unlit.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(m->effect_count, 2);
    assert_string_equal(m->effects[0].params.name, "Flat");
    assert_true(m->effects[0].params.unlit);
    assert_true(m->effects[0].params.emissive_factor.x == 0.2f); /* kept, not drawn */
    assert_string_equal(m->effects[1].params.name, "Lit");
    assert_false(m->effects[1].params.unlit);
    cna_model_free(m);
    cna_effect def;
    cna_effect_init(&def, CNA_EFFECT_KIND_BASIC);
    assert_false(def.params.unlit);

    const char *text = "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_materials_unlit\"],"
                       "\"materials\":[{},{\"extensions\":{\"KHR_materials_unlit\":true}}]}";
    cna_error err;
    doc = NULL;
    assert_int_equal(cna_gltf_load_memory(text, strlen(text), NULL, &doc, &err), CNA_ERROR_INVALID_DATA);
    assert_null(doc);
    assert_string_equal(err.message, "materials[1].extensions.KHR_materials_unlit: expected an object, got boolean");
}

static void a_negative_emissive_strength_is_refused(void **state)
{
    (void)state;
    const char *text =
        "{\"asset\":{\"version\":\"2.0\"},\"materials\":[{\"extensions\":{\"KHR_materials_emissive_strength\":"
        "{\"emissiveStrength\":-0.5}}}]}";
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(text, strlen(text), NULL, &doc, &err), CNA_ERROR_INVALID_DATA);
    assert_null(doc);
    assert_string_equal(err.message,
                        "materials[0].extensions.KHR_materials_emissive_strength.emissiveStrength: -0.5 is negative");
}

static void a_malformed_texture_transform_is_refused_naming_the_field(void **state)
{
    (void)state;
    const char *text =
        "{\"asset\":{\"version\":\"2.0\"},\"images\":[{\"uri\":\"data:image/png;base64,AA==\"}],"
        "\"textures\":[{\"source\":0}],\"materials\":[{\"emissiveTexture\":{\"index\":0,\"extensions\":"
        "{\"KHR_texture_transform\":{\"offset\":[1,2,3]}}}}]}";
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(text, strlen(text), NULL, &doc, &err), CNA_ERROR_INVALID_DATA);
    assert_null(doc);
    assert_string_equal(err.message,
                        "materials[0].emissiveTexture.extensions.KHR_texture_transform.offset: 3 numbers; expected 2");
}

static void a_pbr_material_carries_its_five_slots(void **state)
{
    (void)state;
    cna_model *m = model_test_load(FIX "pbr-five-maps.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(m->image_count, 5);
    /* one material, two kinds: the quad with tangents is PBR, the one without basic */
    assert_int_equal(m->effect_count, 2);
    assert_int_equal(m->effects[0].kind, CNA_EFFECT_KIND_PBR);
    assert_int_equal(m->effects[1].kind, CNA_EFFECT_KIND_BASIC);
    for (size_t e = 0; e < 2; e++) {
        const cna_effect_material *p = &m->effects[e].params;
        assert_string_equal(p->name, "Five");
        const char *names[5] = {"base", "metal_rough", "normal", "occlusion", "emissive"};
        for (int k = 0; k < CNA_EFFECT_SLOT_COUNT; k++) {
            const cna_effect_texture *t = cna_effect_material_texture(p, (cna_effect_slot)k);
            assert_int_equal(t->image, k);
            assert_int_equal(t->texcoord, 0);
            assert_int_equal(t->mag_filter, 9728);
            assert_int_equal(t->wrap_t, 33071);
            assert_string_equal(m->images[k].name, names[k]);
            assert_non_null(m->images[k].path);   /* every used image is carried, not only base colour */
        }
        assert_true(p->normal.scale == 1.0f && p->occlusion.scale == 1.0f);
        assert_true(p->emissive_factor.z == 0.25f);
    }
    cna_model_free(m);
}

static void alpha_modes_and_double_sidedness_are_carried(void **state)
{
    (void)state;
    cna_model *m = model_test_load(FIX "alpha-modes.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(m->effect_count, 3);
    assert_int_equal(m->effects[0].params.alpha_mode, CNA_ALPHA_MODE_MASK);
    assert_true(m->effects[0].params.alpha_cutoff == 0.5f);
    assert_int_equal(m->effects[1].params.alpha_mode, CNA_ALPHA_MODE_BLEND);
    assert_true(m->effects[1].params.base_color_factor.w == 0.5f);
    assert_int_equal(m->effects[2].params.alpha_mode, CNA_ALPHA_MODE_OPAQUE);
    cna_model_free(m);
    m = model_test_load(FIX "double-sided.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_true(m->effects[0].params.double_sided);
    assert_false(m->effects[1].params.double_sided);
    cna_model_free(m);
}

static void a_missing_image_names_the_material_the_slot_and_the_image(void **state)
{
    (void)state;
    char dir[1024];
    model_test_path(dir, sizeof dir, "fixtures-materials");
    cna_model *m = model_test_load(FIX "missing-image.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(m->image_count, 2);
    assert_null(m->images[1].data);
    assert_null(m->images[1].path);
    char why[1200], want[1600];
    snprintf(why, sizeof why, "cannot open \"%s/body_n.png\": No such file or directory", dir);
    assert_string_equal(m->images[1].problem, why);
    const cna_model_diagnostic *d = find_diag(m, CNA_MODEL_DIAG_MATERIAL_IMAGE_MISSING);
    assert_non_null(d);
    assert_int_equal(d->count, 1);
    snprintf(want, sizeof want, "materials[0] \"Body\": normalTexture: images[1] \"body_n\": %s", why);
    assert_string_equal(d->message, want);
    assert_non_null(find_diag(m, CNA_GLTF_DIAG_IMAGE_MISSING));   /* the reader's, kept */
    cna_model_free(m);
}

/* Every fixture through a .cnb and back: the same effects (transforms,
 * samplers, strengths, names), images (their problem included). */
static void materials_survive_a_cnb_round_trip(void **state)
{
    (void)state;
    const char *files[] = {"texture-transform.gltf", "emissive-strength.gltf", "unlit.gltf", "pbr-five-maps.gltf",
                           "alpha-modes.gltf", "double-sided.gltf", "missing-image.gltf"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char rel[256];
        snprintf(rel, sizeof rel, FIX "%s", files[f]);
        cna_model *a = model_test_load(rel, CNA_CLIP_MODE_DEFAULT);
        void *bytes = NULL;
        size_t size = 0;
        cna_error err;
        assert_int_equal(cna_cnb_write_memory(a, NULL, &bytes, &size, &err), CNA_OK);
        cna_model *b = NULL;
        assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &b, &err), CNA_OK);
        assert_int_equal(a->effect_count, b->effect_count);
        for (size_t e = 0; e < a->effect_count; e++) {
            cna_effect x, y;   /* copied with their padding: compared byte for byte */
            memcpy(&x, &a->effects[e], sizeof x);
            memcpy(&y, &b->effects[e], sizeof y);
            assert_string_equal(x.params.name, y.params.name);
            x.params.name = y.params.name = NULL;
            assert_memory_equal(&x, &y, sizeof x);
        }
        assert_int_equal(a->image_count, b->image_count);
        for (size_t i = 0; i < a->image_count; i++) {
            const cna_model_image *x = &a->images[i], *y = &b->images[i];
            assert_string_equal(x->name, y->name);
            assert_true((x->problem == NULL) == (y->problem == NULL));
            if (x->problem) assert_string_equal(x->problem, y->problem);
            assert_true((x->data || x->path) == (y->data != NULL));   /* external files embedded */
        }
        cna_model_free(b);
        cna_cnb_bytes_free(NULL, bytes);
        cna_model_free(a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_reader_reads_khr_texture_transform),
        cmocka_unit_test(the_model_carries_the_transform_and_the_texcoord_override),
        cmocka_unit_test(texture_matrix_of_null_is_the_identity),
        cmocka_unit_test(emissive_strength_is_read_and_carried),
        cmocka_unit_test(unlit_is_read_and_carried),
        cmocka_unit_test(a_negative_emissive_strength_is_refused),
        cmocka_unit_test(a_malformed_texture_transform_is_refused_naming_the_field),
        cmocka_unit_test(a_pbr_material_carries_its_five_slots),
        cmocka_unit_test(alpha_modes_and_double_sidedness_are_carried),
        cmocka_unit_test(a_missing_image_names_the_material_the_slot_and_the_image),
        cmocka_unit_test(materials_survive_a_cnb_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
