/**
 * The directory's published events: the types and data shapes other modules may read from the
 * global feed (webhooks follow an app's client secret, which signs its deliveries). They are the very
 * definitions the directory decides and stores (domain/directory-events.ts). Import this file directly.
 */
export { DirectoryEventType, type AppClientSecretRotated, directoryEvents } from './domain/directory-events';
