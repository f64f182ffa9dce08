/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles only (an esbuild alias in
 * infra/bundling.ts). Lambda always hands a function its role's credentials in environment variables,
 * which lib/store/client.ts reads directly, so the SDK's provider chain (SSO, INI files, process, IMDS,
 * web identity and their nested STS/SSO clients) is dead weight in a function and only costs cold-start
 * time. The local tools are not bundled and keep the full chain.
 */
export const defaultProvider = () => async (): Promise<never> => {
  throw new Error(
    'no AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set in the environment',
  );
};
