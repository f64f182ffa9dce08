import { ApiError } from '../http/errors';
import type { Validator } from '../schema/index';

/**
 * Validates a `{"data": {…}}` body and returns its `data`: 400 (`source` the path) for a body that is not
 * that shape, 422 (the platform's "Failed Validation", `source` naming the field) for a field inside
 * `data` that is missing, unknown or breaks its rule.
 */
export function validDataOf<T>(validator: Validator, input: unknown): T {
  const issue = validator(input);
  if (issue) {
    throw new ApiError(issue.path.startsWith('data.') ? 422 : 400, issue.message, { source: issue.path });
  }
  return (input as { data: T }).data;
}
