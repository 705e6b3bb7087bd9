import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory';
import { commandHandlersFor } from '../platform/commands/command-handlers';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { APP_FAULTS_COMMANDS, AppFaultsHandler } from './application/app-faults.commands';
import { FaultRegistry } from './application/fault-registry';
import { controlsEvents } from './domain/fault-events';
import { FaultInjector } from './http/fault-injection';
import { FaultsController } from './http/faults.controller';
import { HostsCaController } from './http/hosts-ca.controller';
import { HubSpotHostsFront } from './hosts-front/hubspot-hosts-front';
import { FaultsProjection } from './projections/faults.projection';

/**
 * Test controls for app developers (docs/testing-your-app.md): faults on demand, and the HTTPS
 * front for HubSpot's hosts. Off unless set: with no fault set the request hook is one check, and
 * the front listens only with HUBSPOT_HOSTS_PROXY_PORT or HUBSPOT_HOSTS_TLS_PORT.
 */
@Module(
  EventSourcingModule.forFeature({
    events: controlsEvents,
    projections: [FaultsProjection],
    commandHandlers: commandHandlersFor(AppFaultsHandler, APP_FAULTS_COMMANDS),
    imports: [DirectoryModule],
    controllers: [FaultsController, HostsCaController],
    providers: [FaultRegistry, FaultInjector, HubSpotHostsFront],
    exports: [FaultRegistry, FaultInjector, HubSpotHostsFront],
  }),
)
export class TestControlsModule {}
