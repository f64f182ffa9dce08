import './silent-logs';
import { generateAccessToken, hashSecret } from '../lib/auth/secrets';
import { getDocumentClient } from '../lib/store/client';
import { GetCommand, PutCommand } from '../lib/store/dynamodb';
import { keysTable, TTL_ATTRIBUTE, tableName } from '../lib/store/schema';
import { benchOperation, type OperationFigures } from './operations';
import { createScenario } from './scenario';
import { iterationsArg, progress, runAsScript } from './support';

/**
 * The token endpoint alone, as a storefront uses it: implicit grants for one client id, one after the
 * other, in a warm container (the operations stage of `npm run bench` times client_credentials grants
 * with the same method). Raw floor: the consistent `GetItem` of the client lookup and the `PutItem` of
 * a token. `npm run bench:token` style: `tsx bench/create-access-token.ts [--iterations N] [--json]`.
 */
export async function benchCreateAccessToken(
  iterations = 300,
  grant: 'implicit' | 'client_credentials' = 'implicit',
): Promise<OperationFigures> {
  const s = await createScenario(1);
  const client = getDocumentClient();
  return benchOperation(
    {
      function: 'create-access-token',
      expectStatus: 200,
      event: () =>
        s.event('POST', '/oauth/access_token', {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(
            grant === 'implicit'
              ? { grant_type: 'implicit', client_id: s.clientId }
              : { grant_type: 'client_credentials', client_id: s.clientId, client_secret: s.clientSecret },
          ).toString(),
        }),
      raw: async () => {
        await client.send(
          new GetCommand({
            TableName: tableName('keys'),
            Key: keysTable.client(s.clientId),
            ConsistentRead: true,
          }),
        );
        const expires = Math.floor(Date.now() / 1000) + 3600;
        await client.send(
          new PutCommand({
            TableName: tableName('keys'),
            Item: {
              ...keysTable.token(hashSecret(generateAccessToken(s.store.id, s.store.id))),
              store_id: s.store.id,
              key_id: s.store.id,
              kind: 'implicit',
              expires_at: expires,
              [TTL_ATTRIBUTE]: expires,
            },
          }),
        );
      },
    },
    iterations,
  );
}

runAsScript(
  import.meta.url,
  (args) => {
    const iterations = iterationsArg(args, 300);
    progress(`grants for one client id: ${iterations} calls against GetItem + PutItem`);
    return benchCreateAccessToken(
      iterations,
      args.includes('--client-credentials') ? 'client_credentials' : 'implicit',
    );
  },
  (f) =>
    `create-access-token (warm): p50 ${f.p50_ms} ms, p99 ${f.p99_ms} ms; raw GetItem + PutItem p50 ${f.db_p50_ms} ms; ratio ${f.ratio}\n`,
);
