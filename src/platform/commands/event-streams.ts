import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../clock';
import { EVENT_STORE, type StreamStore } from '../event-store/event-store.port';
import { StreamAccess } from './stream-access';

export * from './stream-access';

/** The write side's access to the event store (stream-access.ts) as the API's handlers inject it. */
@Injectable()
export class EventStreams extends StreamAccess {
  constructor(@Inject(EVENT_STORE) store: StreamStore, @Inject(CLOCK) clock: Clock) {
    super(store, clock);
  }
}
