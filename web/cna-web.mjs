// cna-web.mjs — cna's JavaScript API over its WebAssembly build (docs/web.md).
//
// An ES module for browsers and Node (18 or later). It loads cna-core.wasm, imports
// models from their bytes (.glb, a self-contained .gltf, or a .cnb baked model), and
// plays characters: clips, crossfades, updates, and the skinning palettes to draw them
// with, as Float32Arrays of column-major 4x4 matrices (WebGL's uniformMatrix4fv order).
//
// Usage (this example is run by tests/web/run.sh, from web/example.mjs):
//
//   import { loadCna } from './cna-web.mjs';
//   const cna = await loadCna();                        // fetches cna-core.wasm beside this file
//   const bytes = await (await fetch('robot.glb')).arrayBuffer();
//   const model = cna.loadModel(bytes);
//   const robot = model.createCharacter();
//   robot.play('Robot_Walking');
//   robot.update(0.25);                                 // advance 0.25 s and pose
//   robot.crossfade('Robot_Running', 0.5);              // blend into running over 0.5 s
//   robot.update(0.25);
//   const palette = robot.palette(0, 0);                // Float32Array, 16 floats per joint
//   gl.uniformMatrix4fv(bonesLocation, false, palette);
//   robot.free();
//   model.free();
//
// Errors are thrown as CnaError, whose message is the library's ("animation 7 is outside
// -1..2", "glb: ..."); nothing changes when a call throws. Objects hold WebAssembly memory:
// free() them when done (a freed object throws on use).

import createCnaCore from './cna-core.mjs';

/** An error reported by the library; `code` is its cna_result value (a positive number). */
export class CnaError extends Error {
  /**
   * @param {string} message
   * @param {number} code
   */
  constructor(message, code) {
    super(message);
    this.name = 'CnaError';
    this.code = code;
  }
}

/** Loop modes of {@link Character#setLoopMode} (cna_loop_mode). */
export const LoopMode = Object.freeze({ REPEAT: 1, ONCE: 2, PING_PONG: 3 });

/** Vertex formats of {@link Part} elements (cna_vertex_format). */
export const VertexFormat = Object.freeze({ FLOAT2: 1, FLOAT3: 2, FLOAT4: 3, UBYTE4: 4, UBYTE4_NORM: 5 });

/** Vertex usages of {@link Part} elements (cna_vertex_usage). */
export const VertexUsage = Object.freeze({
  POSITION: 1, NORMAL: 2, TEXCOORD: 3, TANGENT: 4, COLOR: 5, BLEND_INDICES: 6, BLEND_WEIGHTS: 7,
});

/** Flags of {@link Cna#loadModel}'s options, as the C side reads them. */
const SPLIT_PALETTES = 1, NO_TEXTURES = 2, CLIPS_UNION = 4;
const CROSSFADE_SYNC_PHASE = 1;

/**
 * Load the WebAssembly module and return the API over it.
 * @param {object} [options]
 * @param {ArrayBuffer|Uint8Array} [options.wasmBinary] the bytes of cna-core.wasm (else they
 *   are read from `wasmUrl`: fetched in a browser, read from the file in Node)
 * @param {string|URL} [options.wasmUrl] where cna-core.wasm is (default: beside this module)
 * @returns {Promise<Cna>}
 */
export async function loadCna(options = {}) {
  let wasmBinary = options.wasmBinary;
  if (!wasmBinary) {
    const url = new URL(options.wasmUrl ?? 'cna-core.wasm', import.meta.url);
    if (url.protocol === 'file:') {
      const { readFile } = await import('node:fs/promises');
      wasmBinary = await readFile(url);
    } else {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`cna: ${url}: HTTP ${response.status}`);
      wasmBinary = await response.arrayBuffer();
    }
  }
  const core = await createCnaCore({ wasmBinary });
  return new Cna(core);
}

/** The library, loaded: make models with {@link Cna#loadModel}. */
export class Cna {
  /** @param {object} core the emscripten module (from loadCna) */
  constructor(core) {
    /** @private */
    this.core = core;
    /** The library's version, "MAJOR.MINOR.PATCH". @type {string} */
    this.version = core.UTF8ToString(core._cnaw_version());
  }

