import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AccessTokenClaims, Token } from '../../oauth';
import { Authenticated } from '../../platform/http/authentication';
import type { CommandContext } from '../../platform/events/envelope';
import type { ErrorDetail } from '../../platform/errors/hubspot-error';
import { type ApiVersion, RouteVersion, versionedPaths } from '../../platform/http/api-versions';
import { Ctx } from '../../platform/http/request-context';
import { refuseIfAny } from '../../platform/http/version-rules';
import { VersionedBody } from '../../platform/http/versioned-body';
import { AccountLimitsBusCommand } from '../application/account-limits.commands';
import { SchemasQueries } from '../application/schemas.queries';
import type {
  AssociationView,
  ObjectSchemaView,
  ObjectTypeDefinitionView,
  SchemaIncludes,
} from '../application/schema.views';
import { SCHEMA_READ_SCOPES, SCHEMA_WRITE_SCOPES } from '../domain/scopes';
import { SchemaCreate2026_03Dto, SchemaCreate2026_09Dto, SchemaCreateDto } from './schemas.dto';
import { parseArchived, parseIncludeFlag, parseSegment } from './query-params';
import { AssociationDefinitionEggDto, SchemaBatchReadDto, SchemaPatchDatedDto, SchemaPatchDto } from './schemas.dto';
import { WireResponse } from '../../platform/http/wire-response';
import { ASSOCIATION_DEFINITION_SCHEMA, LIMITS_DOCS } from './wire-schemas';

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
    private readonly queries: SchemasQueries,
  ) {}

  @Post()
  @HttpCode(201)
  @Authenticated({ by: 'bearer', scopes: SCHEMA_WRITE_SCOPES })
  @ApiOperation({ summary: 'Create a custom object schema' })
  @WireResponse(201, LIMITS_DOCS.objectSchema, { description: 'ObjectSchema' })
  @ApiBody({ type: SchemaCreateDto, description: 'From 2026-03 more fields are required (see the version’s spec).' })
  async create(
    @VersionedBody({ default: SchemaCreateDto, '2026-03': SchemaCreate2026_03Dto, '2026-09': SchemaCreate2026_09Dto })
    body: SchemaCreateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: SchemasVersion,
  ): Promise<ObjectSchemaView> {
    refuseIfAny(unsupportedFlags(body, ['allowsSensitiveProperties', 'shouldCreateSameObjectAssociation']));
    const created: ObjectSchemaView = await this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        {
          type: 'CreateCustomObjectSchema',
          schema: {
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
        },
        ctx,
      ),
    );
    return shaped(version, created);
  }

  @Get()
  @Authenticated({ by: 'bearer', scopes: SCHEMA_READ_SCOPES })
  @ApiOperation({ summary: 'Read all custom object schemas' })
  @WireResponse(200, LIMITS_DOCS.objectSchemas, { description: 'CollectionResponseObjectSchemaNoPaging' })
  list(
    @Query('archived') archived: string | undefined,
    @Query() query: IncludeQuery,
    @Token() token: AccessTokenClaims,
    @RouteVersion() version: SchemasVersion,
  ): { results: ObjectSchemaView[] } {
    const include = includesOf(query);
    return {
      results: this.queries.listSchemas(token.hubId, parseArchived(archived), include).map((s) => shaped(version, s)),
    };
  }

  @Post('batch/read')
  @HttpCode(200)
  @Authenticated({ by: 'bearer', scopes: SCHEMA_READ_SCOPES })
  @ApiOperation({ summary: 'Read custom object schemas by objectTypeId, fully qualified name or name (at most 100)' })
  @WireResponse(200, LIMITS_DOCS.objectSchemas, { description: 'CollectionResponseObjectSchemaNoPaging' })
  batchRead(
    @Body() body: SchemaBatchReadDto,
    @Token() token: AccessTokenClaims,
    @RouteVersion() version: SchemasVersion,
  ): { results: ObjectSchemaView[] } {
    const include: SchemaIncludes = {
      associations: body.includeAssociationDefinitions,
      properties: body.includePropertyDefinitions,
      audit: body.includeAuditMetadata,
    };
    return {
      results: this.queries.batchReadSchemas(token.hubId, body.inputs, include).map((s) => shaped(version, s)),
    };
  }

  @Get(':objectType')
  @Authenticated({ by: 'bearer', scopes: SCHEMA_READ_SCOPES })
  @ApiOperation({ summary: 'Read a custom object schema (by objectTypeId, fully qualified name or name)' })
  @WireResponse(200, LIMITS_DOCS.objectSchema, { description: 'ObjectSchema' })
  get(
    @Param('objectType') objectType: string,
    @Query() query: IncludeQuery,
    @Token() token: AccessTokenClaims,
    @RouteVersion() version: SchemasVersion,
  ): ObjectSchemaView {
    const include = includesOf(query);
    return shaped(version, this.queries.getSchema(token.hubId, parseSegment(objectType, 'objectType'), include));
  }

  @Patch(':objectType')
  @Authenticated({ by: 'bearer', scopes: SCHEMA_WRITE_SCOPES })
  @ApiOperation({
    summary: 'Update a custom object schema (ObjectTypeDefinitionPatch); answers its ObjectTypeDefinition',
  })
  @WireResponse(200, LIMITS_DOCS.objectTypeDefinition, { description: 'ObjectTypeDefinition' })
  @ApiBody({ type: SchemaPatchDto, description: 'From 2026-03 `clearDescription` is required.' })
  async update(
    @Param('objectType') objectType: string,
    @VersionedBody({ default: SchemaPatchDto, '2026-03': SchemaPatchDatedDto, '2026-09': SchemaPatchDatedDto })
    body: SchemaPatchDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: SchemasVersion,
  ): Promise<ObjectTypeDefinitionView & { allowsSensitiveProperties?: false }> {
    parseSegment(objectType, 'objectType');
    refuseIfAny(unsupportedFlags(body, ['allowsSensitiveProperties', 'restorable']));
    const updated = await this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        {
          type: 'UpdateCustomObjectSchema',
          objectType,
          patch: {
            labels: body.labels && { singular: body.labels.singular, plural: body.labels.plural },
            description: body.description,
            clearDescription: body.clearDescription,
            primaryDisplayProperty: body.primaryDisplayProperty,
            secondaryDisplayProperties: body.secondaryDisplayProperties,
            searchableProperties: body.searchableProperties,
            requiredProperties: body.requiredProperties,
          },
        },
        ctx,
      ),
    );
    return version === 'v3' ? updated : { ...updated, allowsSensitiveProperties: false };
  }

  @Post(':objectType/associations')
  @HttpCode(201)
  @Authenticated({ by: 'bearer', scopes: SCHEMA_WRITE_SCOPES })
  @ApiOperation({ summary: 'Define an association (a named one is an association label of its pair)' })
  @WireResponse(201, ASSOCIATION_DEFINITION_SCHEMA, { description: 'AssociationDefinition' })
  createAssociation(
    @Param('objectType') objectType: string,
    @Body() body: AssociationDefinitionEggDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<AssociationView> {
    parseSegment(objectType, 'objectType');
    return this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        {
          type: 'CreateAssociationDefinition',
          objectType,
          association: {
            fromObjectTypeId: body.fromObjectTypeId,
            toObjectTypeId: body.toObjectTypeId,
            name: body.name,
          },
        },
        ctx,
      ),
    );
  }

  @Delete(':objectType/associations/:associationIdentifier')
  @HttpCode(204)
  @Authenticated({ by: 'bearer', scopes: SCHEMA_WRITE_SCOPES })
  @ApiOperation({ summary: 'Remove an association definition (by id or name)' })
  @WireResponse(204)
  async deleteAssociation(
    @Param('objectType') objectType: string,
    @Param('associationIdentifier') associationIdentifier: string,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    parseSegment(objectType, 'objectType');
    parseSegment(associationIdentifier, 'associationIdentifier');
    await this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        { type: 'DeleteAssociationDefinition', objectType, associationIdentifier },
        ctx,
      ),
    );
  }

  @Delete(':objectType')
  @HttpCode(204)
  @Authenticated({ by: 'bearer', scopes: SCHEMA_WRITE_SCOPES })
  @ApiOperation({ summary: 'Archive a custom object schema; ?archived=true purges an archived one' })
  @WireResponse(204)
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
        ? new AccountLimitsBusCommand(token.hubId, token.userId, { type: 'PurgeCustomObjectSchema', objectType }, ctx)
        : new AccountLimitsBusCommand(
            token.hubId,
            token.userId,
            { type: 'ArchiveCustomObjectSchema', objectType },
            ctx,
          ),
    );
  }
}

