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
 * The ceilings hold on the write side alone: no projection runs here at all (the most lagging
 * read model there is), and still concurrent creates for the last slot give exactly one success.
 */
describe('limits write side on a real SQLite event store', () => {
  let dir: string;
  let store: SqliteEventStore;
  let accountLimits: DeciderCommandHandler<AccountLimitsState, AccountLimitsCommand, LimitsEvent>;
  /** Every decision of the account's decider, retries included. */
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
  eventTypes.register(limitsEvents); // as CrmSchemaModule does: the store boundary decodes through it

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'limits-int-'));
    store = new SqliteEventStore(join(dir, 'events.db'));
    const moduleRef = await Test.createTestingModule({
      imports: [CqrsModule.forRoot()],
      providers: [EventStreams, { provide: EVENT_STORE, useValue: store }, { provide: CLOCK, useValue: clock }],
    }).compile();
    // bound as the command handlers bind the account's decider, with the same retry policy
    accountLimits = moduleRef.get(EventStreams).forDecider(countingDecider, ACCOUNT_LIMITS_RETRY_POLICY);
    decisions.n = 0;
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const facts = (limit: number): CommandFacts => ({
    hubId: 77,
    tier: 'professional',
    tierLimits: { ...DEFAULT_TIER_LIMITS.professional, calculatedProperties: limit },
    userId: 1,
    now: clock.now(),
  });

  const run = (command: AccountLimitsCommand) => accountLimits.handle(limitsAccountStream(77), command, ctx);

  const create = (name: string, limit: number): AccountLimitsCommand => ({
    type: 'CreateProperty',
    facts: facts(limit),
    objectType: 'deals',
    property: {
      name,
      label: name,
      type: 'number',
      fieldType: 'calculation_equation',
      groupName: 'dealinformation',
      calculationFormula: 'amount',
    },
  });

  it('eight concurrent creates for the last of three slots: one succeeds, seven are refused, after real conflicts', async () => {
    await run(create('first', 3));
    await run(create('second', 3));
    decisions.n = 0;
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => run(create(`p${i}`, 3))));
    const ok = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(7);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(HubSpotError);
      expect((r.reason as HubSpotError).extras.subCategory).toBe('LIMITS.CALCULATED_PROPERTIES_LIMIT_EXCEEDED');
    }
    // more decisions than commands: the losers really did conflict on the expected revision and decide again
    expect(decisions.n).toBeGreaterThan(8);
    const stream = await store.readStream(limitsAccountStream(77));
    expect(stream.filter((e) => e.type === LimitsEventType.PropertyCreated)).toHaveLength(3);
  });

  it('events carry explicit types, the actor and the correlation id', async () => {
    await run(create('audited', 5));
    const [event] = await store.readStream(limitsAccountStream(77));
    expect(event).toMatchObject({
      type: 'limits.PropertyCreated',
      streamId: 'limits.account-77',
      metadata: { actor: 'test:limits', correlationId: ctx.correlationId, occurredAt: clock.now() },
    });
  });
});