  /**
   * Import a model from the bytes of a .glb, a .gltf whose buffers are data: URIs, or a
   * .cnb baked model (recognised by its contents). External files cannot be read.
   * @param {ArrayBuffer|ArrayBufferView} bytes
   * @param {object} [options]
   * @param {boolean} [options.splitPalettes] split skins of more than 72 joints into parts
   *   of at most 72 palette entries (cna_import_options.split_palettes)
   * @param {boolean} [options.noTextures] do not read images
   * @param {'faithful'|'union'} [options.clipMode] how clips are imported (default faithful)
   * @returns {Model}
   * @throws {CnaError} the reader's or the import's error
   */
  loadModel(bytes, options = {}) {
    const c = this.core;
    const view = bytes instanceof ArrayBuffer ? new Uint8Array(bytes)
      : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const flags = (options.splitPalettes ? SPLIT_PALETTES : 0) | (options.noTextures ? NO_TEXTURES : 0)
      | (options.clipMode === 'union' ? CLIPS_UNION : 0);
    const ptr = c._malloc(Math.max(view.length, 1));
    if (!ptr) throw new CnaError(`loadModel: out of memory for ${view.length} bytes`, 2);
    c.HEAPU8.set(view, ptr);
    const model = c._cnaw_model_load(ptr, view.length, flags);
    c._free(ptr);
    if (!model) throw this.error();
    return new Model(this, model);
  }

  /** @private */
  error(code = this.core._cnaw_error_code()) {
    return new CnaError(this.core.UTF8ToString(this.core._cnaw_error()), code);
  }

  /** @private */
  check(code) {
    if (code !== 0) throw this.error(code);
  }
}

/**
 * One part of a mesh as the library lays it out (docs/vertex-layouts.md): interleaved
 * vertices of `stride` bytes, 32-bit indices, the palette it is skinned with.
 * @typedef {object} Part
 * @property {number} vertexCount
 * @property {number} stride bytes per vertex
 * @property {{offset:number, format:number, usage:number, usageIndex:number}[]} elements
 *   the vertex elements (VertexFormat, VertexUsage)
 * @property {Uint8Array} vertices a copy of the part's vertex bytes (the morph base; a
 *   morphed character's are {@link Character#partVertices})
 * @property {Uint32Array} indices a copy of its indices
 * @property {number} primitive 1 triangles, 2 lines, 3 points (0 means triangles)
 * @property {number} paletteSize matrices of its palette (0 for a rigid mesh)
 * @property {number[]} baseColor its material's base colour factor, RGBA
 */

/**
 * A mesh placement: parts drawn with the parent bone's absolute transform
 * ({@link Character#absoluteTransform}), skinned with their palette when `skin` >= 0.
 * @typedef {object} Mesh
 * @property {number} skin index of the skin, -1 for a rigid mesh
 * @property {number} parentBone
 * @property {number} instanceCount EXT_mesh_gpu_instancing instances (0: one draw)
 * @property {Part[]} parts
 */

/** An imported model: bones, meshes, animations. Make characters of it. */
export class Model {
  /** @private */
  constructor(cna, ptr) {
    /** @private */
    this.cna = cna;
    /** @private */
    this.ptr = ptr;
    /** @private */
    this.characters = 0;
    const c = cna.core;
    const count = c._cnaw_model_animation_count(ptr);
    /** The animations' names, by index. @type {string[]} */
    this.animations = [];
    /** The animations' durations in seconds, by index. @type {number[]} */
    this.durations = [];
    for (let i = 0; i < count; i++) {
      this.animations.push(c.UTF8ToString(c._cnaw_model_animation_name(ptr, i)));
      this.durations.push(c._cnaw_model_animation_duration(ptr, i));
    }
    /** The bones' names, by index (glTF nodes of the scene, depth first). @type {string[]} */
    this.bones = [];
    /** Each bone's parent, -1 for a root. @type {number[]} */
    this.parents = [];
    const bones = c._cnaw_model_bone_count(ptr);
    for (let b = 0; b < bones; b++) {
      this.bones.push(c.UTF8ToString(c._cnaw_model_bone_name(ptr, b)));
      this.parents.push(c._cnaw_model_bone_parent(ptr, b));
    }
    /** Each mesh's part count. @type {number[]} */
    this.partCounts = [];
    const info = c._malloc(4 * 4);
    for (let m = 0; m < c._cnaw_model_mesh_count(ptr); m++) {
      c._cnaw_model_mesh_info(ptr, m, info);
      this.partCounts.push(c.HEAP32[info >> 2]);
    }
    c._free(info);
  }

  /** @private */
  checkPart(what, mesh, part) {
    if (!Number.isInteger(mesh) || mesh < 0 || mesh >= this.partCounts.length) {
      throw new CnaError(`${what}: mesh ${mesh} is outside 0..${this.partCounts.length - 1}`, 1);
    }
    if (!Number.isInteger(part) || part < 0 || part >= this.partCounts[mesh]) {
      throw new CnaError(`${what}: part ${part} of mesh ${mesh} is outside 0..${this.partCounts[mesh] - 1}`, 1);
    }
  }

  /** @private */
  live() {
    if (!this.ptr) throw new CnaError('model: used after free()', 1);
    return this.ptr;
  }

