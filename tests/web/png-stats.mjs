// Counts the pixels of a PNG screenshot of the demo (tests/web/demo-check.sh):
//   node tests/web/png-stats.mjs SHOT.png
// prints JSON {width, height, background, robot, grey}: pixels that differ from the
// background colour (the demo's clear colour, sampled at the bottom-left corner), pixels of
// the robot's orange (red well above blue), and light grey ones (its joints).
// Reads 8-bit RGB or RGBA, non-interlaced PNGs (what Chromium writes), with node:zlib.
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';

const bytes = readFileSync(process.argv[2]);
if (bytes.readUInt32BE(0) !== 0x89504e47) throw new Error(`${process.argv[2]}: not a PNG`);
let pos = 8, width = 0, height = 0, channels = 0;
const idat = [];
while (pos < bytes.length) {
  const len = bytes.readUInt32BE(pos), type = bytes.toString('latin1', pos + 4, pos + 8);
  const data = bytes.subarray(pos + 8, pos + 8 + len);
  if (type === 'IHDR') {
    width = data.readUInt32BE(0);
    height = data.readUInt32BE(4);
    const depth = data[8], colour = data[9], interlace = data[12];
    if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) {
      throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
    }
    channels = colour === 6 ? 4 : 3;
  } else if (type === 'IDAT') {
    idat.push(data);
  }
  pos += 12 + len;
}
const raw = inflateSync(Buffer.concat(idat));
const stride = width * channels, px = Buffer.alloc(stride * height);
for (let y = 0; y < height; y++) {
  const filter = raw[y * (stride + 1)], line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
  for (let x = 0; x < stride; x++) {
    const a = x >= channels ? px[y * stride + x - channels] : 0;
    const b = y > 0 ? px[(y - 1) * stride + x] : 0;
    const c = x >= channels && y > 0 ? px[(y - 1) * stride + x - channels] : 0;
    let v = line[x];
    if (filter === 1) v += a;
    else if (filter === 2) v += b;
    else if (filter === 3) v += (a + b) >> 1;
    else if (filter === 4) {
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
    px[y * stride + x] = v & 255;
  }
}
const at = (x, y) => px.subarray(y * stride + x * channels, y * stride + x * channels + 3);
const bg = Array.from(at(0, height - 1));
let background = 0, robot = 0, grey = 0;
for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
  const [r, g, b] = at(x, y);
  if (Math.abs(r - bg[0]) + Math.abs(g - bg[1]) + Math.abs(b - bg[2]) <= 6) background++;
  if (r > 150 && r - b > 80 && g > b) robot++;
  if (r > 130 && Math.abs(r - g) < 12 && Math.abs(g - b) < 20) grey++;
}
console.log(JSON.stringify({ width, height, backgroundColour: bg, background, robot, grey }));
