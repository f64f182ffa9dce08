import { assertValid, compileSchema, type Schema, WELL_FORMED_TEXT } from '../schema/index';

/**
 * Client ids and secrets are far shorter; the bound keeps hashing and lookups cheap for junk input. In
 * bytes too: the client id is part of a DynamoDB partition key (`CLIENT#<id>`, at most 2,048 bytes),
 * and 512 characters of 4 bytes each would not fit.
 */
const CREDENTIAL_MAX_LENGTH = 512;

const credential = (description: string): Schema => ({
  type: 'string',
  minLength: 1,
  maxLength: CREDENTIAL_MAX_LENGTH,
  'x-max-bytes': CREDENTIAL_MAX_LENGTH,
  pattern: `^${WELL_FORMED_TEXT}$`,
  'x-message': `must be a string of 1 to ${CREDENTIAL_MAX_LENGTH} characters, at most ${CREDENTIAL_MAX_LENGTH} bytes in UTF-8`,
  description,
});

const CLIENT_ID = credential("The application key's client id.");

/** `grant_type=client_credentials`: an admin token for the key's store. */
export const CLIENT_CREDENTIALS_GRANT_SCHEMA: Schema = {
  type: 'object',
  required: ['grant_type', 'client_id', 'client_secret'],
  properties: {
    grant_type: { const: 'client_credentials' },
    client_id: CLIENT_ID,
    client_secret: { ...credential("The application key's client secret."), writeOnly: true },
  },
};

/** `grant_type=implicit`: a storefront token (catalog reads only) from the client id alone. */
export const IMPLICIT_GRANT_SCHEMA: Schema = {
  type: 'object',
  required: ['grant_type', 'client_id'],
  properties: { grant_type: { const: 'implicit' }, client_id: CLIENT_ID },
};

/** `POST /oauth/access_token`, form-encoded or JSON: one of the two grants, picked by `grant_type`. */
export const ACCESS_TOKEN_REQUEST_SCHEMA: Schema = {
  type: 'object',
  oneOf: [CLIENT_CREDENTIALS_GRANT_SCHEMA, IMPLICIT_GRANT_SCHEMA],
  discriminator: { propertyName: 'grant_type' },
};

export type AccessTokenRequest =
  | { grant_type: 'client_credentials'; client_id: string; client_secret: string }
  | { grant_type: 'implicit'; client_id: string };

const validateRequest = compileSchema(ACCESS_TOKEN_REQUEST_SCHEMA);

/** Validates a token request body; a 400 names the offending field. */
export function parseAccessTokenRequest(body: unknown): AccessTokenRequest {
  return assertValid<AccessTokenRequest>(validateRequest, body);
}
