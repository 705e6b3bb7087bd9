import { Injectable, Module, type ModuleMetadata, type OnModuleInit, type Provider, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { ICommandHandler } from '@nestjs/cqrs';
import { retentionRules, type RetentionRule } from '../archive/retention-rules';
import { eventTypes, type EventDefinitions } from '../events/event-type-registry';
import type { Projection, Reactor } from '../projections/projection';
import { ProjectionRunner } from '../projections/projection-runner';

export interface EventSourcedFeature extends ModuleMetadata {
  /** The event types the feature owns, with their decoders and upcasters. */
  events: EventDefinitions;
  /** Read models, tailed from their checkpoints by the projection runner. */
  projections?: Type<Projection>[];
  /** Process managers on the checkpointed feed (never an @EventsHandler alone: it forgets failures). */
  reactors?: Type<Reactor>[];
  /** The handlers of the commands the feature accepts on the CommandBus: `@CommandHandler`s, or `commandHandlersFor(Handler, commands)`. */
  commandHandlers?: Type<ICommandHandler>[];
  /** When the feature's streams stop mattering, so the archiver may move them (AUDIT_RETENTION_DAYS). */
  retention?: RetentionRule[];
}

/**
 * The one way a feature module joins the event-sourced core:
 * `@Module(EventSourcingModule.forFeature({ events, projections, reactors, commandHandlers, ...metadata }))`.
 * The event types are registered at once (they are static facts); projections and reactors are
 * providers of the feature (so they can inject its services) and are handed to the runner before
 * it starts; command handlers are providers that `@nestjs/cqrs` binds to the CommandBus.
 */
@Module({})
export class EventSourcingModule {
  static forFeature(feature: EventSourcedFeature): ModuleMetadata {
    const { events, projections = [], reactors = [], commandHandlers = [], retention = [], ...metadata } = feature;
    eventTypes.register(events);
    retentionRules.register(retention);

    @Injectable()
    class FeatureRegistration implements OnModuleInit {
      constructor(
        private readonly moduleRef: ModuleRef,
        private readonly runner: ProjectionRunner,
      ) {}
      onModuleInit(): void {
        for (const p of projections) this.runner.register(this.moduleRef.get(p, { strict: true }));
        for (const r of reactors) this.runner.registerReactor(this.moduleRef.get(r, { strict: true }));
      }
    }

    const providers: Provider[] = [
      ...(metadata.providers ?? []),
      ...projections,
      ...reactors,
      ...commandHandlers,
      FeatureRegistration,
    ];
    return { ...metadata, providers };
  }
}
