import { issueAccessToken } from '../../lib/auth/issue-token';
import { json } from '../../lib/http/response';
import { createHandler } from '../create-handler';

/** POST /oauth/access_token: exchanges application-key credentials for a bearer token. */
export const handler = createHandler('create-access-token', {}, async (event) => {
  const token = await issueAccessToken(event.parsedBody);
  return json(200, token);
});
