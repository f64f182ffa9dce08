import { BadRequestError } from '../../lib/http/errors';

/** The detail and source of the 400 `run` throws; fails when it throws nothing or something else. */
export function refusal(run: () => unknown): { detail: string; source: string | undefined } {
  try {
    run();
  } catch (error) {
    if (error instanceof BadRequestError) return { detail: error.detail, source: error.source };
    throw error;
  }
  throw new Error('expected a 400, but nothing was thrown');
}
