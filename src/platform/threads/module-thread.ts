import { type Transferable, Worker } from 'node:worker_threads';

/**
 * The thread's first code: loads `entry`, a module of this build. Built, it is JavaScript. Under
 * the tests (ts-jest, which transforms only jest's own module registry) it is TypeScript source, so
 * `.ts` files are transpiled on load with the TypeScript compiler (a require hook, as ts-node's, so
 * extensionless imports of `.ts` files resolve as well). Not SWC, which the build uses: its native
 * addon crashes the process when a second worker thread loads it.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
const { entry, typescript } = workerData;
if (typescript && !require.extensions['.ts']) {
  const { readFileSync } = require('node:fs');
  const ts = require(typescript);
  const compilerOptions = {
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2022,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    esModuleInterop: true,
    inlineSourceMap: true,
  };
  require.extensions['.ts'] = (module, filename) => {
    const { outputText } = ts.transpileModule(readFileSync(filename, 'utf8'), { compilerOptions, fileName: filename });
    module._compile(outputText, filename);
  };
}
require(entry);
`;

/**
 * Starts a module of this build in a worker thread of its own (its own event loop and heap):
 * `entry` is the module's resolved path (`require.resolve('./x')`: `.js` built, `.ts` under the
 * tests); the module reads `data` as `workerData.data`. `transferList`: ports in `data` handed over.
 */
export function startModuleThread(
  entry: string,
  data: unknown,
  options: { name: string; transferList?: Transferable[] },
): Worker {
  const typescript = entry.endsWith('.ts') ? require.resolve('typescript') : null;
  return new Worker(BOOTSTRAP, {
    eval: true,
    name: options.name,
    workerData: { entry, typescript, data },
    transferList: options.transferList ?? [],
  });
}