/**
 * Flags the spec accepts that this service cannot honour: asked for, they are refused rather than
 * ignored (no sensitive properties, no same-object associations, no restoring of archived types).
 */
const UNSUPPORTED_FLAGS = {
  allowsSensitiveProperties:
    'Sensitive properties are not supported by this service: send allowsSensitiveProperties false.',
  shouldCreateSameObjectAssociation:
    'Associations of an object type with itself are not supported by this service: send shouldCreateSameObjectAssociation false.',
  restorable:
    'Archived object types cannot be restored in this service (only purged): send restorable false or leave it out.',
} as const;

function unsupportedFlags(
  body: Partial<Record<keyof typeof UNSUPPORTED_FLAGS, unknown>>,
  flags: ReadonlyArray<keyof typeof UNSUPPORTED_FLAGS>,
): ErrorDetail[] {
  return flags
    .filter((flag) => body[flag] === true)
    .map((flag) => ({ message: UNSUPPORTED_FLAGS[flag], in: flag, code: 'UNSUPPORTED' }));
}

/** The include flags of GET and list (schemas.json: every version, each defaulting to true). */
interface IncludeQuery {
  includeAssociationDefinitions?: string;
  includePropertyDefinitions?: string;
  includeAuditMetadata?: string;
}

function includesOf(query: IncludeQuery): SchemaIncludes {
  return {
    associations: parseIncludeFlag(query.includeAssociationDefinitions, 'includeAssociationDefinitions'),
    properties: parseIncludeFlag(query.includePropertyDefinitions, 'includePropertyDefinitions'),
    audit: parseIncludeFlag(query.includeAuditMetadata, 'includeAuditMetadata'),
  };
}

/** From 2026-03 ObjectSchema requires `allowsSensitiveProperties`; schemas here never allow them. */
function shaped(
  version: SchemasVersion,
  schema: ObjectSchemaView,
): ObjectSchemaView & { allowsSensitiveProperties?: false } {
  return version === 'v3' ? schema : { ...schema, allowsSensitiveProperties: false };
}
