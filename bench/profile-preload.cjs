// Loaded with `node -r bench/profile-preload.cjs dist/main.js` when BENCH_PROFILE_DIR is set:
// SIGWINCH starts the V8 CPU profiler, the next SIGWINCH writes <dir>/<label>.cpuprofile.
// (`--cpu-prof` writes only on a normal exit, which a signal-driven shutdown is not; SIGUSR2 is one
// of Nest's shutdown signals, SIGWINCH is ignored by default and by Nest.)
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  let running = false;
  let n = 0;
  const start = () => {
    running = true;
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval: 200 }, () => session.post('Profiler.start')),
    );
  };
  // BENCH_PROFILE_FROM_START: profile start-up too (until the first SIGWINCH).
  if (process.env.BENCH_PROFILE_FROM_START) start();
  process.on('SIGWINCH', () => {
    if (!running) return start();
    running = false;
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      n += 1;
      writeFileSync(join(dir, `${process.pid}-${n}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
