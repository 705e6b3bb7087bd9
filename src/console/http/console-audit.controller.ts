import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuditTrail, type AuditFilter } from '../application/audit-trail';
import { LiveTail } from '../application/live-tail';
import { text, whole } from '../domain/form-input';
import { eventRow } from '../views/event-row';
import { eventsPage } from '../views/pages';
import { ConsoleResponses, sendPage } from './console-responses';

function filterOf(query: unknown): AuditFilter {
  const hubId = whole(query, 'hubId', 1);
  const appId = whole(query, 'appId', 1);
  const stream = text(query, 'stream');
  const type = text(query, 'type');
  const correlationId = text(query, 'correlationId');
  return {
    ...(hubId !== undefined ? { hubId } : {}),
    ...(appId !== undefined ? { appId } : {}),
    ...(stream !== undefined ? { stream } : {}),
    ...(type !== undefined ? { type } : {}),
    ...(correlationId !== undefined ? { correlationId } : {}),
  };
}

/** Last-Event-ID as a position; anything else (absent, repeated, not a whole number) is no resumption. */
function lastEventIdOf(header: string | string[] | undefined): number | undefined {
  if (typeof header !== 'string' || !/^\d{1,15}$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

/** The audit trail newest first, filtered and paged, and its live tail (server-sent events). */
@ApiExcludeController()
@Controller('console/events')
export class ConsoleAuditController {
  constructor(
    private readonly responses: ConsoleResponses,
    private readonly trail: AuditTrail,
    private readonly tail: LiveTail,
  ) {}

  @Get()
  async events(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.signedIn(request, reply, async (csrfToken) => {
      const filter = filterOf(request.query);
      const before = whole(request.query, 'before', 1);
      const page = await this.trail.page(filter, before);
      sendPage(reply, 200, eventsPage(csrfToken, filter, page));
    });
  }

  /**
   * Each new matching event as one server-sent event: `id:` its position, `data:` its table row
   * (escaped on this side) as a JSON string. The first connection starts after `from`, the position
   * the page was rendered at (its URL carries it), so what was committed since the render is not
   * missed; the browser's EventSource sends the last id back as Last-Event-ID when it reconnects,
   * which wins over `from`. Either replays from there (LiveTail, bounded).
   */
  @Get('live')
  async live(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.signedIn(request, reply, async () => {
      const filter = filterOf(request.query);
      const lastEventId = lastEventIdOf(request.headers['last-event-id']) ?? whole(request.query, 'from');
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      });
      const stop = await this.tail.follow(
        filter,
        {
          send: (event) => raw.write(`id: ${event.position}\ndata: ${JSON.stringify(eventRow(event).value)}\n\n`),
          gap: () => raw.write('event: gap\ndata: reload\n\n'),
          end: () => raw.end(),
        },
        lastEventId,
      );
      // The headers go out with this first write, once the tail's start is fixed: an event committed
      // after the browser saw the stream open is never before that start.
      raw.write(': following\n\n');
      request.raw.on('close', stop);
    });
  }
}
