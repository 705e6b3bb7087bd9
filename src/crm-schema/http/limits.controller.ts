import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AccessTokenClaims, Token } from '../../oauth';
import { Authenticated } from '../../platform/http/authentication';
import { type ApiVersion, versionedPaths } from '../../platform/http/api-versions';
import { LimitsQueries } from '../application/limits.queries';
import type {
  AssociationLabelLimit,
  CalculatedPropertyLimits,
  CustomObjectTypeLimits,
  CustomPropertyLimits,
} from '../application/limits.views';
import { CUSTOM_OBJECT_TYPE_LIMITS_SCOPES } from '../domain/scopes';
import { parseSegment } from './query-params';
import { limitsReadScopes } from './route-scopes';
import { WireResponse } from '../../platform/http/wire-response';
import {
  ASSOCIATION_LABEL_LIMITS_SCHEMA,
  CALCULATED_PROPERTY_LIMITS_SCHEMA,
  CUSTOM_OBJECT_TYPE_LIMITS_SCHEMA,
  CUSTOM_PROPERTY_LIMITS_SCHEMA,
} from './wire-schemas';

const LIMITS_PATHS = {
  v3: 'crm/v3/limits',
  '2026-03': 'crm/limits/2026-03',
  '2026-09': 'crm/limits/2026-09',
} as const satisfies Partial<Record<ApiVersion, string>>;

/**
 * CRM limits tracking (limitsTracking.json of v3, 2026-03 and 2026-09): the account is the token's
 * hub. The bodies are the same at every version; 2026-09 accepts fewer scopes on
 * calculated-properties and custom-properties, so their scope rule (`limitsReadScopes`) reads the
 * path's version.
 */
@ApiTags('CRM limits')
@Controller(versionedPaths(LIMITS_PATHS))
export class LimitsController {
  constructor(private readonly queries: LimitsQueries) {}

  @Get('calculated-properties')
  @Authenticated({ by: 'bearer', scopes: limitsReadScopes })
  @ApiOperation({ summary: 'Calculated properties: overall limit and usage, usage per object type' })
  @WireResponse(200, CALCULATED_PROPERTY_LIMITS_SCHEMA, {
    serialize: true,
    description: 'CalculatedPropertyLimitResponse',
  })
  calculatedProperties(@Token() token: AccessTokenClaims): CalculatedPropertyLimits {
    return this.queries.calculatedPropertyLimits(token.hubId);
  }

  @Get('custom-object-types')
  @Authenticated({ by: 'bearer', scopes: CUSTOM_OBJECT_TYPE_LIMITS_SCOPES })
  @ApiOperation({ summary: 'Custom object types: limit, usage, percentage' })
  @WireResponse(200, CUSTOM_OBJECT_TYPE_LIMITS_SCHEMA, { serialize: true, description: 'CustomObjectLimitResponse' })
  customObjectTypes(@Token() token: AccessTokenClaims): CustomObjectTypeLimits {
    return this.queries.customObjectTypeLimits(token.hubId);
  }

  @Get('custom-properties')
  @Authenticated({ by: 'bearer', scopes: limitsReadScopes })
  @ApiOperation({ summary: 'Custom properties: overall and per object type' })
  @WireResponse(200, CUSTOM_PROPERTY_LIMITS_SCHEMA, { serialize: true, description: 'CustomPropertyLimitResponse' })
  customProperties(@Token() token: AccessTokenClaims): CustomPropertyLimits {
    return this.queries.customPropertyLimits(token.hubId);
  }

  @Get('associations/labels')
  // the spec lists the same scopes as calculated-properties at every version
  @Authenticated({ by: 'bearer', scopes: limitsReadScopes })
  @ApiOperation({ summary: 'Association labels per pair of object types: limit, usage, percentage, the labels' })
  @WireResponse(200, ASSOCIATION_LABEL_LIMITS_SCHEMA, {
    serialize: true,
    description: 'CollectionResponseAssociationLabelLimitResponseNoPaging',
  })
  associationLabels(
    @Query('fromObjectTypeId') fromObjectTypeId: string | undefined,
    @Query('toObjectTypeId') toObjectTypeId: string | undefined,
    @Token() token: AccessTokenClaims,
  ): { results: AssociationLabelLimit[] } {
    const filter = (raw: unknown, name: string): string | undefined => {
      if (raw === undefined || raw === '') return undefined;
      return parseSegment(typeof raw === 'string' ? raw : '', name); // a repeated parameter is refused
    };
    return {
      results: this.queries.associationLabelLimits(
        token.hubId,
        filter(fromObjectTypeId, 'fromObjectTypeId'),
        filter(toObjectTypeId, 'toObjectTypeId'),
      ),
    };
  }
}
