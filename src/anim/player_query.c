/*
 * The player's clip and time read as values (cna/player.h), for code that
 * cannot read a cna_clip. Every function accepts a NULL player.
 */
#include "cna/player.h"

double cna_player_time(const cna_player *player) { return cna_ticks_to_seconds(cna_player_position(player)); }

int64_t cna_player_duration(const cna_player *player)
{
    const cna_clip *clip = cna_player_current_clip(player);
    return clip ? clip->duration : 0;
}

const char *cna_player_clip_name(const cna_player *player)
{
    const cna_clip *clip = cna_player_current_clip(player);
    return clip ? clip->name : NULL;
}
