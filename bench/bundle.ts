import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { DELIVERY_WORKER } from '../functions/integrations';
import { JOB_WORKER } from '../functions/jobs';
import { FUNCTIONS } from '../functions/routes';
import { WORKFLOW_STEPS } from '../functions/workflow';
import { BUNDLING, deployBuildOptions } from '../infra/bundling';

/**
 * Every Lambda function of the stack, each `functions/<name>/handler.ts`: the API's (the route table), the
 * publishing workflow's steps and the two queue consumers.
 */
export const ALL_FUNCTIONS: readonly string[] = [
  ...Object.keys(FUNCTIONS),
  ...Object.keys(WORKFLOW_STEPS),
  JOB_WORKER.name,
  DELIVERY_WORKER.name,
];

export interface BundleInfo {
  file: string;
  kib: number;
}

/**
 * Bundles functions (default: every one) exactly as the CDK stack does (esbuild, ESM, minified, SDK
 * bundled); `alias` swaps more modules (e.g. a library for an empty stand-in, to measure what it costs).
 */
export async function bundleFunctions(
  outDir: string,
  alias: Record<string, string> = {},
  names: readonly string[] = ALL_FUNCTIONS,
): Promise<Record<string, BundleInfo>> {
  mkdirSync(outDir, { recursive: true });
  const root = resolve(import.meta.dirname, '..');
  const bundles: Record<string, BundleInfo> = {};
  for (const name of names) {
    const file = join(outDir, `${name}.mjs`);
    const result = await build({
      ...deployBuildOptions(root),
      entryPoints: [join(root, 'functions', name, 'handler.ts')],
      outfile: file,
      alias: { ...BUNDLING.alias, ...alias },
      metafile: true,
      logLevel: 'silent',
    });
    const output = Object.values(result.metafile.outputs)[0];
    bundles[name] = { file, kib: Math.round(((output?.bytes ?? 0) / 1024) * 10) / 10 };
  }
  return bundles;
}
