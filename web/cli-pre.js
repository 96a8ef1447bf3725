// Prepended to cna-cli.js (the cna tool for Node, NODERAWFS): hand the program its
// .wasm bytes read from beside this file. Without them this emscripten would fetch()
// the file, which Node 18 and later define but cannot use on a file path.
if (typeof process == 'object' && typeof require == 'function') {
  Module['wasmBinary'] = require('fs').readFileSync(require('path').join(__dirname, 'cna-cli.wasm'));
}
