import { readdirSync, readFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function sourceFiles(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Files of src/ whose code contains `pattern`, as paths relative to the repository. */
const filesWith = (pattern: RegExp, files = sourceFiles()) =>
  files.filter((f) => pattern.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));

/**
 * The shape docs/architecture.md promises, checked on the code itself: errors come from catalogues,
 * one guard decides who may call a route, and no controller checks scopes by hand.
 */
describe('house rules', () => {
  it('errors are built only in catalogue files (`*-errors.ts`, and HubSpotError’s own factories)', () => {
    const outside = filesWith(/new HubSpotError\(/).filter((f) => !/(-errors|hubspot-error)\.ts$/.test(f));
    expect(outside).toEqual([]);
  });

  it('one guard class: AuthenticationGuard', () => {
    expect(filesWith(/implements[^{]*\bCanActivate\b/)).toEqual(['src/platform/http/authentication.ts']);
    expect(filesWith(/\bUseGuards\(/)).toEqual(['src/platform/http/authentication.ts']);
  });

  it('no controller checks scopes by hand: the route declares them with @Authenticated', () => {
    expect(filesWith(/requireAnyScope\(/)).toEqual([]);
  });

  it('DTO class names are unique across modules (/docs names its schemas by class: two would merge)', () => {
    const names = sourceFiles()
      .filter((f) => f.endsWith('.dto.ts'))
      .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/export class (\w+)/g)].map((m) => m[1]!));
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('one command discriminator: commands name themselves by `type`, as events do', () => {
    expect(filesWith(/\bkind(: | = )'[A-Z]/)).toEqual([]);
  });

  it('no import circles between the files of src/ (type-only imports included)', () => {
    const files = sourceFiles();
    const imports = new Map<string, string[]>();
    for (const file of files) {
      const specifiers = [...readFileSync(file, 'utf8').matchAll(/(?:import|export)\s[^'";]*?from\s+'(\.[^']+)'/g)];
      imports.set(
        file,
        specifiers
          .map(([, specifier]) => resolve(dirname(file), specifier!))
          .flatMap((target) => [`${target}.ts`, join(target, 'index.ts')].filter((f) => existsSync(f)).slice(0, 1)),
      );
    }
    // Depth-first search; a file met again while still on the path closes a circle.
    const circles: string[] = [];
    const done = new Set<string>();
    const visit = (file: string, path: string[]): void => {
      const at = path.indexOf(file);
      if (at >= 0) {
        circles.push([...path.slice(at), file].map((f) => relative(ROOT, f)).join(' -> '));
        return;
      }
      if (done.has(file)) return;
      for (const next of imports.get(file) ?? []) visit(next, [...path, file]);
      done.add(file);
    };
    for (const file of files) visit(file, []);
    expect(circles).toEqual([]);
  });
});
