#!/usr/bin/env node
// build-web/cna.mjs: the cna command-line tool built to WebAssembly, for Node.
//   node build-web/cna.mjs pose model.glb --animation Walk --time 0.5
// takes the native tool's arguments, reads and writes files directly, prints the same
// output and exits with the same status (docs/web.md).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
require('./cna-cli.js');  // runs main(process.argv.slice(2)) and exits with its status
