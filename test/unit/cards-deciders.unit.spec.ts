import { fold } from '../../src/platform/commands/decider';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { appCardDecider } from '../../src/cards/domain/app-card.decider';
import { AppCardTargetTaken, appCardTargetDecider } from '../../src/cards/domain/app-card-target.decider';
import { CardsEventType, type LegacyCardDefinition } from '../../src/cards/domain/card-events';
import { cardMigrationDecider } from '../../src/cards/domain/card-migration.decider';
import { applyPatch, CardIdTaken, legacyCardDecider } from '../../src/cards/domain/legacy-card.decider';
import { portalCardMigrationDecider } from '../../src/cards/domain/portal-card-migration.decider';
import type { DomainEvent } from '../../src/platform/events/envelope';

/** given (history) / when (command) / then (events or error), emmett style. */
function spec<S, C, E extends DomainEvent>(decider: {
  initialState: () => S;
  evolve: (s: S, e: E) => S;
  decide: (c: C, s: S) => E[];
}) {
  return (given: E[]) => ({
    when: (command: C) => {
      const run = () => decider.decide(command, fold(decider.evolve, decider.initialState(), given));
      return {
        then: (expected: E[]) => expect(run()).toEqual(expected),
        thenThrows: (check: (e: unknown) => void) => {
          let thrown: unknown = null;
          try {
            run();
          } catch (e) {
            thrown = e;
          }
          expect(thrown).not.toBeNull();
          check(thrown);
        },
      };
    },
  });
}

const definition: LegacyCardDefinition = {
  title: 'PetSpot',
  fetch: {
    targetUrl: 'https://www.example.com/hubspot/target',
    objectTypes: [{ name: 'contacts', propertiesToSend: ['email', 'firstname'] }],
  },
  display: { properties: [{ name: 'pet_name', label: 'Pets Name', dataType: 'STRING', options: [] }] },
  actions: { baseUrls: ['https://www.example.com/hubspot'] },
};

const created = {
  type: CardsEventType.LegacyCardCreated,
  data: { cardId: '1000001', appId: 7, definition, createdAt: 100, userId: 3 },
} as const;

const httpStatus = (e: unknown) => (e as HubSpotError).httpStatus;

