import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BundleInfo } from './bundle';
import { type ColdStart, type ColdStartPhases, type ColdStartSpec, measureColdStart } from './cold-start';
import { quantile, round } from './support';

/**
 * `npm run bench -- --stage cold_start --functions a,b --against REF`: the same functions as commit REF
 * built them, measured in turn with the working tree's, on the same fixtures, database and machine: what a
 * change bought, which two separate runs on a machine whose speed drifts cannot tell apart. Rounds alternate
 * (REF, then the working tree, AGAINST_ROUNDS times), each of `runs` fresh processes beside their own
 * `node -e 0`; nothing is written to results.json.
 */
export const AGAINST_ROUNDS = 3;

const ROOT = resolve(import.meta.dirname, '..');

function git(args: string[]): string {
  const done = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`git ${args.join(' ')}: ${(done.stderr || done.stdout).trim()}`);
  return done.stdout.trim();
}

/**
 * The bundles of `names` as commit `ref` builds them: its tree checked out beside (a detached worktree,
 * this checkout's node_modules linked in), bundled by its own bench/bundle.ts in a process of its own, then
 * the worktree removed. Fails naming the ref when it is not a commit, or a function it does not have.
 */
export function bundlesAt(ref: string, names: readonly string[], outDir: string): Record<string, BundleInfo> {
  let commit: string;
  try {
    commit = git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new Error(`no commit named ${ref}`);
  }
  const tree = mkdtempSync(join(tmpdir(), 'bench-against-'));
  rmSync(tree, { recursive: true });
  git(['worktree', 'add', '--detach', '--quiet', tree, commit]);
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
    const missing = names.filter((name) => !existsSync(join(tree, 'functions', name, 'handler.ts')));
    if (missing.length > 0) throw new Error(`${ref} has no function ${missing.join(', ')}`);
    const bundler = pathToFileURL(join(tree, 'bench', 'bundle.ts')).href;
    const script = `const { bundleFunctions } = await import(${JSON.stringify(bundler)});
process.stdout.write(JSON.stringify(await bundleFunctions(${JSON.stringify(outDir)}, {}, ${JSON.stringify(names)})));`;
    const built = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: tree,
      encoding: 'utf8',
    });
    if (built.status !== 0) throw new Error(`bundling ${ref}'s functions failed: ${built.stderr.trim()}`);
    return JSON.parse(built.stdout) as Record<string, BundleInfo>;
  } finally {
    git(['worktree', 'remove', '--force', tree]);
  }
}

/** One function's rounds: REF's and the working tree's, in the order they ran. */
export interface ColdStartComparison {
  against: ColdStart[];
  current: ColdStart[];
}

/**
 * Measures `spec` on `refBundle` and `bundle` in alternating rounds; each run gets the next event of the
 * spec (fixtures the events use up are prepared for 2 × AGAINST_ROUNDS × runs processes).
 */
export async function compareColdStart(
  refBundle: string,
  bundle: string,
  spec: ColdStartSpec,
  env: NodeJS.ProcessEnv,
  runs: number,
): Promise<ColdStartComparison> {
  let next = 0;
  const event = () => spec.event(next++);
  const comparison: ColdStartComparison = { against: [], current: [] };
  for (let r = 0; r < AGAINST_ROUNDS; r += 1) {
    comparison.against.push(await measureColdStart(refBundle, event, spec.expect, env, runs));
    comparison.current.push(await measureColdStart(bundle, event, spec.expect, env, runs));
  }
  return comparison;
}

const over = (c: ColdStart) => c.median_ms - c.node_baseline_ms;
const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
const signed = (value: number) => `${value >= 0 ? '+' : ''}${round(value, 1)}`;

/** The phases compared, as the cold-start stage names them. */
const PHASES: [keyof ColdStartPhases, string][] = [
  ['init', 'import+init'],
  ['before_handler', 'auth+limiter'],
  ['handler', 'handler'],
  ['exit', 'exit'],
];

/**
 * One function's comparison as printed: over `node -e 0` in each round and the median of the rounds, REF
 * then now, and the median of each phase's rounds the same way.
 */
export function describeComparison(name: string, ref: string, comparison: ColdStartComparison): string {
  const rounds = (list: ColdStart[]) => list.map((c) => signed(over(c))).join(' ');
  const a = median(comparison.against.map(over));
  const b = median(comparison.current.map(over));
  const lines = [
    `  ${name}: over node -e 0, ${ref} ${rounds(comparison.against)} | now ${rounds(comparison.current)}: median ${signed(a)} -> ${signed(b)} ms (${signed(b - a)})`,
  ];
  const phases = PHASES.flatMap(([key, label]) => {
    const of = (list: ColdStart[]) => list.flatMap((c) => (c.phases === undefined ? [] : [c.phases[key]]));
    const before = of(comparison.against);
    const after = of(comparison.current);
    if (before.length === 0 || after.length === 0) return [];
    return [`${label} ${round(median(before), 1)} -> ${round(median(after), 1)}`];
  });
  if (phases.length > 0) lines.push(`    ${phases.join(', ')}`);
  return lines.join('\n');
}
