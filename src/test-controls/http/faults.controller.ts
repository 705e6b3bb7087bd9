import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { DirectoryQueries } from '../../directory/directory.queries';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { CommandContext } from '../../platform/events/envelope';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { Authenticated } from '../../platform/http/authentication';
import { ClearAppFaults, ClearFault, SetFault } from '../application/app-faults.commands';
import { FaultRegistry, type FaultView } from '../application/fault-registry';
import { parseFaultSpec } from '../domain/fault-spec';

/**
 * Faults on demand (docs/testing-your-app.md): HubSpot's 429s, 5xx, latency and dropped connections
 * injected into the answers to an app's requests. Set and cleared as events; the admin API itself
 * is never faulted.
 */
@ApiTags('admin: test controls')
@Authenticated({ by: 'admin' })
@Controller('admin/v1/apps/:appId/faults')
export class FaultsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly registry: FaultRegistry,
    private readonly directory: DirectoryQueries,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Set a fault on the answers to the app’s requests (FaultSet)' })
  set(
    @Param('appId', new IntParamPipe()) appId: number,
    @Body() body: unknown,
    @Ctx() ctx: CommandContext,
  ): Promise<FaultView> {
    if (!this.directory.getApp(appId)) throw HubSpotError.notFound(`No app with appId ${appId}`);
    const parsed = parseFaultSpec(body);
    if (!parsed.ok) {
      throw HubSpotError.validation(`Invalid fault: ${parsed.errors.map((e) => e.in).join(', ')}`, parsed.errors);
    }
    return this.commandBus.execute(new SetFault(appId, parsed.spec, ctx));
  }

  @Get()
  @ApiOperation({ summary: 'The app’s faults, with how many answers each has injected on this instance' })
  list(@Param('appId', new IntParamPipe()) appId: number): { results: FaultView[] } {
    if (!this.directory.getApp(appId)) throw HubSpotError.notFound(`No app with appId ${appId}`);
    return { results: this.registry.list(appId) };
  }

  @Delete(':faultId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Clear one fault (FaultCleared)' })
  async clearOne(
    @Param('appId', new IntParamPipe()) appId: number,
    @Param('faultId') faultId: string,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    await this.commandBus.execute(new ClearFault(appId, faultId.slice(0, 100), ctx));
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'Clear every fault of the app (AppFaultsCleared)' })
  async clearAll(@Param('appId', new IntParamPipe()) appId: number, @Ctx() ctx: CommandContext): Promise<void> {
    await this.commandBus.execute(new ClearAppFaults(appId, ctx));
  }
}
