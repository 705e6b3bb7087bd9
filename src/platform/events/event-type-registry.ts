import type { DomainEvent, RecordedEvent } from './envelope';

/**
 * Turns one stored event type's data into its current shape: checks it and, for an older shape,
 * upcasts it (new fields get the value the old code implied). Runs on every read of the type.
 * The recorded event is there for shapes that leave out what its stream id already says.
 */
export type EventDecoder<T = unknown> = (data: unknown, event: RecordedEvent) => T;

/**
 * A hot event type stored smaller than its domain shape: `encode` gives what is stored (given the
 * stream it goes to), `decode` reads every stored shape back into the domain one.
 */
export interface EventStorageCodec<T = unknown> {
  encode(data: T, streamId: string): unknown;
  decode: EventDecoder<T>;
}

/** A module's event types: type string -> decoder (`null`: stored as it is today, no decoding) or codec. */
export type EventDefinitions = Readonly<Record<string, EventDecoder | EventStorageCodec | null>>;

/** A stored event whose data is decoded into its domain event's current shape. */
export type Recorded<E extends DomainEvent> = E extends DomainEvent
  ? RecordedEvent<E['data']> & { type: E['type'] }
  : never;

/** Stored a type that no module of this build knows (a newer writer, or a corrupt row). */
export class UnknownEventTypeError extends Error {
  constructor(
    readonly type: string,
    readonly streamId: string,
  ) {
    super(`stream ${streamId}: event type ${type} is not registered`);
    this.name = 'UnknownEventTypeError';
  }
}

/**
 * type string -> decoder. Each feature module registers the types it owns (EventSourcingModule.forFeature);
 * the store boundary decodes through it: command handlers load typed, upcast streams, and the
 * projection runner hands projections typed events of the types they declared.
 */
export class EventTypeRegistry {
  private readonly decoders = new Map<string, EventDecoder | null>();
  private readonly encoders = new Map<string, EventStorageCodec['encode']>();

  register(definitions: EventDefinitions): void {
    for (const [type, definition] of Object.entries(definitions)) {
      const decoder = definition !== null && typeof definition === 'object' ? definition.decode : definition;
      if (this.decoders.has(type) && this.decoders.get(type) !== decoder) {
        throw new Error(`event type ${type} registered twice`);
      }
      this.decoders.set(type, decoder);
      if (definition !== null && typeof definition === 'object') this.encoders.set(type, definition.encode);
    }
  }

  has(type: string): boolean {
    return this.decoders.has(type);
  }

  types(): string[] {
    return [...this.decoders.keys()].sort();
  }

  /** The event with its data in the current shape; UnknownEventTypeError for a type nobody registered. */
  decode<E extends DomainEvent>(event: RecordedEvent): Recorded<E> {
    const decoder = this.decoders.get(event.type);
    if (decoder === undefined) throw new UnknownEventTypeError(event.type, event.streamId);
    // Types stored in their current shape pass as they are: no copy on the hot read path.
    return (decoder === null ? event : { ...event, data: decoder(event.data, event) }) as Recorded<E>;
  }

  /** The data as stored for an event going to `streamId` (its domain shape unless the type has a codec). */
  encode(type: string, data: unknown, streamId: string): unknown {
    const encoder = this.encoders.get(type);
    return encoder ? encoder(data, streamId) : data;
  }

  /** A stream's events decoded, typed as the stream's event union (each type was checked above). */
  decodeStream<E extends DomainEvent>(events: readonly RecordedEvent[]): E[] {
    return events.map((e) => this.decode<E>(e) as unknown as E);
  }
}

/** Process-wide registry: event types are static facts of the code base. */
export const eventTypes = new EventTypeRegistry();
