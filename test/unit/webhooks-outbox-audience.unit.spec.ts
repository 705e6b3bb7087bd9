import Database from 'better-sqlite3';
import { WebhooksEventType } from '../../src/app-webhooks/domain/webhook-events';
import { WebhookOutboxProjection } from '../../src/app-webhooks/projections/webhook-outbox.projection';
import { CrmRecordEventType } from '../../src/crm-records/crm-records.events';
import { OAuthEventType } from '../../src/oauth/oauth.events';
import { recordedEvent } from '../support/recorded-events';

/**
 * The outbox projection keeps who hears of a change (an account's and object type's subscriptions,
 * settings and installs) in memory between changes to them. Each of those events must be seen at its
 * position: a record change right after one is matched against the new state, never the remembered one.
 */
const APP = 7;
const HUB = 40;
const T0 = Date.UTC(2026, 10, 1);
const READ = ['oauth', 'crm.objects.contacts.read'];
let db: Database.Database;
let projection: WebhookOutboxProjection;
let position: number;
let contact: number;

function apply(type: string, data: Record<string, unknown>): void {
  position++;
  projection.apply(recordedEvent<Parameters<WebhookOutboxProjection['apply']>[0]>(type, data, position, T0), db);
}

const settings = () =>
  apply(WebhooksEventType.SettingsConfigured, {
    appId: APP,
    targetUrl: 'http://127.0.0.1/hooks',
    maxConcurrentRequests: 5,
    configuredAt: T0,
  });
const install = (scopes: string[], hubId = HUB) =>
  apply(OAuthEventType.AppInstalled, {
    appId: APP,
    hubId,
    installId: 'i',
    installingUserId: 1,
    scopes,
    installedAt: T0,
  });
const subscribe = (subscriptionId: number, eventType: string, propertyName: string | null = null) =>
  apply(WebhooksEventType.SubscriptionCreated, {
    appId: APP,
    subscriptionId,
    eventType,
    propertyName,
    objectTypeId: null,
    active: true,
    createdAt: T0,
  });
/** A contact created in `hubId`; returns its id. */
function create(hubId = HUB, properties: Record<string, string> = { email: 'a@example.com' }): number {
  const id = ++contact;
  apply(CrmRecordEventType.RecordCreated, {
    hubId,
    objectTypeId: '0-1',
    id,
    properties,
    createdAt: T0,
    appId: null,
    userId: null,
  });
  return id;
}
/** The outbox's items as `objectId:subscriptionType`. */
const items = () =>
  (
    db.prepare('SELECT object_id, subscription_type FROM wh_outbox ORDER BY seq').all() as {
      object_id: number;
      subscription_type: string;
    }[]
  ).map((r) => `${r.object_id}:${r.subscription_type}`);

beforeEach(() => {
  db = new Database(':memory:');
  projection = new WebhookOutboxProjection();
  projection.setup(db);
  position = 0;
  contact = 100;
  settings();
  install(READ);
  subscribe(1, 'contact.creation');
});

it('a subscription, a pause and a resume each count from their own position', () => {
  const first = create();
  subscribe(2, 'contact.propertyChange', 'email');
  const second = create();
  apply(WebhooksEventType.SubscriptionActivationChanged, {
    appId: APP,
    subscriptionId: 1,
    active: false,
    updatedAt: T0,
  });
  const paused = create();
  apply(WebhooksEventType.SubscriptionActivationChanged, {
    appId: APP,
    subscriptionId: 1,
    active: true,
    updatedAt: T0,
  });
  apply(WebhooksEventType.SubscriptionDeleted, { appId: APP, subscriptionId: 2, deletedAt: T0 });
  const last = create();
  expect(items()).toEqual([
    `${first}:contact.creation`,
    `${second}:contact.creation`,
    `${second}:contact.propertyChange`,
    `${paused}:contact.propertyChange`,
    `${last}:contact.creation`,
  ]);
});

it('settings cleared and configured again, scopes changed, an uninstall and an install elsewhere', () => {
  const before = create();
  apply(WebhooksEventType.SettingsCleared, { appId: APP, clearedAt: T0 });
  create();
  settings();
  const configured = create();
  apply(OAuthEventType.AppInstallScopesChanged, {
    appId: APP,
    hubId: HUB,
    installId: 'i',
    scopes: ['oauth'],
    changedAt: T0,
  });
  create();
  apply(OAuthEventType.AppInstallScopesChanged, {
    appId: APP,
    hubId: HUB,
    installId: 'i',
    scopes: READ,
    changedAt: T0,
  });
  const rescoped = create();
  const otherHub = create(HUB + 1);
  install(READ, HUB + 1);
  const installedThere = create(HUB + 1);
  apply(OAuthEventType.AppUninstalled, { appId: APP, hubId: HUB, installId: 'i', uninstalledAt: T0 });
  create();
  expect(otherHub).toBeGreaterThan(0);
  expect(items()).toEqual([
    `${before}:contact.creation`,
    `${configured}:contact.creation`,
    `${rescoped}:contact.creation`,
    `${installedThere}:contact.creation`,
  ]);
});

it('a batch rolled back after a subscription change: the restart (setup) forgets what it remembered', () => {
  // The runner applies a batch in a transaction; a failure rolls it back and restarts the projection
  // from its checkpoint, which calls setup again.
  expect(() =>
    db.transaction(() => {
      subscribe(2, 'contact.propertyChange', 'email');
      create();
      throw new Error('a later projection failed');
    })(),
  ).toThrow('a later projection failed');
  expect(items()).toEqual([]);
  projection.setup(db);
  const after = create();
  expect(items()).toEqual([`${after}:contact.creation`]);
});

it('a rebuild (reset) replays into an empty audience', () => {
  create();
  projection.reset(db);
  expect(items()).toEqual([]);
  const orphan = create(); // no settings, subscriptions or installs after the reset
  settings();
  install(READ);
  subscribe(1, 'contact.creation');
  const heard = create();
  expect(orphan).toBeLessThan(heard);
  expect(items()).toEqual([`${heard}:contact.creation`]);
});
