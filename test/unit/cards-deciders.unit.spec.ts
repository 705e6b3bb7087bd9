import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { appCardDecider } from '../../src/cards/domain/app-card.decider';
import { AppCardTargetTaken, appCardTargetDecider } from '../../src/cards/domain/app-card-target.decider';
import {
  CardsEventType,
  type AppCardCreated,
  type AppCardTargetClaimed,
  type AppCardTargetReleased,
  type LegacyCardCreated,
  type LegacyCardDefinition,
  type LegacyCardDeleted,
  type LegacyCardMigrationStarted,
  type MigrationCompleted,
  type MigrationStarted,
  type PortalCardMigrated,
} from '../../src/cards/domain/card-events';
import { cardMigrationDecider } from '../../src/cards/domain/card-migration.decider';
import {
  applyPatch,
  CardIdTaken,
  legacyCardDecider,
  type LegacyCardStreamEvent,
} from '../../src/cards/domain/legacy-card.decider';
import { portalCardMigrationDecider } from '../../src/cards/domain/portal-card-migration.decider';
import { DeciderSpecification } from '../support/decider-specification';

const definition: LegacyCardDefinition = {
  title: 'PetSpot',
  fetch: {
    targetUrl: 'https://www.example.com/hubspot/target',
    objectTypes: [{ name: 'contacts', propertiesToSend: ['email', 'firstname'] }],
  },
  display: { properties: [{ name: 'pet_name', label: 'Pets Name', dataType: 'STRING', options: [] }] },
  actions: { baseUrls: ['https://www.example.com/hubspot'] },
};

const created: LegacyCardCreated = {
  type: CardsEventType.LegacyCardCreated,
  data: { cardId: '1000001', appId: 7, definition, createdAt: 100, userId: 3 },
};

const appCardCreated: AppCardCreated = {
  type: CardsEventType.AppCardCreated,
  data: { appCardId: '1000001', appId: 7, title: 'x', objectTypes: ['deals'], createdAt: 1 },
};

const isHubSpotError = (status: number) => (e: unknown) => e instanceof HubSpotError && e.httpStatus === status;

