import { Inject, Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CLOCK, type Clock } from '../../platform/clock';
import type { RequestWithToken } from '../http/bearer-authentication';

/** Every time zone's midnight falls on a quarter hour, so a day is a whole number of these. */
const BUCKET_MS = 15 * 60_000;
/** A little over the longest day (25 h) plus the widest offset gap: older buckets are dropped. */
const KEEP_BUCKETS = (50 * 60 * 60_000) / BUCKET_MS;

/**
 * Calls per account, in quarter-hour buckets, so any account's day in its own time zone is a sum
 * of whole buckets. What counts: every request that carried a verified OAuth access token for the
 * account (any app, answered or refused with 429 alike); the admin API, the token endpoint and the
 * install page carry none. In memory, per instance (lost on restart, not shared between instances).
 */
@Injectable()
export class DailyApiUsage {
  private readonly perAccount = new Map<number, Map<number, number>>();

  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  record(hubId: number): void {
    const bucket = Math.floor(this.clock.now() / BUCKET_MS);
    let buckets = this.perAccount.get(hubId);
    if (!buckets) {
      buckets = new Map();
      this.perAccount.set(hubId, buckets);
    }
    const n = buckets.get(bucket);
    if (n === undefined) {
      // A new quarter hour: the account's buckets older than the window go.
      for (const b of buckets.keys()) if (b <= bucket - KEEP_BUCKETS) buckets.delete(b);
      buckets.set(bucket, 1);
    } else {
      buckets.set(bucket, n + 1);
    }
  }

  /** Calls of the account from `from` (a local midnight) until now. */
  countSince(hubId: number, from: number): number {
    const first = Math.floor(from / BUCKET_MS);
    let total = 0;
    for (const [bucket, n] of this.perAccount.get(hubId) ?? []) if (bucket >= first) total += n;
    return total;
  }
}

/**
 * Counts each call that the bearer guard let through with a token, as its answer is sent (so the
 * next request sees it). A Fastify hook, not a Nest interceptor: with rate limits off the service
 * keeps Nest's interceptor-free path, and benchmarks measure what they did before.
 */
export function installDailyApiUsageCount(fastify: FastifyInstance, usage: DailyApiUsage): void {
  fastify.addHook('onSend', (request, _reply, payload, done) => {
    const token = (request as FastifyRequest & RequestWithToken).token;
    if (token) usage.record(token.hubId);
    done(null, payload);
  });
}
