import { issueAccessToken } from '../../lib/auth/issue-token';
import { createHandler } from '../../lib/http/middleware';
import { json } from '../../lib/http/response';

/** POST /oauth/access_token: exchanges application-key credentials for a bearer token. */
export const handler = createHandler('create-access-token', {}, async (event) => {
  const token = await issueAccessToken(event.parsedBody);
  return json(200, token);
});
