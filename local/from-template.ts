import { fileURLToPath } from 'node:url';
import type { Config } from '../lib/config/index';
import type { RuntimeEnvironment } from './template/runtime';
import { ensureSynth, type SynthResult } from './template/synth';

/** The project root and the cloud assembly `cdk synth` writes (and `--from-template` serves). */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CDK_OUT = fileURLToPath(new URL('../cdk.out', import.meta.url));

/** The local table of each table construct of the stack (infra/commerce-stack.ts names them `<Role>Table`). */
export function localTables(config: Config): Record<string, string> {
  return {
    KeysTable: config.keysTable,
    MappingsTable: config.mappingsTable,
    ProductsTable: config.productsTable,
    LimitsTable: config.limitsTable,
  };
}

/**
 * What the harness adds to each function's environment, as the Lambda runtime does: region and
 * credentials (DynamoDB Local's dummies, or the caller's own for AWS), the local endpoint, and LOG_LEVEL
 * when the caller set one (it overrides the template's, like `sam local --env-vars`).
 */
export function runtimeEnvironment(config: Config, env: NodeJS.ProcessEnv = process.env): RuntimeEnvironment {
  const runtime: RuntimeEnvironment = {
    AWS_REGION: config.region,
    AWS_DEFAULT_REGION: config.region,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  if (config.dynamodbEndpoint !== undefined) {
    runtime.DYNAMODB_ENDPOINT = config.dynamodbEndpoint;
    runtime.AWS_ACCESS_KEY_ID = 'local';
    runtime.AWS_SECRET_ACCESS_KEY = 'local';
  } else {
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) {
      const value = env[name];
      if (value) runtime[name] = value;
    }
  }
  for (const name of ['LOG_LEVEL', 'POWERTOOLS_LOG_LEVEL']) {
    const value = env[name];
    if (value) runtime[name] = value;
  }
  return runtime;
}

/** Synthesizes cdk.out when it is missing or stale, saying so on stderr. */
export async function prepareAssembly(): Promise<SynthResult> {
  const result = await ensureSynth(PROJECT_ROOT, CDK_OUT, (reason) =>
    process.stderr.write(`synthesizing cdk.out (${reason})...\n`),
  );
  if (result.reason !== undefined)
    process.stderr.write(`synthesized cdk.out in ${(result.ms / 1000).toFixed(1)} s\n`);
  return result;
}
