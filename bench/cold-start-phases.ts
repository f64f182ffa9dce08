import './silent-logs';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import {
  ROOT_CERTIFICATES_ENV,
  ROOT_CERTIFICATES_FOLDER,
  rootCertificatesLayerDir,
} from '../infra/root-certificates';
import { publishRelease } from '../test/support/one-process-publisher';
import { bundleFunctions } from './bundle';
import { type ColdStart, type ColdStartPhases, deployedEnv, measureColdStart } from './cold-start';
import { setUpChildList } from './list-child-products';
import { createScenario } from './scenario';
import { iterationsArg, progress, round, runAsScript } from './support';
import { startTlsFront } from './tls-front';

/**
 * `npx tsx bench/cold-start-phases.ts [--iterations N]`: the cold-start stage's per-phase breakdown
 * (see ColdStartPhases) on its own database, for a read, a write, the token grant and the child list,
 * the child list also with `RATE_LIMITS=off` (the limiter's share is the difference), and a read with
 * DynamoDB Local reached directly, through a TLS front with node's own store of root certificates, and
 * through it with the stack's layer of root certificates (infra/root-certificates.ts): what TLS adds to a
 * Lambda's cold start either way; each in fresh processes beside `node -e 0`.
 */
export interface PhaseFigures {
  functions: Record<string, ColdStart>;
  /** The child list with the limiter on and off, runs alternating in pairs. */
  limiter: { on: ColdStart; off: ColdStart };
  /** `get-merchant-realm-mapping` with DynamoDB Local over plain HTTP and behind a TLS front, alternating. */
  tls: { plain: ColdStart; tls: ColdStart; layer: ColdStart };
}

async function measureAll(runs: number): Promise<PhaseFigures> {
  const bundles = await bundleFunctions(join(mkdtempSync(join(tmpdir(), 'cold-phases-')), 'bundles'), {}, [
    'create-access-token',
    'get-merchant-realm-mapping',
    'update-merchant-realm-mapping',
    'list-child-products',
  ]);
  const env: NodeJS.ProcessEnv = {
    ...deployedEnv(),
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
  };
  const s = await createScenario(3);
  const catalog = await setUpChildList(200);
  await publishRelease(catalog.storeId, catalog.document);
  const childList = () =>
    s.event('GET', `/catalog/products/${catalog.parentId}/relationships/children?page[limit]=25`, {
      token: catalog.token,
      headers: { 'svc-channel': 'web' },
    });
  const mappingPath = `/v2/merchant-realm-mappings/${s.store.mapping_id}`;
  const events: Record<string, { event: (run: number) => ReturnType<typeof s.event>; status: number }> = {
    'create-access-token': {
      status: 200,
      event: () =>
        s.event('POST', '/oauth/access_token', {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: s.clientId,
            client_secret: s.clientSecret,
          }).toString(),
        }),
    },
    'get-merchant-realm-mapping': {
      status: 200,
      event: () => s.event('GET', mappingPath, { token: s.adminToken }),
    },
    'update-merchant-realm-mapping': {
      status: 200,
      event: (run) =>
        s.event('PUT', mappingPath, {
          token: s.adminToken,
          body: {
            data: { type: 'merchant-realm-mappings', prefix: `phases-${s.store.id.slice(-8)}-${run % 2}` },
          },
        }),
    },
    'list-child-products': { status: 200, event: childList },
  };
  const functions: Record<string, ColdStart> = {};
  for (const [name, spec] of Object.entries(events)) {
    progress(`cold start phases: ${name} (${runs} fresh processes)`);
    functions[name] = await measureColdStart(bundles[name]?.file ?? '', spec.event, spec.status, env, runs);
  }
  progress(`cold start phases: list-child-products, RATE_LIMITS on and off (${runs} each)`);
  const [on, off] = await alternating(
    bundles['list-child-products']?.file ?? '',
    { event: childList, status: 200 },
    [
      { ...env, RATE_LIMITS: 'on' },
      { ...env, RATE_LIMITS: 'off' },
    ],
    runs,
  );
  progress(
    `cold start phases: get-merchant-realm-mapping, DynamoDB over HTTP, over TLS, and over TLS with the layer's root certificates (${runs} each)`,
  );
  const read = events['get-merchant-realm-mapping'];
  if (!read) throw new Error('no event for get-merchant-realm-mapping');
  const front = await startTlsFront(process.env.DYNAMODB_ENDPOINT ?? '');
  try {
    // The stack's way: node's roots (and here the front's certificate) in OpenSSL's hashed layout, read
    // as a chain needs them (infra/root-certificates.ts), the directory where the layer's is in Lambda.
    const frontCertificate = readFileSync(front.env.NODE_EXTRA_CA_CERTS ?? '', 'utf8');
    const layerDir = join(
      rootCertificatesLayerDir(mkdtempSync(join(tmpdir(), 'cold-phases-roots-')), [
        ...rootCertificates,
        frontCertificate,
      ]),
      ROOT_CERTIFICATES_FOLDER,
    );
    const overTls = { ...env, DYNAMODB_ENDPOINT: front.endpoint };
    const [plain, tls, layer] = await alternating(
      bundles['get-merchant-realm-mapping']?.file ?? '',
      read,
      [
        env,
        { ...overTls, ...front.env },
        {
          ...overTls,
          ...ROOT_CERTIFICATES_ENV,
          SSL_CERT_DIR: layerDir,
          SSL_CERT_FILE: join(layerDir, 'no-default-file'),
        },
      ],
      runs,
      // Each beside a baseline that trusts nothing more: a TLS process pays for its root certificates, as a
      // Lambda's first TLS connection does (tls-front.ts).
      env,
    );
    return {
      functions,
      limiter: { on: on as ColdStart, off: off as ColdStart },
      tls: { plain: plain as ColdStart, tls: tls as ColdStart, layer: layer as ColdStart },
    };
  } finally {
    await front.close();
  }
}

