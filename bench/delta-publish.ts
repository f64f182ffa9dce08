import { readFileSync } from 'node:fs';
import { type PcmRelease, WORKFLOW_STATES, type WorkflowState } from '../lib/store/pcm-repository';
import {
  API_HEAP_MB,
  type AuthoredBench,
  each,
  peakRssMb,
  publishAndWait,
  type ReleaseTimes,
  type SetupMode,
  setupAuthoredCatalog,
  setupOption,
} from './authored-publish';
import { stopProcess } from './local-server';
import { cpuTicks } from './noise';
import { endedRelease } from './publish';
import { intOption, progress, round, runAsScript } from './support';

/**
 * The `delta` stage: what a one-price change costs to publish. An authored catalog of N products (as the
 * `authored` stage builds it) is published whole, then DELTA_PUBLISHES times more, each after one price
 * changed over the API. Figures: items written and wall time of each publish, the release's layers, the
 * API process's peak RSS, and shopper product reads (first read of each product: the cache cold for it;
 * and again: warm) on the whole release against the last layered one. The paper model prices the write
 * units in AWS against a full rewrite.
 */

/** Publishes after the whole one: enough to compact once (MAX_LAYERS is 4). */
const DELTA_PUBLISHES = 5;
/** The change log's margin (EXPORT_CHANGE_MARGIN_SECONDS' default), waited out after the setup. */
const CHANGE_MARGIN_S = 120;
/** Products read on each release for the read figures. */
const READS = 300;
/** Write units an item costs in AWS on average (docs/publishing.md: 6.14 WCU a product of 4.02 items). */
const WCU_PER_ITEM = 6.14 / 4.02;
/** On-demand write request units, US East: $1.25 a million. */
const DOLLARS_PER_MILLION_WCU = 1.25;

export interface DeltaPublish {
  published_s: number;
  items_written: number;
  release_items: number;
  layers: number;
  changed_products: number;
  /** Each workflow state's wall time, s, as the local harness recorded it on the release. */
  step_seconds: Partial<Record<WorkflowState, number>>;
  /** The workflow's process's peak RSS, MB, as it recorded it on the release. */
  workflow_peak_rss_mb: number;
  /** How Export wrote the document: spliced from the release before's (with the families written again), or whole and why. */
  export: NonNullable<PcmRelease['export']> | undefined;
  /** The derivation's ranges, and how many of them were taken up from the release before (not derived). */
  derivation: NonNullable<PcmRelease['derivation']> | undefined;
  /** How the spliced document was validated and planned: by what was written again, or whole and why. */
  validation: PcmRelease['validation'];
  planning: PcmRelease['planning'];
  /** Polls of the release the local API answered 503 (made again). */
  unavailable_polls: number;
}

export interface DeltaFigures {
  products: number;
  whole: DeltaPublish;
  deltas: DeltaPublish[];
  /** After the deltas: one price in a hundred changed, then one publish (unless left out: `--no-price-list`). */
  price_list?: { prices: number; publish: DeltaPublish };
  /** How the catalog was written: over the API, or its items in batches. */
  setup: SetupMode;
  reads_ms: {
    whole: ProductReads;
    layered: ProductReads & { layers: number };
  };
  /** The API process, and the largest of the workflow processes' (one a publish). */
  peak_rss_mb: { api: number; workflow: number };
  api_heap_mb: number;
  paper: { full_rewrite_wcu_1m: number; full_rewrite_usd_1m: number; delta_wcu: number; delta_usd: number };
}

/** A shopper's request: the bench's token and the channel the catalog serves (it has no rules). */
const SHOPPER = (bench: AuthoredBench) => ({ Authorization: `Bearer ${bench.token}`, 'SVC-Channel': 'web' });

const p50 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.floor(sorted.length / 2)] ?? Number.NaN, 2);
};

async function recorded(bench: AuthoredBench, times: ReleaseTimes): Promise<DeltaPublish> {
  const { release, published_s: seconds } = times;
  const record = await endedRelease(bench.storeId, bench.catalog, release);
  if (!record) throw new Error(`release ${release} has no record`);
  return {
    published_s: seconds,
    items_written: record.total_items ?? Number.NaN,
    release_items: record.release_items ?? Number.NaN,
    layers: (record.layers ?? []).length,
    changed_products: record.sharing?.changed_products ?? Number.NaN,
    step_seconds: record.step_seconds ?? {},
    workflow_peak_rss_mb: record.workflow_peak_rss_mb ?? Number.NaN,
    export: record.export,
    derivation: record.derivation,
    validation: record.validation,
    planning: record.planning,
    unavailable_polls: times.unavailable_polls,
  };
}

