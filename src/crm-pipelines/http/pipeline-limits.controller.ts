import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { DirectoryQueries } from '../../directory/directory.queries';
import { CUSTOM_OBJECT_TYPE_ID, crmLimitsReadScopes, LimitsQueries } from '../../crm-schema';
import { type AccessTokenClaims, Token } from '../../oauth';
import { Authenticated, type RouteFacts } from '../../platform/http/authentication';
import { type ApiVersion, versionedPaths } from '../../platform/http/api-versions';
import { WireResponse } from '../../platform/http/wire-response';
import { PipelinesQueries } from '../crm-pipelines.queries';
import { PIPELINE_LIMITS } from '../domain/pipelines.decider';
import { PIPELINE_LIMITS_SCHEMA } from './wire-schemas';

const LIMITS_PATHS = {
  v3: 'crm/v3/limits',
  '2026-03': 'crm/limits/2026-03',
  '2026-09': 'crm/limits/2026-09',
} as const satisfies Partial<Record<ApiVersion, string>>;

/** The scopes of the other CRM limits GETs, per version (fewer at 2026-09). */
const limitsScopes = (route: RouteFacts): readonly string[] =>
  crmLimitsReadScopes(route.version === '2026-03' || route.version === '2026-09' ? route.version : 'v3');

const LABELS: Record<string, { singularLabel: string; pluralLabel: string }> = {
  '0-3': { singularLabel: 'Deal', pluralLabel: 'Deals' },
  '0-5': { singularLabel: 'Ticket', pluralLabel: 'Tickets' },
};

const percentage = (usage: number, limit: number) => (limit <= 0 ? 0 : Math.round((usage / limit) * 10_000) / 100);

/**
 * `GET /crm/v3/limits/pipelines` (and its dated forms, limitsTracking.json): the account's active
 * pipelines per object type against its tier's ceiling, from the pipelines read model. Deals and
 * tickets are always listed (their default pipeline counts); a custom object type is listed under
 * `customObjectTypes` once it has an active pipeline (HubSpot lists usage per type with pipelines).
 * The ceiling holds per type (the decider's), so the custom types' overall limit is that ceiling
 * for each active custom type of the account.
 */
@ApiTags('CRM limits')
@Controller(versionedPaths(LIMITS_PATHS))
export class PipelineLimitsController {
  constructor(
    private readonly queries: PipelinesQueries,
    private readonly directory: DirectoryQueries,
    private readonly limits: LimitsQueries,
  ) {}

  @Get('pipelines')
  @Authenticated({ by: 'bearer', scopes: limitsScopes })
  @ApiOperation({ summary: 'Pipelines: usage and limit per object type with pipelines' })
  @WireResponse(200, PIPELINE_LIMITS_SCHEMA, { description: 'PipelineLimitResponse' })
  pipelineLimits(@Token() token: AccessTokenClaims) {
    const { hubId } = token;
    const limit = PIPELINE_LIMITS[this.directory.getAccount(hubId)?.tier ?? 'free'];
    const customTypes = this.limits.objectTypes(hubId).filter((t) => CUSTOM_OBJECT_TYPE_ID.test(t.objectTypeId));
    const byObjectType = customTypes
      .map((t) => ({ ...t, usage: this.queries.activeCount(hubId, t.objectTypeId) }))
      .filter((t) => t.usage > 0);
    const overallLimit = limit * customTypes.length;
    const overallUsage = byObjectType.reduce((n, t) => n + t.usage, 0);
    return {
      hubspotDefinedObjectTypes: this.queries.activeCounts(hubId).map((c) => ({
        objectTypeId: c.objectTypeId,
        ...LABELS[c.objectTypeId]!,
        usage: c.count,
        limit,
        percentage: percentage(c.count, limit),
      })),
      customObjectTypes: {
        overallLimit,
        overallUsage,
        overallPercentage: percentage(overallUsage, overallLimit),
        byObjectType,
      },
    };
  }
}
