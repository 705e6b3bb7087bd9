/** The Cards module's public surface. Everything else under src/cards is internal (lint enforces it). */
export { CardsModule } from './cards.module';
