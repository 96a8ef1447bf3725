/*
 * Private declarations of the character layer (src/character/): what the
 * crowd needs of a character. Not installed.
 */
#ifndef CNA_CHARACTER_INTERNAL_H
#define CNA_CHARACTER_INTERNAL_H

#include "cna/character.h"

/* Set the crowd's mark (written only by a crowd's checking thread); returns
 * the mark before. */
bool cna__character_set_mark(cna_character *character, bool mark);

/* The checks of cna_character_advance(seconds), without advancing. */
cna_result cna__character_check_advance(const cna_character *character, double seconds, cna_error *err);

#endif
