import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { gateway } from '@elasticpath/js-sdk';
import { getConfig } from '../../lib/config/index';
import { localDeliveryEnvironment } from '../../local/delivery-queue';
import { CDK_OUT, localTables, runtimeEnvironment } from '../../local/from-template';
import { closeServer, listen } from '../../local/gateway';
import { objectStoreEnvironment } from '../../local/object-store-local';
import { createLocalServer, type LocalServerOptions } from '../../local/server';
import { createTemplateServer } from '../../local/template/server';
import { tapServer } from './log-scan';
import { checkServerResponses } from './openapi';

/** Responses of this test file's local API that broke openapi.json (checked in e2e-setup.ts). */
export const contractProblems: string[] = [];
/** How many responses were checked (the log scan's served count must not exceed it). */
export const contractChecked = { count: 0 };

export interface LocalApi {
  /** `http://127.0.0.1:PORT` */
  baseUrl: string;
  /** `127.0.0.1:PORT`, as the official SDK's `host` option wants it. */
  host: string;
  server: Server;
  close(): Promise<void>;
}

/** True in the e2e-template project (test/support/template-env.ts). */
export const FROM_TEMPLATE = process.env.LOCAL_API === 'template';

/**
 * Starts the local API server (the real HTTP harness) on a free port, against the run's DynamoDB Local:
 * the in-process one, or in the e2e-template project the template-driven one serving cdk.out's bundles.
 */
export async function startLocalApi(options: LocalServerOptions = {}): Promise<LocalApi> {
  let server: Server;
  let close = () => closeServer(server);
  if (FROM_TEMPLATE) {
    const config = getConfig();
    const template = createTemplateServer({
      outdir: CDK_OUT,
      tables: localTables(config),
      // Loopback webhooks as npm start allows them, and a test's shorter delivery timeout and backoff.
      runtimeEnv: {
        ...runtimeEnvironment(config),
        ...objectStoreEnvironment(config),
        ...localDeliveryEnvironment(),
      },
      corsOrigins: options.corsOrigins,
    });
    server = template.server;
    close = template.close;
  } else server = createLocalServer(options);
  // Every Authorization value and every client_secret/access_token that crosses it is registered for the
  // e2e log scan (test/support/e2e-setup.ts), whatever client the test uses.
  tapServer(server);
  // Every response a function gives is checked against openapi.json; e2e-setup.ts fails the file on a problem.
  checkServerResponses(server, contractProblems, contractChecked);
  const port = await listen(server, 0);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    server,
    close,
  };
}

/** In-memory storage for the official SDK's `storage` option (no files, no cookies). */
export function memoryStorage() {
  const values = new Map<string, string>();
  return {
    set: (key: string, value: string) => void values.set(key, value),
    get: (key: string) => values.get(key) ?? null,
    delete: (key: string) => void values.delete(key),
  };
}

/**
 * `cross-fetch` (the SDK's own dependency), for the SDK's `custom_fetch` option: Node's own `fetch` sends
 * the `form-data` stream of `Files.Link` as the text `[object FormData]`; cross-fetch streams it. Loaded
 * untyped: its type declarations pull the DOM library into the whole program's types.
 */
export const crossFetch: unknown = createRequire(import.meta.url)('cross-fetch');

/**
 * The official SDK, unmodified, pointed at the local API: with a secret it authenticates with the
 * client_credentials grant (admin), without one with the implicit grant (storefront); `customFetch` is
 * its `custom_fetch` option (`crossFetch` for `Files.Link` on Node).
 */
export function sdkClient(
  api: LocalApi,
  credentials: { clientId: string; clientSecret?: string },
  customFetch?: unknown,
) {
  return gateway({
    client_id: credentials.clientId,
    ...(credentials.clientSecret === undefined ? {} : { client_secret: credentials.clientSecret }),
    host: api.host,
    protocol: 'http',
    storage: memoryStorage(),
    ...(customFetch === undefined ? {} : { custom_fetch: customFetch }),
  } as never);
}
