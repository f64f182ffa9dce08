import { parseArgs } from 'node:util';
import { dashValues, usageError } from './cli';
import { unreachableMessage } from './messages';

const USAGE = `Usage: npm run smoke -- --base URL --client-id ID --client-secret SECRET [--product ID --channel C] [--json]
Checks a deployment (or the local API) end to end over HTTP: tokens with both grants, the key list, a
key created, read and deleted, the merchant realm mapping, the catalog (with --product and --channel: the
child list, the release, the product), an unknown route and a bad token. One line per check, then "N passed, N failed"; exit 1 on
any failure. The key it creates is deleted whatever happens (its name starts with "smoke-test").
  --json   one JSON object on stdout: { checks: [{ name, ok, detail, ms }], passed, failed }`;

interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}

class CheckFailed extends Error {}

interface Options {
  base: string;
  clientId: string;
  clientSecret: string;
  product?: string;
  channel?: string;
  json: boolean;
}

const OPTIONS = {
  base: { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  product: { type: 'string' },
  channel: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function parseOptions(argv: string[]): Options {
  let parsed: ReturnType<typeof parse>;
  function parse() {
    // A secret may start with `-`: it is still the value of --client-secret.
    return parseArgs({ args: dashValues(argv, OPTIONS), options: OPTIONS, strict: true });
  }
  try {
    parsed = parse();
  } catch (error) {
    usageError('smoke', (error as Error).message);
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (!values.base || !values['client-id'] || !values['client-secret'])
    usageError('smoke', '--base, --client-id and --client-secret are required');
  if (!/^https?:\/\/[^\s/]+/.test(values.base))
    usageError('smoke', `--base must be an http(s) URL, got "${values.base}"`);
  if ((values.product === undefined) !== (values.channel === undefined))
    usageError('smoke', '--product and --channel go together');
  return {
    base: values.base.replace(/\/+$/, ''),
    clientId: values['client-id'],
    clientSecret: values['client-secret'],
    ...(values.product === undefined ? {} : { product: values.product }),
    ...(values.channel === undefined ? {} : { channel: values.channel }),
    json: values.json,
  };
}

interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the checks probe the answers' shapes; a missing field fails the check
  body: any;
}

/** The smoke checks against one deployment; `run` returns every result, failures included. */
async function runSmoke(options: Omit<Options, 'json'>, onResult?: (r: CheckResult) => void) {
  const results: CheckResult[] = [];
  const call = async (
    method: string,
    path: string,
    init: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Reply> => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${options.base}${path}`, {
        method,
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    } catch (error) {
      const unreachable = unreachableMessage(options.base, error);
      if (unreachable) throw new CheckFailed(unreachable);
      throw error;
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: response.status, body };
  };
  const expectStatus = (reply: Reply, status: number, what: string) => {
    if (reply.status !== status) {
      const title = reply.body?.errors?.[0]?.detail ?? reply.body?.message ?? '';
      throw new CheckFailed(`${what}: expected ${status}, got ${reply.status}${title ? ` (${title})` : ''}`);
    }
  };
  const check = async (name: string, run: () => Promise<string>) => {
    const started = performance.now();
    let result: CheckResult;
    try {
      result = { name, ok: true, detail: await run(), ms: 0 };
    } catch (error) {
      const detail =
        error instanceof CheckFailed
          ? error.message
          : `${(error as Error).name}: ${(error as Error).message}`;
      result = { name, ok: false, detail, ms: 0 };
    }
    result.ms = Math.round(performance.now() - started);
    results.push(result);
    onResult?.(result);
    return result.ok;
  };
  const needs = (value: string | undefined, what: string): string => {
    if (value === undefined) throw new CheckFailed(`not run: ${what} failed`);
    return value;
  };

  let admin: string | undefined;
  let shopper: string | undefined;
  await check('token: client_credentials grant', async () => {
    const reply = await call('POST', '/oauth/access_token', {
      body: {
        grant_type: 'client_credentials',
        client_id: options.clientId,
        client_secret: options.clientSecret,
      },
    });
    expectStatus(reply, 200, 'POST /oauth/access_token');
    if (typeof reply.body?.access_token !== 'string') throw new CheckFailed('no access_token in the answer');
    admin = reply.body.access_token;
    return `expires in ${reply.body.expires_in} s`;
  });
  await check('token: implicit grant', async () => {
    const reply = await call('POST', '/oauth/access_token', {
      body: { grant_type: 'implicit', client_id: options.clientId },
    });
    expectStatus(reply, 200, 'POST /oauth/access_token');
    if (reply.body?.identifier !== 'implicit')
      throw new CheckFailed(`identifier is ${reply.body?.identifier}`);
    shopper = reply.body.access_token;
    return 'storefront token issued';
  });
  await check('application keys: list', async () => {
    const reply = await call('GET', '/v2/application-keys?page%5Blimit%5D=1', {
      token: needs(admin, 'the admin token'),
    });
    expectStatus(reply, 200, 'GET /v2/application-keys');
    const total = reply.body?.meta?.results?.total;
    if (!Array.isArray(reply.body?.data) || typeof total !== 'number')
      throw new CheckFailed('not a key list');
    return `${total} key(s)`;
  });

  // Create, read, delete: the delete runs whatever happened in between, so nothing is left behind.
  let created: string | undefined;
  try {
    await check('application keys: create', async () => {
      const reply = await call('POST', '/v2/application-keys', {
        token: needs(admin, 'the admin token'),
        body: { data: { type: 'application_key', name: `smoke-test ${new Date().toISOString()}` } },
      });
      expectStatus(reply, 201, 'POST /v2/application-keys');
      if (typeof reply.body?.data?.id !== 'string') throw new CheckFailed('no key id in the answer');
      created = reply.body.data.id;
      return `key ${created}`;
    });
    await check('application keys: read the new key', async () => {
      const id = needs(created, 'the create');
      const reply = await call('GET', `/v2/application-keys/${id}`, {
        token: needs(admin, 'the admin token'),
      });
      expectStatus(reply, 200, `GET /v2/application-keys/${id}`);
      if (reply.body?.data?.id !== id) throw new CheckFailed('another key came back');
      return 'found';
    });
  } finally {
    await check('application keys: delete the new key (and it is gone)', async () => {
      const id = needs(created, 'the create');
      const token = needs(admin, 'the admin token');
      expectStatus(
        await call('DELETE', `/v2/application-keys/${id}`, { token }),
        204,
        `DELETE /v2/application-keys/${id}`,
      );
      expectStatus(await call('GET', `/v2/application-keys/${id}`, { token }), 404, 'GET of the deleted key');
      return 'deleted';
    });
  }

  await check('merchant realm mapping: read', async () => {
    const reply = await call('GET', '/v2/merchant-realm-mappings', {
      token: needs(admin, 'the admin token'),
    });
    expectStatus(reply, 200, 'GET /v2/merchant-realm-mappings');
    if (typeof reply.body?.data?.id !== 'string') throw new CheckFailed('no mapping in the answer');
    return `mapping ${reply.body.data.id}`;
  });
  if (options.product !== undefined && options.channel !== undefined) {
    const { product, channel } = options;
    await check('catalog: child products', async () => {
      const reply = await call(
        'GET',
        `/catalog/products/${encodeURIComponent(product)}/relationships/children`,
        {
          token: needs(shopper, 'the implicit token'),
          headers: { 'svc-channel': channel },
        },
      );
      expectStatus(reply, 200, 'GET /catalog/products/{id}/relationships/children');
      if (!Array.isArray(reply.body?.data)) throw new CheckFailed('not a product list');
      return `${reply.body.meta?.results?.total ?? reply.body.data.length} live children`;
    });
    await check('catalog: the release', async () => {
      const reply = await call('GET', '/catalog', {
        token: needs(shopper, 'the implicit token'),
        headers: { 'svc-channel': channel },
      });
      expectStatus(reply, 200, 'GET /catalog');
      if (reply.body?.data?.type !== 'catalog-release') throw new CheckFailed('not a catalog release');
      return `release ${reply.body.data.id}, ${reply.body.data.meta?.total_products} live products`;
    });
    await check('catalog: the product', async () => {
      const reply = await call('GET', `/catalog/products/${encodeURIComponent(product)}`, {
        token: needs(shopper, 'the implicit token'),
        headers: { 'svc-channel': channel },
      });
      expectStatus(reply, 200, 'GET /catalog/products/{id}');
      if (reply.body?.data?.id !== product.toLowerCase()) throw new CheckFailed('not the product');
      return `${reply.body.data.attributes?.name}`;
    });
  }
  await check('unknown route: 404', async () => {
    expectStatus(await call('GET', '/v2/smoke-test-no-such-route'), 404, 'GET /v2/smoke-test-no-such-route');
    return 'not found';
  });
  await check('bad token: 401', async () => {
    const reply = await call('GET', '/v2/application-keys', { token: 'smoke-test-not-a-token' });
    expectStatus(reply, 401, 'GET /v2/application-keys with a bad token');
    if (!Array.isArray(reply.body?.errors)) throw new CheckFailed('the 401 has no errors array');
    return 'refused';
  });
  return results;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const results = await runSmoke(options, (result) => {
    if (!options.json)
      process.stdout.write(
        `${result.ok ? 'PASS' : 'FAIL'}  ${result.name}: ${result.detail} (${result.ms} ms)\n`,
      );
  });
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  if (options.json) process.stdout.write(`${JSON.stringify({ checks: results, passed, failed })}\n`);
  else process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((error: unknown) => {
  process.stderr.write(`smoke failed: ${(error as Error).message}\n`);
  process.exit(1);
});
