import { HubSpotError } from '../../platform/errors/hubspot-error';

/** The legacy Contacts API's errors (the module's catalogue), with HubSpot's v1 texts. */

/** No contact of the account has that vid or e-mail (HubSpot's v1 text). */
export const contactDoesNotExist = (): HubSpotError => HubSpotError.notFound('contact does not exist');

/** A query parameter the v1 endpoints cannot read. */
export const invalidParameter = (name: string, message: string): HubSpotError =>
  HubSpotError.validation(`Invalid ${name}`, [{ message, in: name, code: 'INVALID' }]);
