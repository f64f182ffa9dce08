import './silent-logs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundlesAt } from './against';
import { bundleFunctions } from './bundle';
import { type ColdStart, deployedEnv, measureColdStart, median } from './cold-start';
import { createScenario, type Scenario } from './scenario';
import { intOption, runAsScript } from './support';

/**
 * `npx tsx bench/alternate.ts --against REF [--runs N]`: a few reads' cold starts, commit REF's bundles and
 * the working tree's alternating one process at a time (N of each, default 61), on one database, medians.
 * The cold-start stage's `--against` runs rounds of at most 8 processes, as its fixtures allow; on a
 * machine whose fresh processes move by 20 % from one to the next, a change of one or two milliseconds needs
 * some sixty of each, side by side. The reads here need only a store, its key and its mapping, so nothing
 * runs out (docs/performance.md, "Twelfth round").
 */

/** The reads measured, and their events. */
const READS: Record<string, (s: Scenario) => ReturnType<Scenario['event']>> = {
  'get-merchant-realm-mapping': (s) =>
    s.event('GET', `/v2/merchant-realm-mappings/${s.store.mapping_id}`, { token: s.adminToken }),
  'list-currencies': (s) => s.event('GET', '/v2/currencies', { token: s.adminToken }),
  'list-application-keys': (s) => s.event('GET', '/v2/application-keys', { token: s.adminToken }),
};

/** One side's medians (ms): wall time over `node -e 0`, and the phases that move with a function's code. */
export interface Side {
  over: number;
  init: number;
  auth_limiter: number;
  handler: number;
  exit: number;
}

export type Alternation = Record<string, { runs: number; ref: Side; now: Side }>;

/** The medians of one side's runs. */
export function summarise(runs: readonly ColdStart[]): Side {
  const of = (pick: (run: ColdStart) => number | undefined) =>
    median(runs.map((run) => pick(run) ?? Number.NaN));
  return {
    over: of((run) => run.median_ms - run.node_baseline_ms),
    init: of((run) => run.phases?.init),
    auth_limiter: of((run) => run.phases?.before_handler),
    handler: of((run) => run.phases?.handler),
    exit: of((run) => run.phases?.exit),
  };
}

export function describeAlternation(ref: string, figures: Alternation): string {
  const lines = [`Cold starts, ${ref} and the working tree alternating (medians, ms)`];
  for (const [name, { runs, ref: before, now }] of Object.entries(figures)) {
    const pair = (key: keyof Side) => `${before[key]} -> ${now[key]}`;
    lines.push(
      `  ${name} (${runs} each): over node -e 0 ${pair('over')}; import+init ${pair('init')}, auth+limiter ${pair('auth_limiter')}, handler ${pair('handler')}, exit ${pair('exit')}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function alternate(args: string[]): Promise<Alternation> {
  const at = args.indexOf('--against');
  const ref = at >= 0 ? args[at + 1] : undefined;
  if (!ref) throw new Error('usage: npx tsx bench/alternate.ts --against REF [--runs N] [--json]');
  const runs = intOption(args, '--runs', 61);
  const names = Object.keys(READS);
  const dir = mkdtempSync(join(tmpdir(), 'bench-alternate-'));
  const now = await bundleFunctions(join(dir, 'now'), {}, names);
  const before = bundlesAt(ref, names, join(dir, 'ref'));
  const env = {
    ...deployedEnv(),
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
  };
  const scenario = await createScenario(2);
  const figures: Alternation = {};
  for (const [name, read] of Object.entries(READS)) {
    const event = () => read(scenario);
    const measured: Record<'ref' | 'now', ColdStart[]> = { ref: [], now: [] };
    for (let run = 0; run < runs; run += 1) {
      // Which side goes first alternates too, so neither always follows the other.
      for (const side of run % 2 === 0 ? (['ref', 'now'] as const) : (['now', 'ref'] as const)) {
        const bundle = (side === 'ref' ? before : now)[name]?.file ?? '';
        measured[side].push(await measureColdStart(bundle, event, 200, env, 1));
      }
    }
    figures[name] = { runs, ref: summarise(measured.ref), now: summarise(measured.now) };
  }
  return figures;
}

runAsScript(import.meta.url, alternate, (figures) =>
  describeAlternation(process.argv[process.argv.indexOf('--against') + 1] ?? '', figures),
);
