/*
 * cna/cna.h — umbrella header: includes every public header of the runtime (libcna)
 * and of the importer (libcna_gltf); the renderer's, cna/gl.h, is apart.
 *
 * cna imports glTF 2.0 models and animates them exactly: skeletal clips played
 * by a player into a joint palette, rigid scene-node clips, CPU-blended morph
 * targets. See README.md and docs/ for the conventions.
 */
#ifndef CNA_CNA_H
#define CNA_CNA_H

#include "cna/alloc.h"
#include "cna/anim.h"
#include "cna/baked.h"
#include "cna/blend_space.h"
#include "cna/character.h"
#include "cna/clips.h"
#include "cna/crowd.h"
#include "cna/device.h"
#include "cna/effect.h"
#include "cna/gltf.h"
#include "cna/ik.h"
#include "cna/import.h"
#include "cna/math.h"
#include "cna/model.h"
#include "cna/morph.h"
#include "cna/player.h"
#include "cna/result.h"
#include "cna/skinning.h"
#include "cna/version.h"

#endif