/**
 * Product reads of one release, p50 ms: `cold` (the first read of each product), `warm` (read again at once),
 * `settled` (read again once the machine's other processes are quiet, see `settle`); `others_cores`: the CPU
 * the processes other than the API and the bench used during each pass, in cores (2 = the whole machine).
 */
export interface ProductReads {
  cold_p50: number;
  warm_p50: number;
  settled_p50: number;
  others_cores: { cold: number; warm: number; settled: number };
  /** Seconds waited for the others to fall quiet before the settled pass. */
  settle_s: number;
}

/** CPU time (clock ticks) of the whole machine, busy, and of the given processes. */
function cpuJiffies(pids: number[]): { busy: number; processes: number } {
  const busy = cpuTicks(readFileSync('/proc/stat', 'utf8'))?.busy ?? Number.NaN;
  let processes = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's closing parenthesis: utime and stime are fields 14 and 15 of the whole line.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    processes += Number(rest[11]) + Number(rest[12]);
  }
  return { busy, processes };
}

/** Jiffies a second (Linux's USER_HZ, 100 on every architecture Node runs on here). */
const JIFFIES_PER_SECOND = 100;

/** Runs `work` and says how many cores the processes other than `pids` kept busy meanwhile. */
async function othersCores<T>(pids: number[], work: () => Promise<T>): Promise<{ result: T; cores: number }> {
  const before = cpuJiffies(pids);
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const after = cpuJiffies(pids);
  const others = after.busy - before.busy - (after.processes - before.processes);
  return { result, cores: round(Math.max(0, others) / JIFFIES_PER_SECOND / seconds, 2) };
}

/** Below this many cores, two seconds in a row, the others are quiet. */
const QUIET_CORES = 0.1;
/** The longest wait for quiet: the settled pass then runs anyway (its `others_cores` says how loud). */
const SETTLE_MAX_S = 300;

/**
 * Waits until the processes other than `pids` (DynamoDB Local, the workflow's, the object store) use less
 * than QUIET_CORES two seconds in a row, or SETTLE_MAX_S; returns the seconds waited. After a publish,
 * DynamoDB Local's JVM (gigabytes of heap at a million products) and the release's cleanup go on for a
 * while; a read measured beside them measures them.
 */
async function settle(pids: number[]): Promise<number> {
  const started = performance.now();
  let quiet = 0;
  while (quiet < 2 && performance.now() - started < SETTLE_MAX_S * 1000) {
    const { cores } = await othersCores(pids, () => new Promise((resolve) => setTimeout(resolve, 1000)));
    quiet = cores < QUIET_CORES ? quiet + 1 : 0;
  }
  return round((performance.now() - started) / 1000, 1);
}

/**
 * Reads READS products over HTTP (a shopper's token) three times: the first read of each misses the cache,
 * the second at once, the third once the machine is quiet (`settle`).
 */
async function readProducts(bench: AuthoredBench, ids: string[]): Promise<ProductReads> {
  const pids = [process.pid, bench.api.pid as number];
  const once = async () => {
    const times: number[] = [];
    for (const id of ids) {
      const started = performance.now();
      const response = await fetch(`${bench.base}/catalog/products/${id}`, {
        headers: SHOPPER(bench),
      });
      await response.text();
      if (response.status !== 200) throw new Error(`GET /catalog/products/${id}: ${response.status}`);
      times.push(performance.now() - started);
    }
    return times;
  };
  const cold = await othersCores(pids, once);
  const warm = await othersCores(pids, once);
  const settle_s = await settle(pids);
  const settled = await othersCores(pids, once);
  return {
    cold_p50: p50(cold.result),
    warm_p50: p50(warm.result),
    settled_p50: p50(settled.result),
    others_cores: { cold: cold.cores, warm: warm.cores, settled: settled.cores },
    settle_s,
  };
}

