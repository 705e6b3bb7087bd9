import { randomUUID } from 'node:crypto';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import type { RecordedEvent } from '../../src/platform/events/envelope';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import type { TestApp } from './test-app';

/** The OAuth module's install event data as it stores it (the contract the cards read model relies on). */
interface AppInstalledData {
  appId: number;
  hubId: number;
  installingUserId: number;
  scopes: string[];
  installedAt: number;
}

interface AppUninstalledData {
  appId: number;
  hubId: number;
  uninstalledAt: number;
}

/**
 * Installs come from the OAuth module; these tests record its `oauth.AppInstalled` /
 * `oauth.AppUninstalled` events straight into the store, which is all the cards module sees.
 */
export async function recordInstall(t: TestApp, appId: number, hubId: number): Promise<number> {
  return appendInstallEvent(t, 'oauth.AppInstalled', {
    appId,
    hubId,
    installingUserId: 1,
    scopes: ['oauth'],
    installedAt: t.clock.now(),
  });
}

export async function recordUninstall(t: TestApp, appId: number, hubId: number): Promise<number> {
  return appendInstallEvent(t, 'oauth.AppUninstalled', { appId, hubId, uninstalledAt: t.clock.now() });
}

async function appendInstallEvent(
  t: TestApp,
  type: string,
  data: AppInstalledData | AppUninstalledData,
): Promise<number> {
  const store = t.app.get<EventStore>(EVENT_STORE);
  const r = await store.append(
    `test-oauth.install-${data.appId}-${data.hubId}`,
    [
      {
        type,
        data,
        metadata: {
          eventId: randomUUID(),
          correlationId: randomUUID(),
          causationId: null,
          actor: 'test:cards',
          occurredAt: t.clock.now(),
        },
      },
    ],
    'any',
  );
  return r.position;
}

/** Installs the app in many accounts at once (concurrent appends, grouped by the store). */
export async function recordInstalls(t: TestApp, appId: number, hubIds: number[]): Promise<void> {
  const chunk = 500;
  for (let i = 0; i < hubIds.length; i += chunk) {
    await Promise.all(hubIds.slice(i, i + chunk).map((h) => recordInstall(t, appId, h)));
  }
}

/** Every projection holds everything in the store now. */
export async function settle(t: TestApp): Promise<void> {
  const store = t.app.get<EventStore>(EVENT_STORE);
  await t.app.get(ProjectionRunner).waitFor(await store.headPosition());
}

/**
 * Resolves with the first event matching `predicate`, reading the store's feed (catch-up, then
 * live): an event-driven wait, never a sleep.
 */
export async function waitForEvent(
  t: TestApp,
  predicate: (e: RecordedEvent) => boolean,
  onEvent?: (e: RecordedEvent) => void,
): Promise<RecordedEvent> {
  const subscription = t.app.get<EventStore>(EVENT_STORE).subscribeToAll(0);
  try {
    for await (const batch of subscription) {
      for (const e of batch) {
        onEvent?.(e);
        if (predicate(e)) return e;
      }
    }
  } finally {
    subscription.close();
  }
  throw new Error('the event store closed before the awaited event');
}

/** All events of a type, read in pages from the store. */
export async function eventsOfType(t: TestApp, type: string): Promise<RecordedEvent[]> {
  const store = t.app.get<EventStore>(EVENT_STORE);
  const out: RecordedEvent[] = [];
  let after = 0;
  for (;;) {
    const page = await store.readAll({ after, limit: 5000, type });
    if (page.length === 0) return out;
    out.push(...page);
    after = page[page.length - 1]!.position;
  }
}
