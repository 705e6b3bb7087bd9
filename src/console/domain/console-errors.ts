/**
 * The console's refusals: an HTML page with a status, never HubSpot's JSON Error body (the console
 * is a set of pages for a person). The only place the console makes one.
 */
export class ConsolePageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

export const consoleErrors = {
  /** CONSOLE_ENABLED=false: the console does not exist. */
  off: () => new ConsolePageError(404, 'Not found', 'There is no page here.'),
  notFound: (what: string) => new ConsolePageError(404, 'Not found', `${what} does not exist.`),
  badInput: (what: string) => new ConsolePageError(400, 'That request cannot be shown', what),
  formExpired: () =>
    new ConsolePageError(
      403,
      'This form has expired',
      'The form was not sent from this console, or your session ended. Sign in again and repeat the action.',
    ),
  wrongAdminKey: () => new ConsolePageError(401, 'Sign-in refused', 'That is not this service’s admin key.'),
  backwardsReadUnsupported: () =>
    new ConsolePageError(
      501,
      'The audit trail needs the SQLite store',
      'This event store cannot read its feed newest first; GET /admin/v1/events pages it oldest first.',
    ),
};
