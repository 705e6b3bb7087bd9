import Database from 'better-sqlite3';
import { SigningSecretCache } from '../../src/app-webhooks/delivery-thread/signing-secret-cache';
import { WebhooksEventType } from '../../src/app-webhooks/domain/webhook-events';
import { WebhookInstallClocksProjection } from '../../src/app-webhooks/projections/webhook-install-clocks.projection';
import { DirectoryEventType } from '../../src/directory/directory.events';
import { InstallClockEventType } from '../../src/oauth/oauth.events';
import { recordedEvent } from '../support/recorded-events';

/** What the delivery thread reads itself instead of asking the API's thread (issue 42). */
const T0 = Date.UTC(2026, 10, 1);

describe('the installs’ clocks on the delivery thread', () => {
  const apply = (p: WebhookInstallClocksProjection, db: Database.Database, type: string, data: object, pos: number) =>
    p.apply(recordedEvent(type, data, pos, T0), db);

  it('follows advances and resets per install, and reloads them from its table', () => {
    const db = new Database(':memory:');
    const p = new WebhookInstallClocksProjection();
    p.setup(db);
    expect(p.offsetMs(1, 10)).toBe(0);
    const advanced = (appId: number, hubId: number, offsetSeconds: number) => ({
      appId,
      hubId,
      advanceSeconds: 60,
      offsetSeconds,
      advancedAt: T0,
    });
    apply(p, db, InstallClockEventType.InstallClockAdvanced, advanced(1, 10, 60), 1);
    apply(p, db, InstallClockEventType.InstallClockAdvanced, advanced(1, 10, 86_460), 2);
    apply(p, db, InstallClockEventType.InstallClockAdvanced, advanced(1, 11, 30), 3);
    expect([p.offsetMs(1, 10), p.offsetMs(1, 11), p.offsetMs(2, 10)]).toEqual([86_460_000, 30_000, 0]);

    apply(p, db, InstallClockEventType.InstallClockReset, { appId: 1, hubId: 11, offsetSeconds: 30, resetAt: T0 }, 4);
    expect(p.offsetMs(1, 11)).toBe(0);

    // A restart (or a rolled-back batch) starts from the table.
    const again = new WebhookInstallClocksProjection();
    again.setup(db);
    expect([again.offsetMs(1, 10), again.offsetMs(1, 11)]).toEqual([86_460_000, 0]);
    again.reset(db);
    expect(again.offsetMs(1, 10)).toBe(0);
    again.setup(db);
    expect(again.offsetMs(1, 10)).toBe(0);
    db.close();
  });
});

describe('the client secrets on the delivery thread', () => {
  it('asks once per app, shares a first ask, asks again after a change with its position, forgets a failed ask', async () => {
    const asked: [number, number][] = [];
    let answer = (appId: number) => Promise.resolve<string | null>(`secret-${appId}-${asked.length}`);
    const cache = new SigningSecretCache((appId, reached) => {
      asked.push([appId, reached]);
      return answer(appId);
    });
    const [a, b] = await Promise.all([cache.secret(1), cache.secret(1)]);
    expect([a, b]).toEqual(['secret-1-1', 'secret-1-1']);
    expect(await cache.secret(2)).toBe('secret-2-2');
    expect(await cache.secret(1)).toBe('secret-1-1');
    expect(asked).toEqual([
      [1, 0],
      [2, 0],
    ]);

    // A rotation of app 1 at position 40, then a re-seal at 45: the next ask must include 45.
    const changed = (type: string, appId: number, position: number) =>
      cache.handle(recordedEvent(type, { appId }, position, T0));
    await changed(DirectoryEventType.AppClientSecretRotated, 1, 40);
    await changed(WebhooksEventType.SigningSecretResealed, 1, 45);
    expect(await cache.secret(1)).toBe('secret-1-3');
    expect(await cache.secret(2)).toBe('secret-2-2');
    expect(asked.at(-1)).toEqual([1, 45]);

    // A failed ask is not kept.
    await changed(DirectoryEventType.AppClientSecretRotated, 2, 50);
    answer = () => Promise.reject(new Error('the API’s thread is gone'));
    await expect(cache.secret(2)).rejects.toThrow('gone');
    answer = (appId) => Promise.resolve(`secret-${appId}-${asked.length}`);
    expect(await cache.secret(2)).toBe('secret-2-5');
    expect(asked.slice(-2)).toEqual([
      [2, 50],
      [2, 50],
    ]);
  });
});
