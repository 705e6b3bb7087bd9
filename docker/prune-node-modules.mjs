// Image build step, after `npm prune --omit=dev`: drops what Node never loads at run time from
// node_modules: the native binaries of other platforms (better-sqlite3, sodium-native and bare-*
// ship prebuilds for a dozen platforms in their npm packages), the Bare runtime's `.bare` builds,
// better-sqlite3's C sources (the image never compiles), TypeScript files (declarations and
// sources) and source maps.
//   node prune-node-modules.mjs node_modules
// Keeps `<platform>-<arch>` (a folder or `<platform>-<arch>.node`) of the Node that runs it; on musl
// also `linuxmusl-<arch>`. Prints what it removed.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = process.argv[2] ?? 'node_modules';
const here = `${process.platform}-${process.arch}`;
const musl = process.platform === 'linux' && !process.report.getReport().header.glibcVersionRuntime;
const keep = new Set(musl ? [here, `linuxmusl-${process.arch}`, `${here}-musl`] : [here]);

let bytes = 0;
let entries = 0;
function size(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  return readdirSync(path).reduce((sum, name) => sum + size(join(path, name)), 0);
}
function remove(path) {
  bytes += size(path);
  entries += 1;
  rmSync(path, { recursive: true, force: true });
}

const compileTimeOnly = /\.(d\.[cm]?ts|[cm]?ts|map|tsbuildinfo)$/;

function walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isFile() && compileTimeOnly.test(entry.name)) remove(path);
    if (!entry.isDirectory() || entry.isSymbolicLink()) continue;
    if (entry.name === 'prebuilds') prunePrebuilds(path);
    else walk(path);
  }
}

function prunePrebuilds(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const target = entry.name.replace(/\.node$/, '');
    if (!keep.has(target)) remove(path);
    else if (entry.isDirectory())
      for (const file of readdirSync(path)) if (file.endsWith('.bare')) remove(join(path, file));
  }
}

walk(root);
for (const sources of ['deps', 'src']) {
  const path = join(root, 'better-sqlite3', sources);
  try {
    statSync(path);
    remove(path);
  } catch {
    // not there: nothing to drop
  }
}
console.log(
  `prune-node-modules: native binaries kept ${[...keep].join(', ')}; removed ${entries} entries, ${(bytes / 1e6).toFixed(1)} MB`,
);
