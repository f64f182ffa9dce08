import type { BuildOptions } from 'esbuild';

/**
 * esbuild settings shared by the stack and the benchmarks: ESM, minified, every dependency bundled (faster
 * cold start than the runtime's copy of the AWS SDK). No `require` shim (`createRequire` in a banner): no
 * bundled module calls `require` at run time, and the shim loaded `node:module` at every cold start
 * (docs/performance.md); a test fails any bundle that would need one.
 */
export const BUNDLING = {
  format: 'esm',
  /**
   * Lambda supplies credentials in env vars: drop the SDK's full provider chain; node's web streams are
   * loaded on first use, not at every cold start (lib/runtime).
   */
  alias: {
    '@aws-sdk/credential-provider-node': './lib/runtime/lambda-credential-provider.ts',
    'node:stream/web': './lib/runtime/stream-web.ts',
  },
  minify: true,
  target: 'node20',
  mainFields: ['module', 'main'],
} as const;

/**
 * The esbuild options a deployed function is built with, entry points and output aside: BUNDLING, every
 * dependency bundled, no source map, relative paths (the alias among them) resolved from `root`.
 */
export function deployBuildOptions(root: string): BuildOptions {
  return {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: BUNDLING.format,
    target: BUNDLING.target,
    minify: BUNDLING.minify,
    mainFields: [...BUNDLING.mainFields],
    alias: { ...BUNDLING.alias },
    sourcemap: false,
  };
}
