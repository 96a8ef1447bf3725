// Checks of cna-web.mjs beyond its usage example (tests/web/run.sh):
//   node tests/web/api.mjs build-web/cna-web.mjs ROBOT.glb ROBOT.cnb
// ROBOT.cnb is the robot converted by the native `cna convert`. Checks: a .cnb and its
// glTF give the same palettes, bit for bit; bad bytes are refused with the reader's
// message and code; a wrong animation, indices out of range, a too small `out`, a use
// after free() throw CnaError; a crossfade moves the weights from one layer to the other.
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [modulePath, glbPath, cnbPath] = process.argv.slice(2);
const { loadCna, CnaError, LoopMode } = await import(pathToFileURL(resolve(modulePath)).href);
const cna = await loadCna();
let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.log(`FAIL ${what}`);
  }
}
function throwsCna(fn, text, what) {
  try {
    fn();
    check(false, `${what}: did not throw`);
  } catch (e) {
    check(e instanceof CnaError && e.message.includes(text), `${what}: ${e.name}: ${e.message}`);
  }
}

const glb = cna.loadModel(await readFile(glbPath));
const cnb = cna.loadModel(new Uint8Array(await readFile(cnbPath)));
check(JSON.stringify(glb.animations) === JSON.stringify(cnb.animations), '.cnb: the same animations');
const a = glb.createCharacter(), b = cnb.createCharacter();
for (const c of [a, b]) c.setLoopMode(LoopMode.ONCE).play('Robot_Running').update(0.3);
let same = true;
for (let m = 0; m < glb.meshes().length; m++) {
  const pa = a.palette(m, 0), pb = b.palette(m, 0);
  same &&= pa.length === pb.length && pa.every((v, i) => Object.is(v, pb[i]));
}
check(same, '.cnb: the palettes of the glTF file, bit for bit');

throwsCna(() => cna.loadModel(new Uint8Array([1, 2, 3, 4])), 'JSON syntax error at line 1', 'bad bytes');
try {
  cna.loadModel(new TextEncoder().encode('{"asset": {"version": "1.0"}}'));
  check(false, 'glTF 1.0: not refused');
} catch (e) {
  check(e instanceof CnaError && e.code > 0 && /version/.test(e.message), `glTF 1.0: ${e.message}`);
}
throwsCna(() => a.play('Robot_Flying'), 'no animation "Robot_Flying"', 'an unknown animation');
throwsCna(() => a.palette(0, 0, new Float32Array(16)), 'out holds 16 floats', 'a too small out');
throwsCna(() => a.setTimeScale(Infinity), 'scale', 'an infinite time scale');
throwsCna(() => a.palette(99, 0), 'palette: mesh 99 is outside 0..13', 'a mesh out of range');
throwsCna(() => a.palette(0, 1), 'palette: part 1 of mesh 0 is outside 0..0', 'a part out of range');
throwsCna(() => a.absoluteTransform(-1), 'absoluteTransform: bone -1 is outside 0..57', 'a bone out of range');

a.setLoopMode(LoopMode.REPEAT).play('Robot_Walking').update(0.2);
a.crossfade('Robot_Running', 0.5);
a.update(0.25);
const w0 = a.layerWeight(0), w1 = a.layerWeight(1);
check(w0 > 0 && w0 < 1 && w1 > 0 && w1 < 1 && Math.abs(w0 + w1 - 1) < 1e-6, `crossfade half way: weights ${w0}, ${w1}`);
a.update(0.5);
check(a.layerWeight(1) === 1 && glb.animations[a.animation] === 'Robot_Running', 'crossfade done');

a.free();
throwsCna(() => a.update(0.1), 'used after free()', 'a freed character');
b.free();
glb.free();
cnb.free();
throwsCna(() => glb.createCharacter(), 'used after free()', 'a freed model');
console.log(failures ? `api: ${failures} failures` : 'api: every check passed');
process.exit(failures ? 1 : 0);
