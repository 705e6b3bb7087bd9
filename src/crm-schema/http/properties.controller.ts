import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type AccessTokenClaims, Token } from '../../oauth';
import type { CommandContext } from '../../platform/events/envelope';
import { type ApiVersion, RouteVersion, versionedPaths } from '../../platform/http/api-versions';
import { Inject } from '@nestjs/common';
import { Ctx } from '../../platform/http/request-context';
import { VersionedBody } from '../../platform/http/versioned-body';
import { AccountLimitsBusCommand } from '../application/account-limits.commands';
import { iso, standardError, type PropertyBatchView, type PropertyView } from '../application/property.views';
import { PropertiesQueries } from '../application/properties.queries';
import { CLOCK, type Clock } from '../../platform/clock';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { DATA_SENSITIVITIES } from '../domain/property-rules';
import { PropertyCreateDatedDto, PropertyCreateDto } from './properties.dto';
import { parseArchived, parseDataSensitivity, parseLocale, parsePropertyNames, parseSegment } from './query-params';
import { objectTypeScopes } from './route-scopes';
import { Authenticated } from '../../platform/http/authentication';
import {
  BatchPropertyCreateDatedDto,
  BatchPropertyCreateDto,
  BatchPropertyNameDto,
  BatchReadPropertyNameDto,
  PropertyUpdateDatedDto,
  PropertyUpdateDto,
} from './properties.dto';
import { WireResponse } from '../../platform/http/wire-response';
import { LIMITS_DOCS, PROPERTY_BATCH_SCHEMA, PROPERTY_SCHEMA } from './wire-schemas';

const PROPERTIES_PATHS = {
  v3: 'crm/v3/properties/:objectType',
  '2026-03': 'crm/properties/2026-03/:objectType',
  '2026-09': 'crm/properties/2026-09/:objectType',
} as const satisfies Partial<Record<ApiVersion, string>>;
type PropertiesVersion = keyof typeof PROPERTIES_PATHS;

/**
 * CRM properties of the token's account, at v3 and the date-versioned paths (properties.json of
 * each). The accepted scopes depend on the object type in the path (and 2026-09 accepts fewer):
 * each route's scope rule (`objectTypeScopes`) resolves them from the path. From 2026-03 each option
 * of a new property needs its `displayOrder`.
 */
