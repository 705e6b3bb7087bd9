// Preloaded (node --expose-gc --require) into the spawned service by the reliability suite only:
// on SIGWINCH (a signal Nest's shutdown hooks leave alone, unlike SIGUSR2), a full garbage
// collection, then one line with the memory figures, so the bad-input sweep compares memory at
// quiescent points instead of wherever V8 happened to be.
//
// Besides process.memoryUsage() it reports how much of V8's heap is resident (heapResident) and
// the young generation's size (newSpace, reserved; newSpaceResident): RSS minus heapResident is
// the memory outside V8's heap (Buffers' backing stores, SQLite, the allocator, code, stacks).
const v8 = require('node:v8');

process.on('SIGWINCH', () => {
  globalThis.gc();
  const m = process.memoryUsage();
  const heap = v8.getHeapStatistics();
  const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  const figures = {
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    heapResident: heap.total_physical_size,
    newSpace: young ? young.space_size : 0,
    newSpaceResident: young ? young.physical_space_size : 0,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
  };
  process.stdout.write(`reliability-gc ${JSON.stringify(figures)}\n`);
});