describe('legacy card decider', () => {
  const given = spec(legacyCardDecider);

  it('creates a card on an empty stream', () => {
    given([])
      .when({ kind: 'CreateLegacyCard', cardId: '1000001', appId: 7, definition, userId: 3, now: 100 })
      .then([created]);
  });

  it('refuses a taken id, whatever took it (legacy or app card), so the allocator moves on', () => {
    given([created])
      .when({ kind: 'CreateLegacyCard', cardId: '1000001', appId: 7, definition, userId: 3, now: 100 })
      .thenThrows((e) => expect(e).toBeInstanceOf(CardIdTaken));
    given([
      {
        type: CardsEventType.AppCardCreated,
        data: { appCardId: '1000001', appId: 7, title: 'x', objectTypes: ['deals'], createdAt: 1 },
      },
    ] as never)
      .when({ kind: 'CreateLegacyCard', cardId: '1000001', appId: 7, definition, userId: 3, now: 100 })
      .thenThrows((e) => expect(e).toBeInstanceOf(CardIdTaken));
  });

  it('patches: given parts replace, an omitted fetch.targetUrl is kept, the whole result is recorded', () => {
    const patch = { title: 'PetSpot 2', fetch: { objectTypes: [{ name: 'tickets' as const, propertiesToSend: [] }] } };
    given([created])
      .when({ kind: 'UpdateLegacyCard', cardId: '1000001', appId: 7, patch, userId: 4, now: 200 })
      .then([
        {
          type: CardsEventType.LegacyCardUpdated,
          data: {
            cardId: '1000001',
            appId: 7,
            changed: ['title', 'fetch'],
            definition: {
              ...definition,
              title: 'PetSpot 2',
              fetch: {
                targetUrl: definition.fetch.targetUrl,
                objectTypes: [{ name: 'tickets', propertiesToSend: [] }],
              },
            },
            updatedAt: 200,
            userId: 4,
          },
        },
      ]);
  });

  it('applyPatch leaves the original untouched', () => {
    const before = structuredClone(definition);
    applyPatch(definition, { actions: { baseUrls: [] }, display: { properties: [] } });
    expect(definition).toEqual(before);
  });

  it.each([
    ['a missing card', [] as never[], 7],
    ['a card of another app', [created], 8],
    [
      'a deleted card',
      [
        created,
        { type: CardsEventType.LegacyCardDeleted, data: { cardId: '1000001', appId: 7, deletedAt: 150, userId: 3 } },
      ],
      7,
    ],
    [
      'an app card id',
      [
        {
          type: CardsEventType.AppCardCreated,
          data: { appCardId: '1000001', appId: 7, title: 'x', objectTypes: ['deals'], createdAt: 1 },
        },
      ],
      7,
    ],
  ])('updating or deleting %s is 404', (_name, history, appId) => {
    for (const command of [
      { kind: 'UpdateLegacyCard' as const, cardId: '1000001', appId, patch: { title: 'x' }, userId: 1, now: 1 },
      {
        kind: 'DeleteLegacyCard' as const,
        cardId: '1000001',
        appId,
        userId: 1,
        now: 1,
        migrationStatus: 'none' as const,
      },
    ]) {
      given(history as never)
        .when(command)
        .thenThrows((e) => {
          expect(httpStatus(e)).toBe(404);
          expect((e as HubSpotError).category).toBe('OBJECT_NOT_FOUND');
        });
    }
  });

  it('deletes a live card once', () => {
    const deleted = {
      type: CardsEventType.LegacyCardDeleted,
      data: { cardId: '1000001', appId: 7, deletedAt: 300, userId: 5 },
    };
    given([created])
      .when({ kind: 'DeleteLegacyCard', cardId: '1000001', appId: 7, userId: 5, now: 300, migrationStatus: 'none' })
      .then([deleted] as never);
  });

  describe('migration marker: the card stream serializes a migration start with deletes', () => {
    const mark = {
      kind: 'MarkLegacyCardMigrating' as const,
      cardId: '1000001',
      appId: 7,
      appCardId: '1000002',
      now: 400,
    };
    const marked = {
      type: CardsEventType.LegacyCardMigrationStarted,
      data: { cardId: '1000001', appId: 7, appCardId: '1000002', startedAt: 400 },
    };
    const del = (migrationStatus: 'none' | 'running' | 'completed') => ({
      kind: 'DeleteLegacyCard' as const,
      cardId: '1000001',
      appId: 7,
      userId: 5,
      now: 500,
      migrationStatus,
    });

    it('marks a live card once; the same target again decides nothing; another target is 409', () => {
      given([created])
        .when(mark)
        .then([marked] as never);
      given([created, marked] as never)
        .when(mark)
        .then([]);
      given([created, marked] as never)
        .when({ ...mark, appCardId: '1000009' })
        .thenThrows((e) => {
          expect(httpStatus(e)).toBe(409);
          expect((e as HubSpotError).message).toContain('app card 1000002');
        });
    });

    it('a deleted, foreign or unknown card cannot be marked (404)', () => {
      const deleted = {
        type: CardsEventType.LegacyCardDeleted,
        data: { cardId: '1000001', appId: 7, deletedAt: 1, userId: 5 },
      };
      for (const [history, appId] of [
        [[created, deleted], 7],
        [[created], 8],
        [[], 7],
      ] as const) {
        given(history as never)
          .when({ ...mark, appId })
          .thenThrows((e) => expect(httpStatus(e)).toBe(404));
      }
    });

    it('a marked card refuses deletes until its migration completed, even before MigrationStarted is recorded', () => {
      for (const status of ['none', 'running'] as const) {
        given([created, marked] as never)
          .when(del(status))
          .thenThrows((e) => {
            expect(httpStatus(e)).toBe(409);
            expect((e as HubSpotError).message).toContain('being migrated to app card 1000002');
          });
      }
      given([created, marked] as never)
        .when({ ...del('running'), progress: { remaining: 2, total: 3 } })
        .thenThrows((e) => expect((e as HubSpotError).message).toContain('(2 of 3 portals remaining)'));
      expect(
        legacyCardDecider.decide(
          del('completed'),
          fold(legacyCardDecider.evolve, legacyCardDecider.initialState(), [created, marked] as never),
        ),
      ).toHaveLength(1);
    });

    it('an unmarked card with a running migration (recorded before markers) refuses deletes too', () => {
      given([created])
        .when(del('running'))
        .thenThrows((e) => expect(httpStatus(e)).toBe(409));
    });
  });
});

describe('app card target decider (the duplicate rule)', () => {
  const given = spec(appCardTargetDecider);
  const claim = (legacyCardId: string, allowDuplicateAppCardIds: boolean) => ({
    kind: 'ClaimAppCardTarget' as const,
    appId: 7,
    appCardId: '1000002',
    legacyCardId,
    allowDuplicateAppCardIds,
    now: 10,
  });
  const claimed = (legacyCardId: string, allowDuplicateAppCardIds: boolean) => ({
    type: CardsEventType.AppCardTargetClaimed,
    data: { appId: 7, appCardId: '1000002', legacyCardId, allowDuplicateAppCardIds, claimedAt: 10 },
  });
  const released = (legacyCardId: string) => ({
    type: CardsEventType.AppCardTargetReleased,
    data: { appId: 7, appCardId: '1000002', legacyCardId, releasedAt: 10 },
  });
  const release = (legacyCardId: string) => ({
    kind: 'ReleaseAppCardTarget' as const,
    appId: 7,
    appCardId: '1000002',
    legacyCardId,
    now: 10,
  });

  it('the first claim is recorded; claiming again for the same legacy card decides nothing', () => {
    given([])
      .when(claim('1', false))
      .then([claimed('1', false)] as never);
    given([claimed('1', false)] as never)
      .when(claim('1', false))
      .then([]);
  });

  it('another legacy card is refused without allowDuplicateAppCardIds, naming the holder', () => {
    given([claimed('1', true)] as never)
      .when(claim('2', false))
      .thenThrows((e) => {
        expect(e).toBeInstanceOf(AppCardTargetTaken);
        expect(e).toMatchObject({ appCardId: '1000002', holderLegacyCardId: '1' });
      });
    given([claimed('1', false)] as never)
      .when(claim('2', true))
      .then([claimed('2', true)] as never);
  });

  it('a released claim frees the app card; releasing what was never claimed decides nothing', () => {
    given([claimed('1', false)] as never)
      .when(release('1'))
      .then([released('1')] as never);
    given([claimed('1', false), released('1')] as never)
      .when(claim('2', false))
      .then([claimed('2', false)] as never);
    given([]).when(release('1')).then([]);
  });
});

