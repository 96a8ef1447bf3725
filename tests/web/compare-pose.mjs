// Runs `cna pose` natively and under Node (build-web/cna.mjs) on the same models, clips
// and times, and requires the same output byte for byte (stdout, stderr, exit status).
// Usage: node tests/web/compare-pose.mjs NATIVE_CNA WEB_CNA_MJS MODEL...
// A model whose name contains "draco" is expected to be refused by the web build (it is
// built without Draco) with the reader's message; that is checked, and counted apart.
// Prints one line per difference (the first numbers that differ, with their JSON path)
// and a summary; exits 1 when anything differs.
import { spawnSync } from 'node:child_process';

const [native, web, ...models] = process.argv.slice(2);
if (!native || !web || models.length === 0) {
  console.error('usage: node tests/web/compare-pose.mjs NATIVE_CNA WEB_CNA_MJS MODEL...');
  process.exit(2);
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
const runNative = (args) => run(native, args);
const runWeb = (args) => run(process.execPath, [web, ...args]);

// The first few places where two JSON values differ: "path: native vs web".
function jsonDiff(a, b, path = '', out = []) {
  if (out.length >= 5) return out;
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) {
    out.push(`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  } else if (Array.isArray(a)) {
    if (a.length !== b.length) out.push(`${path}: ${a.length} entries vs ${b.length}`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) jsonDiff(a[i], b[i], `${path}[${i}]`, out);
  } else if (a !== null && typeof a === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) jsonDiff(a[k], b[k], `${path}.${k}`, out);
  } else if (a !== b && !(Number.isNaN(a) && Number.isNaN(b))) {
    out.push(`${path}: ${a} vs ${b}`);
  }
  return out;
}

function describe(n, w) {
  if (n.status !== w.status) return [`exit status ${n.status} vs ${w.status}`, `stderr: ${n.stderr.trim()} | ${w.stderr.trim()}`];
  if (n.stderr !== w.stderr) return [`stderr: ${JSON.stringify(n.stderr)} vs ${JSON.stringify(w.stderr)}`];
  try {
    const d = jsonDiff(JSON.parse(n.stdout), JSON.parse(w.stdout));
    return d.length ? d : ['the same numbers, printed differently'];
  } catch {
    return ['stdout differs (not JSON)'];
  }
}

// The cases of one model: the rest pose; for up to three animations (first, middle, last)
// the start, an inner time and the end; a blend of the first two animations.
// A model refused as it is (a texture extension the library does not read) gets the
// refusal compared, then its cases with --no-textures.
function cases(model) {
  let inspect = runNative(['inspect', '--json', model]);
  const list = [];
  let extra = [];
  if (inspect.status !== 0) {
    list.push([]);
    extra = ['--no-textures'];
    inspect = runNative(['inspect', '--json', ...extra, model]);
    if (inspect.status !== 0) throw new Error(`${model}: native inspect failed: ${inspect.stderr}`);
  }
  const info = JSON.parse(inspect.stdout);
  if (info.skins?.some((s) => (s.jointCount ?? 0) > 72)) extra.push('--split-palettes');
  const anims = info.animations ?? info.model?.animations ?? []; // a .cnb: the model's
  list.push([...extra]);
  const picks = [...new Set([0, Math.floor(anims.length / 2), anims.length - 1])].filter((i) => i >= 0 && i < anims.length);
  for (const i of picks) {
    const d = anims[i].duration;
    for (const t of [0, d * 0.37, d]) list.push([...extra, '--animation', String(i), '--time', String(t)]);
  }
  if (anims.length >= 2) {
    list.push([...extra, '--animation', '0', '--time', String(anims[0].duration * 0.5),
      '--blend', '1', '--blend-time', String(anims[1].duration * 0.25), '--weight', '0.3']);
  }
  return list;
}

let same = 0, differ = 0, draco = 0;
for (const model of models) {
  if (/draco/i.test(model)) {
    const w = runWeb(['pose', model]);
    if (w.status === 1 && w.stderr.includes('"KHR_draco_mesh_compression" is not supported: cna was built without Draco')) {
      draco++;
    } else {
      differ++;
      console.log(`DIFF ${model}: expected the Draco refusal, got status ${w.status}: ${w.stderr.trim()}`);
    }
    continue;
  }
  let list;
  try {
    list = cases(model);
  } catch (e) {
    differ++;
    console.log(`DIFF ${model}: ${e.message}`);
    continue;
  }
  for (const args of list) {
    const full = ['pose', model, ...args];
    const n = runNative(full), w = runWeb(full);
    if (n.status === w.status && n.stdout === w.stdout && n.stderr === w.stderr) {
      same++;
    } else {
      differ++;
      console.log(`DIFF cna ${full.join(' ')}`);
      for (const line of describe(n, w)) console.log(`  ${line}`);
    }
  }
}
console.log(`compare-pose: ${same} cases the same bytes, ${differ} different, ${draco} Draco files refused as expected`
  + ` (${models.length} models)`);
process.exit(differ === 0 && same > 0 ? 0 : 1);
