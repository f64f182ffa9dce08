import { Agent, get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { freePort } from '../local/dynamodb-local';
import { publishRelease } from '../test/support/one-process-publisher';
import { setUpChildList } from './list-child-products';
import { startProcess, stopProcess } from './local-server';
import { progress, quantile, round, runAsScript } from './support';

/**
 * What a shopper feels from a container that has just started, over HTTP against the local API (`npm
 * start`'s server, a fresh process each time, on the bench database):
 * - `first_requests`: a 10,000-child parent's warm child list, the p50 of the 30 requests after the
 *   container's first (cold) one, while the code is still being optimised by the JIT; and the p50 of 30
 *   more after 40 others (the steady state). Median over fresh processes.
 * - `filtered_cold`: a 50,000-child parent's first filtered page (`eq(tags,red)`) in a container that is
 *   warm (the function loaded, the token known: one request for an unknown product first) but has never
 *   read this parent. Median over fresh processes.
 */
export interface HttpFirstRequestsFigures {
  first_requests: { children: number; first30_p50_ms: number; steady_p50_ms: number; processes: number };
  filtered_cold: { children: number; p50_ms: number; processes: number; samples_ms: number[] };
}

export const FIRST_REQUESTS_P50_MAX_MS = 1.5;
export const FILTERED_COLD_MAX_MS = 100;

const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** One GET over node:http (fetch adds its own milliseconds), timed from the request to the last byte. */
function timedGet(agent: Agent, url: string, headers: Record<string, string>, expect = 200): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = get(url, { headers, agent }, (response) => {
      response.on('data', () => undefined);
      response.on('end', () => {
        const ms = performance.now() - start;
        if (response.statusCode !== expect)
          reject(new Error(`local API answered ${response.statusCode} for ${url}`));
        else resolve(ms);
      });
    });
    req.on('error', reject);
  });
}

/**
 * Runs `run` against a fresh local API process, through one keep-alive connection (as a browser or a load
 * balancer keeps one open).
 */
async function withLocalApi<T>(
  env: NodeJS.ProcessEnv,
  run: (base: string, agent: Agent) => Promise<T>,
): Promise<T> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const port = await freePort();
  const api = await startProcess(
    process.execPath,
    ['--import', 'tsx', 'local/start.ts'],
    { ...env, PORT: String(port), LOG_LEVEL: 'silent' },
    /Local API listening/,
  );
  try {
    return await run(`http://127.0.0.1:${port}`, agent);
  } finally {
    agent.destroy();
    await stopProcess(api);
  }
}

/** The first 30 requests after a fresh container's first, then 30 more after 40 others, `processes` times. */
export async function measureFirstRequests(
  path: string,
  headers: Record<string, string>,
  env: NodeJS.ProcessEnv,
  children: number,
  processes = 3,
): Promise<HttpFirstRequestsFigures['first_requests']> {
  const first: number[] = [];
  const steady: number[] = [];
  for (let run = 0; run < processes; run += 1) {
    await withLocalApi(env, async (base, agent) => {
      await timedGet(agent, base + path, headers);
      const times: number[] = [];
      for (let i = 0; i < 100; i += 1) times.push(await timedGet(agent, base + path, headers));
      first.push(median(times.slice(0, 30)));
      steady.push(median(times.slice(70)));
    });
  }
  return {
    children,
    first30_p50_ms: round(median(first), 3),
    steady_p50_ms: round(median(steady), 3),
    processes,
  };
}

/** Publishes a `children`-child parent and times its first filtered page in warm containers that never read it. */
export async function measureFilteredCold(
  env: NodeJS.ProcessEnv,
  children = 50_000,
  processes = 5,
): Promise<HttpFirstRequestsFigures['filtered_cold']> {
  progress(`publishing a release with a ${children}-child parent`);
  const setup = await setUpChildList(children);
  await publishRelease(setup.storeId, setup.document);
  const headers = { authorization: `Bearer ${setup.token}`, 'svc-channel': 'web' };
  const unknown = '00000000-0000-4000-8000-000000000000';
  const samples: number[] = [];
  for (let run = 0; run < processes; run += 1) {
    samples.push(
      await withLocalApi(env, async (base, agent) => {
        await timedGet(agent, `${base}/catalog/products/${unknown}/relationships/children`, headers, 404);
        const query = `filter=${encodeURIComponent('eq(tags,red)')}&page[limit]=25`;
        return timedGet(
          agent,
          `${base}/catalog/products/${setup.parentId}/relationships/children?${query}`,
          headers,
        );
      }),
    );
  }
  return {
    children,
    p50_ms: round(median(samples), 1),
    processes,
    samples_ms: samples.map((ms) => round(ms, 1)),
  };
}

/** The report lines of this stage. */
export function describeHttpFirstRequests(
  figures: HttpFirstRequestsFigures,
  check: (label: string, value: string, ok: boolean) => void,
): void {
  const f = figures.first_requests;
  check(
    `warm child list (${f.children.toLocaleString('en-US')} children), p50 of the first 30 after the cold one`,
    `${f.first30_p50_ms} ms (steady state ${f.steady_p50_ms} ms; ${f.processes} fresh processes)`,
    f.first30_p50_ms <= FIRST_REQUESTS_P50_MAX_MS,
  );
  const c = figures.filtered_cold;
  check(
    `filtered first page, cold, ${c.children.toLocaleString('en-US')} children (HTTP)`,
    `p50 ${c.p50_ms} ms (${c.samples_ms.join(', ')} ms)`,
    c.p50_ms <= FILTERED_COLD_MAX_MS,
  );
}

// `npx tsx bench/http-first-requests.ts [--children N]`: this stage alone, on its own database and catalogs.
runAsScript(
  import.meta.url,
  async (args) => {
    const index = args.indexOf('--children');
    const children = index === -1 ? 10_000 : Number(args[index + 1]);
    const env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
      // npm start starts its own S3-compatible store: on a free port, not beside a developer's on 9000.
      S3_PORT: String(await freePort()),
    };
    progress(`publishing a release with a ${children}-child parent`);
    const setup = await setUpChildList(children);
    await publishRelease(setup.storeId, setup.document);
    progress('the first requests of fresh local API processes');
    const first_requests = await measureFirstRequests(
      `/catalog/products/${setup.parentId}/relationships/children?page[offset]=0&page[limit]=25`,
      { authorization: `Bearer ${setup.token}`, 'svc-channel': 'web' },
      env,
      children,
    );
    progress('the first filtered page of a 50,000-child parent in warm processes');
    const filtered_cold = await measureFilteredCold(env);
    return { first_requests, filtered_cold };
  },
  (figures) => {
    const lines: string[] = [];
    describeHttpFirstRequests(figures, (label, value, ok) =>
      lines.push(`${label}: ${value} ${ok ? 'met' : 'MISSED'}`),
    );
    return `${lines.join('\n')}\n`;
  },
);
