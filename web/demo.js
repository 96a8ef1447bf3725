// The WebGL2 demo of cna's web build (docs/web.md): the bundled robot, skinned on the GPU
// with the palette cna-web.mjs reads each frame; choosing a clip crossfades to it.
// Serve build-web/ over HTTP and open demo.html. demo.html?still=SECONDS draws one frame of
// Robot_Walking at that time and stops (the screenshot check, tests/web/demo-check.sh).
import { loadCna, VertexUsage } from './cna-web.mjs';

const canvas = document.getElementById('view');
const status = document.getElementById('status');
const gl = canvas.getContext('webgl2', { antialias: true, preserveDrawingBuffer: true });

const vertexShader = (bones) => `#version 300 es
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in uvec4 a_joints;
layout(location = 3) in vec4 a_weights;
uniform mat4 u_bones[${bones}];
uniform mat4 u_world, u_view_projection;
out vec3 v_normal;
void main() {
  mat4 s = a_weights.x * u_bones[a_joints.x] + a_weights.y * u_bones[a_joints.y]
         + a_weights.z * u_bones[a_joints.z] + a_weights.w * u_bones[a_joints.w];
  vec4 w = u_world * (s * vec4(a_position, 1.0));
  v_normal = mat3(u_world) * (mat3(s) * a_normal);
  gl_Position = u_view_projection * w;
}`;
const fragmentShader = `#version 300 es
precision highp float;
uniform vec4 u_color;
in vec3 v_normal;
out vec4 o_color;
void main() {
  vec3 n = normalize(v_normal);
  float light = 0.35 + 0.65 * max(dot(n, normalize(vec3(0.4, 0.8, 0.6))), 0.0);
  o_color = vec4(pow(u_color.rgb * light, vec3(1.0 / 2.2)), 1.0);
}`;

function compile(type, source) {
  const s = gl.createShader(type);
  gl.shaderSource(s, source);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
  return s;
}

function program(bones) {
  const p = gl.createProgram();
  gl.attachShader(p, compile(gl.VERTEX_SHADER, vertexShader(bones)));
  gl.attachShader(p, compile(gl.FRAGMENT_SHADER, fragmentShader));
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
  return {
    p,
    bones: gl.getUniformLocation(p, 'u_bones'),
    world: gl.getUniformLocation(p, 'u_world'),
    viewProjection: gl.getUniformLocation(p, 'u_view_projection'),
    color: gl.getUniformLocation(p, 'u_color'),
  };
}

// Column-major 4x4 helpers.
function multiply(a, b) {
  const o = new Float32Array(16);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) {
    o[c * 4 + r] = a[r] * b[c * 4] + a[4 + r] * b[c * 4 + 1] + a[8 + r] * b[c * 4 + 2] + a[12 + r] * b[c * 4 + 3];
  }
  return o;
}
function perspective(fovY, aspect, near, far) {
  const f = 1 / Math.tan(fovY / 2), o = new Float32Array(16);
  o[0] = f / aspect; o[5] = f; o[10] = (far + near) / (near - far); o[11] = -1; o[14] = 2 * far * near / (near - far);
  return o;
}
function lookAt(eye, target) {
  const sub = (a, b) => a.map((v, i) => v - b[i]);
  const norm = (v) => { const l = Math.hypot(...v); return v.map((x) => x / l); };
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const z = norm(sub(eye, target)), x = norm(cross([0, 1, 0], z)), y = cross(z, x);
  return new Float32Array([x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0,
    -dot(x, eye), -dot(y, eye), -dot(z, eye), 1]);
}

