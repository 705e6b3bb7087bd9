import { Counter } from 'prom-client';
import type { AppConfig } from '../config/config';
import type { Metrics } from '../metrics/metrics';
import type { CounterStore } from './counter-store';
import { MemoryCounterStore } from './memory-counter-store';

interface Log {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** One error line per this long at most while Redis stays unreachable. */
const ERROR_LOG_EVERY_MS = 10_000;

/**
 * The configured counter store: in memory unless COUNTER_STORE_URL names a Redis. A Redis that
 * cannot be reached at start does not stop the service: it keeps reconnecting, and meanwhile
 * quotas count per instance and security throttles refuse (logged, and counted in
 * `counter_store_errors_total`).
 */
export async function createCounterStore(config: AppConfig, metrics: Metrics, log: Log): Promise<CounterStore> {
  if (config.counterStoreUrl === null) return new MemoryCounterStore();
  const errors = new Counter({
    name: 'counter_store_errors_total',
    help: 'Operations of the shared counter store (Redis) that failed or timed out, per counter',
    labelNames: ['counter'] as const,
    registers: [metrics.registry],
  });
  let lastLogged = 0;
  // Loaded only with a COUNTER_STORE_URL: ioredis is heap a service counting in memory never uses.
  const { RedisCounterStore } = require('./redis-counter-store') as typeof import('./redis-counter-store');
  const store = new RedisCounterStore(config.counterStoreUrl, {
    onError: (counter, error) => {
      errors.inc({ counter });
      const now = Date.now();
      if (now - lastLogged < ERROR_LOG_EVERY_MS) return;
      lastLogged = now;
      log.error(
        `counter store unreachable (${error.message}): HubSpot's limits count per instance, ` +
          'sign-ins and failed client authentications are refused until it answers',
      );
    },
    // A hung Redis costs one command timeout, then decisions fail fast until a ping is answered.
    onBreaker: (open) =>
      open
        ? log.warn('counter store not answering: decisions fail fast (the fallbacks above) until Redis answers a ping')
        : log.log('counter store answering again: rate-limit counters shared through Redis'),
  });
  const where = redactedUrl(config.counterStoreUrl);
  if (await store.connect()) log.log(`rate-limit counters shared through Redis at ${where}`);
  else log.warn(`Redis at ${where} not reachable yet: retrying; until then the fail behaviour applies`);
  return store;
}

/** The URL without its password (it may carry one: redis://:secret@host). */
function redactedUrl(raw: string): string {
  const url = new URL(raw);
  if (url.password) url.password = '***';
  return url.toString();
}
