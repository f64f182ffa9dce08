import { prepareAssembly } from '../../local/from-template';

/** e2e-template's global setup: synthesizes cdk.out once for the run when it is missing or stale. */
export default async function synthSetup(): Promise<void> {
  await prepareAssembly();
}
