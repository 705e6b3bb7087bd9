import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AccessTokenClaims, RequireScopes, Token } from '../../oauth';
import { LimitsQueries } from '../application/limits.queries';
import type {
  CalculatedPropertyLimits,
  CustomObjectTypeLimits,
  CustomPropertyLimits,
} from '../application/limits.views';
import { CRM_LIMITS_READ_SCOPES, CUSTOM_OBJECT_TYPE_LIMITS_SCOPES } from '../domain/scopes';

/** CRM limits tracking (limitsTracking.json): the account is the token's hub. */
@ApiTags('CRM limits')
@Controller('crm/v3/limits')
export class LimitsController {
  constructor(private readonly queries: LimitsQueries) {}

  @Get('calculated-properties')
  @RequireScopes(...CRM_LIMITS_READ_SCOPES)
  @ApiOperation({ summary: 'Calculated properties: overall limit and usage, usage per object type' })
  calculatedProperties(@Token() token: AccessTokenClaims): CalculatedPropertyLimits {
    return this.queries.calculatedPropertyLimits(token.hubId);
  }

  @Get('custom-object-types')
  @RequireScopes(...CUSTOM_OBJECT_TYPE_LIMITS_SCOPES)
  @ApiOperation({ summary: 'Custom object types: limit, usage, percentage' })
  customObjectTypes(@Token() token: AccessTokenClaims): CustomObjectTypeLimits {
    return this.queries.customObjectTypeLimits(token.hubId);
  }

  @Get('custom-properties')
  @RequireScopes(...CRM_LIMITS_READ_SCOPES)
  @ApiOperation({ summary: 'Custom properties: overall and per object type' })
  customProperties(@Token() token: AccessTokenClaims): CustomPropertyLimits {
    return this.queries.customPropertyLimits(token.hubId);
  }
}