export interface DeltaOptions {
  products: number;
  setup?: SetupMode;
  /** One-price publishes after the whole one (default DELTA_PUBLISHES). */
  deltas?: number;
  /** False: no publish of one price in a hundred (at a million products, 10,000 families). */
  priceList?: boolean;
}

export async function measureDeltaPublish(options: DeltaOptions): Promise<DeltaFigures> {
  const bench = await setupAuthoredCatalog(options);
  const deltaPublishes = options.deltas ?? DELTA_PUBLISHES;
  try {
    // An export reads the store's change log from EXPORT_CHANGE_MARGIN_SECONDS before the release before's
    // export began (docs/publishing.md, "Exporting only what changed"): waiting that long after the setup's
    // writes measures what a merchant's one-price publish costs, not one just after building the catalog.
    progress(`waiting ${CHANGE_MARGIN_S} s: the change log's margin past the catalog's setup`);
    await new Promise((resolve) => setTimeout(resolve, CHANGE_MARGIN_S * 1000));
    progress(`publishing the authored catalog of ${bench.products} products whole`);
    const first = await publishAndWait(bench);
    const whole = await recorded(bench, first);
    const all = bench.productIds;
    const wholeReads = await readProducts(bench, all.slice(0, READS));
    const deltas: DeltaPublish[] = [];
    for (let n = 0; n < deltaPublishes; n += 1) {
      const price = bench.prices[n] as { id: string };
      await bench.call('PUT', `/pcm/pricebooks/${bench.book}/prices/${price.id}`, {
        data: {
          type: 'product-price',
          id: price.id,
          attributes: { currencies: { USD: { amount: 500_000 + n, includes_tax: false } } },
        },
      });
      progress(`publishing after one price changed (${n + 1} of ${deltaPublishes})`);
      const times = await publishAndWait(bench);
      deltas.push(await recorded(bench, times));
    }
    // Other products than the first reads: the caches are by release, so theirs are cold as those were.
    const layeredReads = await readProducts(bench, all.slice(READS, READS * 2));
    const priceList = options.priceList === false ? undefined : await publishPriceList(bench);
    const last = deltas.at(-1) as DeltaPublish;
    const written = deltas.reduce((sum, d) => sum + d.items_written, 0) / deltas.length;
    const fullWcu = 1_000_000 * 6.14;
    return {
      products: bench.products,
      whole,
      deltas,
      ...(priceList === undefined ? {} : { price_list: priceList }),
      setup: options.setup ?? 'api',
      reads_ms: { whole: wholeReads, layered: { ...layeredReads, layers: last.layers } },
      peak_rss_mb: {
        api: peakRssMb(bench.api.pid),
        workflow: Math.max(...[whole, ...deltas].map((d) => d.workflow_peak_rss_mb)),
      },
      api_heap_mb: API_HEAP_MB,
      paper: {
        full_rewrite_wcu_1m: fullWcu,
        full_rewrite_usd_1m: round((fullWcu / 1e6) * DOLLARS_PER_MILLION_WCU, 2),
        delta_wcu: round(written * WCU_PER_ITEM, 1),
        delta_usd: round(((written * WCU_PER_ITEM) / 1e6) * DOLLARS_PER_MILLION_WCU, 6),
      },
    };
  } finally {
    await stopProcess(bench.api);
  }
}

/** One price in a hundred changed over the API, then published. */
async function publishPriceList(bench: AuthoredBench) {
  const listed = bench.prices.filter((_, n) => n % 100 === 0);
  progress(`changing ${listed.length} prices (one in a hundred), then publishing`);
  await each(listed, 8, (price) =>
    bench.call('PUT', `/pcm/pricebooks/${bench.book}/prices/${price.id}`, {
      data: {
        type: 'product-price',
        id: price.id,
        attributes: { currencies: { USD: { amount: 600_000, includes_tax: false } } },
      },
    }),
  );
  const times = await publishAndWait(bench);
  return { prices: listed.length, publish: await recorded(bench, times) };
}

/** `; 3 polls answered 503` when the local API could not answer some polls in time. */
const describeUnavailable = (d: DeltaPublish) =>
  d.unavailable_polls > 0 ? `; ${d.unavailable_polls} poll(s) answered 503` : '';

/** How many ranges the derivation derived: `ranges: 1 of 10 derived, 9 taken up`. */
const describeDerivation = (derivation: DeltaPublish['derivation']) =>
  derivation === undefined
    ? 'ranges not recorded'
    : `ranges: ${derivation.ranges - derivation.kept} of ${derivation.ranges} derived, ${derivation.kept} taken up`;

