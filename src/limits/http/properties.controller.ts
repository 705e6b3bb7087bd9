import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AccessTokenClaims, RequireScopes, Token } from '../../oauth';
import type { CommandContext } from '../../platform/events/envelope';
import { Ctx } from '../../platform/http/request-context';
import { ArchiveProperty } from '../application/commands/archive-property';
import { CreateProperty } from '../application/commands/create-property';
import { LimitsQueries } from '../application/limits.queries';
import type { PropertyView } from '../application/limits.views';
import { scopeFamilyOf } from '../domain/object-types';
import { propertyScopes } from '../domain/scopes';
import { PropertyCreateDto } from './limits.dto';
import { parseArchived, parseSegment, requireAnyScope } from './params';

/**
 * CRM properties of the token's account. The accepted scopes depend on the object type in the
 * path, so the guard only checks the token and the handler checks the scopes.
 */
@ApiTags('CRM properties')
@RequireScopes()
@Controller('crm/v3/properties/:objectType')
export class PropertiesController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: LimitsQueries,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a property (fieldType calculation_equation: a calculated property)' })
  create(
    @Param('objectType') objectType: string,
    @Body() body: PropertyCreateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<PropertyView> {
    parseSegment(objectType, 'objectType');
    requireAnyScope(token, propertyScopes(scopeFamilyOf(objectType), 'write'));
    return this.commandBus.execute(new CreateProperty(token.hubId, token.userId, objectType, { ...body }, ctx));
  }

  @Get()
  @ApiOperation({ summary: 'Read all properties of an object type' })
  list(
    @Param('objectType') objectType: string,
    @Query('archived') archived: string | undefined,
    @Token() token: AccessTokenClaims,
  ): { results: PropertyView[] } {
    parseSegment(objectType, 'objectType');
    requireAnyScope(token, propertyScopes(scopeFamilyOf(objectType), 'read'));
    return { results: this.queries.listProperties(token.hubId, objectType, parseArchived(archived)) };
  }

  @Get(':propertyName')
  @ApiOperation({ summary: 'Read a property' })
  get(
    @Param('objectType') objectType: string,
    @Param('propertyName') propertyName: string,
    @Query('archived') archived: string | undefined,
    @Token() token: AccessTokenClaims,
  ): PropertyView {
    parseSegment(objectType, 'objectType');
    parseSegment(propertyName, 'propertyName');
    requireAnyScope(token, propertyScopes(scopeFamilyOf(objectType), 'read'));
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
  ): Promise<void> {
    parseSegment(objectType, 'objectType');
    parseSegment(propertyName, 'propertyName');
    requireAnyScope(token, propertyScopes(scopeFamilyOf(objectType), 'write'));
    await this.commandBus.execute(new ArchiveProperty(token.hubId, token.userId, objectType, propertyName, ctx));
  }
}
