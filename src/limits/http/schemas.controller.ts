import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AccessTokenClaims, RequireScopes, Token } from '../../oauth';
import type { CommandContext } from '../../platform/events/envelope';
import { Ctx } from '../../platform/http/request-context';
import { ArchiveCustomObjectSchema } from '../application/commands/archive-custom-object-schema';
import { CreateCustomObjectSchema } from '../application/commands/create-custom-object-schema';
import { PurgeCustomObjectSchema } from '../application/commands/purge-custom-object-schema';
import { LimitsQueries } from '../application/limits.queries';
import type { ObjectSchemaView } from '../application/limits.views';
import { SCHEMA_READ_SCOPES, SCHEMA_WRITE_SCOPES } from '../domain/scopes';
import { SchemaCreateDto } from './limits.dto';
import { parseArchived, parseSegment } from './params';

/**
 * Custom object schemas of the token's account. HubSpot serves them at /crm/v3/schemas and at
 * /crm-object-schemas/v3/schemas (the path @hubspot/api-client v14 calls); so do we.
 */
@ApiTags('CRM schemas')
@Controller(['crm/v3/schemas', 'crm-object-schemas/v3/schemas'])
export class SchemasController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: LimitsQueries,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireScopes(...SCHEMA_WRITE_SCOPES)
  @ApiOperation({ summary: 'Create a custom object schema' })
  create(
    @Body() body: SchemaCreateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<ObjectSchemaView> {
    return this.commandBus.execute(
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
  }

  @Get()
  @RequireScopes(...SCHEMA_READ_SCOPES)
  @ApiOperation({ summary: 'Read all custom object schemas' })
  list(
    @Query('archived') archived: string | undefined,
    @Token() token: AccessTokenClaims,
  ): { results: ObjectSchemaView[] } {
    return { results: this.queries.listSchemas(token.hubId, parseArchived(archived)) };
  }

  @Get(':objectType')
  @RequireScopes(...SCHEMA_READ_SCOPES)
  @ApiOperation({ summary: 'Read a custom object schema (by objectTypeId, fully qualified name or name)' })
  get(@Param('objectType') objectType: string, @Token() token: AccessTokenClaims): ObjectSchemaView {
    return this.queries.getSchema(token.hubId, parseSegment(objectType, 'objectType'));
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
