import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AccessTokenClaims, RequireScopes, Token } from '../../oauth';
import type { CommandContext } from '../../platform/events/envelope';
import { type ApiVersion, RouteVersion, versionedPaths } from '../../platform/http/api-versions';
import { Ctx } from '../../platform/http/request-context';
import { VersionedBody } from '../../platform/http/versioned-body';
import { ArchiveProperty } from '../application/commands/archive-property';
import { CreateProperty } from '../application/commands/create-property';
import { LimitsQueries } from '../application/limits.queries';
import type { PropertyView } from '../application/limits.views';
import { scopeFamilyOf } from '../domain/object-types';
import { propertyScopes } from '../domain/scopes';
import { PropertyCreateDatedDto, PropertyCreateDto } from './limits.dto';
import { parseArchived, parseSegment, requireAnyScope } from './params';

const PROPERTIES_PATHS = {
  v3: 'crm/v3/properties/:objectType',
  '2026-03': 'crm/properties/2026-03/:objectType',
  '2026-09': 'crm/properties/2026-09/:objectType',
} as const satisfies Partial<Record<ApiVersion, string>>;
type PropertiesVersion = keyof typeof PROPERTIES_PATHS;

/**
 * CRM properties of the token's account, at v3 and the date-versioned paths (properties.json of
 * each). The accepted scopes depend on the object type in the path (and 2026-09 accepts fewer),
 * so the guard only checks the token and the handler checks the scopes. From 2026-03 each option
 * of a new property needs its `displayOrder`.
 */
@ApiTags('CRM properties')
@RequireScopes()
@Controller(versionedPaths(PROPERTIES_PATHS))
export class PropertiesController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: LimitsQueries,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a property (fieldType calculation_equation: a calculated property)' })
  @ApiBody({ type: PropertyCreateDto, description: 'From 2026-03 each option needs `displayOrder`.' })
  create(
    @Param('objectType') objectType: string,
    @VersionedBody({ default: PropertyCreateDatedDto, v3: PropertyCreateDto })
    body: PropertyCreateDto | PropertyCreateDatedDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: PropertiesVersion,
  ): Promise<PropertyView> {
    parseSegment(objectType, 'objectType');
    requireAnyScope(token, propertyScopes(scopeFamilyOf(objectType), 'write', version));
    return this.commandBus.execute(new CreateProperty(token.hubId, token.userId, objectType, { ...body }, ctx));
  }

  @Get()
  @ApiOperation({ summary: 'Read all properties of an object type' })
  list(
    @Param('objectType') objectType: string,
    @Query('archived') archived: string | undefined,
    @Token() token: AccessTokenClaims,
    @RouteVersion() version: PropertiesVersion,
  ): { results: PropertyView[] } {
    parseSegment(objectType, 'objectType');
    requireAnyScope(token, propertyScopes(scopeFamilyOf(objectType), 'read', version));
    return { results: this.queries.listProperties(token.hubId, objectType, parseArchived(archived)) };
  }

  @Get(':propertyName')
  @ApiOperation({ summary: 'Read a property' })
  get(
    @Param('objectType') objectType: string,
    @Param('propertyName') propertyName: string,
    @Query('archived') archived: string | undefined,
    @Token() token: AccessTokenClaims,
    @RouteVersion() version: PropertiesVersion,
  ): PropertyView {
    parseSegment(objectType, 'objectType');
    parseSegment(propertyName, 'propertyName');
    requireAnyScope(token, propertyScopes(scopeFamilyOf(objectType), 'read', version));
    return this.queries.getProperty(token.hubId, objectType, propertyName, parseArchived(archived));
  }

  @Delete(':propertyName')
  @HttpCode(204)
  @ApiOperation({ summary: 'Archive a property' })
  async archive(
    @Param('objectType') objectType: string,
    @Param('propertyName') propertyName: string,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: PropertiesVersion,
  ): Promise<void> {
    parseSegment(objectType, 'objectType');
    parseSegment(propertyName, 'propertyName');
    requireAnyScope(token, propertyScopes(scopeFamilyOf(objectType), 'write', version));
    await this.commandBus.execute(new ArchiveProperty(token.hubId, token.userId, objectType, propertyName, ctx));
  }
}
