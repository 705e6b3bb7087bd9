import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ArchiveFiles } from '../../platform/archive/archive-files';
import { segmentsBetween } from '../../platform/archive/archive-manifest';
import { EVENT_STORE, EventStore } from '../../platform/event-store/event-store.port';
import { auditView } from '../../platform/events/credential-hashes';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Authenticated } from '../../platform/http/authentication';

/** The audit trail: stored envelopes with their metadata (credential hashes left out), paged by global position. */
@ApiTags('admin: audit')
@Authenticated({ by: 'admin' })
@Controller('admin/v1/events')
export class EventsController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly archive: ArchiveFiles,
  ) {}

  @Get()
  async list(
    @Query('stream') stream?: string,
    @Query('type') type?: string,
    @Query('after', new IntParamPipe({ min: 0, max: Number.MAX_SAFE_INTEGER, optional: true })) after?: number,
    @Query('limit', new IntParamPipe({ min: 1, max: 1000, optional: true })) limit?: number,
  ) {
    for (const [name, v] of [
      ['stream', stream],
      ['type', type],
    ] as const) {
      if (v !== undefined && (typeof v !== 'string' || v.length > 500 || v.includes('\u0000'))) {
        throw HubSpotError.validation(`Invalid ${name}`, [
          { message: 'expected a short string', in: name, code: 'INVALID' },
        ]);
      }
    }
    const size = limit ?? 100;
    const stored = await this.store.readAll({
      after: after ?? 0,
      limit: size,
      ...(stream ? { streamId: stream } : {}),
      ...(type ? { type } : {}),
    });
    // Hot types are stored compactly: the audit trail shows every event in its domain shape.
    const results = stored.map(auditView);
    const last = results.at(-1);
    const full = results.length === size && last !== undefined;
    // The positions this page spans: archived events among them are not in `results`.
    const to = full ? last.position : await this.store.headPosition();
    const archived = segmentsBetween(this.archive.manifest(), (after ?? 0) + 1, to);
    return {
      results,
      ...(full ? { paging: { next: { after: String(last.position) } } } : {}),
      ...(archived.length > 0
        ? {
            archived: {
              message:
                'Some events in this range were moved to the audit archive (AUDIT_RETENTION_DAYS); ' +
                '`npm run -s audit:export` reads them together with the live ones.',
              segments: archived.slice(0, 20).map(({ file, segment }) => ({
                file,
                firstPosition: segment.firstPosition,
                lastPosition: segment.lastPosition,
                count: segment.count,
              })),
              ...(archived.length > 20 ? { moreSegments: archived.length - 20 } : {}),
            },
          }
        : {}),
    };
  }
}
