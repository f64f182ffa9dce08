import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles only (an esbuild alias in
 * infra/api-function.ts). Lambda always hands a function its role's credentials in environment
 * variables, so the full chain (SSO, INI files, process, IMDS, web identity and their nested STS/SSO
 * clients, ~90 KiB minified) is dead weight there and costs cold-start time. Local tools and tests
 * are not bundled and keep the SDK's full chain.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
