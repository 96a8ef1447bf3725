/*
 * Constants of the .cnb format shared by the writer and the reader
 * (docs/format-cnb.md is the specification; tests/baked/test_cnb_format.c
 * checks that its tables list these same values). Not installed.
 */
#ifndef CNA_BAKED_CNB_INTERNAL_H
#define CNA_BAKED_CNB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cna/anim.h"
#include "cna/math.h"

#define CNA__CNB_MAGIC "CNB\0"          /* 4 bytes: 'C' 'N' 'B' 0 */
#define CNA__CNB_VERSION 1u
#define CNA__CNB_HEADER_SIZE 64u
#define CNA__CNB_SECTION_ENTRY_SIZE 32u
#define CNA__CNB_ALIGN 16u              /* sections and DATA arrays */
#define CNA__CNB_NULL_REF UINT64_MAX    /* array reference offset meaning NULL */
#define CNA__CNB_NULL_STRING UINT32_MAX /* string reference offset meaning NULL */
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
    CNA__CNB_SECTION_END
};
#define CNA__CNB_SECTION_COUNT (CNA__CNB_SECTION_END - 1)

/* Record size of each section (index = id; 1 for the byte heaps). */
static const uint32_t cna__cnb_record_size[CNA__CNB_SECTION_END] = {
    0,
    1,    /* STRINGS */
    1,    /* DATA */
    96,   /* MODEL */
    192,  /* BONES */
    56,   /* MESHES */
    248,  /* PARTS */
    120,  /* MORPHS */
    120,  /* TARGETS */
    88,   /* WEIGHT_TRACKS */
    256,  /* SKINS */
    40,   /* CLIPS */
    24,   /* TRACKS */
    4928, /* EFFECTS */
    24,   /* DIAGNOSTICS */
};

static const char *const cna__cnb_section_name[CNA__CNB_SECTION_END] = {
    "", "STRINGS", "DATA", "MODEL", "BONES", "MESHES", "PARTS", "MORPHS", "TARGETS",
    "WEIGHT_TRACKS", "SKINS", "CLIPS", "TRACKS", "EFFECTS", "DIAGNOSTICS",
};

/* Keyframes are stored in place: int64 ticks, 3 + 4 + 3 floats, 48 bytes. */
_Static_assert(sizeof(cna_keyframe) == 48, "cna_keyframe is 48 bytes");
_Static_assert(offsetof(cna_keyframe, translation) == 8, "keyframe translation at 8");
_Static_assert(offsetof(cna_keyframe, rotation) == 20, "keyframe rotation at 20");
_Static_assert(offsetof(cna_keyframe, scale) == 36, "keyframe scale at 36");
_Static_assert(sizeof(cna_mat4) == 64, "cna_mat4 is 16 floats");

/* FNV-1a 64 over 8-byte little-endian words (the checksum of docs/format-cnb.md):
 * h = offset basis; for each word w: h = (h ^ w) * prime. `size` is a multiple of 8. */
static inline uint64_t cna__cnb_fnv_words(uint64_t h, const unsigned char *p, size_t size)
{
    for (size_t i = 0; i + 8 <= size; i += 8) {
        uint64_t w = (uint64_t)p[i] | (uint64_t)p[i + 1] << 8 | (uint64_t)p[i + 2] << 16 |
                     (uint64_t)p[i + 3] << 24 | (uint64_t)p[i + 4] << 32 |
                     (uint64_t)p[i + 5] << 40 | (uint64_t)p[i + 6] << 48 |
                     (uint64_t)p[i + 7] << 56;
        h = (h ^ w) * CNA__CNB_FNV_PRIME;
    }
    return h;
}

/* The checksum of a whole file: FNV-1a words over every byte, the checksum
 * field read as zero. total is a multiple of 8 and at least the header size. */
static inline uint64_t cna__cnb_checksum(const unsigned char *file, size_t total)
{
    static const unsigned char zero[8] = {0};
    uint64_t h = cna__cnb_fnv_words(CNA__CNB_FNV_OFFSET, file, CNA__CNB_OFF_CHECKSUM);
    h = cna__cnb_fnv_words(h, zero, 8);
    return cna__cnb_fnv_words(h, file + CNA__CNB_OFF_CHECKSUM + 8, total - CNA__CNB_OFF_CHECKSUM - 8);
}

/* true on a little-endian host (the only kind the in-place arrays support). */
static inline int cna__cnb_host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

#endif
