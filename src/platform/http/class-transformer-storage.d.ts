/** class-transformer's metadata (`@Type`), which it keeps in this module but declares elsewhere. */
declare module 'class-transformer/cjs/storage' {
  import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
  export const defaultMetadataStorage: MetadataStorage;
}
