/** The ids a stream id names for an event: its account, its app. */
export interface StreamNamedIds {
  hubId?: number;
  appId?: number;
}

const readers = new Map<string, (streamId: string) => StreamNamedIds | null>();

/**
 * For event types whose data is large and whose stream id already names the account or app the data
 * does (a webhook delivery attempt: 10–25 KB of items, on `webhooks.request-{appId}-…`), readers that
 * need only those ids (the console's audit index and its filter) take them from the stream id and
 * leave the data unparsed. The owning module registers the reader with its event types; it must
 * give what the data's top-level `hubId`/`appId` fields give. Null: read the data as for any type.
 */
export const streamNamedIds = {
  register(type: string, read: (streamId: string) => StreamNamedIds | null): void {
    if (readers.has(type) && readers.get(type) !== read) throw new Error(`stream ids of ${type} registered twice`);
    readers.set(type, read);
  },
  of(event: { type: string; streamId: string }): StreamNamedIds | null {
    const read = readers.get(event.type);
    return read ? read(event.streamId) : null;
  },
};
