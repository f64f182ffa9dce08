import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { FUNCTIONS } from '../functions/routes';
import { BUNDLING } from '../infra/bundling';

export interface BundleInfo {
  file: string;
  kib: number;
}

/**
 * Bundles every function exactly as the CDK stack does (esbuild, ESM, minified, SDK bundled); `alias`
 * swaps more modules (e.g. a library for an empty stand-in, to measure what it costs).
 */
export async function bundleFunctions(
  outDir: string,
  alias: Record<string, string> = {},
): Promise<Record<string, BundleInfo>> {
  mkdirSync(outDir, { recursive: true });
  const root = resolve(import.meta.dirname, '..');
  const bundles: Record<string, BundleInfo> = {};
  for (const name of Object.keys(FUNCTIONS)) {
    const file = join(outDir, `${name}.mjs`);
    const result = await build({
      absWorkingDir: root,
      entryPoints: [join(root, 'functions', name, 'handler.ts')],
      outfile: file,
      bundle: true,
      platform: 'node',
      format: BUNDLING.format,
      minify: BUNDLING.minify,
      target: BUNDLING.target,
      mainFields: [...BUNDLING.mainFields],
      alias: { ...BUNDLING.alias, ...alias },
      banner: { js: BUNDLING.banner },
      metafile: true,
      logLevel: 'silent',
    });
    const output = Object.values(result.metafile.outputs)[0];
    bundles[name] = { file, kib: Math.round(((output?.bytes ?? 0) / 1024) * 10) / 10 };
  }
  return bundles;
}
