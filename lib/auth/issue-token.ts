import { getConfig } from '../config/index';
import { applicationKeyRepository, type ClientRecord } from '../store/application-key-repository';
import { type TokenKind, tokenRepository } from '../store/token-repository';
import { parseAccessTokenRequest } from '../validation/access-token';
import { authenticationFailure } from './authenticate';
import { digestsEqual, generateAccessToken, hashSecret } from './secrets';

/** The flat token response of `POST /oauth/access_token`. */
export interface AccessTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  expires: number;
  identifier: TokenKind;
}

/** The token endpoint's rate limits (lib/rate-limit/token-attempts.ts builds them; absent: none). */
export interface TokenRequestGuard {
  /**
   * After the client lookup, before a known client's secret is compared: 429 when this caller's failed
   * attempts for the client id used up its limit. Writes nothing, and reads nothing unless a secret for
   * this client failed in the current minute (the client's `failed_minute`).
   */
  checkAttempts(client: ClientRecord): Promise<void>;
  /** After a secret of a known client id did not match: counts the failure (429 when over the limit). */
  recordFailure(client: ClientRecord): Promise<void>;
  /**
   * Counts a request with valid credentials against the key's store (429 when over its allowance); an
   * implicit grant as a storefront request (the store's pool only, by source address).
   */
  admit(client: ClientRecord, grantType: TokenKind): Promise<void>;
}

const INVALID_CLIENT = 'Invalid client credentials';
/** Compared against when the client id is unknown, so both failures take the same time. */
const DUMMY_HASH = hashSecret('no-such-client');

/**
 * Issues an access token for a grant: `client_credentials` (client id and secret; an admin token) or
 * `implicit` (client id only; a storefront token). 400 for a malformed request, 401 for bad credentials.
 */
export async function issueAccessToken(
  body: unknown,
  guard?: TokenRequestGuard,
): Promise<AccessTokenResponse> {
  const request = parseAccessTokenRequest(body);
  const grantType = request.grant_type;
  const clientId = request.client_id;
  const clientSecret = request.grant_type === 'client_credentials' ? request.client_secret : undefined;

  // The happy path is this read and the token's write: the failed-attempt counters are read only after a
  // failure this minute, and written only after a failed comparison.
  const client = await applicationKeyRepository.findClient(clientId);
  if (clientSecret !== undefined) {
    if (client) await guard?.checkAttempts(client);
    const matches = digestsEqual(hashSecret(clientSecret), client?.secret_hash ?? DUMMY_HASH);
    if (!matches) {
      // Only a failed comparison of a known client id counts (unknown ids store nothing).
      if (client) await guard?.recordFailure(client);
      throw authenticationFailure(INVALID_CLIENT);
    }
  }
  if (!client) throw authenticationFailure(INVALID_CLIENT);
  await guard?.admit(client, grantType);

  const ttl = getConfig().tokenTtlSeconds;
  const now = Date.now();
  const expires = Math.floor(now / 1000) + ttl;
  const accessToken = generateAccessToken(client.store_id, client.key_id);
  await tokenRepository.issue(
    hashSecret(accessToken),
    { store_id: client.store_id, key_id: client.key_id, kind: grantType, expires_at: expires },
    new Date(now).toISOString(),
  );
  return { access_token: accessToken, token_type: 'Bearer', expires_in: ttl, expires, identifier: grantType };
}
