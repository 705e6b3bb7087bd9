import { mintLimitsToken } from './limits-tokens';
import type { TestApp } from './test-app';

/** Every scope the records routes of the standard and custom types accept (read and write), and the schema scopes. */
export const RECORDS_TEST_SCOPES = [
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.objects.companies.read',
  'crm.objects.companies.write',
  'crm.objects.deals.read',
  'crm.objects.deals.write',
  'tickets',
  'crm.objects.custom.read',
  'crm.objects.custom.write',
  'crm.schemas.custom.read',
  'crm.schemas.custom.write',
  'crm.schemas.contacts.write',
  'crm.schemas.contacts.read',
  'crm.schemas.deals.write',
];

/** A bearer token of an install in `hubId`, signed by the app's keyring (what the token endpoint issues). */
export function mintRecordsToken(t: TestApp, hubId: number, scopes: string[] = RECORDS_TEST_SCOPES): string {
  return mintLimitsToken(t, { hubId, userId: 7, appId: 42, scopes });
}
