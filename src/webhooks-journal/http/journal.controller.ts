import { Body, Controller, Get, HttpCode, Inject, Injectable, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppToken, type AppTokenCaller } from '../../oauth';
import { CLOCK, type Clock } from '../../platform/clock';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { WireResponse } from '../../platform/http/wire-response';
import { type JournalFetch, JournalReader, type JournalScope } from '../application/journal-reader';
import { JournalQueries } from '../application/journal.queries';
import { OFFSET_PATTERN } from '../domain/journal-entries';
import { badOffset, installPortalIdRequired, snapshotStatusNotFound } from '../domain/journal-errors';
import { BatchOffsetsDto } from './journal.dto';
import { JournalRead, SnapshotsRead } from './journal-auth';
import {
  JOURNAL_BATCH_SCHEMA,
  JOURNAL_BATCH_WITH_ERRORS_SCHEMA,
  JOURNAL_FETCH_SCHEMA,
  SNAPSHOT_STATUS_SCHEMA,
} from './wire-schemas';

/** The most entries one batch read answers (HubSpot's ceiling is not stated in its 2026-03 spec). */
export const MAX_BATCH_COUNT = 100;

const iso = (ms: number) => new Date(ms).toISOString();
const fetchResponse = (f: JournalFetch) => ({
  url: f.url,
  currentOffset: f.currentOffset,
  expiresAt: iso(f.expiresAt),
});
const countPipe = () => new IntParamPipe({ min: 1, max: MAX_BATCH_COUNT });
const portalPipe = () => new IntParamPipe({ optional: true });

function checkedOffset(offset: string): string {
  if (!OFFSET_PATTERN.test(offset)) throw badOffset('offset');
  return offset;
}

/**
 * The journal reads of HubSpot's webhooks journal (2026-03): earliest, latest, next and their
 * batch forms, batch read by offsets, and a snapshot's status. The same handlers serve the app's
 * journal (`journal`, across its installs, or one account with `installPortalId`) and the local
 * journal (`journal-local`, one account: `installPortalId` required), told apart by `local`.
 */
@Injectable()
abstract class JournalReadsController {
  protected abstract readonly local: boolean;

