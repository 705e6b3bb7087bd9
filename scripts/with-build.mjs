// Under Node 24, builds if needed, then runs a compiled script:
// `node scripts/with-build.mjs [node flags…] dist/cli/x.js args…` (flags before the script go to its node,
// as `npm run projections:rebuild` passes the service's heap options of scripts/heap-options.mjs).
import { spawnSync } from 'node:child_process';
import { ensureBuilt } from './ensure-built.mjs';
import { ensureNode24, runToEnd } from './with-node24.mjs';

await ensureNode24();
ensureBuilt(spawnSync);
const argv = process.argv.slice(2);
const flags = argv.slice(
  0,
  Math.max(
    0,
    argv.findIndex((a) => !a.startsWith('--')),
  ),
);
const [script, ...args] = argv.slice(flags.length);
await runToEnd(process.execPath, [...flags, script, ...args]);
