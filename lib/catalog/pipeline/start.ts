import { getConfig } from '../../config/index';
import { errorFields, log } from '../../http/log';
import { credentialsFor } from '../../store/client';
import { StepFunctionsClient } from '../../store/step-functions';
import type { ReleaseExecutionInput } from './workflow';

let client: StepFunctionsClient | undefined;

type LocalWorkflow = (input: ReleaseExecutionInput) => Promise<unknown>;
const LOCAL_WORKFLOW = Symbol.for('commerce-api.local-workflow');

/**
 * The local harness's workflow runner (lib/catalog/pipeline/run-local.ts), registered by the local server:
 * the API's bundles never import it (it validates with Ajv, which no API function loads), and the server
 * and the handlers it runs in process share this global. The template-driven server registers one of its
 * own under the same name in a function's worker thread, which hands the execution to the server
 * (local/template/lambda-worker.mjs).
 */
export function registerLocalWorkflow(run: LocalWorkflow): void {
  (globalThis as Record<symbol, LocalWorkflow | undefined>)[LOCAL_WORKFLOW] = run;
}

/**
 * Starts a release's workflow: in AWS an execution of the state machine (named after the release, so a
 * retried start cannot run it twice); locally (no RELEASE_STATE_MACHINE_ARN) the harness runs the same steps
 * in this process, in the background (the local API's process outlives the request), through the runner
 * the harness registered.
 */
export async function startReleaseWorkflow(input: ReleaseExecutionInput): Promise<void> {
  const config = getConfig();
  if (config.releaseStateMachineArn !== undefined) {
    client ??= new StepFunctionsClient({ region: config.region, credentials: credentialsFor(config) });
    try {
      await client.startExecution(config.releaseStateMachineArn, input.release_id, JSON.stringify(input));
    } catch (error) {
      if ((error as Error).name !== 'ExecutionAlreadyExists') throw error;
    }
    return;
  }
  const run = (globalThis as Record<symbol, LocalWorkflow | undefined>)[LOCAL_WORKFLOW];
  if (run === undefined) {
    throw new Error(
      'no publishing workflow: set RELEASE_STATE_MACHINE_ARN, or run the local harness (npm start)',
    );
  }
  run(input).catch((error: unknown) => {
    log('error', 'local workflow failed', { release_id: input.release_id, error: errorFields(error) });
  });
}
