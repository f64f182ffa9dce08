import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { ReleaseExecutionInput } from '../../../functions/workflow';
import { getConfig } from '../../config/index';
import { errorFields, log } from '../../http/log';

let client: SFNClient | undefined;

/**
 * Starts a release's workflow: in AWS an execution of the state machine (named after the release, so a
 * retried start cannot run it twice); locally (no RELEASE_STATE_MACHINE_ARN) the harness runs the same steps
 * in this process, in the background, as the local API's process outlives the request.
 */
export async function startReleaseWorkflow(input: ReleaseExecutionInput): Promise<void> {
  const config = getConfig();
  if (config.releaseStateMachineArn !== undefined) {
    client ??= new SFNClient({ region: config.region });
    try {
      await client.send(
        new StartExecutionCommand({
          stateMachineArn: config.releaseStateMachineArn,
          name: input.release_id,
          input: JSON.stringify(input),
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ExecutionAlreadyExists') throw error;
    }
    return;
  }
  const { runWorkflowLocally } = await import('./run-local');
  runWorkflowLocally(input).catch((error: unknown) => {
    log('error', 'local workflow failed', { release_id: input.release_id, error: errorFields(error) });
  });
}
