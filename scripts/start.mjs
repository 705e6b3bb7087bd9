// `npm start`: under Node 24 (fetched from the npm registry when the running Node is older), build
// when the sources are newer than dist/, then run the service in this process on the embedded
// default (SQLite in ./data, demo seed). Plain `node dist/main.js` is `npm run start:prod`. The V8
// heap settings (scripts/heap-options.mjs) are in package.json's `start`: the service runs in this
// process, whose heap is sized when it starts (a re-run under Node 24 keeps them).
import { spawnSync } from 'node:child_process';
import { ensureBuilt } from './ensure-built.mjs';
import { ensureNode24 } from './with-node24.mjs';

await ensureNode24();
ensureBuilt(spawnSync);
await import('../dist/main.js');
