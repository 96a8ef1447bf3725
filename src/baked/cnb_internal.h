/*
 * Constants of the .cnb format shared by the writer and the reader
 * (docs/format-cnb.md is the specification; tests/baked/test_cnb_format.c
 * checks that its tables list these same values). Not installed.
 */
#ifndef CNA_BAKED_CNB_INTERNAL_H
#define CNA_BAKED_CNB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cna/anim.h"
#include "cna/math.h"

#define CNA__CNB_MAGIC "CNB\0"          /* 4 bytes: 'C' 'N' 'B' 0 */
/* 2: the IMAGES section (version 1 had none). 3: no per-frame fields (bone
 * transforms, effect matrices), morph target names per mesh, a split part's
 * file vertex count, one skin clip set shared by several model skins.
 * 4: the MARKERS, PALETTE_MAPS and INSTANCES sections; materials as glTF writes them
 * (per texture slot a KHR_texture_transform and a sampler, the emissive
 * strength, the material name) and why a used image is unavailable. */
#define CNA__CNB_VERSION 4u
#define CNA__CNB_VERSION_OLDEST 2u      /* the oldest version the reader still reads */
#define CNA__CNB_HEADER_SIZE 64u
#define CNA__CNB_SECTION_ENTRY_SIZE 32u
#define CNA__CNB_ALIGN 16u              /* sections and DATA arrays */
#define CNA__CNB_NULL_REF UINT64_MAX    /* array reference offset meaning NULL */
#define CNA__CNB_NULL_STRING UINT32_MAX /* string reference offset meaning NULL */
#define CNA__CNB_EFFECT_UNLIT 0x1u     /* EFFECTS flags (offset 124): KHR_materials_unlit */
#define CNA__CNB_FNV_OFFSET 0xcbf29ce484222325ULL
#define CNA__CNB_FNV_PRIME 0x100000001b3ULL

/* Header field offsets. */
#define CNA__CNB_OFF_MAGIC 0u
#define CNA__CNB_OFF_VERSION 4u
#define CNA__CNB_OFF_FLAGS 8u
#define CNA__CNB_OFF_HEADER_SIZE 12u
#define CNA__CNB_OFF_TOTAL_SIZE 16u
#define CNA__CNB_OFF_CHECKSUM 24u
#define CNA__CNB_OFF_SECTION_COUNT 32u
#define CNA__CNB_OFF_UNIT_SCALE 36u
#define CNA__CNB_OFF_SECTION_TABLE 40u

/* Section ids, in file order (each present exactly once). */
enum {
    CNA__CNB_STRINGS = 1,
    CNA__CNB_DATA,
    CNA__CNB_MODEL,
    CNA__CNB_BONES,
    CNA__CNB_MESHES,
    CNA__CNB_PARTS,
    CNA__CNB_MORPHS,
    CNA__CNB_TARGETS,
    CNA__CNB_WEIGHT_TRACKS,
    CNA__CNB_SKINS,
    CNA__CNB_CLIPS,
    CNA__CNB_TRACKS,
    CNA__CNB_EFFECTS,
    CNA__CNB_DIAGNOSTICS,
    CNA__CNB_IMAGES,
    CNA__CNB_MARKERS,
    CNA__CNB_PALETTE_MAPS,
    CNA__CNB_INSTANCES,
    CNA__CNB_SECTION_END
};
#define CNA__CNB_SECTION_COUNT (CNA__CNB_SECTION_END - 1)
/* Versions 2 and 3 have no MARKERS, PALETTE_MAPS and INSTANCES sections: the sections 1 .. 15. */
#define CNA__CNB_SECTION_COUNT_V3 (CNA__CNB_MARKERS - 1)

/* Record size of each section in version 4 (index = id; 1 for the byte heaps). */
static const uint32_t cna__cnb_record_size[CNA__CNB_SECTION_END] = {
    0,
    1,    /* STRINGS */
    1,    /* DATA */
    96,   /* MODEL */
    128,  /* BONES */
    80,   /* MESHES */
    256,  /* PARTS */
    120,  /* MORPHS */
    120,  /* TARGETS */
    88,   /* WEIGHT_TRACKS */
    256,  /* SKINS */
    40,   /* CLIPS */
    24,   /* TRACKS */
    336,  /* EFFECTS */
    24,   /* DIAGNOSTICS */
    64,   /* IMAGES */
    24,   /* MARKERS */
    32,   /* PALETTE_MAPS */
    32,   /* INSTANCES */
};

/* Record sizes of version 3: version 4's, but EFFECTS without the emissive
 * strength, the material name and the texture slots' transforms and
 * samplers, and IMAGES without the problem (no MARKERS section). */
static const uint32_t cna__cnb_record_size_v3[CNA__CNB_SECTION_END] = {
    0, 1, 1, 96, 128, 80, 256, 120, 120, 88, 256, 40, 24, 120, 24, 56, 24,
};

