import { Test } from '@nestjs/testing';
import { CqrsModule } from '@nestjs/cqrs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TIER_LIMITS } from '../../src/platform/tiers';
import {
  AccountLimitsCommand,
  accountLimitsDecider,
  CommandFacts,
} from '../../src/crm-schema/domain/account-limits.decider';
import type { AccountLimitsState } from '../../src/crm-schema/domain/account-limits.state';
import {
  LimitsEvent,
  limitsAccountStream,
  limitsEvents,
  LimitsEventType,
} from '../../src/crm-schema/domain/limits-events';
import { ACCOUNT_LIMITS_RETRY_POLICY } from '../../src/crm-schema/application/account-limits.handler';
import { CLOCK, ManualClock } from '../../src/platform/clock';
import type { DeciderCommandHandler } from '../../src/platform/commands/event-streams';
import { EventStreams } from '../../src/platform/commands/event-streams';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { EVENT_STORE } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import { eventTypes } from '../../src/platform/events/event-type-registry';

/**
 * The association-label ceiling holds on the write side alone (no projection runs here): label
 * creates racing for the last slots of a pair land exactly as many times as the ceiling allows,
 * after real conflicts on the account stream's expected revision.
 */
describe('association labels on the account stream, a real SQLite event store', () => {
  let dir: string;
  let store: SqliteEventStore;
  let accountLimits: DeciderCommandHandler<AccountLimitsState, AccountLimitsCommand, LimitsEvent>;
  const decisions = { n: 0 };
  const countingDecider: typeof accountLimitsDecider = {
    ...accountLimitsDecider,
    decide: (command, state) => {
      decisions.n++;
      return accountLimitsDecider.decide(command, state);
    },
  };
  const clock = new ManualClock();
  const ctx = { correlationId: '00000000-0000-4000-8000-000000000000', actor: 'test:limits' };
  eventTypes.register(limitsEvents);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'labels-int-'));
    store = new SqliteEventStore(join(dir, 'events.db'));
    const moduleRef = await Test.createTestingModule({
      imports: [CqrsModule.forRoot()],
      providers: [EventStreams, { provide: EVENT_STORE, useValue: store }, { provide: CLOCK, useValue: clock }],
    }).compile();
    accountLimits = moduleRef.get(EventStreams).forDecider(countingDecider, ACCOUNT_LIMITS_RETRY_POLICY);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const facts: CommandFacts = {
    hubId: 78,
    tier: 'enterprise',
    tierLimits: { ...DEFAULT_TIER_LIMITS.enterprise, associationLabels: 8 },
    userId: 1,
    now: clock.now(),
  };
  const run = (command: AccountLimitsCommand) => accountLimits.handle(limitsAccountStream(78), command, ctx);
  const label = (name: string): AccountLimitsCommand => ({
    type: 'CreateAssociationDefinition',
    facts,
    objectType: 'cars',
    association: { fromObjectTypeId: '2-1', toObjectTypeId: 'contacts', name },
  });

  it('20 concurrent label creates for the last 5 of 8 slots: exactly 5 are recorded', async () => {
    await run({
      type: 'CreateCustomObjectSchema',
      facts,
      schema: {
        name: 'cars',
        labels: { singular: 'Car', plural: 'Cars' },
        requiredProperties: [],
        properties: [],
        associatedObjects: [],
      },
    });
    for (const n of ['a', 'b', 'c']) await run(label(n));
    decisions.n = 0;
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => run(label(`race_${i}`))));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(HubSpotError);
      expect((r.reason as HubSpotError).extras.subCategory).toBe('LIMITS.ASSOCIATION_LABELS_LIMIT_EXCEEDED');
    }
    expect(decisions.n).toBeGreaterThan(20); // the losers conflicted and decided again
    const stream = await store.readStream(limitsAccountStream(78));
    const created = stream.filter((e) => e.type === LimitsEventType.AssociationDefinitionCreated);
    expect(created).toHaveLength(8);
    const ids = created.map((e) => (e.data as { association: { id: string } }).association.id);
    expect(new Set(ids).size).toBe(8);
  });
});