/** A publish's states and their seconds: `export 3.6, validate 0.4, ...`. */
const describeSteps = (steps: DeltaPublish['step_seconds']) =>
  WORKFLOW_STATES.filter((state) => steps[state] !== undefined)
    .map((state) => `${state} ${steps[state]}`)
    .join(', ');

/** How Export wrote the document: `spliced, 1 family written again` or `whole: <why>`. */
const describeExport = (exported: DeltaPublish['export']) =>
  exported === undefined
    ? 'export not recorded'
    : exported.spliced
      ? `export spliced, ${exported.families} family(ies) written again`
      : `export whole: ${exported.why}`;

/** How Validate and Plan read a spliced document: `checked by 1 family, planned reading 1 range` or why whole. */
const describeChecks = (d: DeltaPublish) =>
  [
    d.validation === undefined
      ? 'validated whole'
      : d.validation.spliced
        ? `validated by ${d.validation.families} family(ies)`
        : `validated whole: ${d.validation.why}`,
    d.planning === undefined
      ? 'planned whole'
      : d.planning.spliced
        ? `planned reading ${d.planning.ranges_read} range(s)`
        : `planned whole: ${d.planning.why}`,
  ].join(', ');

/** `cold 1.2 / warm 0.4 / settled 0.39 (other processes 0.8, 0.6, 0.02 cores; quiet after 12 s)`. */
const describeReads = (r: ProductReads) =>
  `cold ${r.cold_p50} / warm ${r.warm_p50} / settled ${r.settled_p50} (other processes ${r.others_cores.cold}, ${r.others_cores.warm}, ${r.others_cores.settled} cores; quiet after ${r.settle_s} s)`;

export function describeDelta(f: DeltaFigures): string {
  const lines = [
    `delta publish: ${f.products.toLocaleString('en-US')} products (written ${f.setup === 'batched' ? 'in batches' : 'over the API'}); whole: ${f.whole.items_written} items written in ${f.whole.published_s} s (${describeSteps(f.whole.step_seconds)}${describeUnavailable(f.whole)})`,
    ...f.deltas.map(
      (d, i) =>
        `  one price changed (${i + 1}): ${d.items_written} items written of ${d.release_items}, ${d.changed_products} product(s) changed, ${d.layers} layer(s) below, published in ${d.published_s} s (${describeSteps(d.step_seconds)}; ${describeExport(d.export)}; ${describeChecks(d)}; ${describeDerivation(d.derivation)}${describeUnavailable(d)})`,
    ),
    ...(f.price_list === undefined
      ? []
      : [
          `  one price in a hundred changed (${f.price_list.prices}): ${f.price_list.publish.items_written} items written, ${f.price_list.publish.changed_products} product(s) changed, ${f.price_list.publish.layers} layer(s) below, published in ${f.price_list.publish.published_s} s (${describeSteps(f.price_list.publish.step_seconds)}; ${describeExport(f.price_list.publish.export)}; ${describeChecks(f.price_list.publish)}; ${describeDerivation(f.price_list.publish.derivation)})`,
        ]),
    `  product reads p50 (ms): whole release ${describeReads(f.reads_ms.whole)}; through ${f.reads_ms.layered.layers} layer(s) ${describeReads(f.reads_ms.layered)}`,
    `  peak RSS: API process ${f.peak_rss_mb.api} MB (heap limit ${f.api_heap_mb} MB), workflow processes ${f.peak_rss_mb.workflow} MB at most`,
    `  paper model, AWS on-demand: a full rewrite of 1M products ${f.paper.full_rewrite_wcu_1m.toLocaleString('en-US')} WCU ($${f.paper.full_rewrite_usd_1m}); a one-price publish ${f.paper.delta_wcu} WCU ($${f.paper.delta_usd})`,
  ];
  return `${lines.join('\n')}\n`;
}

runAsScript(
  import.meta.url,
  (args) =>
    measureDeltaPublish({
      products: intOption(args, '--products', 100_000),
      setup: setupOption(args),
      deltas: intOption(args, '--deltas', DELTA_PUBLISHES),
      priceList: !args.includes('--no-price-list'),
    }),
  describeDelta,
);
