// First: sets LOG_LEVEL before any module that imports the logger is evaluated.
import './log-level';
import { pathToFileURL } from 'node:url';
import { runAsScript } from '../bench/support';
import { resetConfig } from '../lib/config/index';
import { resetObjectStoreClient } from '../lib/store/object-store';
import { parseCli } from '../local/cli';
import { type ObjectStoreLocal, startObjectStoreLocal } from '../local/object-store-local';
import { fuzzRoute, fuzzTargets, type RouteStats, seedFuzzWorld } from './properties';
import type { FuzzWorld } from './world';

/**
 * `npm run fuzz [-- --cases N] [--seed S] [--route TEXT] [--json]`: every route of infra/routes.ts,
 * in-process against its own DynamoDB Local and object store, N fast-check cases each (default 10,000). Exits 1 on any
 * 5xx, uncaught exception or invalid error body, printing each route's minimal failing case on stderr.
 * `--route` keeps the routes whose `METHOD /path` contains TEXT (with the same seed, the same cases).
 * `FUZZ_LOG_LEVEL=error` shows the functions' error logs (on stderr).
 */
const DEFAULT_CASES = 10000;
const DEFAULT_SEED = 7;
/** Keys seeded in the fuzzed store, so list offsets skip more than one 1,000-key COUNT batch. */
const EXTRA_KEYS = 1100;

// Tokens seeded at the start must outlive a long run.
process.env.TOKEN_TTL_SECONDS ??= '86400';
// The fuzzed store holds more keys than the default cap on keys (1,000) allows: the run's own tables take
// the highest cap the service accepts (10,000), as a deployment that raised it would.
process.env.MAX_KEYS_PER_STORE = '10000';

function log(message: string): void {
  process.stderr.write(`[fuzz] ${message}\n`);
}

