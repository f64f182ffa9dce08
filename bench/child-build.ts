import './silent-logs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { runChildProductsBuild } from '../lib/builds/build';
import { uuidv7 } from '../lib/ids';
import { childRepository } from '../lib/store/child-repository';
import { productRepository } from '../lib/store/product-repository';
import { variationRepository } from '../lib/store/variation-repository';
import { intOption, progress, round, startBenchDatabase } from './support';

/**
 * A child-products build of 10,000 children (two variations of 100 options, each option with a
 * `name_append` modifier) on DynamoDB Local: the wall time and children written per second of the first
 * build, of a rebuild that changes nothing (every child rewritten in place) and of a rebuild after a new
 * variation was linked (10,000 deleted, 10,000 written), with the process's peak RSS. Run it as the job's
 * function would run (256 MB): `node --max-old-space-size=256 --import tsx bench/child-build.ts [--options N]
 * [--json]`; uses DYNAMODB_ENDPOINT's tables when set, else its own DynamoDB Local.
 */

const MB = 1024 * 1024;

export interface BuildFigures {
  children: number;
  build_s: number;
  build_children_per_s: number;
  rebuild_s: number;
  replace_s: number;
  /** RSS before the first build and the process's peak RSS (resourceUsage maxRSS), MB. */
  rss_before_mb: number;
  rss_peak_mb: number;
}

async function variation(storeId: string, name: string, options: number): Promise<string> {
  const at = new Date().toISOString();
  const id = uuidv7();
  await variationRepository.createVariation(storeId, { id, name, created_at: at, updated_at: at });
  for (let index = 0; index < options; index += 1) {
    const optionId = uuidv7();
    await variationRepository.createOption(storeId, {
      id: optionId,
      variation_id: id,
      name: `${name}${index}`,
      description: `Option ${index} of ${name}`,
      created_at: at,
      updated_at: at,
    });
    await variationRepository.createModifier(storeId, {
      id: uuidv7(),
      variation_id: id,
      option_id: optionId,
      type: 'name_append',
      value: ` ${name} ${index}`,
      created_at: at,
      updated_at: at,
    });
  }
  return id;
}

async function timed(what: string, build: () => Promise<{ message: string }[]>): Promise<number> {
  const start = performance.now();
  const errors = await build();
  const seconds = (performance.now() - start) / 1000;
  if (errors.length > 0) throw new Error(`${what} recorded errors: ${errors[0]?.message}`);
  progress(`${what}: ${round(seconds)} s`);
  return seconds;
}

export async function measureChildBuild(options: number): Promise<BuildFigures> {
  const storeId = `bench-${uuidv7()}`;
  progress(`creating two variations of ${options} options`);
  const first = await variation(storeId, 'Colour', options);
  const second = await variation(storeId, 'Size', options);
  const at = new Date().toISOString();
  const parent = {
    id: uuidv7(),
    attributes: {
      name: 'Bench tee',
      sku: 'BENCH-TEE',
      slug: 'bench-tee',
      status: 'live' as const,
      commodity_type: 'physical' as const,
    },
    created_at: at,
    updated_at: at,
    version: 1,
    variations: [first, second].map((id) => ({ id, created_at: at })),
    variations_generation: 1,
    variations_changed_at: at,
  };
  await productRepository.create(storeId, parent);
  const run = () => runChildProductsBuild({ storeId, productId: parent.id, jobId: 'bench' });
  const rssBefore = process.memoryUsage().rss;
  const buildSeconds = await timed('build', run);
  const children = (await childRepository.entries(storeId, parent.id)).length;
  const rebuildSeconds = await timed('rebuild, nothing changed', run);
  const third = await variation(storeId, 'Fit', 1);
  const before = (await productRepository.get(storeId, parent.id)) as NonNullable<
    Awaited<ReturnType<typeof productRepository.get>>
  >;
  await productRepository.setVariationLinks(
    storeId,
    before,
    {
      ...before,
      variations: [...(before.variations ?? []), { id: third, created_at: new Date().toISOString() }],
      variations_generation: (before.variations_generation ?? 0) + 1,
      variations_changed_at: new Date().toISOString(),
      version: before.version + 1,
    },
    { added: [third], removed: [] },
  );
  const replaceSeconds = await timed('rebuild, a variation linked', run);
  return {
    children,
    build_s: round(buildSeconds),
    build_children_per_s: Math.round(children / buildSeconds),
    rebuild_s: round(rebuildSeconds),
    replace_s: round(replaceSeconds),
    rss_before_mb: round(rssBefore / MB, 1),
    rss_peak_mb: round((process.resourceUsage().maxRSS * 1024) / MB, 1),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const run = async () => {
    const database = process.env.DYNAMODB_ENDPOINT ? undefined : await startBenchDatabase();
    try {
      const figures = await measureChildBuild(intOption(args, '--options', 100));
      process.stdout.write(
        args.includes('--json')
          ? `${JSON.stringify(figures)}\n`
          : `child build: ${figures.children} children in ${figures.build_s} s (${figures.build_children_per_s}/s); rebuild unchanged ${figures.rebuild_s} s; rebuild after a new variation ${figures.replace_s} s; RSS ${figures.rss_before_mb} MB before, peak ${figures.rss_peak_mb} MB\n`,
      );
    } finally {
      await database?.stop();
    }
  };
  run().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
