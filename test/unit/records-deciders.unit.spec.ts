import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { checkPropertyValues, type PropertyRule } from '../../src/crm-records/domain/property-values';
import {
  recordDecider,
  RecordIdTaken,
  RESTORE_WINDOW_MS,
  type RecordCommand,
} from '../../src/crm-records/domain/record.decider';
import {
  CrmRecordEventType,
  type RecordArchived,
  type RecordCreated,
  type RecordIdVoided,
  type RecordMerged,
  type RecordPurged,
  type RecordPropertiesChanged,
  type RecordRestored,
  type UniqueValueClaimed,
} from '../../src/crm-records/domain/record-events';
import { recordIdsDecider } from '../../src/crm-records/domain/record-ids.decider';
import { uniqueValueClaimDecider } from '../../src/crm-records/domain/unique-value-claim.decider';
import { DeciderSpecification } from '../support/decider-specification';

const NOW = Date.UTC(2026, 10, 22, 9);
const HUB = 101;
const source = { appId: 42, userId: 7 };

const rule = (name: string, overrides: Partial<PropertyRule> = {}): PropertyRule => ({
  name,
  type: 'string',
  fieldType: 'text',
  options: [],
  openOptions: false,
  readOnly: false,
  unique: false,
  ...overrides,
});

const rules = new Map<string, PropertyRule>([
  ['email', rule('email', { unique: true })],
  ['firstname', rule('firstname')],
  ['amount', rule('amount', { type: 'number', fieldType: 'number' })],
  ['closedate', rule('closedate', { type: 'date', fieldType: 'date' })],
  ['lastcall', rule('lastcall', { type: 'datetime', fieldType: 'date' })],
  ['vip', rule('vip', { type: 'bool', fieldType: 'booleancheckbox' })],
  ['tier', rule('tier', { type: 'enumeration', fieldType: 'select', options: ['gold', 'silver'] })],
  ['colors', rule('colors', { type: 'enumeration', fieldType: 'checkbox', options: ['red', 'blue'] })],
  ['score', rule('score', { type: 'number', fieldType: 'calculation_equation', readOnly: true })],
  ['hs_object_id', rule('hs_object_id', { type: 'number', readOnly: true })],
]);

const facts = (id = 5, now = NOW) => ({ objectTypeId: '0-1', id, rules, now });

const create = (properties: Record<string, string>, id = 5): RecordCommand => ({
  type: 'CreateRecord',
  hubId: HUB,
  objectType: 'contacts',
  properties,
  source,
  facts: facts(id),
});

const update = (properties: Record<string, string>, now = NOW + 1000): RecordCommand => ({
  type: 'UpdateRecord',
  hubId: HUB,
  objectType: 'contacts',
  recordId: '5',
  properties,
  source,
  facts: facts(5, now),
});

const archive = (now = NOW + 2000): RecordCommand => ({
  type: 'ArchiveRecord',
  hubId: HUB,
  objectType: 'contacts',
  recordId: '5',
  source,
  facts: { objectTypeId: '0-1', id: 5, now },
});

const created = (properties: Record<string, string>): RecordCreated => ({
  type: CrmRecordEventType.RecordCreated,
  data: { hubId: HUB, objectTypeId: '0-1', id: 5, properties, createdAt: NOW, ...source },
});

const changed = (changes: Record<string, string>, changedAt = NOW + 1000): RecordPropertiesChanged => ({
  type: CrmRecordEventType.RecordPropertiesChanged,
  data: { hubId: HUB, objectTypeId: '0-1', id: 5, changes, changedAt, ...source },
});

const archived: RecordArchived = {
  type: CrmRecordEventType.RecordArchived,
  data: { hubId: HUB, objectTypeId: '0-1', id: 5, archivedAt: NOW + 2000, ...source },
};

const voided: RecordIdVoided = {
  type: CrmRecordEventType.RecordIdVoided,
  data: { hubId: HUB, objectTypeId: '0-1', id: 5, voidedAt: NOW },
};

const validationErrors = (e: unknown) => {
  expect(e).toBeInstanceOf(HubSpotError);
  const error = e as HubSpotError;
  expect(error).toMatchObject({ httpStatus: 400, category: 'VALIDATION_ERROR' });
  return error.extras.errors;
};

