// Under Node 24, builds if needed, then runs a compiled script: `node scripts/with-build.mjs dist/cli/x.js args…`.
import { spawnSync } from 'node:child_process';
import { ensureBuilt } from './ensure-built.mjs';
import { ensureNode24, runToEnd } from './with-node24.mjs';

await ensureNode24();
ensureBuilt(spawnSync);
const [script, ...args] = process.argv.slice(2);
await runToEnd(process.execPath, [script, ...args]);
