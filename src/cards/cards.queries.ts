/** The cards read model as other modules may read it (the lint allows this file): the views migration's progress per app. */
export { CardsQueries, type MigrationRecord } from './application/cards.queries';
