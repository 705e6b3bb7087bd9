import type { Decider } from '../../platform/commands/decider';
import { CardsEventType, type AppCardCreated, type LegacyCardEvent } from './card-events';
import type { CardObjectType } from './card-views';
import { CardIdTaken } from './legacy-card.decider';

/** An app card (the new-style card a migration swaps in), folded from `cards.card-{id}`. */
export interface AppCardState {
  exists: boolean;
}

export type CreateAppCard = {
  type: 'CreateAppCard';
  appCardId: string;
  appId: number;
  title: string;
  objectTypes: CardObjectType[];
  now: number;
};

export const initialAppCardState = (): AppCardState => ({ exists: false });

/** Any event in the stream means the id is used (by an app card or a legacy card). */
export const evolveAppCard = (_state: AppCardState, _event: AppCardCreated | LegacyCardEvent): AppCardState => ({
  exists: true,
});

export function decideAppCard(command: CreateAppCard, state: AppCardState): AppCardCreated[] {
  if (state.exists) throw new CardIdTaken(command.appCardId);
  return [
    {
      type: CardsEventType.AppCardCreated,
      data: {
        appCardId: command.appCardId,
        appId: command.appId,
        title: command.title,
        objectTypes: [...new Set(command.objectTypes)],
        createdAt: command.now,
      },
    },
  ];
}

export const appCardDecider: Decider<AppCardState, CreateAppCard, AppCardCreated | LegacyCardEvent> = {
  initialState: initialAppCardState,
  evolve: evolveAppCard,
  decide: decideAppCard,
};
