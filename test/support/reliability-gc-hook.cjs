// Preloaded (node --expose-gc --require) into the spawned service by the reliability suite only:
// on SIGWINCH (a signal Nest's shutdown hooks leave alone, unlike SIGUSR2), a full garbage collection, then one line with the memory figures, so the bad-input
// sweep compares memory at quiescent points instead of wherever V8 happened to be.
process.on('SIGWINCH', () => {
  globalThis.gc();
  const m = process.memoryUsage();
  process.stdout.write(`reliability-gc rss=${m.rss} heapUsed=${m.heapUsed} external=${m.external}\n`);
});
