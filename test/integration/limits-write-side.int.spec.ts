import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TIER_LIMITS } from '../../src/platform/tiers';
import {
  AccountLimitsCommand,
  accountLimitsDecider,
  AccountLimitsState,
  CommandFacts,
} from '../../src/limits/domain/account-limits.decider';
import { limitsAccountStream, LimitsEventType } from '../../src/limits/domain/limits-events';
import { ManualClock } from '../../src/platform/clock';
import { CommandExecutor } from '../../src/platform/commands/command-executor';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';

/**
 * The ceilings hold on the write side alone: no projection runs here at all (the most lagging
 * read model there is), and still concurrent creates for the last slot give exactly one success.
 */
describe('limits write side on a real SQLite event store', () => {
  let dir: string;
  let store: SqliteEventStore;
  let executor: CommandExecutor;
  const clock = new ManualClock();
  const ctx = { correlationId: '00000000-0000-4000-8000-000000000000', actor: 'test:limits' };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'limits-int-'));
    store = new SqliteEventStore(join(dir, 'events.db'));
    executor = new CommandExecutor(store, clock);
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

  async function run(command: AccountLimitsCommand, decisions: { n: number }) {
    return executor.execute(
      limitsAccountStream(77),
      accountLimitsDecider,
      (state: AccountLimitsState) => {
        decisions.n++;
        return accountLimitsDecider.decide(command, state);
      },
      ctx,
    );
  }

  const create = (name: string, limit: number): AccountLimitsCommand => ({
    type: 'CreateProperty',
    facts: facts(limit),
    objectType: 'deals',
    property: {
      name,
      label: name,
      type: 'number',
      fieldType: 'calculation_equation',
      groupName: 'g',
      calculationFormula: 'amount',
    },
  });

  it('eight concurrent creates for the last of three slots: one succeeds, seven are refused, after real conflicts', async () => {
    const decisions = { n: 0 };
    await run(create('first', 3), decisions);
    await run(create('second', 3), decisions);
    decisions.n = 0;
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => run(create(`p${i}`, 3), decisions)));
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
    await run(create('audited', 5), { n: 0 });
    const [event] = await store.readStream(limitsAccountStream(77));
    expect(event).toMatchObject({
      type: 'limits.PropertyCreated',
      streamId: 'limits.account-77',
      metadata: { actor: 'test:limits', correlationId: ctx.correlationId, occurredAt: clock.now() },
    });
  });
});
