import { getConfig } from '../../config/index';
import { errorFields, log } from '../../http/log';
import { monotonicMs } from '../../runtime/clock';

/**
 * A workflow step as a Lambda handler: the state's JSON in, the step's JSON out, one log line per
 * invocation with the release's ids (no document content, no secrets: the state carries none). A bad
 * configuration fails at init, as for the API functions. An error is logged and rethrown, so Step Functions
 * retries it or takes the Catch to the Abandon step.
 */
export function workflowStep<I extends { release_id: string; catalog_id: string }, O>(
  name: string,
  step: (input: I) => Promise<O>,
): (input: I) => Promise<O> {
  getConfig();
  return async (input) => {
    const started = monotonicMs();
    const ids = { step: name, release_id: input.release_id, catalog_id: input.catalog_id };
    try {
      const output = await step(input);
      log('info', 'workflow step', { ...ids, duration_ms: Math.round(monotonicMs() - started) });
      return output;
    } catch (error) {
      log('error', 'workflow step failed', { ...ids, error: errorFields(error) });
      throw error;
    }
  };
}