/**
 * One function's cold start in several environments, one process each in turn (so drift on a shared
 * machine hits all alike), `runs` of each: their medians, in the environments' order. Each beside
 * `node -e 0` in its own environment, or in `baselineEnv` when given.
 */
async function alternating(
  file: string,
  spec: { event: (run: number) => unknown; status: number },
  envs: NodeJS.ProcessEnv[],
  runs: number,
  baselineEnv?: NodeJS.ProcessEnv,
): Promise<ColdStart[]> {
  const measured: ColdStart[][] = envs.map(() => []);
  for (let batch = 0; batch < runs; batch += 1) {
    for (const [i, env] of envs.entries()) {
      measured[i]?.push(await measureColdStart(file, spec.event, spec.status, env, 1, baselineEnv ?? env));
    }
  }
  return measured.map(combine);
}

/** Medians over single-run cold starts. */
function combine(runs: ColdStart[]): ColdStart {
  const med = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return round(sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN, 1);
  };
  const phase = (key: keyof ColdStartPhases) => med(runs.map((run) => run.phases?.[key] ?? Number.NaN));
  return {
    median_ms: med(runs.map((run) => run.median_ms)),
    node_baseline_ms: med(runs.map((run) => run.node_baseline_ms)),
    phases: {
      boot: phase('boot'),
      init: phase('init'),
      before_handler: phase('before_handler'),
      handler: phase('handler'),
      response: phase('response'),
      exit: phase('exit'),
    },
  };
}

/** One line: the wall time over node -e 0 and each phase. */
export function describePhases(name: string, c: ColdStart): string {
  const p = c.phases;
  const over = round(c.median_ms - c.node_baseline_ms, 1);
  const parts = p
    ? `boot ${p.boot}  import+init ${p.init}  auth+limiter ${p.before_handler}  handler ${p.handler}  response ${p.response}  exit ${p.exit}`
    : 'no phases';
  return `  ${name.padEnd(32)} ${c.median_ms} ms (node ${c.node_baseline_ms}, +${over})  ${parts}`;
}

runAsScript(
  import.meta.url,
  (args) => measureAll(iterationsArg(args, 11)),
  (f) =>
    [
      'Cold start, medians (ms): wall time over node -e 0, then the phases measured inside the process',
      ...Object.entries(f.functions).map(([name, c]) => describePhases(name, c)),
      describePhases('child list, limiter on', f.limiter.on),
      describePhases('child list, RATE_LIMITS=off', f.limiter.off),
      describePhases('mapping read, DynamoDB over HTTP', f.tls.plain),
      describePhases('mapping read, DynamoDB over TLS', f.tls.tls),
      describePhases("mapping read, over TLS, layer's roots", f.tls.layer),
      '',
    ].join('\n'),
);
