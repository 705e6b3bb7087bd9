import { randomBytesFromPool as randomBytes } from '../../platform/security/crypto';

/**
 * Fresh secrets. Codes and refresh tokens carry 256 random bits after a hublet prefix, as
 * HubSpot's do (`na1-…`); they are handed out once and stored only as SHA-256.
 */
export const newAuthorizationCode = (hublet: string) => `${hublet}-${randomBytes(32).toString('base64url')}`;
export const newRefreshToken = (hublet: string) => `${hublet}-${randomBytes(32).toString('base64url')}`;
/** Not secret: names an install in events, tokens and metadata. */
export const newInstallId = () => randomBytes(8).toString('hex');