  /**
   * The index of an animation given by name or index; -1 for none.
   * @param {string|number} animation
   * @returns {number}
   */
  findAnimation(animation) {
    if (typeof animation === 'number') {
      return Number.isInteger(animation) && animation >= 0 && animation < this.animations.length ? animation : -1;
    }
    return this.animations.indexOf(String(animation));
  }

  /**
   * The meshes with their parts (copies of their vertices and indices).
   * @returns {Mesh[]}
   */
  meshes() {
    const c = this.cna.core, m = this.live();
    const info = c._malloc(8 * 4), rgba = c._malloc(4 * 4);
    try {
      const out = [];
      const n = c._cnaw_model_mesh_count(m);
      for (let i = 0; i < n; i++) {
        c._cnaw_model_mesh_info(m, i, info);
        const [partCount, skin, parentBone, instanceCount] = c.HEAP32.slice(info >> 2, (info >> 2) + 4);
        const parts = [];
        for (let p = 0; p < partCount; p++) {
          c._cnaw_model_part_info(m, i, p, info, rgba);
          const [vertexCount, stride, elementCount, indexCount, primitive, vertices, indices, paletteSize] =
            c.HEAPU32.slice(info >> 2, (info >> 2) + 8);
          const elements = [];
          for (let e = 0; e < elementCount; e++) {
            c._cnaw_model_part_element(m, i, p, e, info);
            const [offset, format, usage, usageIndex] = c.HEAPU32.slice(info >> 2, (info >> 2) + 4);
            elements.push({ offset, format, usage, usageIndex });
          }
          parts.push({
            vertexCount, stride, elements, primitive, paletteSize,
            vertices: c.HEAPU8.slice(vertices, vertices + vertexCount * stride),
            indices: c.HEAPU32.slice(indices >> 2, (indices >> 2) + indexCount),
            baseColor: Array.from(c.HEAPF32.slice(rgba >> 2, (rgba >> 2) + 4)),
          });
        }
        out.push({ skin, parentBone, instanceCount, parts });
      }
      return out;
    } finally {
      c._free(info);
      c._free(rgba);
    }
  }

  /**
   * A character of this model, at rest (no animation).
   * @param {object} [options]
   * @param {number} [options.layers] animation layers, 1..16 (default 2: enough to crossfade)
   * @returns {Character}
   * @throws {CnaError}
   */
  createCharacter(options = {}) {
    const ptr = this.cna.core._cnaw_character_create(this.live(), options.layers ?? 0);
    if (!ptr) throw this.cna.error();
    this.characters++;
    return new Character(this, ptr);
  }

  /** Free the model (its characters may still be used; it goes when the last is freed). */
  free() {
    if (this.ptr) this.cna.core._cnaw_model_free(this.ptr);
    this.ptr = 0;
  }
}

/** A posed instance of a model: a clock, layers, the pose's matrices. */
export class Character {
  /** @private */
  constructor(model, ptr) {
    /** The model it was made of. @type {Model} */
    this.model = model;
    /** @private */
    this.ptr = ptr;
    /** @private */
    this.layer = 0; // the layer showing the latest play() or crossfade()
  }

  /** @private */
  live() {
    if (!this.ptr) throw new CnaError('character: used after free()', 1);
    return this.ptr;
  }

  /** @private */
  animationIndex(animation) {
    if (animation === null || animation === -1) return -1;
    const index = this.model.findAnimation(animation);
    if (index < 0) {
      throw new CnaError(`no animation ${JSON.stringify(animation)} (the model has ${this.model.animations.length})`, 1);
    }
    return index;
  }

  /**
   * Play an animation (name or index; null for the rest pose) from its start, on layer 0
   * at full weight. Nothing is posed until the next update() or pose().
   * @param {string|number|null} animation
   * @returns {Character} this
   */
  play(animation) {
    const c = this.model.cna.core;
    this.model.cna.check(c._cnaw_character_play(this.live(), this.animationIndex(animation)));
    this.layer = 0;
    return this;
  }

  /**
   * Crossfade to an animation over `seconds`: the layer showing the current animation fades
   * out while the other one plays `animation`, fading in (cna_character_crossfade; an
   * interrupted crossfade blends from the pose shown, without a jump).
   * @param {string|number} animation
   * @param {number} seconds
   * @param {object} [options]
   * @param {boolean} [options.syncPhase] start at the outgoing clip's phase
   * @returns {Character} this
   */
  crossfade(animation, seconds, options = {}) {
    const c = this.model.cna.core;
    const to = this.layer === 0 ? 1 : 0;
    this.model.cna.check(c._cnaw_character_crossfade(this.live(), this.layer, to, this.animationIndex(animation),
      seconds, options.syncPhase ? CROSSFADE_SYNC_PHASE : 0));
    this.layer = to;
    return this;
  }

