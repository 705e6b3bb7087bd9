import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { nextSecond } from './access-token';
import { InstallEvent, OAuthEventType } from './oauth-events';

/** One app in one account. `installId` changes with every (re-)install, so old refresh tokens die with an uninstall. */
export type InstallState =
  | { status: 'never' }
  | {
      status: 'installed';
      installId: string;
      installingUserId: number;
      scopes: string[];
      installedAt: number;
      /** When an admin last expired the install's access tokens (InstallAccessTokensExpired); absent if never. */
      tokensExpiredAt?: number;
      /** The era of the install's clock that `tokensExpiredAt` is on (absent: 0). */
      tokensExpiredEpoch?: number;
    }
  | { status: 'uninstalled'; installId: string };

export type InstallCommand =
  | {
      type: 'RecordApproval';
      appId: number;
      hubId: number;
      userId: number;
      scopes: string[];
      /** Fresh random id, used only when this approval installs the app. */
      newInstallId: string;
      now: number;
    }
  | { type: 'Uninstall'; appId: number; hubId: number; now: number }
  /**
   * Every access token of the current install issued until now expires now (admin testing tool);
   * `now` on the install's clock, in its era `clockEpoch` (absent: 0).
   */
  | { type: 'ExpireInstallAccessTokens'; appId: number; hubId: number; now: number; clockEpoch?: number };

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((s) => b.includes(s));

export const installDecider: Decider<InstallState, InstallCommand, InstallEvent> = {
  initialState: () => ({ status: 'never' }),

  evolve: (state, event) => {
    switch (event.type) {
      case OAuthEventType.AppInstalled:
        return {
          status: 'installed',
          installId: event.data.installId,
          installingUserId: event.data.installingUserId,
          scopes: event.data.scopes,
          installedAt: event.data.installedAt,
        };
      case OAuthEventType.AppInstallScopesChanged:
        return state.status === 'installed' ? { ...state, scopes: event.data.scopes } : state;
      case OAuthEventType.AppUninstalled:
        return { status: 'uninstalled', installId: event.data.installId };
      case OAuthEventType.InstallAccessTokensExpired: {
        if (state.status !== 'installed' || state.installId !== event.data.installId) return state;
        const epoch = event.data.clockEpoch ?? 0;
        const known = state.tokensExpiredEpoch ?? 0;
        // Within one era of the install's clock an earlier expiry never moves the floor back; a later
        // era's expiry replaces it (its clock went back to real time).
        if (state.tokensExpiredAt !== undefined && epoch < known) return state;
        const expiredAt =
          state.tokensExpiredAt !== undefined && epoch === known
            ? Math.max(state.tokensExpiredAt, event.data.expiredAt)
            : event.data.expiredAt;
        return { ...state, tokensExpiredAt: expiredAt, ...(epoch > 0 ? { tokensExpiredEpoch: epoch } : {}) };
      }
      default:
        return state;
    }
  },

  decide: (command, state) => {
    switch (command.type) {
      case 'RecordApproval': {
        // The first approval in an account installs the app; a later one only updates its scopes.
        if (state.status !== 'installed') {
          return [
            {
              type: OAuthEventType.AppInstalled,
              data: {
                appId: command.appId,
                hubId: command.hubId,
                installId: command.newInstallId,
                installingUserId: command.userId,
                scopes: command.scopes,
                installedAt: command.now,
              },
            },
          ];
        }
        if (sameSet(state.scopes, command.scopes)) return [];
        return [
          {
            type: OAuthEventType.AppInstallScopesChanged,
            data: {
              appId: command.appId,
              hubId: command.hubId,
              installId: state.installId,
              scopes: command.scopes,
              changedAt: command.now,
            },
          },
        ];
      }
      case 'ExpireInstallAccessTokens': {
        if (state.status !== 'installed') throw notInstalled(command.appId, command.hubId);
        const clockEpoch = command.clockEpoch ?? 0;
        // Tokens issued since an expiry in this same second start at the next second (the floor):
        // a second expiry covers them too.
        const expiredAt = Math.max(command.now, accessTokenIssueFloor(state, clockEpoch));
        return [
          {
            type: OAuthEventType.InstallAccessTokensExpired,
            data: {
              appId: command.appId,
              hubId: command.hubId,
              installId: state.installId,
              expiredAt,
              ...(clockEpoch > 0 ? { clockEpoch } : {}),
            },
          },
        ];
      }
      case 'Uninstall':
        if (state.status !== 'installed') throw notInstalled(command.appId, command.hubId);
        return [
          {
            type: OAuthEventType.AppUninstalled,
            data: {
              appId: command.appId,
              hubId: command.hubId,
              installId: state.installId,
              uninstalledAt: command.now,
            },
          },
        ];
    }
  },
};

const notInstalled = (appId: number, hubId: number) =>
  HubSpotError.notFound(`The app ${appId} is not installed in account ${hubId}.`);

/** Whether tokens of `installId` may still be used (and so the install's current scopes are known). */
export function installIsActive(
  state: InstallState,
  installId: string,
): state is Extract<InstallState, { status: 'installed' }> {
  return state.status === 'installed' && state.installId === installId;
}

/**
 * The earliest issue time (epoch ms, whole second) a new access token of the install may carry: an
 * admin who expired the install's tokens expired that whole second, so the next token starts at the
 * following one. From the install's own stream, which both grants load anyway. Only in the era of the
 * install's clock the expiry was on (`clockEpoch`, InstallClocks.epochOf): after a reset the install's
 * tokens follow real time again, and the era alone tells them from the tokens issued before.
 */
export function accessTokenIssueFloor(state: InstallState, clockEpoch = 0): number {
  return state.status === 'installed' &&
    state.tokensExpiredAt !== undefined &&
    (state.tokensExpiredEpoch ?? 0) === clockEpoch
    ? nextSecond(state.tokensExpiredAt)
    : 0;
}
