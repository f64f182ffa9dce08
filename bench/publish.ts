import type { ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import { generateReleaseText } from '../lib/catalog/generator';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { pcmRepository } from '../lib/store/pcm-repository';
import { storeRepository } from '../lib/store/store-repository';
import { freePort } from '../local/dynamodb-local';
import { startProcess, stopProcess } from './local-server';
import { progress, quantile, round, runAsScript } from './support';

/**
 * The `publish` stage: a generated document published through the API on the local harness, as
 * a merchant's tools publish: a catalog, a pre-signed upload of the document, a release, then polling it
 * until PUBLISHED. The local API runs in its own process (`npm start`'s server, with its S3-compatible
 * store, and the workflow's steps, which it runs in process), on the bench's DynamoDB Local. Figures: the
 * wall time of each phase (seen by polling every 250 ms), the items written a second, and the peak RSS of
 * every process (Linux VmHWM), for 1, 2 and 4 writers.
 */

export interface PublishRun {
  writers: number;
  /** Seconds from the release's creation until the state first seen at or past each phase. */
  validated_s: number;
  planned_s: number;
  derived_s: number;
  published_s: number;
  /** Items written a second in the write phase (from derived to published). */
  items_per_s: number;
  /** How long each poll of the release (`GET …/releases/{id}`) took while it published, seen by the client. */
  poll_ms: Latency;
  /** Peak RSS, MB: the API process, the workflow's process (as it recorded on the release), DynamoDB Local. */
  peak_rss_mb: { api: number; workflow: number; dynamodb_local: number };
}

export interface PublishFigures {
  products: number;
  product_bytes: number;
  document_mb: number;
  items: number;
  /** The heap limit of the API process (`--max-old-space-size`), as Lambda sets one from its memory. */
  api_heap_mb: number;
  upload_s: number;
  runs: PublishRun[];
  /** The same document uploaded again with one price changed, published after the last run's. */
  reupload?: {
    validated_s: number;
    derived_s: number;
    published_s: number;
    items_written: number;
    changed_products: number;
    peak_rss_mb: { api: number; workflow: number };
    poll_ms: Latency;
    /** A shopper's `GET /catalog/products` every 100 ms while it published (the first release serving). */
    shopper_read_ms: Latency;
  };
  /** The bench process itself (it generates the document to a file and uploads it as a stream). */
  bench_peak_rss_mb: number;
}

const API_HEAP_MB = 320;

/** Request times while a release publishes, as the client saw them. */
export interface Latency {
  requests: number;
  p50_ms: number;
  p99_ms: number;
}

/** Target: the API answers within this while it publishes (p99), the workflow being off its thread. */
export const BUSY_P99_MS_MAX = 100;

function latency(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    p50_ms: round(quantile(sorted, 0.5), 1),
    p99_ms: round(quantile(sorted, 0.99), 1),
  };
}

/**
 * Copies a generated document with its last `"amount":` number changed: the price of its last product, the
 * standalone one (a parent's would change every child that inherits it). Two streamed passes: where the
 * last one is, then the copy.
 */
async function oneAmountChanged(from: string, to: string): Promise<void> {
  const pattern = /"amount":(\d+)/g;
  let last = -1;
  let offset = 0;
  let tail = '';
  for await (const chunk of createReadStream(from, { encoding: 'utf8' })) {
    const text = tail + (chunk as string);
    const base = offset - tail.length;
    for (const match of text.matchAll(pattern)) last = Math.max(last, base + match.index);
    offset += (chunk as string).length;
    tail = text.slice(-32);
  }
  if (last === -1) throw new Error('the generated document has no price to change');
  const out = createWriteStream(to);
  let written = 0;
  let pending = '';
  let done = false;
  const change = () => {
    const local = last - written;
    const match = /^"amount":(\d+)/.exec(pending.slice(local, local + 40));
    if (!match) throw new Error('the second pass did not find the price the first found');
    pending = `${pending.slice(0, local)}"amount":${Number(match[1]) + 1}${pending.slice(local + match[0].length)}`;
    done = true;
  };
  for await (const chunk of createReadStream(from, { encoding: 'utf8' })) {
    pending += chunk as string;
    if (!done && last - written + 40 <= pending.length) change();
    // Everything before the price (all of it, once changed) goes out.
    const upto = done ? pending.length : Math.min(pending.length, Math.max(0, last - written));
    if (!out.write(pending.slice(0, upto)))
      await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    written += upto;
    pending = pending.slice(upto);
  }
  if (!done) change();
  out.end(pending);
  await finished(out);
}