  /**
   * How the clock treats the ends of the animation.
   * @param {number} mode a {@link LoopMode}
   * @returns {Character} this
   */
  setLoopMode(mode) {
    this.model.cna.check(this.model.cna.core._cnaw_character_set_loop_mode(this.live(), mode));
    return this;
  }

  /**
   * Playback speed (1 normal, negative backwards).
   * @param {number} scale
   * @returns {Character} this
   */
  setTimeScale(scale) {
    this.model.cna.check(this.model.cna.core._cnaw_character_set_time_scale(this.live(), scale));
    return this;
  }

  /**
   * Move the clock to `seconds` (no events); pose() or update(0) shows it.
   * @param {number} seconds
   * @returns {Character} this
   */
  seek(seconds) {
    this.model.cna.check(this.model.cna.core._cnaw_character_seek(this.live(), seconds));
    return this;
  }

  /**
   * Advance the clock by `seconds` and pose (cna_character_update).
   * @param {number} seconds
   * @returns {Character} this
   */
  update(seconds) {
    this.model.cna.check(this.model.cna.core._cnaw_character_update(this.live(), seconds));
    return this;
  }

  /**
   * Pose at the clock's time without advancing it.
   * @returns {Character} this
   */
  pose() {
    this.model.cna.check(this.model.cna.core._cnaw_character_pose(this.live()));
    return this;
  }

  /** The time in seconds of the animation shown by the latest play() or crossfade(). @type {number} */
  get time() { return this.model.cna.core._cnaw_character_layer_time(this.live(), this.layer); }

  /** That animation's duration in seconds (0 with none). @type {number} */
  get duration() {
    const a = this.animation;
    return a >= 0 ? this.model.durations[a] : 0;
  }

  /**
   * A layer's weight now (0..1): during a crossfade the outgoing layer's falls as the
   * incoming one's rises.
   * @param {number} layer
   * @returns {number}
   */
  layerWeight(layer) { return this.model.cna.core._cnaw_character_layer_weight(this.live(), layer); }

  /** The animation playing on the layer that shows the latest play() or crossfade(), -1 for none. @type {number} */
  get animation() { return this.model.cna.core._cnaw_character_layer_animation(this.live(), this.layer); }

  /**
   * The palette a part is skinned with at the last pose: count × 16 floats, column-major
   * 4x4 matrices, as a skinned vertex shader takes them (uniformMatrix4fv(loc, false, p)).
   * @param {number} [mesh]
   * @param {number} [part]
   * @param {Float32Array} [out] filled when given (it must hold count × 16 floats)
   * @returns {Float32Array|null} null for a rigid mesh
   * @throws {CnaError} a mesh or part out of range, an `out` too small
   */
  palette(mesh = 0, part = 0, out = undefined) {
    const c = this.model.cna.core;
    this.model.checkPart('palette', mesh, part);
    const countPtr = c._malloc(4);
    try {
      const p = c._cnaw_character_part_palette(this.live(), mesh, part, countPtr);
      if (!p) return null;
      const n = c.HEAPU32[countPtr >> 2] * 16;
      const src = c.HEAPF32.subarray(p >> 2, (p >> 2) + n);
      if (out) {
        if (out.length < n) throw new CnaError(`palette: out holds ${out.length} floats; ${n} are needed`, 1);
        out.set(src);
        return out;
      }
      return src.slice();
    } finally {
      c._free(countPtr);
    }
  }

  /**
   * A bone's model-space transform at the last pose (16 floats, column-major): the world
   * transform of the meshes whose parent bone it is.
   * @param {number} bone
   * @returns {Float32Array}
   */
  absoluteTransform(bone) {
    const c = this.model.cna.core;
    const p = Number.isInteger(bone) && bone >= 0 ? c._cnaw_character_absolute_transform(this.live(), bone) : 0;
    if (!p) throw new CnaError(`absoluteTransform: bone ${bone} is outside 0..${this.model.bones.length - 1}`, 1);
    return c.HEAPF32.slice(p >> 2, (p >> 2) + 16);
  }

  /**
   * The part's vertex bytes as this character draws them (morph-blended where it has
   * morph targets), a copy.
   * @param {number} mesh
   * @param {number} part
   * @returns {Uint8Array}
   */
  partVertices(mesh, part) {
    const c = this.model.cna.core;
    this.model.checkPart('partVertices', mesh, part);
    const sizePtr = c._malloc(4);
    try {
      const p = c._cnaw_character_part_vertices(this.live(), mesh, part, sizePtr);
      if (!p) throw new CnaError(`partVertices: mesh ${mesh} part ${part} is out of range`, 1);
      return c.HEAPU8.slice(p, p + c.HEAPU32[sizePtr >> 2]);
    } finally {
      c._free(sizePtr);
    }
  }

  /** Free the character. */
  free() {
    if (this.ptr) this.model.cna.core._cnaw_character_free(this.ptr);
    this.ptr = 0;
  }
}
