import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { EventDefinitions } from '../../platform/events/event-type-registry';

/**
 * An install's own clock (docs/testing-your-app.md), like Stripe's test clocks for one install: an
 * offset added to the service's time wherever the install's access tokens and authorization codes
 * are issued or checked. It only moves forward, by whole seconds, until it is reset to real time.
 */
export const InstallClockEventType = {
  /** The install's time moved forward: who did it is the event's actor, when its (real) time. */
  InstallClockAdvanced: 'oauth.InstallClockAdvanced',
  /** The install returned to real time. */
  InstallClockReset: 'oauth.InstallClockReset',
} as const;

/** At most ten years (of 365 days) ahead in all: far past any token or code lifetime, and safe for every date. */
export const MAX_INSTALL_CLOCK_OFFSET_SECONDS = 10 * 365 * 24 * 60 * 60;

export interface InstallClockAdvanced {
  type: typeof InstallClockEventType.InstallClockAdvanced;
  /** offsetSeconds: the install's whole offset after this advance; advancedAt: real time. */
  data: { appId: number; hubId: number; advanceSeconds: number; offsetSeconds: number; advancedAt: number };
}

export interface InstallClockReset {
  type: typeof InstallClockEventType.InstallClockReset;
  /** offsetSeconds: the offset that was dropped. */
  data: { appId: number; hubId: number; offsetSeconds: number; resetAt: number };
}

export type InstallClockEvent = InstallClockAdvanced | InstallClockReset;

export interface AdvanceInstallClock {
  type: 'AdvanceInstallClock';
  appId: number;
  hubId: number;
  advanceSeconds: number;
  now: number;
}

export interface ResetInstallClock {
  type: 'ResetInstallClock';
  appId: number;
  hubId: number;
  now: number;
}

export type InstallClockCommand = AdvanceInstallClock | ResetInstallClock;

export interface InstallClockState {
  offsetSeconds: number;
}

/** One stream per (app, account): the clock outlives an uninstall, as the install stream does. */
export const installClockStream = (appId: number, hubId: number) => `oauth.install-clock-${appId}-${hubId}`;

export const installClockEvents: EventDefinitions = {
  [InstallClockEventType.InstallClockAdvanced]: null,
  [InstallClockEventType.InstallClockReset]: null,
} satisfies Record<InstallClockEvent['type'], EventDefinitions[string]>;

const tooFar = (offsetSeconds: number) =>
  HubSpotError.validation(
    `An install's clock goes at most ${MAX_INSTALL_CLOCK_OFFSET_SECONDS} seconds (10 years) ahead; it is ${offsetSeconds} seconds ahead now.`,
    [
      {
        message: `the install's whole offset may not pass ${MAX_INSTALL_CLOCK_OFFSET_SECONDS} seconds`,
        in: 'advanceSeconds',
        code: 'TOO_LARGE',
      },
    ],
  );

/**
 * Advancing adds to the offset (cumulative; 0 records nothing); resetting drops it (nothing when
 * the install runs on real time already). The bound is on the whole offset.
 */
export const installClockDecider: Decider<InstallClockState, InstallClockCommand, InstallClockEvent> = {
  initialState: () => ({ offsetSeconds: 0 }),
  evolve: (state, event) => {
    switch (event.type) {
      case InstallClockEventType.InstallClockAdvanced:
        return { offsetSeconds: event.data.offsetSeconds };
      case InstallClockEventType.InstallClockReset:
        return { offsetSeconds: 0 };
    }
  },
  decide: (c, s) => {
    switch (c.type) {
      case 'AdvanceInstallClock': {
        if (!Number.isSafeInteger(c.advanceSeconds) || c.advanceSeconds < 0) {
          throw HubSpotError.validation('advanceSeconds must be a whole number of seconds, 0 or more.', [
            { message: 'expected an integer of 0 or more', in: 'advanceSeconds', code: 'INVALID_INTEGER' },
          ]);
        }
        if (c.advanceSeconds === 0) return [];
        const offsetSeconds = s.offsetSeconds + c.advanceSeconds;
        if (offsetSeconds > MAX_INSTALL_CLOCK_OFFSET_SECONDS) throw tooFar(s.offsetSeconds);
        return [
          {
            type: InstallClockEventType.InstallClockAdvanced,
            data: {
              appId: c.appId,
              hubId: c.hubId,
              advanceSeconds: c.advanceSeconds,
              offsetSeconds,
              advancedAt: c.now,
            },
          },
        ];
      }
      case 'ResetInstallClock':
        if (s.offsetSeconds === 0) return [];
        return [
          {
            type: InstallClockEventType.InstallClockReset,
            data: { appId: c.appId, hubId: c.hubId, offsetSeconds: s.offsetSeconds, resetAt: c.now },
          },
        ];
    }
  },
};
