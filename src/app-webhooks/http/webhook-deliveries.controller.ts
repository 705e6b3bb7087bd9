import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { DirectoryQueries } from '../../directory/directory.queries';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { CommandContext } from '../../platform/events/envelope';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { Authenticated } from '../../platform/http/authentication';
import { DeliveryRecordBusCommand } from '../application/app-webhooks.commands';
import type { DeliveryStatus, DeliveryView } from '../application/outbox-queries';
import { DeliveryThread } from '../delivery-thread/delivery-thread';

const STATUSES: readonly DeliveryStatus[] = ['pending', 'retrying', 'delivered', 'failed', 'abandoned'];

/**
 * The delivery log (what Stripe's and GitHub's dashboards show): each item an app was sent or is
 * waiting to be sent, with every attempt's request headers and body, answer status and time, from
 * the events. A redelivery sends an item again now, with its eventId and the next attemptNumber.
 */
@ApiTags('admin: webhooks')
@Authenticated({ by: 'admin' })
@Controller('admin/v1/apps/:appId/webhook-deliveries')
export class WebhookDeliveriesController {
  constructor(
    private readonly thread: DeliveryThread,
    private readonly directory: DirectoryQueries,
    private readonly commandBus: CommandBus,
  ) {}

  @Get()
  @ApiOperation({ summary: 'The app’s deliveries in feed order (status, subscriptionId, objectId; limit, after)' })
  @ApiQuery({ name: 'status', required: false, enum: STATUSES })
  @ApiQuery({ name: 'subscriptionId', required: false, type: Number })
  @ApiQuery({ name: 'objectId', required: false, type: Number })
  @ApiQuery({ name: 'limit', required: false, type: Number })
  @ApiQuery({ name: 'after', required: false })
  async list(
    @Param('appId', new IntParamPipe()) appId: number,
    @Query('status') status: unknown,
    @Query('subscriptionId', new IntParamPipe({ optional: true })) subscriptionId: number | undefined,
    @Query('objectId', new IntParamPipe({ optional: true, max: Number.MAX_SAFE_INTEGER })) objectId: number | undefined,
    @Query('limit', new IntParamPipe({ optional: true, max: 100 })) limit: number | undefined,
    @Query('after', new IntParamPipe({ optional: true, min: 0, max: Number.MAX_SAFE_INTEGER }))
    after: number | undefined,
  ): Promise<{ results: DeliveryView[]; paging?: { next: { after: string } } }> {
    if (!this.directory.getApp(appId)) throw HubSpotError.notFound(`No app with appId ${appId}`);
    if (status !== undefined && !STATUSES.includes(status as DeliveryStatus)) {
      throw HubSpotError.validation(`status must be one of ${STATUSES.join(', ')}`, [
        { message: `expected one of ${STATUSES.join(', ')}`, in: 'status', code: 'INVALID_ENUM' },
      ]);
    }
    const page = await this.thread.deliveries(appId, {
      ...(status === undefined ? {} : { status: status as DeliveryStatus }),
      ...(subscriptionId === undefined ? {} : { subscriptionId }),
      ...(objectId === undefined ? {} : { objectId }),
      ...(after === undefined ? {} : { after }),
      limit: limit ?? 20,
    });
    return page.next === null
      ? { results: page.results }
      : { results: page.results, paging: { next: { after: String(page.next) } } };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One delivery (by its eventId) with its attempts' })
  async get(
    @Param('appId', new IntParamPipe()) appId: number,
    @Param('id', new IntParamPipe({ max: Number.MAX_SAFE_INTEGER })) id: number,
  ): Promise<DeliveryView> {
    const view = await this.thread.delivery(appId, String(id));
    if (!view) throw HubSpotError.notFound(`No webhook delivery ${id} for app ${appId}.`);
    return view;
  }

  @Post(':id/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send the item again now (same eventId, next attemptNumber): RedeliveryRequested' })
  async redeliver(
    @Param('appId', new IntParamPipe()) appId: number,
    @Param('id', new IntParamPipe({ max: Number.MAX_SAFE_INTEGER })) id: number,
    @Ctx() ctx: CommandContext,
  ): Promise<DeliveryView> {
    const view = await this.thread.delivery(appId, String(id));
    if (!view) throw HubSpotError.notFound(`No webhook delivery ${id} for app ${appId}.`);
    const { position } = await this.commandBus.execute(
      new DeliveryRecordBusCommand({ type: 'RequestRedelivery', appId, hubId: view.portalId, eventId: view.id }, ctx),
    );
    return (await this.thread.delivery(appId, String(id), position)) ?? view;
  }
}
