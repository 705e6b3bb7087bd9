import {
  type ArgumentMetadata,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  type PipeTransform,
  type Type,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { type ApiVersion, versionOfRoute } from './api-versions';
import { HubSpotValidationPipe } from './validation';

/** Request body DTO per version; versions not named use `default`. */
export type BodyByVersion = Partial<Record<ApiVersion, Type<unknown>>> & { default: Type<unknown> };

interface VersionedRawBody {
  version: ApiVersion | undefined;
  body: unknown;
}

const rawBodyWithVersion = createParamDecorator((_: BodyByVersion, ctx: ExecutionContext): VersionedRawBody => {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  return { version: versionOfRoute(request.routeOptions.url ?? ''), body: request.body };
});

/** Validates the body with the DTO of the version the request came in on, as `@Body()` does with one DTO. */
@Injectable()
class VersionedBodyPipe implements PipeTransform {
  private readonly validation = new HubSpotValidationPipe();

  transform(value: VersionedRawBody, metadata: ArgumentMetadata): unknown {
    const dtos = metadata.data as unknown as BodyByVersion;
    const metatype = (value.version !== undefined ? dtos[value.version] : undefined) ?? dtos.default;
    return this.validation.transform(value.body, { type: 'body', metatype, data: undefined });
  }
}

/**
 * `@VersionedBody({ default: CardCreateRequestDto, '2026-03': CardCreateRequestDated, ... })`:
 * where a version's spec changes a request schema (a field becomes required, or goes away), each
 * version gets its own DTO, so every bad field is still reported in one answer. Document the body
 * with `@ApiBody` (Swagger does not see custom decorators).
 */
export const VersionedBody = (dtos: BodyByVersion): ParameterDecorator =>
  rawBodyWithVersion(dtos as never, new VersionedBodyPipe());
