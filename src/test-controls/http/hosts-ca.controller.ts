import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { Authenticated } from '../../platform/http/authentication';
import { HubSpotHostsFront } from '../hosts-front/hubspot-hosts-front';

@ApiTags('admin: test controls')
@Authenticated({ by: 'admin' })
@Controller('admin/v1')
export class HostsCaController {
  constructor(private readonly front: HubSpotHostsFront) {}

  @Get('hubspot-hosts-ca.pem')
  @Header('content-type', 'application/x-pem-file')
  @ApiOperation({
    summary:
      'The CA certificate of the HubSpot hosts front (HUBSPOT_HOSTS_PROXY_PORT, HUBSPOT_HOSTS_TLS_PORT), to trust',
  })
  certificate(): string {
    const pem = this.front.caCertificatePem;
    if (pem === null) {
      throw HubSpotError.notFound(
        'The HubSpot hosts front is off: start the service with HUBSPOT_HOSTS_PROXY_PORT=<port> or HUBSPOT_HOSTS_TLS_PORT=<port>.',
      );
    }
    return pem;
  }
}
