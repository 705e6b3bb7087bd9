import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../platform/http/authentication';
import type { CommandContext } from '../../platform/events/envelope';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { WireResponse } from '../../platform/http/wire-response';
import { CrmRecordsCommand } from '../application/crm-records.commands';
import type { RecordView } from '../application/crm-records.queries';
import { parseSegment } from './record-input';
import { RestoreRecordDto } from './records.dto';
import { RECORD_SCHEMA } from './wire-schemas';

/**
 * HubSpot restores archived records only in its UI (the recycle bin, "Restore deleted records"; its
 * objects API has no restore): this admin route is that UI's stand-in, so an app can see what a
 * user's restore does (the record live again, `*.restore` webhooks, the journal's RESTORE).
 */
@ApiTags('admin: test controls')
@Authenticated({ by: 'admin' })
@Controller('admin/v1/accounts/:hubId/crm/objects/:objectType/:objectId/restore')
export class AdminRecordsController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Restore an archived record (HubSpot UI’s recycle bin; within 90 days of its archive on the install’s clock)',
  })
  @WireResponse(200, RECORD_SCHEMA, { description: 'SimplePublicObject: the restored record' })
  restore(
    @Param('hubId', new IntParamPipe()) hubId: number,
    @Param('objectType') objectType: string,
    @Param('objectId') objectId: string,
    @Body() body: RestoreRecordDto,
    @Ctx() ctx: CommandContext,
  ): Promise<RecordView> {
    parseSegment(objectType, 'objectType');
    parseSegment(objectId, 'objectId');
    return this.commandBus.execute(
      new CrmRecordsCommand(
        {
          type: 'RestoreRecord',
          hubId,
          objectType,
          recordId: objectId,
          source: { appId: null, userId: body?.userId ?? null },
          ...(body?.appId !== undefined ? { installAppId: body.appId } : {}),
        },
        ctx,
      ),
    );
  }
}
