// `npm run esdb:standin -- --port <N>`: runs the EventStoreDB stand-in (test/support/esdb-standin,
// TypeScript) under Node 24, whose type stripping runs it without a build. The hook only lets its
// extensionless relative imports find their `.ts` files.
import * as nodeModule from 'node:module';
import { ensureNode24 } from './with-node24.mjs';

await ensureNode24();
// Type stripping and module hooks announce themselves on stderr (experimental; a typeless package); nothing else is hidden.
const warned = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (w) => {
  if (w.name !== 'ExperimentalWarning' && w.code !== 'MODULE_TYPELESS_PACKAGE_JSON') for (const l of warned) l(w);
});
nodeModule.registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (!specifier.startsWith('.')) throw error;
      return nextResolve(`${specifier}.ts`, context);
    }
  },
});
await import('../test/support/esdb-standin/cli.ts');