/** The peak resident set of a process (Linux), in MB. */

/**
 * A published release's record once its workflow's process has ended: the process records its peak RSS
 * on it as it ends, just after the release is published (waits up to 10 s for it).
 */
export async function endedRelease(storeId: string, catalogId: string, releaseId: string) {
  let record = await pcmRepository.getRelease(storeId, catalogId, releaseId);
  for (let wait = 0; record?.workflow_peak_rss_mb === undefined && wait < 100; wait += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    record = await pcmRepository.getRelease(storeId, catalogId, releaseId);
  }
  return record;
}
function peakRssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
    return Math.round(kb / 1024);
  } catch {
    return Number.NaN;
  }
}

/** The pid of the Java process of DynamoDB Local: the child of the launcher, or the launcher itself. */
function javaPid(launcher: number | undefined): number | undefined {
  if (launcher === undefined) return undefined;
  try {
    const children = readFileSync(`/proc/${launcher}/task/${launcher}/children`, 'utf8').trim().split(/\s+/);
    const java = children.find(
      (pid) => pid !== '' && readFileSync(`/proc/${pid}/comm`, 'utf8').includes('java'),
    );
    return java === undefined ? launcher : Number(java);
  } catch {
    return launcher;
  }
}

/**
 * PUTs a file to a pre-signed URL, streamed with the file's backpressure. (Node 20's `fetch` with
 * `Readable.toWeb(createReadStream(file))` as its body read the whole file ahead of the socket: the bench
 * process grew to 1.1 GB uploading a 980 MB document.)
 */
async function putFile(url: string, file: string, bytes: number): Promise<void> {
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      url,
      { method: 'PUT', headers: { 'Content-Type': 'application/json', 'Content-Length': String(bytes) } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    pipeline(createReadStream(file), req).catch(reject);
  });
  const { status, body } = await answer;
  if (status < 200 || status >= 300) throw new Error(`upload answered ${status}: ${body.slice(0, 500)}`);
}

async function json(
  response: Response,
): Promise<Record<string, unknown> & { data: Record<string, unknown> }> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status} ${response.url}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/**
 * A shopper reading the first page of `GET /catalog/products` every 100 ms until stopped: each request's
 * time as the client saw it. A read that fails stops the bench: the API must keep serving while it publishes.
 */
