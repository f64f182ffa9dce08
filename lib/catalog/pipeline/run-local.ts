import { atMost, eachAtMost } from '../../at-most';
import { errorFields, log } from '../../http/log';
import { pcmRepository, type WorkflowState } from '../../store/pcm-repository';
import {
  abandonStep,
  deriveStep,
  exportStep,
  mergeStep,
  planStep,
  readManifest,
  readRanges,
  switchStep,
  validateStep,
  writeStep,
} from './steps';
import {
  DERIVE_CONCURRENCY,
  RANGES_AT_ONCE,
  type ReleaseExecutionInput,
  WRITE_CONCURRENCY,
} from './workflow';

/**
 * The workflow outlives the request that started it, but the process's logger still holds the Lambda
 * context of the last request it served (the local server runs every handler in this process): its lines
 * say they belong to no request and no function rather than to that one.
 */
const DETACHED = { function_request_id: null, function_name: null, function_arn: null, route: null };

/** Attempts of a failed write or range derivation, as the state machine's Retry on their tasks makes them. */
export const WRITE_ATTEMPTS = 3;

/**
 * The publishing workflow as the local harness runs it: the state machine's states (infra/publishing.ts) in
 * the same order, over the same step functions, with the same ranges and chunk files, one range derivation
 * at a time (DERIVE_CONCURRENCY) among RANGES_AT_ONCE ranges and WRITE_CONCURRENCY writers at once; an error after validation takes the Abandon step, as the state machine's Catch does.
 */
export async function runWorkflowLocally(
  input: ReleaseExecutionInput,
  options: { concurrency?: number } = {},
): Promise<'PUBLISHED' | 'FAILED'> {
  const timed = stepTimer(input);
  try {
    // Each step is given what the step before it answered, as the state machine passes it on (the maps'
    // items get the execution's ids and their line, as their ItemSelector makes them).
    const exported = input.export === true ? await timed('export', () => exportStep(input)) : input;
    if ('valid' in exported && !exported.valid) return 'FAILED';
    const validated = await timed('validate', () => validateStep(exported));
    if (!validated.valid) return 'FAILED';
    const planned = await timed('plan', () => planStep(validated));
    const ranges = await readRanges(planned.ranges_key);
    // Ranges taken up are object-store round trips: RANGES_AT_ONCE of them overlap, while derivations,
    // which hold a range's items in memory, run DERIVE_CONCURRENCY (one) at a time.
    const derivation = atMost(DERIVE_CONCURRENCY);
    await timed('derive', () =>
      eachAtMost(ranges, RANGES_AT_ONCE, (range) =>
        withRetries(() => deriveStep({ ...input, range }, { derivation }).then(() => undefined)),
      ),
    );
    const derived = await timed('merge', () => mergeStep(planned));
    const chunks = await readManifest(derived.manifest_key);
    await timed('write', () =>
      eachAtMost(chunks, options.concurrency ?? WRITE_CONCURRENCY, (chunk) =>
        withRetries(() => writeStep({ ...input, chunk }).then(() => undefined)),
      ),
    );
    await timed('switch', () => switchStep(derived));
    return 'PUBLISHED';
  } catch (error) {
    const fields = errorFields(error);
    log('warn', 'workflow failed', { ...DETACHED, release_id: input.release_id, error: fields });
    const { state } = await abandonStep({ ...input, error: { Error: fields.name, Cause: fields.message } });
    return state;
  }
}

/**
 * Runs a state and records its wall time on the release (`step_seconds`, what has run so far), so a slow
 * publish shows which state took the time. A record that cannot be written (the release deleted
 * meanwhile) does not fail the publish.
 */
function stepTimer(input: ReleaseExecutionInput) {
  const seconds: Partial<Record<WorkflowState, number>> = {};
  return async <T>(state: WorkflowState, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await work();
    seconds[state] = Math.round(performance.now() - started) / 1000;
    await pcmRepository
      .updateRelease(input.store_id, input.catalog_id, input.release_id, { step_seconds: { ...seconds } })
      .catch(() => undefined);
    return result;
  };
}

/** A map item's work, retried as the state machine's Retry on the item's task retries it. */
async function withRetries(work: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await work();
      return;
    } catch (error) {
      if (attempt >= WRITE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
    }
  }
}
