// The usage example of cna-web.mjs (docs/web.md), run by tests/web/run.sh:
//   node build-web/example.mjs [model.glb]        (default: robot.glb beside it)
// Loads the robot, walks, crossfades into running, and prints what it read back.
import { readFile } from 'node:fs/promises';
import { loadCna, CnaError } from './cna-web.mjs';

const cna = await loadCna();
const file = process.argv[2] ?? new URL('robot.glb', import.meta.url);
const model = cna.loadModel(await readFile(file));
console.log(`cna ${cna.version}: ${model.bones.length} bones, ${model.animations.length} animations`);

const robot = model.createCharacter();
robot.play('Robot_Walking');
robot.update(0.25);                       // advance 0.25 s and pose
robot.crossfade('Robot_Running', 0.5);    // blend into running over 0.5 s
robot.update(0.25);                       // half way through the crossfade
const palette = robot.palette(0, 0);      // Float32Array, 16 floats (one 4x4 matrix) per joint
console.log(`playing ${model.animations[robot.animation]} at ${robot.time.toFixed(3)} s;`
  + ` palette of mesh 0 part 0: ${palette.length / 16} matrices, first row [${Array.from(palette.slice(0, 4), (v) => v.toFixed(4)).join(', ')}]`);

try {
  robot.play('Robot_Flying');
} catch (e) {
  if (!(e instanceof CnaError)) throw e;
  console.log(`refused: ${e.message}`);
}
robot.free();
model.free();
