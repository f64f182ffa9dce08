import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
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

/** The newest modification time (ms) of a file or of any file below a directory; 0 when absent. */
function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Why the assembly must be synthesized again, or undefined when it is up to date. */
export function staleReason(root: string, outdir: string): string | undefined {
  const manifest = join(outdir, 'manifest.json');
  if (!existsSync(manifest)) return `${outdir} is missing`;
  const built = statSync(manifest).mtimeMs;
  const changed = SOURCES.find((source) => newestMtime(join(root, source)) > built);
  return changed === undefined ? undefined : `${changed} changed since the last synth`;
}

export interface SynthResult {
  /** Why it synthesized; undefined when the assembly was reused. */
  reason: string | undefined;
  ms: number;
}

/**
 * Synthesizes the CDK app into `outdir` (offline: the functions are bundled by the local esbuild) when
 * it is missing or older than its sources. The CLI's output is shown only when it fails.
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
  const cli = join(root, 'node_modules/.bin/cdk');
  const args = ['synth', '--quiet', '--no-notices', '--no-version-reporting', '--output', outdir];
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(cli, args, { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`cdk synth failed (exit ${code}):\n${output.join('')}`);
  return { reason, ms: performance.now() - started };
}