  constructor(
    private readonly reader: JournalReader,
    private readonly queries: JournalQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private scope(app: AppTokenCaller, installPortalId: number | undefined): JournalScope {
    if (this.local && installPortalId === undefined) throw installPortalIdRequired();
    return { appId: app.appId, hubId: installPortalId ?? null };
  }

  private batch(results: JournalFetch[], startedAt: number) {
    return {
      completedAt: iso(this.clock.now()),
      results: results.map(fetchResponse),
      startedAt: iso(startedAt),
      status: 'COMPLETE',
    };
  }

  @Get('earliest')
  @JournalRead()
  @ApiQuery({ name: 'installPortalId', required: false, type: Number })
  @ApiOperation({ summary: 'The oldest entry kept (3 days), as a signed URL of its file' })
  @WireResponse(200, JOURNAL_FETCH_SCHEMA, { description: 'JournalFetchResponse' })
  earliest(@AppToken() app: AppTokenCaller, @Query('installPortalId', portalPipe()) installPortalId?: number) {
    return fetchResponse(this.reader.one(this.reader.earliest(this.scope(app, installPortalId), 1)));
  }

  @Get('latest')
  @JournalRead()
  @ApiQuery({ name: 'installPortalId', required: false, type: Number })
  @ApiOperation({ summary: 'The newest entry, as a signed URL of its file' })
  @WireResponse(200, JOURNAL_FETCH_SCHEMA, { description: 'JournalFetchResponse' })
  latest(@AppToken() app: AppTokenCaller, @Query('installPortalId', portalPipe()) installPortalId?: number) {
    return fetchResponse(this.reader.one(this.reader.latest(this.scope(app, installPortalId), 1)));
  }

  @Get('offset/:offset/next')
  @JournalRead()
  @ApiQuery({ name: 'installPortalId', required: false, type: Number })
  @ApiOperation({
    summary: 'The entry after an offset (204 when nothing follows yet; 404 when the offset is unknown or expired)',
  })
  @WireResponse(200, JOURNAL_FETCH_SCHEMA, { description: 'JournalFetchResponse' })
  @WireResponse(204, undefined, { description: 'No entry follows the offset yet' })
  next(
    @AppToken() app: AppTokenCaller,
    @Param('offset') offset: string,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('installPortalId', portalPipe()) installPortalId?: number,
  ) {
    const scope = this.scope(app, installPortalId);
    const next = this.reader.nextOne(scope, checkedOffset(offset));
    if (next !== null) return fetchResponse(next);
    // Polling clients (a HubSpot journal CLI among them) read 204 as "already at the latest offset".
    void reply.status(204);
    return undefined;
  }

  @Get('batch/earliest/:count')
  @JournalRead()
  @ApiQuery({ name: 'installPortalId', required: false, type: Number })
  @ApiOperation({ summary: `The oldest entries kept, up to count (1 to ${MAX_BATCH_COUNT})` })
  @WireResponse(200, JOURNAL_BATCH_SCHEMA, { description: 'BatchResponseJournalFetchResponse' })
  batchEarliest(
    @AppToken() app: AppTokenCaller,
    @Param('count', countPipe()) count: number,
    @Query('installPortalId', portalPipe()) installPortalId?: number,
  ) {
    const startedAt = this.clock.now();
    return this.batch(this.reader.earliest(this.scope(app, installPortalId), count), startedAt);
  }

  @Get('batch/latest/:count')
  @JournalRead()
  @ApiQuery({ name: 'installPortalId', required: false, type: Number })
  @ApiOperation({ summary: `The newest entries, up to count (1 to ${MAX_BATCH_COUNT}), oldest first` })
  @WireResponse(200, JOURNAL_BATCH_SCHEMA, { description: 'BatchResponseJournalFetchResponse' })
  batchLatest(
    @AppToken() app: AppTokenCaller,
    @Param('count', countPipe()) count: number,
    @Query('installPortalId', portalPipe()) installPortalId?: number,
  ) {
    const startedAt = this.clock.now();
    return this.batch(this.reader.latest(this.scope(app, installPortalId), count), startedAt);
  }

  @Get('batch/:offset/next/:count')
  @JournalRead()
  @ApiQuery({ name: 'installPortalId', required: false, type: Number })
  @ApiOperation({ summary: 'The entries after an offset, up to count (none yet: an empty batch)' })
  @WireResponse(200, JOURNAL_BATCH_SCHEMA, { description: 'BatchResponseJournalFetchResponse' })
  batchNext(
    @AppToken() app: AppTokenCaller,
    @Param('offset') offset: string,
    @Param('count', countPipe()) count: number,
    @Query('installPortalId', portalPipe()) installPortalId?: number,
  ) {
    const startedAt = this.clock.now();
    const scope = this.scope(app, installPortalId);
    return this.batch(this.reader.next(scope, checkedOffset(offset), count), startedAt);
  }

  @Post('batch/read')
  @HttpCode(200)
  @JournalRead()
  @ApiQuery({ name: 'installPortalId', required: false, type: Number })
  @ApiOperation({ summary: 'The entries at the given offsets (207 with an error per unknown or expired one)' })
  @WireResponse(200, JOURNAL_BATCH_SCHEMA, { description: 'BatchResponseJournalFetchResponse' })
  @WireResponse(207, JOURNAL_BATCH_WITH_ERRORS_SCHEMA, { description: 'BatchResponseJournalFetchResponseWithErrors' })
  batchRead(
    @AppToken() app: AppTokenCaller,
    @Body() body: BatchOffsetsDto,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Query('installPortalId', portalPipe()) installPortalId?: number,
  ) {
    const startedAt = this.clock.now();
    const scope = this.scope(app, installPortalId);
    const results: JournalFetch[] = [];
    const missing: string[] = [];
    for (const offset of [...new Set(body.inputs)]) {
      try {
        results.push(this.reader.fetchOf(app.appId, this.reader.entryAt(scope, checkedOffset(offset))));
      } catch {
        missing.push(offset);
      }
    }
    if (missing.length === 0) return this.batch(results, startedAt);
    void reply.status(207);
    return {
      ...this.batch(results, startedAt),
      errors: missing.map((offset) => ({
        status: 'error',
        category: 'OBJECT_NOT_FOUND',
        message: `Offset ${offset} does not exist or has expired (entries are kept for 3 days).`,
        context: { offset: [offset] },
        errors: [],
        links: {},
      })),
      numErrors: missing.length,
    };
  }

  @Get('status/:statusId')
  @SnapshotsRead()
  @ApiOperation({ summary: 'A snapshot request’s status' })
  @WireResponse(200, SNAPSHOT_STATUS_SCHEMA, { description: 'SnapshotStatusResponse' })
  status(@AppToken() app: AppTokenCaller, @Param('statusId') statusId: string) {
    if (!OFFSET_PATTERN.test(statusId)) throw badOffset('statusId');
    const s = this.queries.snapshotStatus(app.appId, statusId);
    if (!s) throw snapshotStatusNotFound(statusId);
    return {
      id: s.id,
      initiatedAt: s.initiatedAt,
      status: s.status,
      ...(s.completedAt === null ? {} : { completedAt: s.completedAt }),
      ...(s.errorCode === null ? {} : { errorCode: s.errorCode }),
      ...(s.message === null ? {} : { message: s.message }),
    };
  }
}

@ApiTags('Webhooks journal')
@Controller('webhooks-journal/journal/2026-03')
export class JournalController extends JournalReadsController {
  protected readonly local = false;
}

@ApiTags('Webhooks journal')
@Controller('webhooks-journal/journal-local/2026-03')
export class LocalJournalController extends JournalReadsController {
  protected readonly local = true;
}
