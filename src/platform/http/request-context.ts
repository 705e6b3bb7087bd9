import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '../events/envelope';

/** Guards record who is calling; commands stamp it on their events as `actor`. */
export interface RequestWithActor extends FastifyRequest {
  actor?: string;
  /** The developer account whose API key (`?hapikey=`) authenticated the call: its calls are rate-limited too. */
  developerApiKeyHubId?: number;
}

export function commandContextOf(request: RequestWithActor): CommandContext {
  return { correlationId: String(request.id), causationId: null, actor: request.actor ?? 'anonymous' };
}

/** `@Ctx() ctx: CommandContext` — the correlation id of this request and its actor. */
export const Ctx = createParamDecorator((_: unknown, host: ExecutionContext): CommandContext =>
  commandContextOf(host.switchToHttp().getRequest<RequestWithActor>()),
);