/* Record sizes of version 2 (the reader still reads it): BONES with the
 * current transform, MESHES without target names, PARTS without the file
 * vertex count, EFFECTS with bone_count, world, view, projection and a
 * palette of 72 matrices (no MARKERS and PALETTE_MAPS sections: their
 * entries are never used). */
static const uint32_t cna__cnb_record_size_v2[CNA__CNB_SECTION_END] = {
    0, 1, 1, 96, 192, 56, 248, 120, 120, 88, 256, 40, 24, 4928, 24, 56, 24, 32,
};

static const char *const cna__cnb_section_name[CNA__CNB_SECTION_END] = {
    "", "STRINGS", "DATA", "MODEL", "BONES", "MESHES", "PARTS", "MORPHS", "TARGETS",
    "WEIGHT_TRACKS", "SKINS", "CLIPS", "TRACKS", "EFFECTS", "DIAGNOSTICS", "IMAGES", "MARKERS",
    "PALETTE_MAPS", "INSTANCES",
};

/* Keyframes are stored in place: int64 ticks, 3 + 4 + 3 floats, 48 bytes. */
_Static_assert(sizeof(cna_keyframe) == 48, "cna_keyframe is 48 bytes");
_Static_assert(offsetof(cna_keyframe, translation) == 8, "keyframe translation at 8");
_Static_assert(offsetof(cna_keyframe, rotation) == 20, "keyframe rotation at 20");
_Static_assert(offsetof(cna_keyframe, scale) == 36, "keyframe scale at 36");
_Static_assert(sizeof(cna_mat4) == 64, "cna_mat4 is 16 floats");

/* The checksum of a whole file (docs/format-cnb.md, "Checksum"): the file is
 * read as little-endian 8-byte words w[0..n), the checksum field as zero;
 * word i goes to lane i % 4; each lane is FNV-1a 64 over its words
 * (h = offset basis; h = (h ^ w) * prime), and the result is FNV-1a 64 over
 * the four lane values in order. total is a multiple of 8, at least the
 * header size. */
static inline uint64_t cna__cnb_word(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8); /* the word as stored: callers run on little-endian hosts only */
    return w;
}

static inline uint64_t cna__cnb_checksum(const unsigned char *file, size_t total)
{
    uint64_t lane[4] = {CNA__CNB_FNV_OFFSET, CNA__CNB_FNV_OFFSET, CNA__CNB_FNV_OFFSET, CNA__CNB_FNV_OFFSET};
    const size_t words = total / 8, skip = CNA__CNB_OFF_CHECKSUM / 8;
    size_t i = 0;
    for (; i < 4 && i < words; i++) { /* the header's first 32 bytes hold the checksum field */
        uint64_t w = i == skip ? 0 : cna__cnb_word(file + 8 * i);
        lane[i] = (lane[i] ^ w) * CNA__CNB_FNV_PRIME;
    }
    for (; i + 4 <= words; i += 4) {
        lane[0] = (lane[0] ^ cna__cnb_word(file + 8 * i)) * CNA__CNB_FNV_PRIME;
        lane[1] = (lane[1] ^ cna__cnb_word(file + 8 * i + 8)) * CNA__CNB_FNV_PRIME;
        lane[2] = (lane[2] ^ cna__cnb_word(file + 8 * i + 16)) * CNA__CNB_FNV_PRIME;
        lane[3] = (lane[3] ^ cna__cnb_word(file + 8 * i + 24)) * CNA__CNB_FNV_PRIME;
    }
    for (; i < words; i++) lane[i % 4] = (lane[i % 4] ^ cna__cnb_word(file + 8 * i)) * CNA__CNB_FNV_PRIME;
    uint64_t h = CNA__CNB_FNV_OFFSET;
    for (size_t k = 0; k < 4; k++) h = (h ^ lane[k]) * CNA__CNB_FNV_PRIME;
    return h;
}

/* true on a little-endian host (the only kind the in-place arrays support). */
static inline int cna__cnb_host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* The reader's key checks (times >= 0 and non-decreasing, the 10 floats of
 * each key finite) have a SIMD path (on core/vec.h; used where
 * CNA__CNB_SIMD: SSE2 and no CNA_NO_SIMD) and a scalar one; both give the
 * same answer. For the tests:
 * cna__cnb_keys_ok_path runs the SSE2 path when simd is true and the build
 * has it (cna__cnb_keys_simd), the scalar path otherwise. */
#include "core/simd.h"
#define CNA__CNB_SIMD CNA__SIMD_SSE2
bool cna__cnb_keys_ok_path(const cna_keyframe *keys, size_t n, bool simd);
bool cna__cnb_keys_simd(void);

#endif
