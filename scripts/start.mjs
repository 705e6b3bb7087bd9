// `npm start`: under Node 24 (fetched from the npm registry when the running Node is older), build
// when the sources are newer than dist/, then run the service in this process on the embedded
// default (SQLite in ./data, demo seed), with the V8 heap settings of scripts/heap-options.mjs (in a
// child process when this one was started without them). `npm run start:prod` runs dist/main.js as it is.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './ensure-built.mjs';
import { HEAP_OPTIONS } from './heap-options.mjs';
import { ensureNode24, runToEnd } from './with-node24.mjs';

await ensureNode24();
ensureBuilt(spawnSync);
const inEffect = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
const named = (option) => option.split('=')[0];
if (HEAP_OPTIONS.every((option) => inEffect.some((given) => named(given) === named(option)))) {
  await import('../dist/main.js');
} else {
  // V8's heap is sized when the process starts: the service runs in a child with them (or with
  // the caller's own, where NODE_OPTIONS names them).
  const missing = HEAP_OPTIONS.filter((option) => !inEffect.some((given) => named(given) === named(option)));
  await runToEnd(process.execPath, [
    ...process.execArgv,
    ...missing,
    fileURLToPath(new URL('../dist/main.js', import.meta.url)),
  ]);
}