describe('app card decider', () => {
  const given = spec(appCardDecider);
  it('creates an app card with distinct object types', () => {
    given([])
      .when({
        kind: 'CreateAppCard',
        appCardId: '1000002',
        appId: 7,
        title: 'New',
        objectTypes: ['deals', 'deals', 'tickets'],
        now: 5,
      })
      .then([
        {
          type: CardsEventType.AppCardCreated,
          data: { appCardId: '1000002', appId: 7, title: 'New', objectTypes: ['deals', 'tickets'], createdAt: 5 },
        },
      ]);
  });
  it('refuses an id already used by a legacy card', () => {
    given([created] as never)
      .when({ kind: 'CreateAppCard', appCardId: '1000001', appId: 7, title: 'New', objectTypes: ['deals'], now: 5 })
      .thenThrows((e) => expect(e).toBeInstanceOf(CardIdTaken));
  });
});

describe('card migration decider', () => {
  const given = spec(cardMigrationDecider);
  const start = {
    kind: 'StartCardMigration' as const,
    appId: 7,
    legacyCardId: '1000001',
    appCardId: '1000002',
    helpdeskAppCardId: '1000003',
    allowDuplicateAppCardIds: false,
    now: 1000,
  };
  const started = {
    type: CardsEventType.MigrationStarted,
    data: {
      appId: 7,
      legacyCardId: '1000001',
      appCardId: '1000002',
      helpdeskAppCardId: '1000003',
      allowDuplicateAppCardIds: false,
      startedAt: 1000,
    },
  };
  const completed = {
    type: CardsEventType.MigrationCompleted,
    data: { appId: 7, legacyCardId: '1000001', endedAt: 2000 },
  };

  it('records the start once', () => {
    given([])
      .when(start)
      .then([started] as never);
  });

  it('the same request again decides nothing (it is a progress query), running or completed', () => {
    given([started] as never)
      .when({ ...start, now: 5000 })
      .then([]);
    given([started, completed] as never)
      .when(start)
      .then([]);
    // helpdeskAppCardId left out of the repeat: still the same migration
    const { helpdeskAppCardId: _omitted, ...withoutHelpdesk } = start;
    given([started] as never)
      .when(withoutHelpdesk)
      .then([]);
  });

  it('another app card for an already migrated legacy card is 409', () => {
    for (const history of [[started], [started, completed]]) {
      given(history as never)
        .when({ ...start, appCardId: '1000009' })
        .thenThrows((e) => {
          expect(httpStatus(e)).toBe(409);
          expect((e as HubSpotError).message).toContain('app card 1000002');
        });
      given(history as never)
        .when({ ...start, helpdeskAppCardId: '1000009' })
        .thenThrows((e) => expect(httpStatus(e)).toBe(409));
    }
  });

  it('completes a running migration once; completing twice decides nothing', () => {
    const complete = { kind: 'CompleteCardMigration' as const, appId: 7, legacyCardId: '1000001', now: 2000 };
    given([started] as never)
      .when(complete)
      .then([completed] as never);
    given([started, completed] as never)
      .when(complete)
      .then([]);
    given([])
      .when(complete)
      .thenThrows((e) => expect(e).toBeInstanceOf(Error));
  });
});

describe('portal card migration decider', () => {
  const given = spec(portalCardMigrationDecider);
  const command = {
    kind: 'MigratePortalCard' as const,
    appId: 7,
    legacyCardId: '1000001',
    appCardId: '1000002',
    hubId: 42,
    views: [{ view: 'contacts' as const, position: 2, cardId: '1000002' }],
    now: 3000,
  };
  const migrated = {
    type: CardsEventType.PortalCardMigrated,
    data: {
      appId: 7,
      legacyCardId: '1000001',
      appCardId: '1000002',
      hubId: 42,
      views: [{ view: 'contacts', position: 2, cardId: '1000002' }],
      migratedAt: 3000,
    },
  };
  it('migrates an account once', () => {
    given([])
      .when(command)
      .then([migrated] as never);
  });
  it('an account already migrated (a resumed or second worker) decides nothing', () => {
    given([migrated] as never)
      .when({ ...command, now: 9999 })
      .then([]);
  });
});
