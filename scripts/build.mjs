// `npm run build`: src/ → dist/ with SWC, file by file, in about a second (tsc took 15–60 s on a
// loaded 2-core machine, most of it type-checking). Type-checking stays in `npm run lint` and the
// tests (ts-jest); what the build emits matches tsc's output for tsconfig.build.json:
// CommonJS, legacy decorators with their design-time metadata (Nest's dependency injection and
// class-validator/class-transformer read it), class fields with define semantics (tsc's default
// for an ES2022+ target), dynamic import() kept (Nest 12 ships ES modules), source maps beside.
// Files in dist/ without a source any more are removed, so a deleted module cannot linger there.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const OUT = join(ROOT, 'dist');

/** SWC's options for one file; exported for the test that compares them with tsconfig.json. */
export const swcOptions = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    target: 'es2022',
    keepClassNames: true,
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
  },
  module: { type: 'commonjs', strict: false, ignoreDynamic: true },
  sourceMaps: true,
  swcrc: false,
  configFile: false,
};

function sources(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sources(p));
    else if (entry.name.endsWith('.ts') && !/\.(spec|test)\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
      found.push(p);
  }
  return found;
}

function outputs(dir) {
  let found = [];
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      found = found.concat(entry.isDirectory() ? outputs(p) : [p]);
    }
  } catch (e) {
    if (e.code !== 'ENOENT') throw e;
  }
  return found;
}

/** Compiles src/ into dist/; resolves to the number of files written. Throws on a syntax error. */
export async function build() {
  const { transformFile } = await import('@swc/core');
  const files = sources(SRC);
  const written = new Set();
  await Promise.all(
    files.map(async (file) => {
      const rel = relative(SRC, file).replace(/\.ts$/, '.js');
      const target = join(OUT, rel);
      const { code, map } = await transformFile(file, {
        ...swcOptions,
        filename: file,
        outputPath: target,
        sourceFileName: relative(dirname(target), file),
      });
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, `${code}\n//# sourceMappingURL=${rel.split('/').pop()}.map\n`);
      writeFileSync(`${target}.map`, map);
      written.add(target).add(`${target}.map`);
    }),
  );
  for (const stale of outputs(OUT)) if (!written.has(stale)) rmSync(stale);
  return files.length;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const started = performance.now();
    const n = await build();
    console.error(`built ${n} files into dist/ (swc, ${Math.round(performance.now() - started)} ms)`);
  } catch (e) {
    // SWC's message names the file, line and column of a syntax error.
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  }
}
