import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DirectoryQueries } from '../../directory/directory.queries';
import { CLOCK, type Clock, InstallClocks } from '../../platform/clock';
import { type ErrorDetail, HubSpotError } from '../../platform/errors/hubspot-error';
import type { CommandContext } from '../../platform/events/envelope';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { WireResponse } from '../../platform/http/wire-response';
import { Authenticated } from '../../platform/http/authentication';
import {
  AdvanceInstallClock,
  checkInstall,
  installClockView,
  type InstallClockView,
  ResetInstallClock,
} from '../application/commands/install-clock';
import { InstallQueries } from '../application/install.queries';
import { MAX_INSTALL_CLOCK_OFFSET_SECONDS } from '../domain/install-clock';
import { INSTALL_CLOCK_SCHEMA } from './wire-schemas';

/** `{"advanceSeconds": N}` and nothing else: N a whole number from 0 to the bound. */
export function parseAdvance(
  body: unknown,
): { ok: true; advanceSeconds: number } | { ok: false; errors: ErrorDetail[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, errors: [{ message: 'expected a JSON object', in: 'body', code: 'INVALID_BODY' }] };
  }
  const errors: ErrorDetail[] = Object.keys(body)
    .filter((k) => k !== 'advanceSeconds')
    .slice(0, 10)
    .map((k) => ({ message: 'unknown field', in: k.slice(0, 100), code: 'UNKNOWN_FIELD' }));
  const n = (body as { advanceSeconds?: unknown }).advanceSeconds;
  if (n === undefined) errors.push({ message: 'required', in: 'advanceSeconds', code: 'REQUIRED' });
  else if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > MAX_INSTALL_CLOCK_OFFSET_SECONDS) {
    errors.push({
      message: `expected an integer from 0 to ${MAX_INSTALL_CLOCK_OFFSET_SECONDS} (10 years)`,
      in: 'advanceSeconds',
      code: 'INVALID_INTEGER',
    });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, advanceSeconds: n as number };
}

/**
 * An install's own clock (docs/testing-your-app.md): its access tokens and authorization codes are
 * issued and checked by the service's time plus the install's offset. Rate limits and daily API
 * usage stay on real time.
 */
@ApiTags('admin: test controls')
@Authenticated({ by: 'admin' })
@Controller('admin/v1/accounts/:hubId/installs/:appId/clock')
export class InstallClockController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly directory: DirectoryQueries,
    private readonly installs: InstallQueries,
    private readonly clocks: InstallClocks,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: "Move the install's time forward by advanceSeconds (cumulative; InstallClockAdvanced)" })
  @ApiBody({
    schema: {
      type: 'object',
      required: ['advanceSeconds'],
      properties: { advanceSeconds: { type: 'integer', minimum: 0, maximum: MAX_INSTALL_CLOCK_OFFSET_SECONDS } },
      additionalProperties: false,
    },
  })
  @WireResponse(200, INSTALL_CLOCK_SCHEMA, { description: 'The install’s clock after the advance' })
  advance(
    @Param('hubId', new IntParamPipe()) hubId: number,
    @Param('appId', new IntParamPipe()) appId: number,
    @Body() body: unknown,
    @Ctx() ctx: CommandContext,
  ): Promise<InstallClockView> {
    checkInstall(this.directory, this.installs, this.clocks, appId, hubId);
    const parsed = parseAdvance(body);
    if (!parsed.ok) {
      throw HubSpotError.validation(
        `Invalid clock advance: ${parsed.errors.map((e) => e.in).join(', ')}`,
        parsed.errors,
      );
    }
    return this.commandBus.execute(new AdvanceInstallClock(appId, hubId, parsed.advanceSeconds, ctx));
  }

  @Get()
  @ApiOperation({ summary: "The install's offset from real time, and its time now" })
  @WireResponse(200, INSTALL_CLOCK_SCHEMA, { description: 'The install’s clock' })
  get(
    @Param('hubId', new IntParamPipe()) hubId: number,
    @Param('appId', new IntParamPipe()) appId: number,
  ): InstallClockView {
    checkInstall(this.directory, this.installs, this.clocks, appId, hubId, true);
    return installClockView(this.clocks, this.clock, appId, hubId);
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'Return the install to real time (InstallClockReset)' })
  @WireResponse(204)
  async reset(
    @Param('hubId', new IntParamPipe()) hubId: number,
    @Param('appId', new IntParamPipe()) appId: number,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    await this.commandBus.execute(new ResetInstallClock(appId, hubId, ctx));
  }
}
