import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/**
 * Runs scripts/build.mjs (SWC, about a second; no type-checking, that is `npm run lint`) when
 * dist/main.js is missing or older than src/. Where there is no src/ (the container image ships
 * dist/ only), dist/ is what there is.
 */
export function ensureBuilt(spawnSync) {
  if (!existsSync('src') && existsSync('dist/main.js')) return;
  const built = existsSync('dist/main.js') ? statSync('dist/main.js').mtimeMs : 0;
  if (built >= newest('src')) return;
  // The build's messages go to stderr: stdout is the command's own output (audit:export's NDJSON).
  const r = spawnSync(process.execPath, ['scripts/build.mjs'], {
    stdio: ['ignore', 2, 2],
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
