import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { DirectoryQueries } from '../../directory/directory.queries';
import { crmLimitsReadScopes } from '../../crm-schema';
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
 * pipelines of deals and tickets against its tier's ceiling, from the pipelines read model (the
 * default pipeline counts). Custom objects have no pipelines here: their usage is 0.
 */
@ApiTags('CRM limits')
@Controller(versionedPaths(LIMITS_PATHS))
export class PipelineLimitsController {
  constructor(
    private readonly queries: PipelinesQueries,
    private readonly directory: DirectoryQueries,
  ) {}

  @Get('pipelines')
  @Authenticated({ by: 'bearer', scopes: limitsScopes })
  @ApiOperation({ summary: 'Pipelines: usage and limit per object type with pipelines' })
  @WireResponse(200, PIPELINE_LIMITS_SCHEMA, { description: 'PipelineLimitResponse' })
  pipelineLimits(@Token() token: AccessTokenClaims) {
    const limit = PIPELINE_LIMITS[this.directory.getAccount(token.hubId)?.tier ?? 'free'];
    return {
      hubspotDefinedObjectTypes: this.queries.activeCounts(token.hubId).map((c) => ({
        objectTypeId: c.objectTypeId,
        ...LABELS[c.objectTypeId]!,
        usage: c.count,
        limit,
        percentage: percentage(c.count, limit),
      })),
      customObjectTypes: { overallLimit: limit, overallUsage: 0, overallPercentage: 0, byObjectType: [] },
    };
  }
}
