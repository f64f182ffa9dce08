import { getConfig } from '../config/index';
import { BadRequestError, UnauthorizedError } from '../http/errors';
import { applicationKeyRepository } from '../store/application-key-repository';
import { type TokenKind, tokenRepository } from '../store/token-repository';
import { digestsEqual, generateAccessToken, hashSecret } from './secrets';

/** The flat token response of `POST /oauth/access_token`. */
export interface AccessTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  expires: number;
  identifier: TokenKind;
}

const INVALID_CLIENT = 'Invalid client credentials';
/** Compared against when the client id is unknown, so both failures take the same time. */
const DUMMY_HASH = hashSecret('no-such-client');

function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (value === undefined || value === null || value === '')
    throw new BadRequestError(`${name} is required`, name);
  if (typeof value !== 'string') throw new BadRequestError(`${name} must be a string`, name);
  if (value.length > 512) throw new BadRequestError(`${name} must be at most 512 characters`, name);
  return value;
}

/**
 * Issues an access token for a grant: `client_credentials` (client id and secret; an admin token) or
 * `implicit` (client id only; a storefront token). 400 for a malformed request, 401 for bad credentials.
 */
export async function issueAccessToken(body: unknown): Promise<AccessTokenResponse> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError('grant_type is required', 'grant_type');
  }
  const fields = body as Record<string, unknown>;
  const grantType = stringField(fields, 'grant_type');
  if (grantType !== 'client_credentials' && grantType !== 'implicit') {
    throw new BadRequestError('grant_type must be client_credentials or implicit', 'grant_type');
  }
  const clientId = stringField(fields, 'client_id');
  const clientSecret = grantType === 'client_credentials' ? stringField(fields, 'client_secret') : undefined;

  const client = await applicationKeyRepository.findClient(clientId);
  if (clientSecret !== undefined) {
    const matches = digestsEqual(hashSecret(clientSecret), client?.secret_hash ?? DUMMY_HASH);
    if (!client || !matches) throw new UnauthorizedError(INVALID_CLIENT);
  }
  if (!client) throw new UnauthorizedError(INVALID_CLIENT);

  const ttl = getConfig().tokenTtlSeconds;
  const now = Date.now();
  const expires = Math.floor(now / 1000) + ttl;
  const accessToken = generateAccessToken(client.store_id, client.key_id);
  const issued = await tokenRepository.issue(
    hashSecret(accessToken),
    { store_id: client.store_id, key_id: client.key_id, kind: grantType, expires_at: expires },
    new Date(now).toISOString(),
  );
  if (!issued) throw new UnauthorizedError(INVALID_CLIENT);
  return { access_token: accessToken, token_type: 'Bearer', expires_in: ttl, expires, identifier: grantType };
}
