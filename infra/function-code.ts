import { createHash } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AssetHashType, DockerImage, type ILocalBundling, Stack } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { DELIVERY_WORKER } from '../functions/integrations';
import { JOB_WORKER } from '../functions/jobs';
import { FUNCTIONS } from '../functions/routes';
import { WORKFLOW_STEPS } from '../functions/workflow';
import { deployBuildOptions } from './bundling';
import { type FunctionBundle, FunctionBundles } from './function-bundles';

/** Every function the stack deploys: the route table's, the publishing workflow's steps, the two queue workers. */
export const DEPLOYED_FUNCTIONS: readonly string[] = [
  ...Object.keys(FUNCTIONS),
  ...Object.keys(WORKFLOW_STEPS),
  JOB_WORKER.name,
  DELIVERY_WORKER.name,
];

/**
 * The project the functions are built from: the directory the CDK app runs in (`cdk.json`'s), as the
 * NodejsFunction construct this replaces resolved its entries.
 */
const projectRoot = (): string => resolve('.');

/**
 * Where a project's built bundles are kept between synths (infra/function-bundles.ts): one folder per project
 * directory, so a copy of the project sharing node_modules through a link keeps a cache of its own.
 */
export const bundleCacheDir = (root: string): string =>
  join(
    root,
    'node_modules/.cache/function-bundles',
    createHash('sha256').update(root).digest('hex').slice(0, 16),
  );

/** This process's bundles (a synth is one process), built or found in the cache on the first function. */
let synth: { root: string; bundler: FunctionBundles; bundles: Map<string, FunctionBundle> } | undefined;

function bundleOf(name: string): FunctionBundle {
  const root = projectRoot();
  if (synth?.root !== root) {
    synth = {
      root,
      bundler: new FunctionBundles(root, bundleCacheDir(root), deployBuildOptions(root)),
      bundles: new Map(),
    };
  }
  if (!synth.bundles.has(name)) {
    // The first function asks for all of them: the stale ones are built in one esbuild run.
    const names = synth.bundles.size === 0 && DEPLOYED_FUNCTIONS.includes(name) ? DEPLOYED_FUNCTIONS : [name];
    const started = performance.now();
    const run = synth.bundler.bundle(names);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stderr.write(
      `Bundled ${run.built.length} of ${names.length} functions in ${seconds} s (the others' inputs are unchanged)\n`,
    );
    for (const [built, bundle] of Object.entries(run.bundles)) synth.bundles.set(built, bundle);
  }
  const bundle = synth.bundles.get(name);
  if (!bundle) throw new Error(`no bundle for ${name}`);
  return bundle;
}

/**
 * Stages a prebuilt bundle as the asset's content: CDK's asset staging calls it only when the asset's
 * directory is not in the cloud assembly yet (same digest, same bundle).
 */
class PrebuiltBundle implements ILocalBundling {
  /** Named in the asset's hash (its JSON): two functions never share an asset by accident. */
  readonly entry: string;
  readonly #dir: string | undefined;

  constructor(name: string, dir?: string) {
    this.entry = `functions/${name}/handler.ts`;
    this.#dir = dir;
  }

  tryBundle(outputDir: string): boolean {
    if (this.#dir === undefined) throw new Error(`${this.entry} was not bundled before synthesis`);
    copyFileSync(join(this.#dir, 'index.mjs'), join(outputDir, 'index.mjs'));
    return true;
  }
}

/**
 * A function's code: `functions/<name>/handler.ts` bundled by esbuild with the deploy's options
 * (infra/bundling.ts) into `index.mjs`. The asset is named by the digest of the bundle's bytes, so the
 * template changes only when the code does, and CDK neither bundles nor hashes it again. A stack whose
 * bundling is skipped (`aws:cdk:bundling-stacks`, as tests and `cdk deploy -e` of another stack do) builds
 * nothing.
 */
export function functionCode(scope: Construct, name: string): Code {
  // Never run: a bundle is always local (this image is named only because CDK requires one).
  const image = DockerImage.fromRegistry('unused-local-bundling');
  const root = projectRoot();
  if (!Stack.of(scope).bundlingRequired)
    return Code.fromAsset(root, {
      assetHashType: AssetHashType.OUTPUT,
      bundling: { image, local: new PrebuiltBundle(name) },
    });
  const bundle = bundleOf(name);
  return Code.fromAsset(root, {
    assetHash: bundle.digest,
    assetHashType: AssetHashType.CUSTOM,
    bundling: { image, local: new PrebuiltBundle(name, bundle.dir) },
  });
}