describe('legacy card decider', () => {
  const spec = DeciderSpecification.for(legacyCardDecider);

  it('creates a card on an empty stream', () => {
    spec
      .given([])
      .when({ type: 'CreateLegacyCard', cardId: '1000001', appId: 7, definition, userId: 3, now: 100 })
      .then([created]);
  });

  it('refuses a taken id, whatever took it (legacy or app card), so the allocator moves on', () => {
    spec
      .given([created])
      .when({ type: 'CreateLegacyCard', cardId: '1000001', appId: 7, definition, userId: 3, now: 100 })
      .thenThrows(CardIdTaken);
    spec
      .given([appCardCreated])
      .when({ type: 'CreateLegacyCard', cardId: '1000001', appId: 7, definition, userId: 3, now: 100 })
      .thenThrows(CardIdTaken);
  });

  it('patches: given parts replace, an omitted fetch.targetUrl is kept, the whole result is recorded', () => {
    const patch = { title: 'PetSpot 2', fetch: { objectTypes: [{ name: 'tickets' as const, propertiesToSend: [] }] } };
    spec
      .given([created])
      .when({ type: 'UpdateLegacyCard', cardId: '1000001', appId: 7, patch, userId: 4, now: 200 })
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

  const deletedEarlier: LegacyCardDeleted = {
    type: CardsEventType.LegacyCardDeleted,
    data: { cardId: '1000001', appId: 7, deletedAt: 150, userId: 3 },
  };

  it.each<[string, LegacyCardStreamEvent[], number]>([
    ['a missing card', [], 7],
    ['a card of another app', [created], 8],
    ['a deleted card', [created, deletedEarlier], 7],
    ['an app card id', [appCardCreated], 7],
  ])('updating or deleting %s is 404', (_name, history, appId) => {
    for (const command of [
      { type: 'UpdateLegacyCard' as const, cardId: '1000001', appId, patch: { title: 'x' }, userId: 1, now: 1 },
      {
        type: 'DeleteLegacyCard' as const,
        cardId: '1000001',
        appId,
        userId: 1,
        now: 1,
        migrationStatus: 'none' as const,
      },
    ]) {
      const error = spec.given(history).when(command).thenThrows(HubSpotError);
      expect(error.httpStatus).toBe(404);
      expect(error.category).toBe('OBJECT_NOT_FOUND');
    }
  });

  it('deletes a live card once', () => {
    const deleted: LegacyCardDeleted = {
      type: CardsEventType.LegacyCardDeleted,
      data: { cardId: '1000001', appId: 7, deletedAt: 300, userId: 5 },
    };
    spec
      .given([created])
      .when({ type: 'DeleteLegacyCard', cardId: '1000001', appId: 7, userId: 5, now: 300, migrationStatus: 'none' })
      .then([deleted]);
  });

  describe('migration marker: the card stream serializes a migration start with deletes', () => {
    const mark = {
      type: 'MarkLegacyCardMigrating' as const,
      cardId: '1000001',
      appId: 7,
      appCardId: '1000002',
      now: 400,
    };
    const marked: LegacyCardMigrationStarted = {
      type: CardsEventType.LegacyCardMigrationStarted,
      data: { cardId: '1000001', appId: 7, appCardId: '1000002', startedAt: 400 },
    };
    const del = (migrationStatus: 'none' | 'running' | 'completed') => ({
      type: 'DeleteLegacyCard' as const,
      cardId: '1000001',
      appId: 7,
      userId: 5,
      now: 500,
      migrationStatus,
    });

    it('marks a live card once; the same target again decides nothing; another target is 409', () => {
      spec.given([created]).when(mark).then([marked]);
      spec.given([created, marked]).when(mark).thenNothing();
      const error = spec
        .given([created, marked])
        .when({ ...mark, appCardId: '1000009' })
        .thenThrows(HubSpotError);
      expect(error.httpStatus).toBe(409);
      expect(error.message).toContain('app card 1000002');
    });

    it('a deleted, foreign or unknown card cannot be marked (404)', () => {
      const deleted: LegacyCardDeleted = {
        type: CardsEventType.LegacyCardDeleted,
        data: { cardId: '1000001', appId: 7, deletedAt: 1, userId: 5 },
      };
      for (const [history, appId] of [
        [[created, deleted], 7],
        [[created], 8],
        [[], 7],
      ] as Array<[LegacyCardStreamEvent[], number]>) {
        spec
          .given(history)
          .when({ ...mark, appId })
          .thenThrows(isHubSpotError(404));
      }
    });

    it('a marked card refuses deletes until its migration completed, even before MigrationStarted is recorded', () => {
      for (const status of ['none', 'running'] as const) {
        const error = spec.given([created, marked]).when(del(status)).thenThrows(HubSpotError);
        expect(error.httpStatus).toBe(409);
        expect(error.message).toContain('being migrated to app card 1000002');
      }
      const error = spec
        .given([created, marked])
        .when({ ...del('running'), progress: { remaining: 2, total: 3 } })
        .thenThrows(HubSpotError);
      expect(error.message).toContain('(2 of 3 portals remaining)');
      expect(spec.given([created, marked]).when(del('completed')).events()).toHaveLength(1);
    });

    it('an unmarked card with a running migration (recorded before markers) refuses deletes too', () => {
      spec.given([created]).when(del('running')).thenThrows(isHubSpotError(409));
    });
  });
});

describe('app card target decider (the duplicate rule)', () => {
  const spec = DeciderSpecification.for(appCardTargetDecider);
  const claim = (legacyCardId: string, allowDuplicateAppCardIds: boolean) => ({
    type: 'ClaimAppCardTarget' as const,
    appId: 7,
    appCardId: '1000002',
    legacyCardId,
    allowDuplicateAppCardIds,
    now: 10,
  });
  const claimed = (legacyCardId: string, allowDuplicateAppCardIds: boolean): AppCardTargetClaimed => ({
    type: CardsEventType.AppCardTargetClaimed,
    data: { appId: 7, appCardId: '1000002', legacyCardId, allowDuplicateAppCardIds, claimedAt: 10 },
  });
  const released = (legacyCardId: string): AppCardTargetReleased => ({
    type: CardsEventType.AppCardTargetReleased,
    data: { appId: 7, appCardId: '1000002', legacyCardId, releasedAt: 10 },
  });
  const release = (legacyCardId: string) => ({
    type: 'ReleaseAppCardTarget' as const,
    appId: 7,
    appCardId: '1000002',
    legacyCardId,
    now: 10,
  });

  it('the first claim is recorded; claiming again for the same legacy card decides nothing', () => {
    spec
      .given([])
      .when(claim('1', false))
      .then([claimed('1', false)]);
    spec
      .given([claimed('1', false)])
      .when(claim('1', false))
      .thenNothing();
  });

  it('another legacy card is refused without allowDuplicateAppCardIds, naming the holder', () => {
    const error = spec
      .given([claimed('1', true)])
      .when(claim('2', false))
      .thenThrows(AppCardTargetTaken);
    expect(error).toMatchObject({ appCardId: '1000002', holderLegacyCardId: '1' });
    spec
      .given([claimed('1', false)])
      .when(claim('2', true))
      .then([claimed('2', true)]);
  });

  it('a released claim frees the app card; releasing what was never claimed decides nothing', () => {
    spec
      .given([claimed('1', false)])
      .when(release('1'))
      .then([released('1')]);
    spec
      .given([claimed('1', false), released('1')])
      .when(claim('2', false))
      .then([claimed('2', false)]);
    spec.given([]).when(release('1')).thenNothing();
  });
});

describe('app card decider', () => {
  const spec = DeciderSpecification.for(appCardDecider);
  it('creates an app card with distinct object types', () => {
    spec
      .given([])
      .when({
        type: 'CreateAppCard',
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
    spec
      .given([created])
      .when({ type: 'CreateAppCard', appCardId: '1000001', appId: 7, title: 'New', objectTypes: ['deals'], now: 5 })
      .thenThrows(CardIdTaken);
  });
});

describe('card migration decider', () => {
  const spec = DeciderSpecification.for(cardMigrationDecider);
  const start = {
    type: 'StartCardMigration' as const,
    appId: 7,
    legacyCardId: '1000001',
    appCardId: '1000002',
    helpdeskAppCardId: '1000003',
    allowDuplicateAppCardIds: false,
    now: 1000,
  };
  const started: MigrationStarted = {
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
  const completed: MigrationCompleted = {
    type: CardsEventType.MigrationCompleted,
    data: { appId: 7, legacyCardId: '1000001', endedAt: 2000 },
  };

  it('records the start once', () => {
    spec.given([]).when(start).then([started]);
  });

  it('the same request again decides nothing (it is a progress query), running or completed', () => {
    spec
      .given([started])
      .when({ ...start, now: 5000 })
      .thenNothing();
    spec.given([started, completed]).when(start).thenNothing();
    // helpdeskAppCardId left out of the repeat: still the same migration
    const { helpdeskAppCardId: _omitted, ...withoutHelpdesk } = start;
    spec.given([started]).when(withoutHelpdesk).thenNothing();
  });

  it('another app card for an already migrated legacy card is 409', () => {
    for (const history of [[started], [started, completed]]) {
      const error = spec
        .given(history)
        .when({ ...start, appCardId: '1000009' })
        .thenThrows(HubSpotError);
      expect(error.httpStatus).toBe(409);
      expect(error.message).toContain('app card 1000002');
      spec
        .given(history)
        .when({ ...start, helpdeskAppCardId: '1000009' })
        .thenThrows(isHubSpotError(409));
    }
  });

  it('completes a running migration once; completing twice decides nothing', () => {
    const complete = { type: 'CompleteCardMigration' as const, appId: 7, legacyCardId: '1000001', now: 2000 };
    spec.given([started]).when(complete).then([completed]);
    spec.given([started, completed]).when(complete).thenNothing();
    spec
      .given([])
      .when(complete)
      .thenThrows((e) => e instanceof Error);
  });
});

describe('portal card migration decider', () => {
  const spec = DeciderSpecification.for(portalCardMigrationDecider);
  const command = {
    type: 'MigratePortalCard' as const,
    appId: 7,
    legacyCardId: '1000001',
    appCardId: '1000002',
    hubId: 42,
    views: [{ view: 'contacts' as const, position: 2, cardId: '1000002' }],
    now: 3000,
  };
  const migrated: PortalCardMigrated = {
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
    spec.given([]).when(command).then([migrated]);
  });
  it('an account already migrated (a resumed or second worker) decides nothing', () => {
    spec
      .given([migrated])
      .when({ ...command, now: 9999 })
      .thenNothing();
  });
});
