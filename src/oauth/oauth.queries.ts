/** The OAuth read models as other modules may read them (the lint allows this file): installs, tokens outstanding. */
export { InstallQueries, type InstallView } from './application/install.queries';
export { OutstandingTokensQueries, type OutstandingTokensView } from './application/outstanding-tokens.queries';
