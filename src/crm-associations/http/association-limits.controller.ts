import { Controller, Get, Param, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { crmLimitsReadScopes, LimitsQueries } from '../../crm-schema';
import { type AccessTokenClaims, Token } from '../../oauth';
import { Authenticated, type RouteFacts } from '../../platform/http/authentication';
import { Inject } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/clock';
import { toErrorBody } from '../../platform/errors/hubspot-error';
import type { CommandContext } from '../../platform/events/envelope';
import { type ApiVersion, RouteVersion, versionedPaths } from '../../platform/http/api-versions';
import { Ctx } from '../../platform/http/request-context';
import { WireResponse } from '../../platform/http/wire-response';
import { AssociationLimitsCommand, type LimitInput } from '../application/association-limits.handler';
import type { BatchOutcome } from '../application/crm-associations.handler';
import { AssociationsQueries } from '../crm-associations.queries';
import { limitStanding, MAX_SAMPLES, nearFloor, percentOf } from '../domain/association-record-limits';
import type { AssociationType } from '../domain/association-types';
import {
  ASSOCIATION_RECORD_LIMIT_SCHEMA,
  CONFIGURATIONS_BATCH_SCHEMA,
  CONFIGURATIONS_SCHEMA,
  CONFIGURATION_UPDATES_BATCH_SCHEMA,
  NEAR_OR_AT_LIMIT_SCHEMA,
  VOID_BATCH_SCHEMA,
} from './wire-schemas';
import { AssociationBody } from './association-body';
import { BatchAssociationLimitInputDto, BatchAssociationLimitRefDto } from './association.dto';

const SCHEMA_PATHS = {
  v3: ['crm/associations/v4/definitions/configurations', 'crm/v4/associations/definitions/configurations'],
  '2026-03': 'crm/associations/2026-03/definitions/configurations',
  '2026-09': 'crm/associations/2026-09/definitions/configurations',
} as const satisfies Partial<Record<ApiVersion, string | readonly string[]>>;
const LIMITS_PATHS = {
  v3: 'crm/v3/limits/associations/records',
  '2026-03': 'crm/limits/2026-03/associations/records',
  '2026-09': 'crm/limits/2026-09/associations/records',
} as const satisfies Partial<Record<ApiVersion, string>>;
type Version = 'v3' | '2026-03' | '2026-09';

const SCHEMA_READ = [
  'crm.schemas.contacts.read',
  'crm.schemas.companies.read',
  'crm.schemas.deals.read',
  'crm.schemas.custom.read',
  'crm.objects.contacts.read',
  'crm.objects.companies.read',
  'crm.objects.deals.read',
  'tickets',
  'crm.objects.custom.read',
];
const SCHEMA_WRITE = [
  'crm.schemas.contacts.write',
  'crm.schemas.companies.write',
  'crm.schemas.deals.write',
  'crm.schemas.custom.write',
  'crm.objects.contacts.write',
  'crm.objects.companies.write',
  'crm.objects.deals.write',
  'tickets',
  'crm.objects.custom.write',
];

/** The scopes of the other CRM limits GETs, per version (fewer at 2026-09). */
const limitsScopes = (route: RouteFacts): readonly string[] =>
  crmLimitsReadScopes(route.version === '2026-03' || route.version === '2026-09' ? route.version : 'v3');

/**
 * The account's association limits: HubSpot's definition configurations (v4, 2026-03, 2026-09)
 * and the record association limits endpoints of limitsTracking.json (v3, 2026-03, 2026-09), from
 * the associations read model: "near" is at least 80 % of a pair's per-record limit, "at" the
 * limit; samples hold at most 10 records.
 */
@ApiTags('CRM associations')
@Controller()
export class AssociationLimitsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: AssociationsQueries,
    private readonly limits: LimitsQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private configurationView(hubId: number, t: AssociationType) {
    const max = this.queries.configuredLimit(hubId, t.fromObjectTypeId, t.toObjectTypeId, t.category, t.typeId);
    return {
      category: t.category,
      typeId: t.typeId,
      ...(t.label !== null ? { label: t.label } : {}),
      ...(max !== undefined ? { userEnforcedMaxToObjectIds: max } : {}),
    };
  }

  @Get(versionedPaths(SCHEMA_PATHS).map((p) => `${p}/all`))
  @Authenticated({ by: 'bearer', scopes: SCHEMA_READ })
  @ApiOperation({ summary: 'Every association type of the account’s object pairs, with its configured limit' })
  @WireResponse(200, CONFIGURATIONS_SCHEMA, {
    description: 'CollectionResponsePublicAssociationDefinitionUserConfigurationNoPaging',
  })
  all(@Token() token: AccessTokenClaims) {
    const pairs = new Set<string>();
    const types: AssociationType[] = [];
    for (const c of this.queries.configurations(token.hubId)) pairs.add(`${c.from}>${c.to}`);
    const catalogue = this.queries.catalogueOf(token.hubId);
    for (const key of pairs) {
      const [from, to] = key.split('>') as [string, string];
      types.push(...catalogue.between(from, to));
    }
    return { results: types.map((t) => this.configurationView(token.hubId, t)) };
  }

  @Get(versionedPaths(SCHEMA_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType`))
  @Authenticated({ by: 'bearer', scopes: SCHEMA_READ })
  @ApiOperation({ summary: 'The association types of a pair, with their configured limits' })
  @WireResponse(200, CONFIGURATIONS_SCHEMA, {
    description: 'CollectionResponsePublicAssociationDefinitionUserConfigurationNoPaging',
  })
  between(@Param('fromObjectType') from: string, @Param('toObjectType') to: string, @Token() token: AccessTokenClaims) {
    const f = this.limits.resolve(token.hubId, from).objectTypeId;
    const t = this.limits.resolve(token.hubId, to).objectTypeId;
    return {
      results: this.queries
        .catalogueOf(token.hubId)
        .between(f, t)
        .map((x) => this.configurationView(token.hubId, x)),
    };
  }

  private async run(
    token: AccessTokenClaims,
    type: 'CreateAssociationLimits' | 'UpdateAssociationLimits' | 'RemoveAssociationLimits',
    from: string,
    to: string,
    body: BatchAssociationLimitInputDto | BatchAssociationLimitRefDto,
    ctx: CommandContext,
  ): Promise<BatchOutcome<LimitInput>> {
    const fromType = this.limits.resolve(token.hubId, from).objectTypeId;
    const toType = this.limits.resolve(token.hubId, to).objectTypeId;
    const inputs: LimitInput[] = body.inputs.map((i) => ({ ...i }));
    return this.commandBus.execute(
      new AssociationLimitsCommand({ type, hubId: token.hubId, fromType, toType, inputs }, ctx),
    );
  }

  private batchBody<R>(startedAt: number, outcome: BatchOutcome<unknown>, results: R[]) {
    const errors = outcome.refused.map(({ index, error }) => {
      const body = toErrorBody(error, '');
      return {
        status: 'error',
        category: body.category,
        message: body.message,
        context: { ...(body.context ?? {}), inputIndex: [String(index)] },
        errors: body.errors ?? [],
        links: {},
      };
    });
    return {
      status: 'COMPLETE' as const,
      results,
      ...(errors.length > 0 ? { errors, numErrors: errors.length } : {}),
      startedAt: new Date(startedAt).toISOString(),
      completedAt: new Date(this.clock.now()).toISOString(),
    };
  }

  @Post(versionedPaths(SCHEMA_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType/batch/create`))
  @Authenticated({ by: 'bearer', scopes: SCHEMA_WRITE })
  @ApiOperation({ summary: 'Configure limits of association types (201, 207 with errors; 2026-09: 200)' })
  @WireResponse(201, CONFIGURATIONS_BATCH_SCHEMA, {
    description: 'BatchResponsePublicAssociationDefinitionUserConfiguration',
  })
  @WireResponse(207, CONFIGURATIONS_BATCH_SCHEMA, {
    description: 'BatchResponsePublicAssociationDefinitionUserConfigurationWithErrors',
  })
  @WireResponse(200, CONFIGURATIONS_BATCH_SCHEMA, {
    description: 'BatchResponsePublicAssociationDefinitionUserConfiguration (2026-09)',
  })
  @ApiBody({ type: BatchAssociationLimitInputDto })
  async create(
    @Param('fromObjectType') from: string,
    @Param('toObjectType') to: string,
    @AssociationBody(BatchAssociationLimitInputDto) body: BatchAssociationLimitInputDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: Version,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const startedAt = this.clock.now();
    const outcome = await this.run(token, 'CreateAssociationLimits', from, to, body, ctx);
    const fromType = this.limits.resolve(token.hubId, from).objectTypeId;
    const toType = this.limits.resolve(token.hubId, to).objectTypeId;
    const results = outcome.results.map((i) =>
      this.configurationView(
        token.hubId,
        this.queries.catalogueOf(token.hubId).find(fromType, toType, i.typeId, i.category)!,
      ),
    );
    const answer = this.batchBody(startedAt, outcome, results);
    void reply.status(version === '2026-09' ? 200 : answer.errors ? 207 : 201);
    return answer;
  }

  @Post(versionedPaths(SCHEMA_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType/batch/update`))
  @Authenticated({ by: 'bearer', scopes: SCHEMA_WRITE })
  @ApiOperation({ summary: 'Change configured limits (200, 207 with errors; 2026-09: 200)' })
  @WireResponse(200, CONFIGURATION_UPDATES_BATCH_SCHEMA, {
    description: 'BatchResponsePublicAssociationDefinitionConfigurationUpdateResult',
  })
  @WireResponse(207, CONFIGURATION_UPDATES_BATCH_SCHEMA, {
    description: 'BatchResponsePublicAssociationDefinitionConfigurationUpdateResultWithErrors',
  })
  @ApiBody({ type: BatchAssociationLimitInputDto })
  async update(
    @Param('fromObjectType') from: string,
    @Param('toObjectType') to: string,
    @AssociationBody(BatchAssociationLimitInputDto) body: BatchAssociationLimitInputDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: Version,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const startedAt = this.clock.now();
    const outcome = await this.run(token, 'UpdateAssociationLimits', from, to, body, ctx);
    const results = outcome.results.map((i) => ({
      category: i.category,
      typeId: i.typeId,
      userEnforcedMaxToObjectIds: i.maxToObjectIds!,
    }));
    const answer = this.batchBody(startedAt, outcome, results);
    void reply.status(version !== '2026-09' && answer.errors ? 207 : 200);
    return answer;
  }

  @Post(versionedPaths(SCHEMA_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType/batch/purge`))
  @Authenticated({ by: 'bearer', scopes: SCHEMA_WRITE })
  @ApiOperation({ summary: 'Remove configured limits (v4: 204; dated: 200)' })
  @WireResponse(204)
  @WireResponse(200, VOID_BATCH_SCHEMA, { description: 'BatchResponse (2026-03), BatchResponseVoid (2026-09)' })
  @ApiBody({ type: BatchAssociationLimitRefDto })
  async purge(
    @Param('fromObjectType') from: string,
    @Param('toObjectType') to: string,
    @AssociationBody(BatchAssociationLimitRefDto) body: BatchAssociationLimitRefDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
    @RouteVersion() version: Version,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const startedAt = this.clock.now();
    const outcome = await this.run(token, 'RemoveAssociationLimits', from, to, body, ctx);
    if (version === 'v3') {
      void reply.status(204);
      return undefined;
    }
    void reply.status(200);
    return this.batchBody(startedAt, outcome, []);
  }

  /** Every pair in use, with its standing: which from-records are near or at its limit. */
  private standings(hubId: number, from?: string, to?: string) {
    return this.queries
      .pairsInUse(hubId)
      .filter((p) => (from === undefined || p.from === from) && (to === undefined || p.to === to))
      .map((p) => {
        const limit = this.queries.pairLimit(hubId, p.from, p.to);
        const heavy = this.queries.heavyRecords(hubId, p.from, p.to, nearFloor(limit));
        const at = heavy.filter((r) => limitStanding(r.usage, limit) === 'at');
        const near = heavy.filter((r) => limitStanding(r.usage, limit) === 'near');
        return { ...p, limit, at, near };
      });
  }

  private typeLabels(hubId: number) {
    return new Map(this.limits.customPropertyLimits(hubId).byObjectType.map((t) => [t.objectTypeId, t] as const));
  }

  private nearOrAt(hubId: number, rows: ReturnType<AssociationLimitsController['standings']>, by: 'from' | 'to') {
    const labels = this.typeLabels(hubId);
    const flags = new Map<string, { near: boolean; at: boolean }>();
    for (const r of rows) {
      const key = r[by];
      const f = flags.get(key) ?? { near: false, at: false };
      f.near ||= r.near.length > 0;
      f.at ||= r.at.length > 0;
      flags.set(key, f);
    }
    return {
      results: [...flags.entries()]
        .filter(([, f]) => f.near || f.at)
        .map(([objectTypeId, f]) => ({
          objectTypeId,
          singularLabel: labels.get(objectTypeId)?.singularLabel ?? objectTypeId,
          pluralLabel: labels.get(objectTypeId)?.pluralLabel ?? objectTypeId,
          hasRecordsNearLimit: f.near,
          hasRecordsAtLimit: f.at,
        })),
    };
  }

  @Get(versionedPaths(LIMITS_PATHS).map((p) => `${p}/from`))
  @Authenticated({ by: 'bearer', scopes: limitsScopes })
  @ApiOperation({ summary: 'Object types with records near (≥ 80 %) or at their association limits' })
  @WireResponse(200, NEAR_OR_AT_LIMIT_SCHEMA, {
    description: 'CollectionResponseObjectTypeNearOrAtAssociationLimitNoPaging',
  })
  fromTypes(@Token() token: AccessTokenClaims) {
    return this.nearOrAt(token.hubId, this.standings(token.hubId), 'from');
  }

  @Get(versionedPaths(LIMITS_PATHS).map((p) => `${p}/:fromObjectTypeId/to`))
  @Authenticated({ by: 'bearer', scopes: limitsScopes })
  @ApiOperation({ summary: 'For one object type: the types its records are near or at their association limits with' })
  @WireResponse(200, NEAR_OR_AT_LIMIT_SCHEMA, {
    description: 'CollectionResponseObjectTypeNearOrAtAssociationLimitNoPaging',
  })
  toTypes(@Param('fromObjectTypeId') from: string, @Token() token: AccessTokenClaims) {
    const fromType = this.limits.resolve(token.hubId, from).objectTypeId;
    return this.nearOrAt(token.hubId, this.standings(token.hubId, fromType), 'to');
  }

  @Get(versionedPaths(LIMITS_PATHS).map((p) => `${p}/:fromObjectTypeId/:toObjectTypeId`))
  @Authenticated({ by: 'bearer', scopes: limitsScopes })
  @ApiOperation({
    summary: 'Records of one pair near or at the per-record association limit, with samples (at most 10)',
  })
  @WireResponse(200, ASSOCIATION_RECORD_LIMIT_SCHEMA, { description: 'AssociationRecordLimitResponse' })
  pair(
    @Param('fromObjectTypeId') from: string,
    @Param('toObjectTypeId') to: string,
    @Token() token: AccessTokenClaims,
  ) {
    const fromType = this.limits.resolve(token.hubId, from).objectTypeId;
    const toType = this.limits.resolve(token.hubId, to).objectTypeId;
    const [row] = this.standings(token.hubId, fromType, toType);
    const limit = row?.limit ?? this.queries.pairLimit(token.hubId, fromType, toType);
    const at = row?.at ?? [];
    const near = row?.near ?? [];
    return {
      limit,
      totalRecordsAtLimit: at.length,
      totalRecordsNearLimit: near.length,
      atLimitFromRecordSamples: at
        .slice(0, MAX_SAMPLES)
        .map((r) => ({ objectId: r.fromId, label: r.label || String(r.fromId) })),
      nearLimitFromRecordSamples: near.slice(0, MAX_SAMPLES).map((r) => ({
        objectId: r.fromId,
        label: r.label || String(r.fromId),
        usage: r.usage,
        percentage: percentOf(r.usage, limit),
      })),
    };
  }
}
