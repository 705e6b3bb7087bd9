// `npm start`: build when the sources are newer than dist/, then run the service on the
// embedded default (SQLite in ./data, demo seed). Plain `node dist/main.js` is `npm run start:prod`.
import { spawnSync, spawn } from 'node:child_process';
import { ensureBuilt } from './ensure-built.mjs';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`Node ${process.versions.node} is too old: this service needs Node 24. Run: source scripts/node24.sh`);
  process.exit(1);
}
ensureBuilt(spawnSync);
const child = spawn(process.execPath, ['dist/main.js'], { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
