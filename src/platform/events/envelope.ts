/**
 * The stored shape of every event. `type` is an explicit, stable string such as
 * `directory.AppRegistered`; class names never reach storage.
 */
export interface EventMetadata {
  eventId: string;
  correlationId: string;
  causationId: string | null;
  /** Who caused it: `admin`, `user:123`, `app:42`, `system:migration-worker`, ... */
  actor: string;
  /** Epoch milliseconds. */
  occurredAt: number;
}

export interface DomainEvent<TType extends string = string, TData = unknown> {
  type: TType;
  data: TData;
}

export interface NewEvent<TData = unknown> extends DomainEvent<string, TData> {
  metadata: EventMetadata;
}

export interface RecordedEvent<TData = unknown> extends NewEvent<TData> {
  streamId: string;
  /** 0-based revision of this event in its stream. */
  revision: number;
  /** Position in the global feed; strictly increasing, 1-based. */
  position: number;
}

/** Everything a command needs to stamp metadata on the events it causes. */
export interface CommandContext {
  correlationId: string;
  causationId?: string | null;
  actor: string;
}
