import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from './app.factory';
import { AppConfig, ConfigError, loadConfig } from './platform/config/config';
import { applyFixtures } from './apply-fixtures';
import { DemoRecordsSeeder } from './crm-records';
import { DemoSeeder, FixturesError, type FixturesDocument, loadFixtures } from './directory';
import { featureModules } from './feature-modules';
import { installProcessFaultHandlers } from './platform/core/process-faults';
import { flushLogOnShutdown } from './platform/core/shutdown-log-flush';
import { EVENT_STORE, EventStore } from './platform/event-store/event-store.port';
import { systemClock } from './platform/clock';
import { createServiceLog, resolveLogFormat } from './platform/logging/logger';
import { describeStartupFailure } from './startup-failure';

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  // Checked before anything starts, so a bad file changes nothing in DATA_DIR: every problem listed.
  let fixtures: FixturesDocument | null = null;
  if (config.fixturesFile !== null) {
    try {
      fixtures = loadFixtures(config.fixturesFile);
    } catch (error) {
      if (error instanceof FixturesError) {
        process.stderr.write(`${error.message}\n`);
        process.exit(78); // EX_CONFIG, as a bad configuration
      }
      throw error;
    }
  }
  const { logger, print, flush } = createServiceLog(
    config.logLevel,
    resolveLogFormat(config.logFormat, process.stdout),
  );
  // A fault nothing caught is logged and fails readiness instead of ending the process silently.
  installProcessFaultHandlers(process, (line) => logger.error(line));

  let app: NestFastifyApplication | undefined;
  let banner: string | undefined;
  try {
    app = await createApp({ config, clock: systemClock, modules: featureModules(), logger });
    // The last log lines of a shutdown must be written before Nest ends the process with the signal.
    flushLogOnShutdown(flush);
    const store = app.get<EventStore>(EVENT_STORE);
    if (config.seed === 'demo') {
      const seeder = app.get(DemoSeeder);
      const { hubIds } = await seeder.apply();
      await app.get(DemoRecordsSeeder).apply(hubIds);
      banner = seeder.banner();
    }
    if (fixtures !== null) await applyFixtures(app, fixtures, config.fixturesFile!);
    await app.listen({
      host: config.host,
      port: config.port,
      listenTextResolver: (address) => `listening on ${address} (event store: ${store.kind})`,
    });
  } catch (error) {
    const sentence = describeStartupFailure(error, config);
    if (sentence === null) throw error;
    process.stderr.write(`${sentence}\n`);
    await closeWithin(app, 5000);
    process.exit(1);
  }
  // Last, after the log lines so far, so that it is what a person reads once the service listens.
  if (banner !== undefined) print(`${banner}\n`);
}

/** Closes what did start (store, projections), bounded: the process is about to exit anyway. */
async function closeWithin(app: NestFastifyApplication | undefined, ms: number): Promise<void> {
  if (app === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    app.close().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

main().catch((error: unknown) => {
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