@ApiTags('CRM properties')
@Controller(versionedPaths(PROPERTIES_PATHS))
export class PropertiesController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly properties: PropertiesQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post()
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('write') })
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a property (fieldType calculation_equation: a calculated property)' })
  @WireResponse(201, PROPERTY_SCHEMA, { description: 'Property' })
  @ApiBody({ type: PropertyCreateDto, description: 'From 2026-03 each option needs `displayOrder`.' })
  create(
    @Param('objectType') objectType: string,
    @VersionedBody({ default: PropertyCreateDatedDto, v3: PropertyCreateDto })
    body: PropertyCreateDto | PropertyCreateDatedDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<PropertyView> {
    return this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        { type: 'CreateProperty', objectType, property: { ...body } },
        ctx,
      ),
    );
  }

  @Get()
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('read') })
  @ApiOperation({ summary: 'Read all properties of an object type' })
  @WireResponse(200, LIMITS_DOCS.properties, { description: 'CollectionResponsePropertyNoPaging' })
  @ApiQuery({ name: 'archived', required: false, type: Boolean })
  @ApiQuery({ name: 'dataSensitivity', required: false, enum: DATA_SENSITIVITIES })
  @ApiQuery({ name: 'properties', required: false, description: 'Comma-separated names to return' })
  @ApiQuery({ name: 'locale', required: false })
  list(
    @Param('objectType') objectType: string,
    @Query() query: Record<string, string | string[] | undefined>,
    @Token() token: AccessTokenClaims,
  ): { results: PropertyView[] } {
    const filter = listQuery(query);
    return {
      results: this.properties.list(token.hubId, objectType, {
        ...filter,
        names: parsePropertyNames(query.properties),
      }),
    };
  }

  @Get(':propertyName')
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('read') })
  @ApiOperation({ summary: 'Read a property' })
  @WireResponse(200, PROPERTY_SCHEMA, { description: 'Property' })
  get(
    @Param('objectType') objectType: string,
    @Param('propertyName') propertyName: string,
    @Query() query: Record<string, string | string[] | undefined>,
    @Token() token: AccessTokenClaims,
  ): PropertyView {
    parseSegment(propertyName, 'propertyName');
    const { archived, dataSensitivity } = listQuery(query);
    parsePropertyNames(query.properties);
    const property = this.properties.get(token.hubId, objectType, propertyName, archived);
    if (property.dataSensitivity !== dataSensitivity)
      throw HubSpotError.notFound(`Property ${propertyName} does not exist`);
    return property;
  }

  @Patch(':propertyName')
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('write') })
  @ApiOperation({
    summary: 'Update a property (to or from calculation_equation moves it across the calculated ceiling)',
  })
  @WireResponse(200, PROPERTY_SCHEMA, { description: 'Property' })
  @ApiBody({ type: PropertyUpdateDto, description: 'From 2026-03 each option needs `displayOrder`.' })
  update(
    @Param('objectType') objectType: string,
    @Param('propertyName') propertyName: string,
    @VersionedBody({ default: PropertyUpdateDatedDto, v3: PropertyUpdateDto })
    body: PropertyUpdateDto | PropertyUpdateDatedDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<PropertyView> {
    parseSegment(propertyName, 'propertyName');
    return this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        { type: 'UpdateProperty', objectType, name: propertyName, patch: { ...body } },
        ctx,
      ),
    );
  }

  @Post('batch/create')
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('write') })
  @ApiOperation({
    summary:
      'Create a batch of properties: 201 when all are created, 207 with `errors` otherwise (2026-09: 200 either way)',
  })
  @WireResponse(201, PROPERTY_BATCH_SCHEMA, { description: 'BatchResponseProperty' })
  @WireResponse(207, PROPERTY_BATCH_SCHEMA, { description: 'BatchResponsePropertyWithErrors' })
  @WireResponse(200, PROPERTY_BATCH_SCHEMA, { description: '2026-09: BatchResponseProperty, with errors if any' })
  @ApiBody({
    type: BatchPropertyCreateDto,
    description: 'At most 100 inputs; from 2026-03 options need `displayOrder`.',
  })
  async batchCreate(
    @Param('objectType') objectType: string,
    @VersionedBody({ default: BatchPropertyCreateDatedDto, v3: BatchPropertyCreateDto })
    body: BatchPropertyCreateDto | BatchPropertyCreateDatedDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: PropertiesVersion,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PropertyBatchView> {
    const inputs = body.inputs.map((i) => ({ ...i }));
    const answer = await this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        { type: 'BatchCreateProperties', objectType, inputs },
        ctx,
      ),
    );
    void reply.status(batchStatus(answer, 201, version));
    return answer;
  }

  @Post('batch/read')
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('read') })
  @ApiOperation({ summary: 'Read a batch of properties: 200, or 207 with `errors` for the names not found' })
  @WireResponse(200, PROPERTY_BATCH_SCHEMA, { description: 'BatchResponseProperty' })
  @WireResponse(207, PROPERTY_BATCH_SCHEMA, { description: 'BatchResponsePropertyWithErrors' })
  @ApiBody({ type: BatchReadPropertyNameDto })
  @ApiQuery({ name: 'locale', required: false })
  batchRead(
    @Param('objectType') objectType: string,
    @VersionedBody({ default: BatchReadPropertyNameDto }) body: BatchReadPropertyNameDto,
    @Query('locale') locale: string | undefined,
    @Token() token: AccessTokenClaims,
    @RouteVersion() version: PropertiesVersion,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): PropertyBatchView {
    parseLocale(locale);
    const startedAt = iso(this.clock.now());
    const { found, missing } = this.properties.read(
      token.hubId,
      objectType,
      body.inputs.map((i) => i.name),
      { archived: body.archived ?? false, dataSensitivity: parseDataSensitivity(body.dataSensitivity) },
    );
    const answer: PropertyBatchView = {
      status: 'COMPLETE',
      results: found,
      startedAt,
      completedAt: iso(this.clock.now()),
    };
    if (missing.length > 0) {
      answer.errors = missing.map((name) =>
        standardError(HubSpotError.notFound(`Property ${name} does not exist`), { propertyName: [name] }),
      );
      answer.numErrors = missing.length;
    }
    void reply.status(batchStatus(answer, 200, version));
    return answer;
  }

  @Post('batch/archive')
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('write') })
  @HttpCode(204)
  @ApiOperation({ summary: 'Archive a batch of properties (204 whatever their state)' })
  @WireResponse(204)
  @ApiBody({ type: BatchPropertyNameDto })
  async batchArchive(
    @Param('objectType') objectType: string,
    @VersionedBody({ default: BatchPropertyNameDto }) body: BatchPropertyNameDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    const names = body.inputs.map((i) => i.name);
    await this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        { type: 'BatchArchiveProperties', objectType, names },
        ctx,
      ),
    );
  }

  @Delete(':propertyName')
  @Authenticated({ by: 'bearer', scopes: objectTypeScopes('write') })
  @HttpCode(204)
  @ApiOperation({ summary: 'Archive a property' })
  @WireResponse(204)
  async archive(
    @Param('objectType') objectType: string,
    @Param('propertyName') propertyName: string,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    parseSegment(propertyName, 'propertyName');
    await this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        { type: 'ArchiveProperty', objectType, name: propertyName },
        ctx,
      ),
    );
  }
}

/**
 * A batch's status, chosen here only: `ok` when every input passed, 207 with `errors` otherwise;
 * 2026-09's spec answers every batch with 200 (BatchResponseProperty carries the errors).
 */
function batchStatus(answer: PropertyBatchView, ok: 200 | 201, version: PropertiesVersion): number {
  if (version === '2026-09') return 200;
  return answer.errors ? 207 : ok;
}

/** `archived`, `dataSensitivity` and `locale` of the list and read routes. */
function listQuery(query: Record<string, string | string[] | undefined>) {
  const one = (name: string) => {
    const v = query[name];
    if (Array.isArray(v)) {
      throw HubSpotError.validation(`Invalid ${name}`, [
        { message: `${name} is given more than once`, in: name, code: 'INVALID' },
      ]);
    }
    return v;
  };
  parseLocale(one('locale'));
  return { archived: parseArchived(one('archived')), dataSensitivity: parseDataSensitivity(one('dataSensitivity')) };
}
