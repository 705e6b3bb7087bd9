import { applyDecorators } from '@nestjs/common';
import { RouteSchema } from '@nestjs/platform-fastify';
import { ApiDefaultResponse, ApiResponse } from '@nestjs/swagger';
import { ERROR_WIRE_SCHEMA } from '../errors/error-wire-schema';
import { serializedBy, type WireSchema } from './wire-schema';

/**
 * One line per handler: the success answer as /docs shows it (the wire schema itself), HubSpot's
 * Error object for every other status, and, with `serialize`, Fastify's serializer built from the
 * same schema (only for the success status: error bodies stay plain JSON).
 */
export function WireResponse(
  status: number,
  schema?: WireSchema,
  options: { serialize?: boolean; description?: string } = {},
): MethodDecorator {
  const decorators: MethodDecorator[] = [
    ApiResponse({ status, description: options.description ?? 'Success', ...(schema ? { schema } : {}) }),
    ApiDefaultResponse({ description: "HubSpot's Error object", schema: ERROR_WIRE_SCHEMA }),
  ];
  if (options.serialize && schema) decorators.push(RouteSchema(serializedBy(status, schema)));
  return applyDecorators(...decorators);
}