// GPU buffers of every part, and the model's bounds from the bind-pose positions under
// the parent bones' rest transforms.
function upload(model, character) {
  const draws = [];
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  model.meshes().forEach((mesh, m) => {
    const world = character.absoluteTransform(mesh.parentBone);
    mesh.parts.forEach((part, p) => {
      if (part.primitive > 1) return; // lines and points are not drawn here
      const find = (usage) => part.elements.find((e) => e.usage === usage);
      const position = find(VertexUsage.POSITION), normal = find(VertexUsage.NORMAL);
      const joints = find(VertexUsage.BLEND_INDICES), weights = find(VertexUsage.BLEND_WEIGHTS);
      const vao = gl.createVertexArray();
      gl.bindVertexArray(vao);
      const vbo = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, vbo);
      gl.bufferData(gl.ARRAY_BUFFER, part.vertices, gl.STATIC_DRAW);
      gl.enableVertexAttribArray(0);
      gl.vertexAttribPointer(0, 3, gl.FLOAT, false, part.stride, position.offset);
      if (normal) {
        gl.enableVertexAttribArray(1);
        gl.vertexAttribPointer(1, 3, gl.FLOAT, false, part.stride, normal.offset);
      } else {
        gl.vertexAttrib3f(1, 0, 1, 0);
      }
      if (joints && weights && mesh.skin >= 0) {
        gl.enableVertexAttribArray(2);
        gl.vertexAttribIPointer(2, 4, gl.UNSIGNED_BYTE, part.stride, joints.offset);
        gl.enableVertexAttribArray(3);
        gl.vertexAttribPointer(3, 4, gl.FLOAT, false, part.stride, weights.offset);
      } else {
        gl.vertexAttribI4ui(2, 0, 0, 0, 0); // rigid: palette entry 0, the identity
        gl.vertexAttrib4f(3, 1, 0, 0, 0);
      }
      const ibo = gl.createBuffer();
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ibo);
      gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, part.indices, gl.STATIC_DRAW);
      gl.bindVertexArray(null);
      draws.push({ mesh: m, part: p, parentBone: mesh.parentBone, skinned: mesh.skin >= 0, vao,
        count: part.indices.length, color: part.baseColor, paletteSize: Math.max(part.paletteSize, 1) });
      const f = new Float32Array(part.vertices.buffer, part.vertices.byteOffset, part.vertices.byteLength / 4);
      for (let v = 0; v < part.vertexCount; v++) {
        const i = (v * part.stride + position.offset) / 4;
        for (let k = 0; k < 3; k++) {
          const x = world[k] * f[i] + world[4 + k] * f[i + 1] + world[8 + k] * f[i + 2] + world[12 + k];
          lo[k] = Math.min(lo[k], x);
          hi[k] = Math.max(hi[k], x);
        }
      }
    });
  });
  return { draws, lo, hi };
}

async function main() {
  if (!gl) throw new Error('this browser has no WebGL2');
  const still = new URLSearchParams(location.search).get('still');
  const cna = await loadCna();
  const bytes = await (await fetch('robot.glb')).arrayBuffer();
  const model = cna.loadModel(bytes);
  const robot = model.createCharacter();
  robot.pose();
  const { draws, lo, hi } = upload(model, robot);
  const bones = Math.max(...draws.map((d) => d.paletteSize));
  const prog = program(bones);
  const identity = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
  const palette = new Float32Array(bones * 16);
  const centre = lo.map((v, k) => (v + hi[k]) / 2);
  const size = Math.max(...hi.map((v, k) => v - lo[k]));

  const select = document.getElementById('clip');
  model.animations.forEach((name, i) => select.add(new Option(name, String(i))));
  const first = Math.max(model.findAnimation('Robot_Walking'), 0);
  select.value = String(first);
  robot.play(first);
  select.onchange = () => robot.crossfade(Number(select.value), 0.4);

  function draw() {
    const w = canvas.clientWidth * devicePixelRatio, h = canvas.clientHeight * devicePixelRatio;
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.clearColor(0.125, 0.141, 0.173, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.useProgram(prog.p);
    const eye = [centre[0] + size * 0.6, centre[1] + size * 0.25, centre[2] + size * 1.15];
    const view = lookAt(eye, centre);
    gl.uniformMatrix4fv(prog.viewProjection, false,
      multiply(perspective(Math.PI / 4, canvas.width / canvas.height, size * 0.05, size * 10), view));
    for (const d of draws) {
      gl.uniformMatrix4fv(prog.world, false, robot.absoluteTransform(d.parentBone));
      gl.uniformMatrix4fv(prog.bones, false, d.skinned ? robot.palette(d.mesh, d.part, palette) : identity);
      gl.uniform4fv(prog.color, d.color);
      gl.bindVertexArray(d.vao);
      gl.drawElements(gl.TRIANGLES, d.count, gl.UNSIGNED_INT, 0);
    }
  }

  if (still !== null) {
    document.getElementById('ui').style.display = 'none';
    robot.seek(Number(still)).pose();
    draw();
    status.textContent = `${model.animations[first]} at ${Number(still)} s`;
    document.body.dataset.drawn = 'yes';
    return;
  }
  let last = performance.now();
  function frame(now) {
    robot.update(Math.min((now - last) / 1000, 0.1));
    last = now;
    draw();
    status.textContent = `${model.animations[robot.animation] ?? 'rest'} ${robot.time.toFixed(2)} s`;
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);
}

main().catch((e) => {
  status.textContent = `error: ${e.message}`;
  document.body.dataset.drawn = 'error';
  throw e;
});
