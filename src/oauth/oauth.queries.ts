/** The installs read model as other modules may read it (the lint allows this file): installs per app and account. */
export { InstallQueries, type InstallView } from './application/install.queries';
