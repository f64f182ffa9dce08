import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleCacheDir } from '../infra/function-code';
import { ensureSynth } from '../local/template/synth';
import { quantile, round } from './support';

/**
 * How long the stack takes to synthesize, on a copy of the project (node_modules linked, so nothing of the
 * working tree changes), each figure with the 1-minute load average around its samples:
 * - `synth_cold`: `npx cdk synth --quiet` with no bundle cache and no cdk.out (a fresh clone, CI);
 * - `synth_warm`: the same again with nothing changed (bundles reused from the cache);
 * - `synth_after_edit`: what `npm start -- --from-template` spends synthesizing after one handler edit
 *   (`functions/get-catalog/handler.ts` gets a new export; ensureSynth, as it runs it);
 * - `touched_unchanged`: the same after the handler is saved again unchanged (no synth expected);
 * - with `--start`, `restart_after_edit`: one edit, then `npm start -- --from-template --in-memory` from
 *   launch to its "Local API listening" line (DynamoDB Local and the object store start meanwhile; takes
 *   PORT, DYNAMODB_PORT and S3_PORT like npm start), and `restart_unchanged`, the same with no edit (no synth).
 * `npx tsx bench/synth-times.ts [--runs N] [--start]` (default 3 runs each) prints one JSON object.
 */
const ROOT = join(import.meta.dirname, '..');
const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag === -1 ? 3 : Number(process.argv[runsFlag + 1]);
const WITH_START = process.argv.includes('--start');
const EDITED = 'functions/get-catalog/handler.ts';

interface Figure {
  median_s: number;
  samples_s: number[];
  /** Median of the 1-minute load average read before and after each sample (2 cores: 2.0 is full). */
  load_1m: number;
}

async function sample(runs: number, before: () => void, run: () => Promise<void>): Promise<Figure> {
  const times: number[] = [];
  const loads: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    before();
    loads.push(loadavg()[0] ?? 0);
    const started = performance.now();
    await run();
    times.push((performance.now() - started) / 1000);
    loads.push(loadavg()[0] ?? 0);
  }
  const median = (values: number[]) =>
    quantile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
  return {
    median_s: round(median(times), 2),
    samples_s: times.map((t) => round(t, 2)),
    load_1m: round(median(loads), 2),
  };
}

function exec(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    const errors: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(' ')}: exit ${code}\n${Buffer.concat(errors)}`)),
    );
  });
}

/** `npm start -- --from-template --in-memory` in `cwd`, from launch to its listening line; then stopped. */
function timeStart(cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(
      process.execPath,
      ['--import', 'tsx', 'local/start.ts', '--from-template', '--in-memory'],
      {
        cwd,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const stop = () => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGINT');
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Local API listening on')) {
        stop();
        resolve();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) =>
      reject(new Error(`npm start exited (${code}) before listening:\n${output}`)),
    );
  });
}

async function main(): Promise<void> {
  const copy = mkdtempSync(join(tmpdir(), 'synth-times-'));
  for (const part of [
    'functions',
    'lib',
    'infra',
    'local',
    'catalog',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'cdk.json',
  ])
    cpSync(join(ROOT, part), join(copy, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  const outdir = join(copy, 'cdk.out');
  const cache = bundleCacheDir(copy);
  const edited = join(copy, EDITED);
  const original = readFileSync(edited, 'utf8');
  let edits = 0;
  const synth = () => exec('npx', ['cdk', 'synth', '--quiet', '--no-notices'], copy);
  const resynth = async () => {
    const result = await ensureSynth(copy, outdir);
    if (result.reason === undefined) throw new Error('an edit did not cause a synth');
  };
  const edit = () => {
    edits += 1;
    writeFileSync(edited, `${original}\nexport const synthTimesEdit = ${edits};\n`);
  };
  try {
    const figures: Record<string, Figure | number> = {};
    const clean = () => {
      rmSync(outdir, { recursive: true, force: true });
      rmSync(cache, { recursive: true, force: true });
    };
    figures.synth_cold = await sample(RUNS, clean, synth);
    figures.synth_warm = await sample(RUNS, () => undefined, synth);
    await ensureSynth(copy, outdir); // records the sources of the warm assembly
    figures.synth_after_edit = await sample(RUNS, edit, resynth);
    const touched = await sample(
      RUNS,
      () => {
        writeFileSync(edited, readFileSync(edited));
        const later = new Date(Date.now() + 60_000);
        utimesSync(edited, later, later);
      },
      async () => {
        const result = await ensureSynth(copy, outdir);
        if (result.reason !== undefined) throw new Error(`a touched file caused a synth: ${result.reason}`);
      },
    );
    figures.touched_unchanged = touched;
    if (WITH_START) {
      figures.restart_after_edit = await sample(RUNS, edit, () => timeStart(copy));
      figures.restart_unchanged = await sample(
        RUNS,
        () => undefined,
        () => timeStart(copy),
      );
    }
    process.stdout.write(`${JSON.stringify({ runs: RUNS, ...figures }, null, 2)}\n`);
  } finally {
    rmSync(cache, { recursive: true, force: true });
    rmSync(copy, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`synth-times failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
