// Builds if needed, then runs a compiled script: `node scripts/with-build.mjs dist/cli/x.js args…`.
import { spawnSync } from 'node:child_process';
import { ensureBuilt } from './ensure-built.mjs';

ensureBuilt(spawnSync);
const [script, ...args] = process.argv.slice(2);
const r = spawnSync(process.execPath, [script, ...args], { stdio: 'inherit' });
process.exit(r.status ?? 1);
