import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp as createService } from '../../src/app.factory';
import { loadConfig } from '../../src/platform/config/config';
import { FeatureModule, featureModules } from '../../src/feature-modules';
import { ManualClock } from './manual-clock';
import { type Clock, type MonotonicClock, systemClock, systemMonotonicClock } from '../../src/platform/clock';
import type { EventStore } from '../../src/platform/event-store/event-store.port';
import { createLogger } from '../../src/platform/logging/logger';

export const TEST_ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export interface TestApp {
  app: NestFastifyApplication;
  fastify: FastifyInstance;
  clock: ManualClock;
  adminKey: string;
  dataDir: string;
  /** Base URL when started with { listen: true }. */
  url: string;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Admin API call with the admin key. */
  admin(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ): Promise<LightMyRequestResponse>;
  /** Closes the app; keeps the data dir when `keepData` (restart tests), otherwise deletes it. */
  close(options?: { keepData?: boolean }): Promise<void>;
}

/** A started service, whichever clock it runs on: what the helpers below need. */
export type TestService = Omit<TestApp, 'clock'>;

export interface StartOptions {
  /** Feature modules; defaults to every module main.ts uses. */
  modules?: FeatureModule[];
  clock?: ManualClock;
  env?: Record<string, string>;
  /** Reuse a data dir (restart after a crash). */
  dataDir?: string;
  listen?: boolean;
  /** Another event store (default: the SQLite store in dataDir, as main.ts makes it). */
  eventStore?: EventStore;
  /** Where the JSON log goes (with env LOG_LEVEL), for tests that read the log. */
  logDestination?: { write(line: string): void };
}

/** The whole service, as main.ts builds it, on a fresh SQLite store in a temp dir. */
export async function startTestApp(options: StartOptions = {}): Promise<TestApp> {
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 10, 22, 9, 0, 0));
  return { ...(await startService(options, clock, clock)), clock };
}

/**
 * The same on the system clock, as main.ts runs it (code that reads that clock itself, off the API's
 * thread, is taken only there): no clock to move.
 */
export function startTestAppOnSystemClock(options: Omit<StartOptions, 'clock'> = {}): Promise<TestService> {
  return startService(options, systemClock, systemMonotonicClock);
}

async function startService(options: StartOptions, clock: Clock, monotonicClock: MonotonicClock): Promise<TestService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hs-test-'));
  const config = loadConfig({
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    SEED: 'none',
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RATE_LIMIT_ENABLED: 'false',
    // Archive batches run when a test asks (HistoryArchiveService.runOnce), never on a timer.
    ARCHIVE_INTERVAL_MS: '0',
    ...options.env,
  });
  const app = await createService({
    config,
    clock,
    monotonicClock,
    modules: options.modules ?? featureModules(),
    logger: createLogger(config.logLevel, options.logDestination),
    eventStore: options.eventStore,
  });
  let url = '';
  if (options.listen) {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.getHttpServer().address() as { port: number };
    url = `http://127.0.0.1:${address.port}`;
  }
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  const inject = (o: InjectOptions) => fastify.inject(o);
  return {
    app,
    fastify,
    adminKey: TEST_ADMIN_KEY,
    dataDir,
    url,
    inject,
    admin: (method, u, payload) =>
      inject({
        method,
        url: u,
        headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
        ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
      }),
    close: async (o) => {
      await app.close();
      if (!o?.keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;

export async function createAccount(
  t: TestService,
  input: { domain?: string; tier?: string; hublet?: string } = {},
): Promise<{ hubId: number; domain: string; hublet: string; tier: string }> {
  const r = await t.admin('POST', '/admin/v1/accounts', {
    domain: input.domain ?? `acct-${unique()}.example.com`,
    tier: input.tier ?? 'enterprise',
    ...(input.hublet ? { hublet: input.hublet } : {}),
  });
  if (r.statusCode !== 201) throw new Error(`createAccount: ${r.statusCode} ${r.body}`);
  return r.json();
}

export async function createUser(
  t: TestService,
  input: { email?: string; password?: string; hubIds: number[] },
): Promise<{ userId: number; email: string; hubIds: number[]; password: string }> {
  const password = input.password ?? 'correct horse battery staple';
  const r = await t.admin('POST', '/admin/v1/users', {
    email: input.email ?? `user-${unique()}@example.com`,
    password,
    hubIds: input.hubIds,
  });
  if (r.statusCode !== 201) throw new Error(`createUser: ${r.statusCode} ${r.body}`);
  return { ...r.json(), password };
}

export async function createApp(
  t: TestService,
  input: {
    developerHubId: number;
    name?: string;
    redirectUrls?: string[];
    requiredScopes?: string[];
    optionalScopes?: string[];
  },
): Promise<{
  appId: number;
  clientId: string;
  clientSecret: string;
  installUrl: string;
  redirectUrls: string[];
  requiredScopes: string[];
  optionalScopes: string[];
  name: string;
  developerHubId: number;
}> {
  const r = await t.admin('POST', '/admin/v1/apps', {
    developerHubId: input.developerHubId,
    name: input.name ?? `App ${unique()}`,
    redirectUrls: input.redirectUrls ?? ['https://app.example.com/oauth/callback'],
    requiredScopes: input.requiredScopes ?? ['oauth'],
    optionalScopes: input.optionalScopes ?? [],
  });
  if (r.statusCode !== 201) throw new Error(`createApp: ${r.statusCode} ${r.body}`);
  return r.json();
}
