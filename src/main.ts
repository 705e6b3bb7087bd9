import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { ConfigError, loadConfig } from './platform/config/config';
import { DemoSeeder } from './directory';
import { featureModules } from './feature-modules';
import { EVENT_STORE, EventStore } from './platform/event-store/event-store.port';
import { systemClock } from './platform/clock';
import { createLogger } from './platform/logging/logger';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const app = await createApp({ config, clock: systemClock, modules: featureModules(), logger });

  if (config.seed === 'demo') {
    const seeder = app.get(DemoSeeder);
    const store = app.get<EventStore>(EVENT_STORE);
    const empty = (await store.headPosition()) === 0;
    await seeder.apply();
    if (empty) logger.info('demo seed written to an empty store');
    process.stdout.write(`${seeder.banner()}\n`);
  }

  await app.listen({ host: config.host, port: config.port });
  new Logger('Main').log(
    `listening on http://${config.host}:${config.port} (event store: ${app.get<EventStore>(EVENT_STORE).kind})`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
