import { issueAccessToken } from '../../lib/auth/issue-token';
import { json } from '../../lib/http/response';
import { tokenRequestGuard } from '../../lib/rate-limit/token-attempts';
import { createHandler } from '../create-handler';
import { CREATE_ACCESS_TOKEN } from '../routes';

/**
 * POST /oauth/access_token: exchanges application-key credentials for a bearer token. Counted against the
 * key's store by client id; failed secrets are limited per client id and
 * source address (docs/rate-limits.md).
 */
export const handler = createHandler(
  'create-access-token',
  CREATE_ACCESS_TOKEN,
  {},
  async (event, context) => {
    const guard = tokenRequestGuard(event, {
      route: event.routeKey,
      function_request_id: context.awsRequestId,
    });
    const token = await issueAccessToken(event.parsedBody, guard);
    return json(200, token);
  },
);
