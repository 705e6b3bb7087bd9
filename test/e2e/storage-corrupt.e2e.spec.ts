import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { EventStore } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

/** What better-sqlite3 throws when a read meets a damaged page. */
const corruptPage = () =>
  Object.assign(new Error('database disk image is malformed'), { name: 'SqliteError', code: 'SQLITE_CORRUPT' });

/**
 * A damaged page met while serving: a storage fault (503 with HubSpot's Error body), never a 500,
 * and readiness reports it from then on (a corrupt page does not heal by itself).
 */
describe('a damaged event store page met while serving', () => {
  let t: TestApp;
  let dir: string;
  let damaged = false;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hs-corrupt-'));
    const real = new SqliteEventStore(join(dir, 'events.sqlite'));
    // The real store, except that its feed reads fail like a corrupt page once `damaged` is set.
    const store = new Proxy(real, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (property === 'readAll' && typeof value === 'function') {
          return (...args: unknown[]) => (damaged ? Promise.reject(corruptPage()) : value.apply(target, args));
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as EventStore;
    t = await startTestApp({ dataDir: dir, eventStore: store });
    await createAccount(t);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 SERVICE_UNAVAILABLE (STORAGE_CORRUPT), and /health/ready turns 503 with the reason', async () => {
    expect((await t.admin('GET', '/health/ready')).statusCode).toBe(200);
    damaged = true;
    const r = await t.admin('GET', '/admin/v1/events?limit=10');
    expect(r.statusCode).toBe(503);
    expect(r.json()).toMatchObject({
      status: 'error',
      category: 'SERVICE_UNAVAILABLE',
      subCategory: 'STORAGE_CORRUPT',
      correlationId: expect.any(String),
    });
    expect(r.body).not.toMatch(/\bat \w+ \(/); // no stack trace
    damaged = false; // the same read no longer fails, but the file is still suspect: not ready
    const ready = await t.admin('GET', '/health/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.body).toContain('SQLITE_CORRUPT');
  });
});
