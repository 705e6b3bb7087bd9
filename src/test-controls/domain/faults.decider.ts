import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { type AppFaultsCleared, ControlsEventType, type FaultEvent, type FaultSet } from './fault-events';
import type { FaultSpec } from './fault-spec';

/** Faults an app may have at once (set and not cleared): bounds what every request of the app is matched against. */
export const MAX_FAULTS_PER_APP = 100;

export interface SetFault {
  kind: 'SetFault';
  appId: number;
  developerHubId: number;
  faultId: string;
  spec: FaultSpec;
  now: number;
}

export interface ClearFault {
  kind: 'ClearFault';
  appId: number;
  faultId: string;
  now: number;
}

export interface ClearAppFaults {
  kind: 'ClearAppFaults';
  appId: number;
  now: number;
}

export type FaultCommand = SetFault | ClearFault | ClearAppFaults;

/** The ids of the app's faults that are set and not cleared, oldest first. */
export interface AppFaultsState {
  faultIds: readonly string[];
}

/**
 * One app's faults. Setting records the whole fault (who and when are the event's metadata);
 * clearing an unknown fault is a 404; clearing all records the ids it cleared (nothing when there
 * were none). Expiry (`seconds`) and use (`times`) are not events: they follow from the clock and
 * from the answers, where the faults are applied.
 */
export const appFaultsDecider: Decider<AppFaultsState, FaultCommand, FaultEvent> = {
  initialState: () => ({ faultIds: [] }),
  evolve: (state, event) => {
    switch (event.type) {
      case ControlsEventType.FaultSet:
        return { faultIds: [...state.faultIds, event.data.faultId] };
      case ControlsEventType.FaultCleared:
        return { faultIds: state.faultIds.filter((id) => id !== event.data.faultId) };
      case ControlsEventType.AppFaultsCleared:
        return { faultIds: state.faultIds.filter((id) => !event.data.faultIds.includes(id)) };
    }
  },
  decide: (c, s) => {
    switch (c.kind) {
      case 'SetFault': {
        if (s.faultIds.length >= MAX_FAULTS_PER_APP) {
          throw HubSpotError.validation(`An app has at most ${MAX_FAULTS_PER_APP} faults; clear some first.`, [
            { message: `at most ${MAX_FAULTS_PER_APP} faults per app`, in: 'appId', code: 'TOO_MANY' },
          ]);
        }
        const set: FaultSet = {
          type: ControlsEventType.FaultSet,
          data: { ...c.spec, appId: c.appId, developerHubId: c.developerHubId, faultId: c.faultId, setAt: c.now },
        };
        return [set];
      }
      case 'ClearFault':
        if (!s.faultIds.includes(c.faultId)) {
          throw HubSpotError.notFound(`No fault ${c.faultId} on app ${c.appId}`);
        }
        return [
          { type: ControlsEventType.FaultCleared, data: { appId: c.appId, faultId: c.faultId, clearedAt: c.now } },
        ];
      case 'ClearAppFaults': {
        if (s.faultIds.length === 0) return [];
        const cleared: AppFaultsCleared = {
          type: ControlsEventType.AppFaultsCleared,
          data: { appId: c.appId, faultIds: [...s.faultIds], clearedAt: c.now },
        };
        return [cleared];
      }
    }
  },
};
