import type { RecordedEvent } from './envelope';

/** Checks (and, if ever needed, upcasts) the data of one stored event type. */
export type EventDecoder<T = unknown> = (data: unknown) => T;

/**
 * type string -> decoder. Modules register the types they own at start-up; readers decode
 * through it so that a renamed class or a malformed row never silently becomes a domain object.
 */
export class EventTypeRegistry {
  private readonly decoders = new Map<string, EventDecoder>();

  register(type: string, decoder: EventDecoder = (d) => d): void {
    const existing = this.decoders.get(type);
    if (existing && existing !== decoder) throw new Error(`event type ${type} registered twice`);
    this.decoders.set(type, decoder);
  }

  registerAll(types: readonly string[]): void {
    for (const t of types) this.register(t);
  }

  has(type: string): boolean {
    return this.decoders.has(type);
  }

  types(): string[] {
    return [...this.decoders.keys()].sort();
  }

  /** Returns the event with decoded data, or null for a type nobody registered. */
  decode<T>(event: RecordedEvent): RecordedEvent<T> | null {
    const decoder = this.decoders.get(event.type);
    if (!decoder) return null;
    return { ...event, data: decoder(event.data) as T };
  }
}

/** Process-wide registry: event types are static facts of the code base. */
export const eventTypes = new EventTypeRegistry();
