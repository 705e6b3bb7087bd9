// Test-only preload (node --require) for leak-check-self-test.spec.ts: a deliberate leak, so that the
// bad-input sweep's memory check can be shown to fail on one. Every HTTP request the service's server
// sees keeps LEAK_HOOK_HEAP_BYTES of JS strings (live JS heap) and a LEAK_HOOK_BUFFER_BYTES Buffer
// (external memory, outside V8's heap) forever. Never loaded by the service itself.
const http = require('node:http');

const heapBytes = Number(process.env.LEAK_HOOK_HEAP_BYTES ?? 0);
const bufferBytes = Number(process.env.LEAK_HOOK_BUFFER_BYTES ?? 0);
const kept = [];
let n = 0;

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...args) {
  if (event === 'request') {
    n++;
    kept.push({
      // A flat one-byte string of its own per request. Not `padEnd`/`repeat`: V8 builds those as
      // trees of concatenations that share their parts, a few hundred bytes whatever the length.
      text: heapBytes > 0 ? Buffer.alloc(heapBytes, 0x61 + (n % 26)).toString('latin1') : '',
      buffer: bufferBytes > 0 ? Buffer.alloc(bufferBytes, n & 0xff) : null,
    });
  }
  return emit.call(this, event, ...args);
};