function intArg(args: string[], name: string, fallback: number, min: number): number {
  const index = args.indexOf(name);
  if (index === -1) return fallback;
  const value = Number(args[index + 1]);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}`);
  return value;
}

/** The run's figures; JSON (`--json`) carries only the totals and the seed. */
class FuzzReport {
  constructor(
    readonly seed: number,
    readonly routes: RouteStats[],
    readonly wallMs: number,
  ) {}

  total(field: 'cases' | 'five_xx' | 'uncaught' | 'invalid_error_bodies' | 'contract_violations'): number {
    return this.routes.reduce((sum, route) => sum + route[field], 0);
  }

  get failed(): boolean {
    return (
      this.total('five_xx') +
        this.total('uncaught') +
        this.total('invalid_error_bodies') +
        this.total('contract_violations') >
      0
    );
  }

  toJSON() {
    return {
      cases: this.total('cases'),
      five_xx: this.total('five_xx'),
      uncaught: this.total('uncaught'),
      invalid_error_bodies: this.total('invalid_error_bodies'),
      contract_violations: this.total('contract_violations'),
      seed: this.seed,
    };
  }
}

async function fuzz(args: string[]): Promise<FuzzReport> {
  const known = new Set(['--cases', '--seed', '--route', '--json']);
  const unknown = args.filter(
    (arg, i) => arg.startsWith('--') && !known.has(arg) && args[i - 1] !== '--route',
  );
  if (unknown.length > 0) throw new Error(`unknown option ${unknown.join(' ')}`);
  const cases = intArg(args, '--cases', DEFAULT_CASES, 1);
  const seed = intArg(args, '--seed', DEFAULT_SEED, -(2 ** 31));
  const routeFilter = args.includes('--route') ? (args[args.indexOf('--route') + 1] ?? '') : '';
  const targets = fuzzTargets().filter((target) => target.key.includes(routeFilter));
  if (targets.length === 0) throw new Error(`no route matches --route ${routeFilter}`);

  // stdout carries only the result: anything the functions print goes to stderr meanwhile.
  const stdoutWrite = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  // The catalog API keeps release documents in the object store: a local one, unless S3_ENDPOINT names one.
  let objects: ObjectStoreLocal | undefined;
  let world: FuzzWorld | undefined;
  try {
    if (!process.env.S3_ENDPOINT) {
      log('starting the local object store');
      objects = await startObjectStoreLocal();
      process.env.S3_ENDPOINT = objects.endpoint;
      resetConfig();
      resetObjectStoreClient();
    }
    log(`seed ${seed} (replay: npm run fuzz -- --seed ${seed}), ${cases} cases per route`);
    log(`seeding stores, ${EXTRA_KEYS} keys, tokens, mappings and a catalog`);
    world = await seedFuzzWorld({ extraKeys: EXTRA_KEYS });
    const started = Date.now();
    const routes: RouteStats[] = [];
    for (const target of targets) {
      log(`${target.key} ...`);
      const stats = await fuzzRoute(target, { cases, seed, world });
      routes.push(stats);
      log(
        `${target.key}: ${stats.cases} cases, ${stats.five_xx} 5xx, ${stats.uncaught} uncaught, ` +
          `${stats.invalid_error_bodies} invalid error bodies, ${stats.contract_violations} contract violations (${(stats.ms / 1000).toFixed(1)} s)`,
      );
      if (stats.counterexample)
        log(`minimal failing case of ${target.key} (seed ${stats.seed}):\n${stats.counterexample}`);
    }
    log(
      `DynamoDB conflicts emulated: ${world.conflicts.transactions} transactions cancelled, ` +
        `${world.conflicts.singleWrites} single-item writes refused (a storefront token grant ran beside every case)`,
    );
    const report = new FuzzReport(seed, routes, Date.now() - started);
    if (report.failed) process.exitCode = 1;
    return report;
  } finally {
    // Releases the cases created are published in this process: no workflow outlives the run's stores.
    await world?.settle();
    await objects?.stop();
    process.stdout.write = stdoutWrite;
  }
}

function describe(report: FuzzReport): string {
  const lines = [`Fuzz run, seed ${report.seed} (replay: npm run fuzz -- --seed ${report.seed})`, ''];
  for (const route of report.routes) {
    const statuses = Object.entries(route.statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, count]) => `${status}:${count}`)
      .join(' ');
    lines.push(
      `${route.route}`,
      `  ${route.cases} cases in ${(route.ms / 1000).toFixed(1)} s; 5xx ${route.five_xx}, uncaught ${route.uncaught}, invalid error bodies ${route.invalid_error_bodies}, contract violations ${route.contract_violations}`,
      `  statuses ${statuses}`,
    );
  }
  const totals = report.toJSON();
  lines.push(
    '',
    `Total: ${totals.cases} cases, ${totals.five_xx} 5xx, ${totals.uncaught} uncaught, ${totals.invalid_error_bodies} invalid error bodies, ${totals.contract_violations} contract violations, ${(report.wallMs / 1000).toFixed(1)} s`,
    report.failed ? 'FAILED: minimal failing cases are on stderr' : 'OK',
    '',
  );
  return lines.join('\n');
}

const USAGE = `Usage: npm run fuzz [-- --cases N] [--seed S] [--route TEXT] [--json]
Fuzzes every route in-process with fast-check against its own DynamoDB Local (default 10,000 cases per
route, seed ${DEFAULT_SEED}); exits 1 on any 5xx, uncaught exception, invalid error body or response off
openapi.json. --route keeps the routes whose \`METHOD /path\` contains TEXT. --json prints one JSON object
on stdout (run it as \`npm run -s fuzz -- --json\`).`;

// Wrong arguments fail before the database starts: one line, exit 2 (as every local tool).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  parseCli('fuzz', USAGE, {
    cases: { type: 'string' },
    seed: { type: 'string' },
    route: { type: 'string' },
    json: { type: 'boolean' },
  });
}
runAsScript(import.meta.url, fuzz, describe);
