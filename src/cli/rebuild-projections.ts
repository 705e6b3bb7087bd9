import 'reflect-metadata';
import { createApp } from '../app.factory';
import { DeliveryThread } from '../app-webhooks/app-webhooks.queries';
import { loadConfig } from '../platform/config/config';
import { featureModules } from '../feature-modules';
import { systemClock } from '../platform/clock';
import { EVENT_STORE, EventStore } from '../platform/event-store/event-store.port';
import { createLogger } from '../platform/logging/logger';
import { ProjectionRunner } from '../platform/projections/projection-runner';

/**
 * `npm run projections:rebuild [name…]`: empties read models and replays the whole event history
 * into them (all projections when no name is given). Run it with the service stopped, on the same
 * DATA_DIR / EVENTSTORE_CONNECTION_STRING.
 */
const OUTBOX = 'webhooks-outbox';

async function main(): Promise<void> {
  const config = loadConfig({
    SEED: 'none',
    ADMIN_API_KEY: 'rebuild-cli-not-serving',
    ...process.env,
    LOG_LEVEL: 'warn',
  });
  const app = await createApp({ config, clock: systemClock, modules: featureModules(), logger: createLogger('warn') });
  try {
    const runner = app.get(ProjectionRunner);
    const head = await app.get<EventStore>(EVENT_STORE).headPosition();
    // The webhooks outbox is the delivery thread's read model, in a file of its own (docs/webhooks.md).
    const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : [...runner.projectionNames(), OUTBOX];
    for (const name of names) {
      const started = process.hrtime.bigint();
      if (name === OUTBOX) await app.get(DeliveryThread).rebuild();
      else await runner.rebuild(name);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      process.stdout.write(`rebuilt ${name}: ${head} events in ${ms.toFixed(0)} ms\n`);
    }
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`rebuild failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
