import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Issue 39, a fast first start: dist/ is compiled by SWC (scripts/build.mjs), not tsc. What Nest's
 * dependency injection and class-validator/class-transformer need from the compiler is checked on
 * a small module compiled with the build's own options: legacy decorators and their design-time
 * metadata, define-semantics class fields, CommonJS with import() kept.
 */
describe('the SWC build', () => {
  const root = join(__dirname, '..', '..');
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'swc-build-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const source = `
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsString, ValidateNested } from 'class-validator';

@Injectable()
export class Clock { now() { return 42; } }

@Injectable()
export class Greeter { constructor(readonly clock: Clock) {} }

@Module({ providers: [Clock, Greeter] })
export class GreeterModule {}

export class Inner { @IsInt() n!: number; }
export class Body {
  @IsString() name!: string;
  @ValidateNested() @Type(() => Inner) inner!: Inner;
  label = 'default';
}
export const later = () => import('node:path');
`;

  // Compiled with scripts/build.mjs's options, then loaded and used, in a Node child (the build
  // script is an ES module; the compiled file requires the project's packages through NODE_PATH).
  const child = `
import { transformSync } from '@swc/core';
import { writeFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { swcOptions } from './scripts/build.mjs';
const [src, out] = process.argv.slice(-2);
const { code } = transformSync(readFileSync(src, 'utf8'), { ...swcOptions, filename: src });
writeFileSync(out, code);
const require = createRequire(import.meta.url);
const m = require(out);
const { NestFactory } = require('@nestjs/core');
const { plainToInstance } = require('class-transformer');
const { validateSync } = require('class-validator');
const app = await NestFactory.createApplicationContext(m.GreeterModule, { logger: false });
const greeter = app.get(m.Greeter);
const body = plainToInstance(m.Body, { name: 7, inner: { n: 'x' } });
const errors = validateSync(body);
console.log(JSON.stringify({
  paramtypes: Reflect.getMetadata('design:paramtypes', m.Greeter).map((t) => t.name),
  injected: greeter.clock.now(),
  innerIsInner: body.inner instanceof m.Inner,
  label: body.label,
  invalid: errors.map((e) => e.property + (e.children?.length ? '.' + e.children[0].property : '')),
  dynamicImportKept: code.includes("=>import('node:path')"),
  commonjs: code.includes('require("class-validator")'),
}));
await app.close();
`;

  it('keeps what Nest DI and class-validator need', () => {
    const src = join(dir, 'module.ts');
    writeFileSync(src, source);
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', child, '--', src, join(dir, 'module.js')], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NODE_PATH: join(root, 'node_modules') },
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      paramtypes: ['Clock'],
      injected: 42,
      innerIsInner: true,
      label: 'default',
      invalid: ['name', 'inner.n'],
      dynamicImportKept: true,
      commonjs: true,
    });
  });

  it('is the one build: npm run build, npm start and the container image all run scripts/build.mjs', () => {
    const read = (f: string) => readFileSync(join(root, f), 'utf8');
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.build).toBe('node scripts/build.mjs');
    expect(read('scripts/ensure-built.mjs')).toContain("'scripts/build.mjs'");
    expect(read('docker/Dockerfile')).toMatch(/COPY scripts\/build\.mjs[\s\S]*RUN npm run build/);
    // The image's build context is an allow-list: the build script must be on it.
    expect(read('.dockerignore').split('\n')).toContain('!scripts/build.mjs');
  });
});
