/** A stack setting (a `-c key=value` or cdk.json context value) that is wrong: `infra/app.ts` prints its message alone. */
export class ContextError extends Error {
  override name = 'ContextError';
}
