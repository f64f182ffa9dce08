import { spawn } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { CHILD_CHUNK_SIZE } from '../lib/catalog/child-index';
import {
  type DerivePlan,
  deriveRange,
  mergeRelease,
  planRelease,
  type RangePartial,
  type RangePicks,
  type ReleaseItem,
} from '../lib/catalog/derive-stream';
import { FILTER_INDEX_VERSION } from '../lib/catalog/filter-index';
import { generateReleaseText } from '../lib/catalog/generator';
import { encodeItem } from '../lib/catalog/pipeline/codec';
import { RELEASE_SHARDS } from '../lib/catalog/release-settings';
import { DEFAULT_CURRENCIES } from '../lib/store/store-repository';
import { progress, round } from './support';

/**
 * The parts of the publishing workflow's derivation timed one by one, each in a process of its own as each
 * is a Lambda of its own in AWS (docs/publishing.md, "The arithmetic for AWS"): Plan over the whole
 * document, every range's derivation, and Merge, on a generated document read from a file. Items are
 * encoded as the chunk files hold them and counted, not stored: this times the derivation, not S3 or
 * DynamoDB. Each part reports its wall time and its peak RSS.
 *
 *   [PART_HEAP_MB=128] npx tsx bench/derive-ranges.ts --products 1000000 [--product-bytes 1024]
 *
 * PART_HEAP_MB runs each part under that heap limit (`--max-old-space-size`), as a Lambda's memory bounds it.
 */

const LAYOUT = {
  id: '01900000-0000-7000-8000-0000000000aa',
  shards: RELEASE_SHARDS,
  chunk_size: CHILD_CHUNK_SIZE,
  published_at: '2026-11-26T00:00:00.000Z',
  filter_index: FILTER_INDEX_VERSION,
};
const CATALOG_ID = '01900000-0000-7000-8000-0000000000cc';

interface PartFigures {
  seconds: number;
  peak_rss_mb: number;
  items: number;
  item_mb: number;
}

/** Counts items as the chunk files would hold them. */
function counter() {
  const count = { items: 0, bytes: 0 };
  return {
    count,
    emit: (item: ReleaseItem) => {
      count.items += 1;
      count.bytes += encodeItem(item).length + 1;
    },
  };
}

const readRange = (file: string, offset: number, length: number) =>
  createReadStream(file, { start: offset, end: offset + length - 1, highWaterMark: 1 << 20 });
const readWhole = (file: string) => createReadStream(file, { highWaterMark: 1 << 20 });
const readJson = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;

/** One part, in this process: `plan`, `range <n>` or `merge`, its files in `dir`. */
async function runPart(dir: string, part: string, n: number): Promise<PartFigures> {
  const document = join(dir, 'release.json');
  const started = performance.now();
  const { count, emit } = counter();
  if (part === 'plan') {
    const { plan, picks } = await planRelease({
      open: () => readWhole(document),
      catalogId: CATALOG_ID,
      layout: LAYOUT,
      storeCurrencies: DEFAULT_CURRENCIES,
    });
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    for (const range of plan.ranges)
      writeFileSync(join(dir, `picks-${range.n}.json`), JSON.stringify(picks(range.n)));
  } else if (part === 'range') {
    const plan = readJson<DerivePlan>(join(dir, 'plan.json'));
    const range = plan.ranges[n];
    if (!range) throw new Error(`no range ${n}`);
    const partial = await deriveRange({
      plan,
      picks: readJson<RangePicks>(join(dir, `picks-${n}.json`)),
      range,
      source: readRange(document, range.offset, range.length),
      emit,
    });
    writeFileSync(join(dir, `partial-${n}.json`), JSON.stringify(partial));
  } else {
    const plan = readJson<DerivePlan>(join(dir, 'plan.json'));
    await mergeRelease({
      plan,
      partials: plan.ranges.map((range) => readJson<RangePartial>(join(dir, `partial-${range.n}.json`))),
      allPicks: async () =>
        plan.ranges.map((range) => readJson<RangePicks>(join(dir, `picks-${range.n}.json`))),
      open: () => readWhole(document),
      emit,
    });
  }
  return {
    seconds: round((performance.now() - started) / 1000, 2),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    items: count.items,
    item_mb: round(count.bytes / 1048576, 1),
  };
}

/** Runs one part in a process of its own and answers its figures. */
function spawnPart(dir: string, part: string, n = 0): Promise<PartFigures> {
  return new Promise((resolve, reject) => {
    const heap = process.env.PART_HEAP_MB ? [`--max-old-space-size=${process.env.PART_HEAP_MB}`] : [];
    const child = spawn(
      process.execPath,
      [...heap, '--import', 'tsx', 'bench/derive-ranges.ts', '--part', part, String(n), dir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`${part} ${n} exited ${code}`));
      else resolve(JSON.parse(out) as PartFigures);
    });
  });
}

async function main(args: string[]): Promise<void> {
  const partAt = args.indexOf('--part');
  if (partAt !== -1) {
    const figures = await runPart(
      args[partAt + 3] as string,
      args[partAt + 1] as string,
      Number(args[partAt + 2]),
    );
    process.stdout.write(JSON.stringify(figures));
    return;
  }
  const number = (name: string, fallback: number) => {
    const index = args.indexOf(name);
    return index === -1 ? fallback : Number(args[index + 1]);
  };
  const products = number('--products', 100_000);
  const productBytes = number('--product-bytes', 1024);
  const parents = Math.max(1, Math.round(products / 100));
  const children = Math.max(1, Math.round(products / parents) - 1);
  const dir = mkdtempSync(join(tmpdir(), 'bench-derive-'));
  try {
    progress(`generating ${parents} parents of ${children} children, ${productBytes} bytes a product`);
    const out = createWriteStream(join(dir, 'release.json'));
    for (const piece of generateReleaseText({ children, parents, productBytes, seed: 1 })) {
      if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    out.end();
    await finished(out);
    const mb = round(statSync(join(dir, 'release.json')).size / 1048576, 1);
    progress(`planning ${mb} MB`);
    const plan = await spawnPart(dir, 'plan');
    const { ranges } = readJson<DerivePlan>(join(dir, 'plan.json'));
    const planMb = round(statSync(join(dir, 'plan.json')).size / 1048576, 1);
    progress(`plan: ${JSON.stringify(plan)}; ${ranges.length} ranges, plan file ${planMb} MB`);
    const derived: PartFigures[] = [];
    for (const range of ranges) {
      derived.push(await spawnPart(dir, 'range', range.n));
      progress(`range ${range.n} (${range.count} products): ${JSON.stringify(derived.at(-1))}`);
    }
    const merge = await spawnPart(dir, 'merge');
    const seconds = derived.map((figures) => figures.seconds).sort((a, b) => a - b);
    const lines = [
      `derive-ranges: ${(parents * (children + 1)).toLocaleString('en-US')} products of ${productBytes} bytes (${mb} MB)`,
      `  plan: ${plan.seconds} s, peak RSS ${plan.peak_rss_mb} MB (plan file ${planMb} MB)`,
      `  ${ranges.length} ranges: median ${seconds[Math.floor(seconds.length / 2)]} s, slowest ${seconds.at(-1)} s, all together ${round(
        seconds.reduce((a, b) => a + b, 0),
        1,
      )} s; peak RSS at most ${Math.max(...derived.map((f) => f.peak_rss_mb))} MB; ${derived.reduce((a, f) => a + f.items, 0).toLocaleString('en-US')} items`,
      `  merge: ${merge.seconds} s, peak RSS ${merge.peak_rss_mb} MB, ${merge.items.toLocaleString('en-US')} items`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