function shopperReads(
  base: string,
  headers: Record<string, string>,
): { stop: () => void; samples: Promise<number[]> } {
  let stopped = false;
  const samples = (async () => {
    const times: number[] = [];
    while (!stopped) {
      const asked = performance.now();
      const answer = await fetch(`${base}/catalog/products?page[limit]=25`, {
        headers: { ...headers, 'SVC-Channel': 'web' },
      });
      const body = await answer.text();
      if (answer.status !== 200)
        throw new Error(`a shopper read answered ${answer.status} while publishing: ${body.slice(0, 300)}`);
      times.push(performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return times;
  })();
  samples.catch(() => undefined);
  return {
    stop: () => {
      stopped = true;
    },
    samples,
  };
}

export async function measurePublish(options: {
  products: number;
  productBytes: number;
  writers: number[];
  databasePid: number | undefined;
}): Promise<PublishFigures> {
  const parents = Math.max(1, Math.round(options.products / 100));
  const children = Math.max(1, Math.round(options.products / parents) - 1);
  const dir = mkdtempSync(join(tmpdir(), 'bench-publish-'));
  const file = join(dir, 'release.json');
  try {
    progress(
      `generating ${parents} parents of ${children} children, ${options.productBytes} bytes a product`,
    );
    const out = createWriteStream(file);
    for (const piece of generateReleaseText({
      children,
      parents,
      productBytes: options.productBytes,
      seed: 1,
    })) {
      if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    out.end();
    await finished(out);
    const bytes = statSync(file).size;

    const store = await storeRepository.create({ name: 'bench publish', rate_limit: 100_000 });
    const { key, clientSecret } = await applicationKeyRepository.create(store.id, {
      name: 'bench',
      reserved_rate_limit: 0,
    });
    const runs: PublishRun[] = [];
    let reupload: PublishFigures['reupload'];
    let uploadSeconds = Number.NaN;
    let items = 0;
    for (const writers of options.writers) {
      const port = await freePort();
      const api: ChildProcess = await startProcess(
        process.execPath,
        [`--max-old-space-size=${API_HEAP_MB}`, '--import', 'tsx', 'local/start.ts', '--in-memory'],
        {
          ...process.env,
          PORT: String(port),
          S3_PORT: String(await freePort()),
          RELEASE_WRITERS: String(writers),
          LOG_LEVEL: 'silent',
        },
        /Local API listening/,
      );
      // An API process that dies mid-run (out of memory, say) is named with its last words, not as a failed fetch.
      let apiStderr = '';
      api.stderr?.on('data', (chunk: Buffer) => {
        apiStderr = (apiStderr + chunk.toString()).slice(-2000);
      });
      const apiExit = new Promise<never>((_resolve, reject) =>
        api.once('exit', (code, signal) =>
          reject(new Error(`the API process exited (${code ?? signal}) during the run: ${apiStderr}`)),
        ),
      );
      apiExit.catch(() => undefined);
      try {
        const base = `http://127.0.0.1:${port}`;
        const grant = await fetch(`${base}/oauth/access_token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: `grant_type=client_credentials&client_id=${key.client_id}&client_secret=${clientSecret}`,
        });
        const token = (await grant.json()) as { access_token: string };
        const headers = { Authorization: `Bearer ${token.access_token}`, 'Content-Type': 'application/json' };
        const catalog = await json(
          await fetch(`${base}/pcm/catalogs`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ data: { type: 'catalog', attributes: { name: `bench ${writers}` } } }),
          }),
        );
        const catalogId = catalog.data.id as string;
        const upload = await json(
          await fetch(`${base}/pcm/catalogs/${catalogId}/document-uploads`, { method: 'POST', headers }),
        );
        progress(`uploading ${round(bytes / 1048576, 1)} MB through the pre-signed URL`);
        const uploadStarted = performance.now();
        await putFile(upload.data.upload_url as string, file, bytes);
        uploadSeconds = (performance.now() - uploadStarted) / 1000;

        progress(`publishing with ${writers} writer${writers === 1 ? '' : 's'}`);
        /** Creates a release and polls it every 250 ms: when each phase was first seen, and the record. */
        const publishOnce = async () => {
          const started = performance.now();
          const created = await json(
            await fetch(`${base}/pcm/catalogs/${catalogId}/releases`, { method: 'POST', headers }),
          );
          const releaseId = created.data.id as string;
          const seen: Record<string, number> = {};
          const polls: number[] = [];
          let meta: Record<string, unknown> = {};
          for (;;) {
            await Promise.race([new Promise((resolve) => setTimeout(resolve, 250)), apiExit]);
            const asked = performance.now();
            const answer = await fetch(`${base}/pcm/catalogs/${catalogId}/releases/${releaseId}`, {
              headers,
            }).catch((error: Error & { cause?: { code?: string; message?: string } }) => {
              // undici says only "fetch failed": its cause says why (refused, reset, a timeout).
              throw new Error(
                `polling the release failed (${error.cause?.code ?? error.cause?.message ?? error.message}) after ${round((performance.now() - started) / 1000, 1)} s; API stderr: ${apiStderr}`,
              );
            });
            const release = await json(answer);
            polls.push(performance.now() - asked);
            meta = release.data.meta as Record<string, unknown>;
            const at = (performance.now() - started) / 1000;
            const percent = meta.percent_completed as number;
            if (percent >= 10) seen.validated ??= at;
            if (percent >= 12) seen.planned ??= at;
            if (percent >= 20) seen.derived ??= at;
            if (meta.release_status === 'PUBLISHED' || meta.release_status === 'FAILED') {
              seen.published = at;
              break;
            }
          }
          if (meta.release_status !== 'PUBLISHED') {
            throw new Error(
              `the release ended ${String(meta.release_status)}: ${JSON.stringify(meta.errors)}`,
            );
          }
          // The API shows products, not items: the release record the workflow keeps has both.
          const record = await endedRelease(store.id, catalogId, releaseId);
          return {
            seen: seen as Record<string, number> & { published: number },
            record,
            poll_ms: latency(polls),
          };
        };
        const { seen, record, poll_ms } = await publishOnce();
        const totalItems = record?.total_items ?? 0;
        items = totalItems;
        const validated = seen.validated ?? seen.published;
        const planned = seen.planned ?? seen.published;
        const derived = seen.derived ?? seen.published;
        runs.push({
          writers,
          validated_s: round(validated, 1),
          planned_s: round(planned, 1),
          derived_s: round(derived, 1),
          published_s: round(seen.published, 1),
          items_per_s: Math.round(totalItems / Math.max(0.001, seen.published - derived)),
          poll_ms,
          peak_rss_mb: {
            api: peakRssMb(api.pid),
            workflow: record?.workflow_peak_rss_mb ?? Number.NaN,
            dynamodb_local: peakRssMb(javaPid(options.databasePid)),
          },
        });
        if (writers === options.writers.at(-1)) {
          // The document uploaded again with one price changed: the release compares it with the one
          // before and writes what changed; the time is the stream's read, derivation and comparison.
          const changed = join(dir, 'changed.json');
          await oneAmountChanged(file, changed);
          const again = await json(
            await fetch(`${base}/pcm/catalogs/${catalogId}/document-uploads`, { method: 'POST', headers }),
          );
          await putFile(again.data.upload_url as string, changed, statSync(changed).size);
          progress('publishing the document again with one price changed, a shopper reading meanwhile');
          const reader = shopperReads(base, headers);
          const second = await publishOnce().finally(() => reader.stop());
          const shopper_read_ms = latency(await reader.samples);
          reupload = {
            validated_s: round(second.seen.validated ?? second.seen.published, 1),
            derived_s: round(second.seen.derived ?? second.seen.published, 1),
            published_s: round(second.seen.published, 1),
            items_written: second.record?.total_items ?? Number.NaN,
            changed_products: second.record?.sharing?.changed_products ?? Number.NaN,
            peak_rss_mb: {
              api: peakRssMb(api.pid),
              workflow: second.record?.workflow_peak_rss_mb ?? Number.NaN,
            },
            poll_ms: second.poll_ms,
            shopper_read_ms,
          };
        }
        progress(`published in ${round(seen.published, 1)} s: ${JSON.stringify(runs.at(-1))}`);
      } finally {
        await stopProcess(api);
      }
    }
    return {
      products: options.products,
      product_bytes: options.productBytes,
      document_mb: round(bytes / 1048576, 1),
      items,
      api_heap_mb: API_HEAP_MB,
      upload_s: round(uploadSeconds, 1),
      runs,
      ...(reupload === undefined ? {} : { reupload }),
      bench_peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function describePublish(figures: PublishFigures): string {
  const lines = [
    `publish: ${figures.products.toLocaleString('en-US')} products of ${figures.product_bytes} bytes (${figures.document_mb} MB, ${figures.items.toLocaleString('en-US')} items), uploaded in ${figures.upload_s} s; API process heap limit ${figures.api_heap_mb} MB`,
  ];
  for (const run of figures.runs) {
    lines.push(
      `  ${run.writers} writer${run.writers === 1 ? ' ' : 's'}: validated ${run.validated_s} s, planned ${run.planned_s} s, derived ${run.derived_s} s, published ${run.published_s} s; ${run.items_per_s} items/s written; peak RSS API ${run.peak_rss_mb.api} MB, workflow ${run.peak_rss_mb.workflow} MB, DynamoDB Local ${run.peak_rss_mb.dynamodb_local} MB; release polls meanwhile p50 ${run.poll_ms.p50_ms} / p99 ${run.poll_ms.p99_ms} ms (${run.poll_ms.requests})`,
    );
  }
  const again = figures.reupload;
  if (again !== undefined)
    lines.push(
      `  uploaded again with one price changed: validated ${again.validated_s} s, derived and compared ${again.derived_s} s, published ${again.published_s} s; ${again.items_written} items written (${again.changed_products} products changed); peak RSS API ${again.peak_rss_mb.api} MB, workflow ${again.peak_rss_mb.workflow} MB; meanwhile release polls p50 ${again.poll_ms.p50_ms} / p99 ${again.poll_ms.p99_ms} ms, shopper reads p50 ${again.shopper_read_ms.p50_ms} / p99 ${again.shopper_read_ms.p99_ms} ms (${again.shopper_read_ms.requests})`,
    );
  lines.push(`  bench process (generates and uploads): peak RSS ${figures.bench_peak_rss_mb} MB`);
  return `${lines.join('\n')}\n`;
}

runAsScript(
  import.meta.url,
  async (args) => {
    const number = (name: string, fallback: number) => {
      const index = args.indexOf(name);
      return index === -1 ? fallback : Number(args[index + 1]);
    };
    const writersIndex = args.indexOf('--writers');
    const writers =
      writersIndex === -1
        ? [1, 2, 4]
        : String(args[writersIndex + 1])
            .split(',')
            .map(Number);
    return measurePublish({
      products: number('--products', 20_000),
      productBytes: number('--product-bytes', 1024),
      writers,
      databasePid: Number(process.env.BENCH_DYNAMODB_PID) || undefined,
    });
  },
  describePublish,
);
