import { HubSpotError } from '../../platform/errors/hubspot-error';

/** The webhooks journal's refusals (the only place this module builds a HubSpotError). */

export const invalidSubscription = (field: string, message: string) =>
  HubSpotError.validation(`Invalid input (details will vary based on the error): ${field}`, [
    { message, in: field, code: 'INVALID_INPUT' },
  ]);

export const listsNotSupported = () =>
  HubSpotError.validation(
    'LIST_MEMBERSHIP subscriptions are not supported by this service: it has no CRM lists, so no list membership changes to journal.',
    [{ message: 'lists are not implemented', in: 'subscriptionType', code: 'UNSUPPORTED' }],
  );

export const subscriptionNotFound = (id: number) => HubSpotError.notFound(`Subscription ${id} was not found.`);

export const filterNotFound = (id: number) => HubSpotError.notFound(`Filter ${id} was not found.`);

export const snapshotStatusNotFound = (id: string) => HubSpotError.notFound(`Snapshot status ${id} was not found.`);

export const noJournalEntries = () =>
  HubSpotError.notFound('The journal holds no entry for this app (or this account) in the last 3 days.');

export const offsetNotFound = (offset: string) =>
  HubSpotError.notFound(`Offset ${offset} does not exist or has expired (entries are kept for 3 days).`);

export const noEntryAfter = (offset: string) => HubSpotError.notFound(`No journal entry follows offset ${offset} yet.`);

export const installPortalIdRequired = () =>
  HubSpotError.validation('Invalid input (details will vary based on the error): installPortalId', [
    {
      message: 'the local journal needs installPortalId, the account it reads',
      in: 'installPortalId',
      code: 'REQUIRED',
    },
  ]);

export const badInteger = (field: string, message: string) =>
  HubSpotError.validation(`Invalid input (details will vary based on the error): ${field}`, [
    { message, in: field, code: 'INVALID_INTEGER' },
  ]);

export const badOffset = (field: string) =>
  HubSpotError.validation(`Invalid input (details will vary based on the error): ${field}`, [
    { message: `${field} must be a journal offset (a UUID)`, in: field, code: 'INVALID_OFFSET' },
  ]);

/** The entry file's URL: signed by this service and short-lived. */
export const fileUrlRefused = () =>
  HubSpotError.forbidden('This journal file URL is invalid or has expired: ask the journal for a new one.');

export const fileEntryGone = () =>
  HubSpotError.notFound('This journal entry has expired (entries are kept for 3 days).');
