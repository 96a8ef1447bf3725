// Prepended to the Node programs of the web build (cna-cli.js, the tests): hand the
// program its .wasm bytes, read from beside it (NAME.js -> NAME.wasm). Without them this
// emscripten would fetch() the file, which Node 18 and later define but cannot use on a
// file path.
if (typeof process == 'object' && typeof require == 'function') {
  var path_ = require('path');
  Module['wasmBinary'] = require('fs').readFileSync(
    path_.join(__dirname, path_.basename(__filename, '.js') + '.wasm'));
}
