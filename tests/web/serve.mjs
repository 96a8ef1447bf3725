// A static file server for the demo check (tests/web/demo-check.sh):
//   node tests/web/serve.mjs DIR PORT_FILE
// serves DIR on 127.0.0.1 at a free port, written to PORT_FILE once listening.
import { createServer } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const [dir, portFile] = process.argv.slice(2);
const types = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm',
  '.glb': 'model/gltf-binary', '.png': 'image/png',
};
const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  try {
    const body = await readFile(join(dir, path));
    res.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end('not found');
  }
});
server.listen(0, '127.0.0.1', () => writeFile(portFile, String(server.address().port)));