describe('record decider', () => {
  const spec = DeciderSpecification.for(recordDecider);

  it('creates a record with its checked values (empty values are not stored)', () => {
    spec
      .given([])
      .when(create({ email: 'ada@example.com', firstname: '', amount: ' 12.5 ', vip: 'TRUE' }))
      .then([created({ email: 'ada@example.com', amount: '12.5', vip: 'true' })]);
  });

  it('a fresh id whose stream exists or was voided is taken', () => {
    spec
      .given([created({})])
      .when(create({}))
      .thenThrows(RecordIdTaken);
    spec.given([voided]).when(create({})).thenThrows(RecordIdTaken);
  });

  it('refuses unknown, read-only and calculated properties with every problem at once', () => {
    const error = spec
      .given([])
      .when(create({ nosuch: 'x', score: '1', hs_object_id: '9' }))
      .thenThrows();
    expect(validationErrors(error)).toEqual([
      { message: 'Property "nosuch" does not exist', in: 'nosuch', code: 'PROPERTY_DOESNT_EXIST' },
      { message: 'score is a read only property; its value cannot be set.', in: 'score', code: 'READ_ONLY_VALUE' },
      {
        message: 'hs_object_id is a read only property; its value cannot be set.',
        in: 'hs_object_id',
        code: 'READ_ONLY_VALUE',
      },
    ]);
    expect((error as HubSpotError).message).toMatch(
      /^Property values were not valid: \[\{"isValid":false,"message":"Property \\"nosuch\\" does not exist","error":"PROPERTY_DOESNT_EXIST","name":"nosuch","localizedErrorMessage":.*"portalId":101\}/,
    );
  });

  it('records only the values that change; no change decides nothing', () => {
    const given = [created({ email: 'ada@example.com', firstname: 'Ada' })];
    spec
      .given(given)
      .when(update({ firstname: 'Ada', amount: '3' }))
      .then([changed({ amount: '3' })]);
    spec
      .given(given)
      .when(update({ firstname: 'Ada' }))
      .thenNothing();
    spec
      .given(given)
      .when(update({ firstname: '' }))
      .then([changed({ firstname: '' })]);
    spec
      .given([...given, changed({ firstname: '' })])
      .when(update({ firstname: 'Ada' }))
      .thenState((s) => expect(s.properties).toEqual({ email: 'ada@example.com', firstname: 'Ada' }));
  });

  it('an unknown or archived record cannot be updated (404)', () => {
    const missing = spec
      .given([])
      .when(update({ firstname: 'x' }))
      .thenThrows(HubSpotError);
    expect(missing).toMatchObject({ httpStatus: 404, category: 'OBJECT_NOT_FOUND' });
    spec
      .given([created({}), archived])
      .when(update({ firstname: 'x' }))
      .thenThrows((e: HubSpotError) => e.httpStatus === 404);
  });

  it('archives once; an archived or unknown record decides nothing', () => {
    spec
      .given([created({})])
      .when(archive())
      .then([archived]);
    spec
      .given([created({}), archived])
      .when(archive())
      .thenNothing();
    spec.given([]).when(archive()).thenNothing();
  });

  it('voids an id only while its stream holds no record', () => {
    const void_: RecordCommand = {
      type: 'VoidRecordId',
      hubId: HUB,
      source: { appId: null, userId: null },
      facts: { objectTypeId: '0-1', id: 5, now: NOW },
    };
    spec.given([]).when(void_).then([voided]);
    spec.given([voided]).when(void_).thenNothing();
    spec
      .given([created({ email: 'a@b.c' })])
      .when(void_)
      .thenNothing();
  });
});

describe('record decider: merge and GDPR delete', () => {
  const spec = DeciderSpecification.for(recordDecider);
  const facts5 = { objectTypeId: '0-1', id: 5, now: NOW + 3000 };
  const mergeInto = (primaryId: number): RecordCommand => ({
    type: 'MergeRecordInto',
    hubId: HUB,
    objectType: 'contacts',
    recordId: '5',
    primaryId,
    source,
    facts: facts5,
  });
  const merged: RecordMerged = {
    type: CrmRecordEventType.RecordMerged,
    data: { hubId: HUB, objectTypeId: '0-1', id: 5, into: 9, mergedAt: NOW + 3000, ...source },
  };
  const absorb = (mergedProperties: Record<string, string>): RecordCommand => ({
    type: 'AbsorbMergedRecord',
    hubId: HUB,
    objectType: 'contacts',
    recordId: '5',
    mergedId: 6,
    mergedProperties,
    source,
    facts: facts5,
  });
  const purge: RecordCommand = {
    type: 'PurgeRecord',
    hubId: HUB,
    objectType: 'contacts',
    recordId: '5',
    source: { appId: null, userId: null },
    facts: facts5,
  };
  const purged: RecordPurged = {
    type: CrmRecordEventType.RecordPurged,
    data: { hubId: HUB, objectTypeId: '0-1', id: 5, purgedAt: NOW + 3000 },
  };

  it('the record merged away is marked once, then takes no writes; never into itself', () => {
    spec
      .given([created({ email: 'a@b.c' })])
      .when(mergeInto(9))
      .then([merged]);
    spec
      .given([created({}), merged])
      .when(mergeInto(9))
      .thenThrows((e: HubSpotError) => e.httpStatus === 404);
    spec
      .given([created({}), merged])
      .when(update({ firstname: 'x' }))
      .thenThrows(HubSpotError);
    spec
      .given([created({}), merged])
      .when(archive())
      .thenNothing();
    spec
      .given([created({})])
      .when(mergeInto(5))
      .thenThrows(HubSpotError);
    spec.given([]).when(mergeInto(9)).thenThrows(HubSpotError);
  });

  it('the primary takes the merged values only where it has none', () => {
    spec
      .given([created({ email: 'p@b.c', firstname: 'P' })])
      .when(absorb({ email: 'o@b.c', firstname: 'O', lastname: 'L' }))
      .then([changed({ lastname: 'L', hs_merged_object_ids: '6', hs_additional_emails: 'o@b.c' }, NOW + 3000)]);
    // Its own earlier merges and the merged record's are kept.
    spec
      .given([created({ firstname: 'P', hs_merged_object_ids: '3' })])
      .when(absorb({ firstname: 'O', hs_merged_object_ids: '4;5' }))
      .then([changed({ hs_merged_object_ids: '3;4;5;6' }, NOW + 3000)]);
  });

  it('a contact keeps the merged contact’s e-mails as additional ones (its own e-mail apart, no repeats)', () => {
    spec
      .given([created({ email: 'p@b.c', hs_additional_emails: 'x@b.c' })])
      .when(absorb({ email: 'O@b.c', hs_additional_emails: 'y@b.c;p@b.c' }))
      .then([changed({ hs_merged_object_ids: '6', hs_additional_emails: 'x@b.c;o@b.c;y@b.c' }, NOW + 3000)]);
    // Without an e-mail of its own, the primary takes the merged one as its e-mail.
    spec
      .given([created({ firstname: 'P' })])
      .when(absorb({ email: 'o@b.c' }))
      .then([changed({ email: 'o@b.c', hs_merged_object_ids: '6' }, NOW + 3000)]);
  });

  it('GDPR delete: once, of an existing record (archived too); the id is never used again', () => {
    spec
      .given([created({ email: 'a@b.c' }), archived])
      .when(purge)
      .then([purged]);
    spec
      .given([created({}), purged])
      .when(purge)
      .thenNothing();
    spec.given([]).when(purge).thenNothing();
    spec.given([purged]).when(create({})).thenThrows(RecordIdTaken);
    spec
      .given([created({ email: 'a@b.c' })])
      .when(purge)
      .thenState((s) => expect(s.properties).toEqual({}));
  });
});

describe('record decider: restore', () => {
  const spec = DeciderSpecification.for(recordDecider);
  const ARCHIVED_AT = NOW + 2000;
  const restore = (now: number, by = { appId: null, userId: 7 }): RecordCommand => ({
    type: 'RestoreRecord',
    hubId: HUB,
    objectType: 'contacts',
    recordId: '5',
    source: by,
    facts: { objectTypeId: '0-1', id: 5, now },
  });
  const restored = (properties: Record<string, string>, restoredAt: number): RecordRestored => ({
    type: CrmRecordEventType.RecordRestored,
    data: {
      hubId: HUB,
      objectTypeId: '0-1',
      id: 5,
      properties,
      createdAt: NOW,
      archivedAt: ARCHIVED_AT,
      restoredAt,
      appId: null,
      userId: 7,
    },
  });

  it('an archived record is live again with the values it had, its creation time and its archive time', () => {
    spec
      .given([created({ email: 'a@b.c' }), changed({ firstname: 'Ada' }), archived])
      .when(restore(ARCHIVED_AT + 60_000))
      .then([restored({ email: 'a@b.c', firstname: 'Ada' }, ARCHIVED_AT + 60_000)]);
    spec
      .given([created({ email: 'a@b.c' }), archived, restored({ email: 'a@b.c' }, ARCHIVED_AT + 1)])
      .when(update({ firstname: 'x' }, ARCHIVED_AT + 2))
      .then([changed({ firstname: 'x' }, ARCHIVED_AT + 2)]);
  });

  it('within 90 days of the archive (the last instant included), refused after with HubSpot’s 400', () => {
    spec
      .given([created({}), archived])
      .when(restore(ARCHIVED_AT + RESTORE_WINDOW_MS))
      .then([restored({}, ARCHIVED_AT + RESTORE_WINDOW_MS)]);
    const late = spec
      .given([created({}), archived])
      .when(restore(ARCHIVED_AT + RESTORE_WINDOW_MS + 1))
      .thenThrows(HubSpotError);
    expect(late).toMatchObject({
      httpStatus: 400,
      category: 'VALIDATION_ERROR',
      message: 'The record was archived more than 90 days ago and can no longer be restored.',
      extras: { subCategory: 'RESTORE_WINDOW_PASSED' },
    });
  });

  it('the window counts from the latest archive: archived again after a restore, it has 90 days again', () => {
    const rearchived: RecordArchived = {
      type: CrmRecordEventType.RecordArchived,
      data: { ...archived.data, archivedAt: ARCHIVED_AT + RESTORE_WINDOW_MS },
    };
    spec
      .given([created({}), archived, restored({}, ARCHIVED_AT + 10), rearchived])
      .when(restore(ARCHIVED_AT + RESTORE_WINDOW_MS + 5))
      .thenState((s) => expect(s).toMatchObject({ archived: false, archivedAt: null }));
  });

  it('a live record decides nothing; an unknown, merged or purged one is 404', () => {
    spec
      .given([created({})])
      .when(restore(NOW + 5))
      .thenNothing();
    spec
      .given([])
      .when(restore(NOW))
      .thenThrows((e: HubSpotError) => e.httpStatus === 404);
    const merged: RecordMerged = {
      type: CrmRecordEventType.RecordMerged,
      data: { hubId: HUB, objectTypeId: '0-1', id: 5, into: 9, mergedAt: NOW + 1, ...source },
    };
    spec
      .given([created({}), merged])
      .when(restore(NOW + 2))
      .thenThrows((e: HubSpotError) => e.httpStatus === 404);
    const purged: RecordPurged = {
      type: CrmRecordEventType.RecordPurged,
      data: { hubId: HUB, objectTypeId: '0-1', id: 5, purgedAt: NOW + 1 },
    };
    spec
      .given([purged])
      .when(restore(NOW + 2))
      .thenThrows((e: HubSpotError) => e.httpStatus === 404);
  });
});

describe('property values as HubSpot checks them', () => {
  const check = (input: Record<string, string>) => checkPropertyValues(input, rules);

  it('numbers', () => {
    expect(check({ amount: '-1.5e3' })).toEqual({ values: { amount: '-1.5e3' }, problems: [] });
    expect(check({ amount: 'lots' }).problems).toEqual([
      { error: 'INVALID_FLOAT', name: 'amount', message: '"lots" was not a valid number.' },
    ]);
  });

  it('dates: midnight UTC as YYYY-MM-DD or epoch milliseconds', () => {
    expect(check({ closedate: '2026-03-30' }).values).toEqual({ closedate: '2026-03-30' });
    expect(check({ closedate: String(Date.UTC(2026, 2, 30)) }).values).toEqual({ closedate: '2026-03-30' });
    expect(check({ closedate: String(Date.UTC(2026, 2, 30, 1)) }).problems).toEqual([
      { error: 'INVALID_DATE', name: 'closedate', message: '"1774832400000" is at 01:00:00.000 UTC, not midnight!' },
    ]);
    expect(check({ closedate: '2026-02-30' }).problems[0]).toMatchObject({ error: 'INVALID_DATE' });
    expect(check({ closedate: 'soon' }).problems[0]).toMatchObject({ error: 'INVALID_DATE' });
  });

  it('date-times: epoch milliseconds or ISO 8601, stored as ISO 8601 UTC', () => {
    expect(check({ lastcall: String(NOW) }).values).toEqual({ lastcall: '2026-11-22T09:00:00.000Z' });
    expect(check({ lastcall: '2026-11-22T10:00:00+01:00' }).values).toEqual({ lastcall: '2026-11-22T09:00:00.000Z' });
    expect(check({ lastcall: 'yesterday' }).problems[0]).toMatchObject({ error: 'INVALID_LONG', name: 'lastcall' });
  });

  it('booleans', () => {
    expect(check({ vip: 'False' }).values).toEqual({ vip: 'false' });
    expect(check({ vip: 'yes' }).problems[0]).toMatchObject({ error: 'INVALID_BOOLEAN' });
  });

  it('enumerations: one option, or several separated by ; for checkboxes', () => {
    expect(check({ tier: 'gold', colors: 'red;blue' }).values).toEqual({ tier: 'gold', colors: 'red;blue' });
    expect(check({ tier: 'bronze' }).problems).toEqual([
      { error: 'INVALID_OPTION', name: 'tier', message: '"bronze" was not one of the allowed options: [gold, silver]' },
    ]);
    expect(check({ colors: 'red;green' }).problems[0]).toMatchObject({ error: 'INVALID_OPTION', name: 'colors' });
  });

  it('an empty value clears whatever the type', () => {
    expect(check({ amount: '', closedate: ' ', tier: '' }).values).toEqual({ amount: '', closedate: '', tier: '' });
  });
});

describe('unique value claim decider', () => {
  const spec = DeciderSpecification.for(uniqueValueClaimDecider);
  const claim = (id: number, takeOver?: number) => ({
    type: 'ClaimUniqueValue' as const,
    hubId: HUB,
    objectTypeId: '0-1',
    property: 'email',
    id,
    now: NOW,
    ...(takeOver !== undefined ? { takeOver } : {}),
  });
  const claimed = (id: number): UniqueValueClaimed => ({
    type: CrmRecordEventType.UniqueValueClaimed,
    data: { hubId: HUB, objectTypeId: '0-1', property: 'email', id, claimedAt: NOW },
  });

  it('a free value is claimed; the holder claiming again decides nothing', () => {
    spec
      .given([])
      .when(claim(5))
      .then([claimed(5)]);
    spec
      .given([claimed(5)])
      .when(claim(5))
      .thenNothing();
  });

  it('a contact e-mail held by another record: 409 with HubSpot’s exact text', () => {
    const error = spec
      .given([claimed(5)])
      .when(claim(6))
      .thenThrows(HubSpotError);
    expect(error).toMatchObject({
      httpStatus: 409,
      category: 'CONFLICT',
      message: 'Contact already exists. Existing ID: 5',
    });
  });

  it('moves only from the holder the caller found no longer holding it', () => {
    spec
      .given([claimed(5)])
      .when(claim(6, 5))
      .then([claimed(6)]);
    spec
      .given([claimed(5), claimed(7)])
      .when(claim(6, 5))
      .thenThrows(HubSpotError);
  });

  it('other unique properties say which property', () => {
    const error = spec
      .given([{ ...claimed(5), data: { ...claimed(5).data, objectTypeId: '2-9', property: 'sku' } }])
      .when({ ...claim(6), objectTypeId: '2-9', property: 'sku' })
      .thenThrows(HubSpotError);
    expect(error.message).toMatch(/unique property sku .* Existing ID: 5$/);
  });
});

describe('record ids decider', () => {
  const spec = DeciderSpecification.for(recordIdsDecider);
  it('reserves consecutive ranges from 1', () => {
    const first = spec.given([]).when({ type: 'ReserveRecordIds', hubId: HUB, count: 1000, now: NOW }).events();
    expect(first[0]!.data).toEqual({ hubId: HUB, from: 1, count: 1000, reservedAt: NOW });
    spec
      .given(first)
      .when({ type: 'ReserveRecordIds', hubId: HUB, count: 10, now: NOW })
      .then([
        { type: CrmRecordEventType.RecordIdsReserved, data: { hubId: HUB, from: 1001, count: 10, reservedAt: NOW } },
      ]);
  });
});
