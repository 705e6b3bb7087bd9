import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { type AccessTokenClaims, Token } from '../../oauth';
import type { CommandContext } from '../../platform/events/envelope';
import { type ApiVersion, versionedPaths } from '../../platform/http/api-versions';
import { Ctx } from '../../platform/http/request-context';
import { AccountLimitsBusCommand } from '../application/account-limits.commands';
import type { PropertyGroupView } from '../application/property.views';
import { PropertiesQueries } from '../application/properties.queries';
import { parseLocale, parseSegment } from './query-params';
import { objectTypeScopes } from './route-scopes';
import { Authenticated } from '../../platform/http/authentication';
import { PropertyGroupCreateDto, PropertyGroupUpdateDto } from './properties.dto';
import { WireResponse } from '../../platform/http/wire-response';
import { LIMITS_DOCS, PROPERTY_GROUP_SCHEMA } from './wire-schemas';

const GROUPS_PATHS = {
  v3: 'crm/v3/properties/:objectType/groups',
  '2026-03': 'crm/properties/2026-03/:objectType/groups',
  '2026-09': 'crm/properties/2026-09/:objectType/groups',
} as const satisfies Partial<Record<ApiVersion, string>>;

/**
 * Property groups of an object type (properties.json of each version). HubSpot's default groups
 * of the standard types (and `<name>_information` of a custom type) are always there and cannot
 * be changed; the account's own groups can, and can be archived once they hold no property.
 */
@ApiTags('CRM properties')
@Controller(versionedPaths(GROUPS_PATHS))
export class PropertyGroupsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: PropertiesQueries,
  ) {}

  @Get()
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('read') })
  @ApiOperation({ summary: 'Read all property groups' })
  @WireResponse(200, LIMITS_DOCS.groups, { description: 'CollectionResponsePropertyGroupNoPaging' })
  @ApiQuery({ name: 'locale', required: false })
  list(
    @Param('objectType') objectType: string,
    @Query('locale') locale: string | undefined,
    @Token() token: AccessTokenClaims,
  ): { results: PropertyGroupView[] } {
    parseLocale(locale);
    return { results: this.queries.listGroups(token.hubId, objectType) };
  }

  @Post()
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('write') })
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a property group' })
  @WireResponse(201, PROPERTY_GROUP_SCHEMA, { description: 'PropertyGroup' })
  @ApiBody({ type: PropertyGroupCreateDto })
  create(
    @Param('objectType') objectType: string,
    @Body() body: PropertyGroupCreateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<PropertyGroupView> {
    return this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        { type: 'CreatePropertyGroup', objectType, group: { ...body } },
        ctx,
      ),
    );
  }

  @Get(':groupName')
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('read') })
  @ApiOperation({ summary: 'Read a property group' })
  @WireResponse(200, PROPERTY_GROUP_SCHEMA, { description: 'PropertyGroup' })
  @ApiQuery({ name: 'locale', required: false })
  get(
    @Param('objectType') objectType: string,
    @Param('groupName') groupName: string,
    @Query('locale') locale: string | undefined,
    @Token() token: AccessTokenClaims,
  ): PropertyGroupView {
    parseSegment(groupName, 'groupName');
    parseLocale(locale);
    return this.queries.getGroup(token.hubId, objectType, groupName);
  }

  @Patch(':groupName')
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('write') })
  @ApiOperation({ summary: 'Update a property group (label, display order)' })
  @WireResponse(200, PROPERTY_GROUP_SCHEMA, { description: 'PropertyGroup' })
  @ApiBody({ type: PropertyGroupUpdateDto })
  update(
    @Param('objectType') objectType: string,
    @Param('groupName') groupName: string,
    @Body() body: PropertyGroupUpdateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<PropertyGroupView> {
    parseSegment(groupName, 'groupName');
    return this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        { type: 'UpdatePropertyGroup', objectType, name: groupName, patch: { ...body } },
        ctx,
      ),
    );
  }

  @Delete(':groupName')
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('write') })
  @HttpCode(204)
  @ApiOperation({ summary: 'Archive a property group (only an empty one of the account)' })
  @WireResponse(204)
  async archive(
    @Param('objectType') objectType: string,
    @Param('groupName') groupName: string,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    parseSegment(groupName, 'groupName');
    await this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        { type: 'ArchivePropertyGroup', objectType, name: groupName },
        ctx,
      ),
    );
  }
}
