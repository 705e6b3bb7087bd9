import type { EventDecoder, EventDefinitions } from '../../platform/events/event-type-registry';
import type { FaultSpec } from './fault-spec';

/** Event types of the test controls. Stable strings: they are what storage holds. */
export const ControlsEventType = {
  /** A fault was set on an app: who set it is the event's actor, when its time. */
  FaultSet: 'controls.FaultSet',
  /** One fault was cleared (DELETE …/faults/{faultId}). */
  FaultCleared: 'controls.FaultCleared',
  /** Every fault of the app was cleared at once (DELETE …/faults); names the ones it cleared. */
  AppFaultsCleared: 'controls.AppFaultsCleared',
} as const;

export interface FaultSet {
  type: typeof ControlsEventType.FaultSet;
  /** developerHubId: the app's developer account, whose developer API key also authenticates as the app. */
  data: FaultSpec & { appId: number; developerHubId: number; faultId: string; setAt: number };
}

export interface FaultCleared {
  type: typeof ControlsEventType.FaultCleared;
  data: { appId: number; faultId: string; clearedAt: number };
}

export interface AppFaultsCleared {
  type: typeof ControlsEventType.AppFaultsCleared;
  data: { appId: number; faultIds: string[]; clearedAt: number };
}

export type FaultEvent = FaultSet | FaultCleared | AppFaultsCleared;

/** One stream per app: its faults, set and cleared. */
export const appFaultsStream = (appId: number) => `controls.app-faults-${appId}`;

export const controlsEvents: EventDefinitions = {
  [ControlsEventType.FaultSet]: null,
  [ControlsEventType.FaultCleared]: null,
  [ControlsEventType.AppFaultsCleared]: null,
} satisfies Record<(typeof ControlsEventType)[keyof typeof ControlsEventType], EventDecoder | null>;
