import type { BuildOptions } from 'esbuild';

/**
 * esbuild settings shared by the stack and the benchmarks: ESM, minified, AWS SDK bundled (faster cold
 * start than the runtime's copy), a `require` shim for the SDK's CommonJS dependencies.
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
  banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
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
    banner: { js: BUNDLING.banner },
    alias: { ...BUNDLING.alias },
    sourcemap: false,
  };
}
