import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AccessTokenClaims, RequireScopes, Token } from '../../oauth';
import type { CommandContext } from '../../platform/events/envelope';
import type { ErrorDetail } from '../../platform/errors/hubspot-error';
import { type ApiVersion, RouteVersion, versionedPaths } from '../../platform/http/api-versions';
import { Ctx } from '../../platform/http/request-context';
import { refuseIfAny } from '../../platform/http/version-rules';
import { VersionedBody } from '../../platform/http/versioned-body';
import { ArchiveCustomObjectSchema } from '../application/commands/archive-custom-object-schema';
import { CreateCustomObjectSchema } from '../application/commands/create-custom-object-schema';
import { PurgeCustomObjectSchema } from '../application/commands/purge-custom-object-schema';
import { LimitsQueries } from '../application/limits.queries';
import type { ObjectSchemaView } from '../application/limits.views';
import { SCHEMA_READ_SCOPES, SCHEMA_WRITE_SCOPES } from '../domain/scopes';
import { SchemaCreate2026_03Dto, SchemaCreate2026_09Dto, SchemaCreateDto } from './limits.dto';
import { parseArchived, parseSegment } from './params';

/** HubSpot serves v3 at /crm/v3/schemas and /crm-object-schemas/v3/schemas (the one @hubspot/api-client v14 calls). */
const SCHEMAS_PATHS = {
  v3: ['crm/v3/schemas', 'crm-object-schemas/v3/schemas'],
  '2026-03': 'crm-object-schemas/2026-03/schemas',
  '2026-09': 'crm-object-schemas/2026-09/schemas',
} as const satisfies Partial<Record<ApiVersion, string | readonly string[]>>;
type SchemasVersion = keyof typeof SCHEMAS_PATHS;

/**
 * Custom object schemas of the token's account (schemas.json of v3, 2026-03 and 2026-09). From
 * 2026-03 an ObjectSchemaEgg must state `allowsSensitiveProperties`, `searchableProperties` and
 * `secondaryDisplayProperties` (and, at 2026-03 only, `shouldCreateSameObjectAssociation`), and an
 * ObjectSchema always carries `allowsSensitiveProperties`.
 */
@ApiTags('CRM schemas')
@Controller(versionedPaths(SCHEMAS_PATHS))
export class SchemasController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: LimitsQueries,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireScopes(...SCHEMA_WRITE_SCOPES)
  @ApiOperation({ summary: 'Create a custom object schema' })
  @ApiBody({ type: SchemaCreateDto, description: 'From 2026-03 more fields are required (see the version’s spec).' })
  async create(
    @VersionedBody({ default: SchemaCreateDto, '2026-03': SchemaCreate2026_03Dto, '2026-09': SchemaCreate2026_09Dto })
    body: SchemaCreateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: SchemasVersion,
  ): Promise<ObjectSchemaView> {
    refuseIfAny(unsupportedFlags(body));
    const created: ObjectSchemaView = await this.commandBus.execute(
      new CreateCustomObjectSchema(
        token.hubId,
        token.userId,
        {
          name: body.name,
          labels: { singular: body.labels.singular, plural: body.labels.plural },
          description: body.description,
          primaryDisplayProperty: body.primaryDisplayProperty,
          secondaryDisplayProperties: body.secondaryDisplayProperties,
          searchableProperties: body.searchableProperties,
          requiredProperties: body.requiredProperties,
          properties: body.properties.map((p) => ({ ...p })),
          associatedObjects: body.associatedObjects,
        },
        ctx,
      ),
    );
    return shaped(version, created);
  }

  @Get()
  @RequireScopes(...SCHEMA_READ_SCOPES)
  @ApiOperation({ summary: 'Read all custom object schemas' })
  list(
    @Query('archived') archived: string | undefined,
    @Token() token: AccessTokenClaims,
    @RouteVersion() version: SchemasVersion,
  ): { results: ObjectSchemaView[] } {
    return { results: this.queries.listSchemas(token.hubId, parseArchived(archived)).map((s) => shaped(version, s)) };
  }

  @Get(':objectType')
  @RequireScopes(...SCHEMA_READ_SCOPES)
  @ApiOperation({ summary: 'Read a custom object schema (by objectTypeId, fully qualified name or name)' })
  get(
    @Param('objectType') objectType: string,
    @Token() token: AccessTokenClaims,
    @RouteVersion() version: SchemasVersion,
  ): ObjectSchemaView {
    return shaped(version, this.queries.getSchema(token.hubId, parseSegment(objectType, 'objectType')));
  }

  @Delete(':objectType')
  @HttpCode(204)
  @RequireScopes(...SCHEMA_WRITE_SCOPES)
  @ApiOperation({ summary: 'Archive a custom object schema; ?archived=true purges an archived one' })
  async archive(
    @Param('objectType') objectType: string,
    @Query('archived') archived: string | undefined,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    parseSegment(objectType, 'objectType');
    // ?archived=true names an archived schema: deleting it again purges it.
    await this.commandBus.execute(
      parseArchived(archived)
        ? new PurgeCustomObjectSchema(token.hubId, token.userId, objectType, ctx)
        : new ArchiveCustomObjectSchema(token.hubId, token.userId, objectType, ctx),
    );
  }
}

/** Flags every version accepts that this service cannot honour: asked for, they are refused rather than ignored. */
function unsupportedFlags(body: SchemaCreateDto): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (body.allowsSensitiveProperties === true) {
    details.push({
      message: 'Sensitive properties are not supported by this service: send allowsSensitiveProperties false.',
      in: 'allowsSensitiveProperties',
      code: 'UNSUPPORTED',
    });
  }
  if (body.shouldCreateSameObjectAssociation === true) {
    details.push({
      message:
        'Associations of an object type with itself are not supported by this service: send shouldCreateSameObjectAssociation false.',
      in: 'shouldCreateSameObjectAssociation',
      code: 'UNSUPPORTED',
    });
  }
  return details;
}

/** From 2026-03 ObjectSchema requires `allowsSensitiveProperties`; schemas here never allow them. */
function shaped(
  version: SchemasVersion,
  schema: ObjectSchemaView,
): ObjectSchemaView & { allowsSensitiveProperties?: false } {
  return version === 'v3' ? schema : { ...schema, allowsSensitiveProperties: false };
}
