import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../platform/http/authentication';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { CommandContext } from '../../platform/events/envelope';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { AccountLimitsBusCommand } from '../application/account-limits.commands';
import { AccountLimitsView, LimitsQueries } from '../application/limits.queries';
import { LIMIT_NAMES } from '../domain/ceilings';
import type { LimitOverrides } from '../domain/limits-events';
import { LimitOverridesDto } from './limits.dto';

/** Per-account ceilings (admin API): overrides on top of the tier table in configuration. */
@ApiTags('Admin')
@Authenticated({ by: 'admin' })
@Controller('admin/v1/accounts/:hubId/limits')
export class AdminLimitsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: LimitsQueries,
  ) {}

  @Get()
  @ApiOperation({ summary: "An account's tier limits, overrides, effective limits and usage" })
  get(@Param('hubId', new IntParamPipe()) hubId: number): AccountLimitsView {
    return this.queries.accountLimits(hubId);
  }

  @Put()
  @ApiOperation({ summary: 'Override ceilings of one account (a number sets, null clears, absent keeps)' })
  put(
    @Param('hubId', new IntParamPipe()) hubId: number,
    @Body() body: LimitOverridesDto,
    @Ctx() ctx: CommandContext,
  ): Promise<AccountLimitsView> {
    const overrides: LimitOverrides = {};
    for (const k of LIMIT_NAMES) overrides[k] = body[k];
    if (Object.values(overrides).every((v) => v === undefined)) {
      throw HubSpotError.validation(`Invalid input: give at least one of ${LIMIT_NAMES.join(', ')}.`, [
        { message: 'no limit given', in: 'body', code: 'REQUIRED' },
      ]);
    }
    return this.commandBus.execute(
      new AccountLimitsBusCommand(hubId, null, { type: 'OverrideAccountLimits', overrides }, ctx),
    );
  }
}
