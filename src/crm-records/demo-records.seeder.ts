import { Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandContext } from '../platform/events/envelope';
import { CrmRecordsCommand, type RecordBatchView } from './application/crm-records.commands';
import { CrmRecordsQueries } from './application/crm-records.queries';

type Values = Record<string, string>;

/** The `records` part of seed/demo.json: created in each customer account that has no contact yet. */
export interface DemoRecords {
  companies: Values[];
  contacts: Values[];
  deals: Values[];
}

const SEED_DIR = join(__dirname, '..', '..', 'seed');
const DEMO_SEED_FILE = join(SEED_DIR, 'demo.json');
/** The sample records every new HubSpot account starts with (given to FIXTURES accounts). */
const HUBSPOT_SAMPLES_FILE = join(SEED_DIR, 'hubspot-samples.json');

/**
 * A few companies, contacts and deals in each demo customer account, through the ordinary command
 * on the CommandBus (`npm start` with SEED=demo), so the quickstart's contacts call finds some.
 * An account that already has a contact is left alone.
 */
@Injectable()
export class DemoRecordsSeeder {
  private readonly logger = new Logger('DemoSeed');

  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: CrmRecordsQueries,
  ) {}

  static load(file = DEMO_SEED_FILE): DemoRecords {
    return (JSON.parse(readFileSync(file, 'utf8')) as { records: DemoRecords }).records;
  }

  static hubSpotSamples(): DemoRecords {
    return DemoRecordsSeeder.load(HUBSPOT_SAMPLES_FILE);
  }

  async apply(
    hubIds: readonly number[],
    records: DemoRecords = DemoRecordsSeeder.load(),
    what = 'demo records',
  ): Promise<number[]> {
    const context: CommandContext = { correlationId: 'demo-seed', causationId: null, actor: 'system:demo-seed' };
    const source = { appId: null, userId: null };
    const seeded: number[] = [];
    for (const hubId of hubIds) {
      if (this.queries.page(hubId, '0-1', { archived: false, after: 0, limit: 1 }).results.length > 0) continue;
      for (const [objectType, list] of [
        ['companies', records.companies],
        ['contacts', records.contacts],
        ['deals', records.deals],
      ] as const) {
        if (list.length === 0) continue;
        const answer: RecordBatchView = await this.commandBus.execute(
          new CrmRecordsCommand(
            {
              type: 'BatchCreateRecords',
              hubId,
              objectType,
              inputs: list.map((properties) => ({ properties })),
              source,
            },
            context,
          ),
        );
        // A seed file HubSpot's rules refuse is a bug of this repository, not something to skip.
        if (answer.numErrors) throw new Error(`${what}: ${JSON.stringify(answer.errors?.[0]?.message)}`);
      }
      seeded.push(hubId);
    }
    // One line, not one per account: the banner must stay on a person's first screen.
    if (seeded.length > 0) {
      this.logger.log(`${what} created in ${seeded.length} account(s)`);
      this.logger.debug(`${what} created in accounts ${seeded.join(', ')}`);
    }
    return seeded;
  }
}
