import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { crmLimitsReadScopes, LimitsQueries } from '../../crm-schema';
import { type AccessTokenClaims, Token } from '../../oauth';
import { type ApiVersion, versionedPaths } from '../../platform/http/api-versions';
import { Authenticated, type RouteFacts } from '../../platform/http/authentication';
import { WireResponse } from '../../platform/http/wire-response';
import { CrmRecordsQueries } from '../application/crm-records.queries';
import { recordPercentage } from '../domain/record-limits';
import { RECORD_LIMITS_SCHEMA } from './wire-schemas';

const LIMITS_PATHS = {
  v3: 'crm/v3/limits',
  '2026-03': 'crm/limits/2026-03',
  '2026-09': 'crm/limits/2026-09',
} as const satisfies Partial<Record<ApiVersion, string>>;

/** The scopes of the other CRM limits GETs, per version (fewer at 2026-09). */
const recordLimitsScopes = (route: RouteFacts): readonly string[] =>
  crmLimitsReadScopes(route.version === '2026-03' || route.version === '2026-09' ? route.version : 'v3');

interface TypeUsage {
  objectTypeId: string;
  singularLabel: string;
  pluralLabel: string;
  usage: number;
}

/** HubSpot's RecordLimitResponse. */
export interface RecordLimits {
  hubspotDefinedObjectTypes: Array<TypeUsage & { limit: number; percentage: number }>;
  customObjectTypes: {
    overallLimit: number;
    overallUsage: number;
    overallPercentage: number;
    byObjectType: TypeUsage[];
  };
}

/**
 * `GET /crm/v3/limits/records` (and its dated forms, limitsTracking.json): the account's
 * non-archived records per object type, from the records read model, against the account's ceilings
 * (its tier's, or the overrides set through the admin API: the CRM schema module keeps both).
 * Served by the records module (it owns the counts); the object types' labels come from the CRM
 * schema module. Accepts the scopes of the other CRM limits GETs, per version.
 */
@ApiTags('CRM limits')
@Controller(versionedPaths(LIMITS_PATHS))
export class RecordLimitsController {
  constructor(
    private readonly records: CrmRecordsQueries,
    private readonly limits: LimitsQueries,
  ) {}

  @Get('records')
  @Authenticated({ by: 'bearer', scopes: recordLimitsScopes })
  @ApiOperation({ summary: 'Records: usage and limit per HubSpot-defined object type, and of custom objects overall' })
  @WireResponse(200, RECORD_LIMITS_SCHEMA, { description: 'RecordLimitResponse' })
  recordLimits(@Token() token: AccessTokenClaims): RecordLimits {
    const counts = new Map(this.records.counts(token.hubId).map((c) => [c.objectTypeId, c.count]));
    const types = this.limits.customPropertyLimits(token.hubId).byObjectType.map((t) => ({
      objectTypeId: t.objectTypeId,
      singularLabel: t.singularLabel,
      pluralLabel: t.pluralLabel,
      usage: counts.get(t.objectTypeId) ?? 0,
    }));
    const custom = types.filter((t) => t.objectTypeId.startsWith('2-'));
    const overallUsage = custom.reduce((n, t) => n + t.usage, 0);
    const { limits } = this.limits.limitsOf(token.hubId);
    return {
      hubspotDefinedObjectTypes: types
        .filter((t) => !t.objectTypeId.startsWith('2-'))
        .map((t) => ({
          ...t,
          limit: limits.records,
          percentage: recordPercentage(t.usage, limits.records),
        })),
      customObjectTypes: {
        overallLimit: limits.customObjectRecords,
        overallUsage,
        overallPercentage: recordPercentage(overallUsage, limits.customObjectRecords),
        byObjectType: custom,
      },
    };
  }
}
