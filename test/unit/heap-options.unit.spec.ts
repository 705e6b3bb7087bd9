import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Issue 29: the V8 heap settings of scripts/heap-options.mjs are what every way of running the service passes. */
describe('heap options, one set everywhere', () => {
  const root = join(__dirname, '..', '..');
  const read = (file: string) => readFileSync(join(root, file), 'utf8');
  const options = JSON.parse(
    /HEAP_OPTIONS = (\[[^\]]*\])/.exec(read('scripts/heap-options.mjs'))![1]!.replace(/'/g, '"'),
  ) as string[];

  it('names a young-generation and an old-space bound', () => {
    expect(options.map((o) => o.split('=')[0]).sort()).toEqual(['--max-old-space-size', '--max-semi-space-size']);
  });

  it('npm start and npm run start:prod pass them to node', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toBe(`node ${options.join(' ')} scripts/start.mjs`);
    expect(scripts['start:prod']).toBe(`node scripts/with-node24.mjs ${options.join(' ')} dist/main.js`);
  });

  it('npm run projections:rebuild passes them to the CLI (a rebuild replays the whole history)', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['projections:rebuild']).toBe(
      `node scripts/with-build.mjs ${options.join(' ')} dist/cli/rebuild-projections.js`,
    );
  });

  it("the container's NODE_OPTIONS holds them", () => {
    expect(read('docker/Dockerfile')).toContain(`NODE_OPTIONS="${options.join(' ')}"`);
  });

  it('the bench takes them from the module itself', () => {
    expect(read('bench/lib/service.mjs')).toContain("from '../../scripts/heap-options.mjs'");
  });
});
