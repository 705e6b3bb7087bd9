import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The bench's in-process scenarios load modules of the build by path (`dist/...js`). A module
 * renamed or folded into another breaks only the full `npm run bench`, late in its run; this finds
 * it with the unit tests: every such path names a source file that exists.
 */
describe('bench: the built modules it loads by path exist', () => {
  const root = join(__dirname, '..', '..');
  const benchFiles = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? benchFiles(join(dir, entry.name))
        : /\.(mjs|js|cjs)$/.test(entry.name)
          ? [join(dir, entry.name)]
          : [],
    );
  // `dist('x/y.js')` (a helper joining dist/) and `'dist/x/y.js'` in a require.
  const distPaths = (text: string): string[] =>
    [...text.matchAll(/dist\('([^']+)\.js'\)|'dist\/([^']+)\.js'/g)].map((m) => (m[1] ?? m[2])!);

  const uses = benchFiles('bench').flatMap((file) =>
    distPaths(readFileSync(join(root, file), 'utf8')).map((path) => ({ file, path })),
  );

  it('finds the paths (the pattern still matches how the bench loads them)', () => {
    expect(uses.length).toBeGreaterThanOrEqual(5);
    expect(distPaths("dist('limits/x.js') require('dist/platform/y.js')")).toEqual(['limits/x', 'platform/y']);
  });

  it('each names a file under src/', () => {
    const missing = uses.filter(({ path }) => !existsSync(join(root, 'src', `${path}.ts`)));
    expect(missing).toEqual([]);
  });
});
