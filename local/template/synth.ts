import { spawn } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the synthesized assembly is built from: a change to any of them makes cdk.out stale. */
const SOURCES = [
  'functions',
  'lib',
  'infra',
  'package.json',
  'package-lock.json',
  'cdk.json',
  'tsconfig.json',
];

/** Where the synthesized assembly records the digests of the sources it was built from. */
const SOURCES_RECORD = 'sources.json';

/** Feeds every file of a file or directory (sorted, paths relative to `root`) into `hash`. */
function hashTree(hash: Hash, root: string, path: string): void {
  const full = join(root, path);
  if (!existsSync(full)) return;
  if (!statSync(full).isDirectory()) {
    hash.update(`${path}\0`);
    hash.update(readFileSync(full));
    hash.update('\0');
    return;
  }
  for (const entry of readdirSync(full).sort()) hashTree(hash, root, join(path, entry));
}

/**
 * The content digest of each source, by source: what a synthesized assembly was built from. By content,
 * not modification time, so a file saved or restored unchanged (an editor, `git checkout`, a branch
 * switched back) does not cost a synth.
 */
export function sourceDigests(root: string): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const source of SOURCES) {
    const hash = createHash('sha256');
    hashTree(hash, root, source);
    digests[source] = hash.digest('hex');
  }
  return digests;
}

/** Why the assembly must be synthesized again, or undefined when it is up to date. */
export function staleReason(root: string, outdir: string): string | undefined {
  if (!existsSync(join(outdir, 'manifest.json'))) return `${outdir} is missing`;
  const record = join(outdir, SOURCES_RECORD);
  if (!existsSync(record)) return `${outdir} has no record of its sources`;
  let built: Record<string, string>;
  try {
    built = JSON.parse(readFileSync(record, 'utf8')) as Record<string, string>;
  } catch {
    return `${outdir} has an unreadable record of its sources`;
  }
  const now = sourceDigests(root);
  const changed = SOURCES.find((source) => built[source] !== now[source]);
  return changed === undefined ? undefined : `${changed} changed since the last synth`;
}

/** Records the sources an assembly was just built from (their digests as the synth started). */
export function recordSources(outdir: string, digests: Record<string, string>): void {
  writeFileSync(join(outdir, SOURCES_RECORD), `${JSON.stringify(digests, null, 2)}\n`);
}

export interface SynthResult {
  /** Why it synthesized; undefined when the assembly was reused. */
  reason: string | undefined;
  ms: number;
}

/**
 * Synthesizes the CDK app into `outdir` (offline: the functions are bundled by the local esbuild) when
 * it is missing or its sources' contents changed since it was built. The CLI's output is shown only when it fails.
 */
export async function ensureSynth(
  root: string,
  outdir: string,
  onSynth?: (reason: string) => void,
): Promise<SynthResult> {
  const started = performance.now();
  const reason = staleReason(root, outdir);
  if (reason === undefined) return { reason, ms: performance.now() - started };
  onSynth?.(reason);
  // Taken before the synth: a source edited while it runs makes the next start synthesize again.
  const digests = sourceDigests(root);
  const cli = join(root, 'node_modules/.bin/cdk');
  // --no-validation skips only CDK's built-in CloudFormation checks (cdk-nag still runs and fails the synth):
  // their findings are warnings unless `@aws-cdk/core:validateAgainstDefaultRules` is set, this output is
  // shown only on failure, and they cost a third of the synth (`npx cdk synth` and `cdk deploy` still run them).
  const args = [
    'synth',
    '--quiet',
    '--no-notices',
    '--no-version-reporting',
    '--no-validation',
    '--output',
    outdir,
  ];
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(cli, args, { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`cdk synth failed (exit ${code}):\n${output.join('')}`);
  recordSources(outdir, digests);
  return { reason, ms: performance.now() - started };
}
