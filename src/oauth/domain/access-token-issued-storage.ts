import type { EventStorageCodec } from '../../platform/events/event-type-registry';
import type { RecordedEvent } from '../../platform/events/envelope';
import type { AccessTokenIssued } from './oauth-events';

type Data = AccessTokenIssued['data'];

/**
 * How oauth.AccessTokenIssued is stored: one per refresh grant, so the hottest row of the store.
 * Stored as an array `[grant, refreshTokenHash, appId, hubId, userId, installId, ttlSeconds]`:
 * no field names; the token id and issue second are left out because the stream id holds both
 * (`oauth.access-token-{second}-{tokenId}`); the expiry is the lifetime; hex digests and ids are
 * base64url of their bytes; the grant type is one letter. Nothing of the audit record is lost:
 * reading gives back exactly the event that was decided. An event the array cannot hold exactly
 * (not derivable from its stream id, or an unusual value) is stored as the object, as before.
 */
const GRANTS = { refresh_token: 'r', authorization_code: 'c' } as const;
const GRANT_OF = { r: 'refresh_token', c: 'authorization_code' } as const;
const HEX = /^(?:[0-9a-f]{2})+$/;
/** accessTokenStream's names (not imported: oauth-events imports this file). */
const STREAM = /^oauth\.access-token-(\d{10})-(.+)$/;

type Stored = [keyof typeof GRANT_OF, string, number, number, number, string, number];

const hexToB64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');
const b64ToHex = (b64: string) => Buffer.from(b64, 'base64url').toString('hex');

export const accessTokenIssuedStorage: EventStorageCodec<Data> = {
  encode(data, streamId) {
    const ttl = (data.expiresAt - data.issuedAt) / 1000;
    const m = STREAM.exec(streamId);
    const exact =
      m !== null &&
      Number(m[1]) * 1000 === data.issuedAt &&
      m[2] === data.tokenId &&
      data.issuedAt % 1000 === 0 &&
      Number.isInteger(ttl) &&
      ttl >= 0 &&
      data.grantType in GRANTS &&
      HEX.test(data.refreshTokenHash) &&
      HEX.test(data.installId) &&
      Object.keys(data).length === 9;
    if (!exact) return data;
    const stored: Stored = [
      GRANTS[data.grantType],
      hexToB64(data.refreshTokenHash),
      data.appId,
      data.hubId,
      data.userId,
      hexToB64(data.installId),
      ttl,
    ];
    return stored;
  },

  decode(data: unknown, event: RecordedEvent): Data {
    if (!Array.isArray(data)) return data as Data; // the first shape: the object itself
    const [grant, refreshTokenHash, appId, hubId, userId, installId, ttl] = data as Stored;
    const m = STREAM.exec(event.streamId);
    if (!m) throw new Error(`oauth.AccessTokenIssued stored compactly on stream ${event.streamId}`);
    const issuedAt = Number(m[1]) * 1000;
    return {
      tokenId: m[2]!,
      grantType: GRANT_OF[grant],
      refreshTokenHash: b64ToHex(refreshTokenHash),
      appId,
      hubId,
      userId,
      installId: b64ToHex(installId),
      issuedAt,
      expiresAt: issuedAt + ttl * 1000,
    };
  },
};
