import { Injectable } from '@nestjs/common';
import { LimitsQueries } from '../../crm-schema';
import type { HubSpotError } from '../../platform/errors/hubspot-error';
import { recordLimitExceeded } from '../domain/record-errors';
import { CrmRecordsQueries, CUSTOM_TYPES } from './crm-records.queries';
import type { RecordType } from './record-schema';

/** The ceiling a create counts against: its standard type's, or the one all custom types share. */
interface Bucket {
  key: string;
  /** Creates under way in this process (taken, not yet answered). */
  pending: number;
  /** Creates answered since the process started: a room opened earlier adds those to its count. */
  done: number;
}

/**
 * A command's room under the account's record ceiling: the usage read once when opened (the read
 * model), plus the creates under way or answered since in this process. `take` holds one slot or
 * throws the limits error (`giveBack` when the create then fails); `close` (after the answer, when the read model holds the records)
 * gives the slots back.
 */
export interface CeilingRoom {
  take(): void;
  /** A taken slot whose create failed. */
  giveBack(): void;
  close(): void;
}

/**
 * Record ceilings (HubSpot's limits: records per standard object type, custom object records
 * overall), per tier with the account's overrides, kept and changed by the CRM schema module
 * (`PUT /admin/v1/accounts/{hubId}/limits`). Checked against the read model's count, with the
 * creates this process has under way, so a batch cannot pass the ceiling by its own parallelism;
 * several instances writing to one account at the ceiling may pass it by their creates in flight
 * (no counter stream: every create would contend on it).
 */
@Injectable()
export class RecordCeilings {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: LimitsQueries,
    private readonly queries: CrmRecordsQueries,
  ) {}

  open(hubId: number, type: RecordType): CeilingRoom {
    const custom = type.family === 'custom';
    const name = custom ? 'customObjectRecords' : 'records';
    const { tier, limits } = this.limits.limitsOf(hubId);
    const override = this.limits.overridesOf(hubId)[name];
    const limit = limits[name];
    const bucket = this.bucket(`${hubId}:${custom ? CUSTOM_TYPES : type.objectTypeId}`);
    const usage = this.queries.liveCount(hubId, custom ? CUSTOM_TYPES : type.objectTypeId);
    const doneAtOpen = bucket.done;
    let taken = 0;
    const refusal = (inUse: number): HubSpotError =>
      recordLimitExceeded({
        what: custom ? 'custom object records' : type.family,
        subCategory: custom ? 'LIMITS.CUSTOM_OBJECT_RECORDS_LIMIT_EXCEEDED' : 'LIMITS.RECORDS_LIMIT_EXCEEDED',
        limit,
        usage: inUse,
        tier,
        overridden: override !== undefined && override !== null,
      });
    return {
      take: () => {
        const inUse = usage + (bucket.done - doneAtOpen) + bucket.pending;
        if (inUse >= limit) throw refusal(inUse);
        bucket.pending++;
        taken++;
      },
      giveBack: () => {
        bucket.pending--;
        taken--;
      },
      close: () => {
        bucket.pending -= taken;
        bucket.done += taken;
        taken = 0;
      },
    };
  }

  private bucket(key: string): Bucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { key, pending: 0, done: 0 };
      this.buckets.set(key, bucket);
    }
    return bucket;
  }
}
