import Database from 'better-sqlite3';
import { CrmRecordEventType } from '../../src/crm-records/crm-records.events';
import { OAuthEventType } from '../../src/oauth/oauth.events';
import { JournalEventType, type JournalSubscription } from '../../src/webhooks-journal/domain/journal-events';
import { WebhooksJournalProjection } from '../../src/webhooks-journal/projections/webhooks-journal.projection';
import { recordedEvent } from '../support/recorded-events';

/**
 * The journal projection keeps who may journal a change (an account's and object type's installed
 * apps with their subscriptions and filters) in memory between changes to them. Each of those events
 * must be seen at its position: a record change right after one is matched against the new state,
 * never the remembered one.
 */
const APP = 9;
const HUB = 41;
const T0 = Date.UTC(2026, 10, 1);
const READ = ['oauth', 'crm.objects.contacts.read'];
let db: Database.Database;
let projection: WebhooksJournalProjection;
let position: number;
let contact: number;

function apply(type: string, data: Record<string, unknown>): void {
  position++;
  projection.apply(recordedEvent<Parameters<WebhooksJournalProjection['apply']>[0]>(type, data, position, T0), db);
}

const install = (scopes: string[], hubId = HUB) =>
  apply(OAuthEventType.AppInstalled, {
    appId: APP,
    hubId,
    installId: 'i',
    installingUserId: 1,
    scopes,
    installedAt: T0,
  });
const subscribe = (subscriptionId: number, hubId = HUB) => {
  const subscription: JournalSubscription = {
    subscriptionType: 'OBJECT',
    portalId: hubId,
    objectTypeId: '0-1',
    actions: ['CREATE', 'UPDATE'],
    objectIds: [],
    properties: [],
    associatedObjectTypeIds: [],
  };
  apply(JournalEventType.SubscriptionCreated, { appId: APP, subscriptionId, subscription, createdAt: T0 });
};
/** A contact created in `hubId` with a lifecycle stage; returns its id. */
function create(stage: string, hubId = HUB): number {
  const id = ++contact;
  apply(CrmRecordEventType.RecordCreated, {
    hubId,
    objectTypeId: '0-1',
    id,
    properties: { email: `c${id}@example.com`, lifecyclestage: stage },
    createdAt: T0,
    appId: null,
    userId: null,
  });
  return id;
}
/** The journal's entries as `objectId:subscriptionIds`. */
const entries = () =>
  (db.prepare('SELECT body FROM jr_entries ORDER BY position').all() as { body: string }[]).map((r) => {
    const change = (
      JSON.parse(r.body) as { journalEvents: { objectId?: number; subscriptionIds: number[]; action: string }[] }
    ).journalEvents[0]!;
    return `${change.action}:${change.objectId ?? '-'}:${change.subscriptionIds.join(',')}`;
  });

beforeEach(() => {
  db = new Database(':memory:');
  projection = new WebhooksJournalProjection();
  projection.setup(db);
  position = 0;
  contact = 100;
});

afterEach(() => db.close());

it('sees a subscription, a filter and their deletion at their positions', () => {
  install(READ);
  const before = create('lead'); // no subscription yet: nothing
  subscribe(1);
  const first = create('lead');
  apply(JournalEventType.FilterCreated, {
    appId: APP,
    filterId: 5,
    subscriptionId: 1,
    conditions: [{ filterType: 'CRM_OBJECT_PROPERTY', property: 'lifecyclestage', operator: 'EQ', value: 'customer' }],
    createdAt: T0,
  });
  create('lead'); // filtered out
  const customer = create('customer');
  apply(JournalEventType.FilterDeleted, { appId: APP, filterId: 5, deletedAt: T0 });
  const unfiltered = create('lead');
  apply(JournalEventType.SubscriptionDeleted, { appId: APP, subscriptionId: 1, deletedAt: T0 });
  create('lead');
  expect(before).toBeGreaterThan(0);
  expect(entries()).toEqual([`CREATE:${first}:1`, `CREATE:${customer}:1`, `CREATE:${unfiltered}:1`]);
});

it('sees installs, scope changes and uninstalls at their positions, per account', () => {
  subscribe(1);
  subscribe(2, HUB + 1);
  create('lead'); // not installed
  install(READ);
  const installed = create('lead');
  create('lead', HUB + 1); // not installed in the other account
  apply(OAuthEventType.AppInstallScopesChanged, { appId: APP, hubId: HUB, scopes: ['oauth'], changedAt: T0 });
  create('lead'); // no read scope any more
  apply(OAuthEventType.AppInstallScopesChanged, { appId: APP, hubId: HUB, scopes: READ, changedAt: T0 });
  const again = create('lead');
  apply(OAuthEventType.AppUninstalled, { appId: APP, hubId: HUB, uninstallId: 'u', uninstalledAt: T0 });
  create('lead');
  expect(entries()).toEqual([`CREATE:${installed}:1`, `CREATE:${again}:1`]);
});

it('forgets what it kept on reset and on setup (a rebuild, a restart after a rolled-back batch)', () => {
  install(READ);
  subscribe(1);
  const kept = create('lead');
  // Rolled back outside the projection's knowledge: the tables lose the subscription, the memory must too.
  db.exec('DELETE FROM jr_subscriptions');
  projection.setup(db);
  create('lead');
  expect(entries()).toEqual([`CREATE:${kept}:1`]);
  subscribe(1);
  create('lead');
  projection.reset(db);
  install(READ);
  create('lead');
  expect(entries()).toEqual([]);
});
