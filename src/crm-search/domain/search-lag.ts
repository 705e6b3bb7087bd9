import type { Decider } from '../../platform/commands/decider';
import type { EventDecoder, EventDefinitions } from '../../platform/events/event-type-registry';
import { searchLagOutOfRange } from './search-errors';

/**
 * The search lag test control (docs/testing-your-app.md): an account's searches see a record only
 * once it is `lagMs` old, as HubSpot's search index trails its writes. Off (0) unless set; set and
 * cleared as events, so the audit trail shows who set it.
 */
export const SearchEventType = {
  SearchLagSet: 'search.SearchLagSet',
} as const;

export interface SearchLagSet {
  type: typeof SearchEventType.SearchLagSet;
  data: { hubId: number; lagMs: number; setAt: number };
}

export type SearchEvent = SearchLagSet;

export const searchLagStream = (hubId: number) => `search.lag-${hubId}`;

export const searchEvents: EventDefinitions = {
  [SearchEventType.SearchLagSet]: null,
} satisfies Record<(typeof SearchEventType)[keyof typeof SearchEventType], EventDecoder | null>;

/** At most an hour: HubSpot's own lag is seconds; longer would only hide records by mistake. */
export const MAX_SEARCH_LAG_MS = 3_600_000;

export interface SetSearchLag {
  type: 'SetSearchLag';
  hubId: number;
  lagMs: number;
  now: number;
}

export interface SearchLagState {
  lagMs: number;
}

/** One account's search lag: a set to the value it has already decides nothing. */
export const searchLagDecider: Decider<SearchLagState, SetSearchLag, SearchEvent> = {
  initialState: () => ({ lagMs: 0 }),
  evolve: (_state, event) => ({ lagMs: event.data.lagMs }),
  decide: (c, s) => {
    if (!Number.isInteger(c.lagMs) || c.lagMs < 0 || c.lagMs > MAX_SEARCH_LAG_MS) {
      throw searchLagOutOfRange(MAX_SEARCH_LAG_MS);
    }
    if (c.lagMs === s.lagMs) return [];
    return [{ type: SearchEventType.SearchLagSet, data: { hubId: c.hubId, lagMs: c.lagMs, setAt: c.now } }];
  },
};
