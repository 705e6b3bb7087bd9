/** The legacy Contacts API (v1) module's public surface. Everything else under src/contacts-v1 is internal (lint enforces it). */
export { ContactsV1Module } from './contacts-v1.module';
