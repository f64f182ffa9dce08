import { ApiError } from '../http/errors';
import type { Schema, Validator } from '../schema/index';

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

/**
 * The schema of `{"data": {"type": <type>, "id"?, "attributes": {…}}}` whose attributes are exactly
 * `attributes` (`required` of them required); `id`, on updates, is checked against the path by the caller.
 */
export function attributesBodySchema(
  type: string,
  attributes: Record<string, Schema>,
  required: string[],
): Schema {
  return {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    'x-message': 'must be an object with only `data`',
    properties: {
      data: {
        type: 'object',
        required: ['type', 'attributes'],
        additionalProperties: false,
        'x-message': 'must be an object with type, attributes and (on updates, optionally) id',
        properties: {
          type: { const: type, description: `Always \`${type}\`.` },
          id: { type: 'string', maxLength: 64, description: 'On updates, when sent: the id of the path.' },
          attributes: {
            type: 'object',
            required,
            additionalProperties: false,
            'x-message': `must be an object of only ${Object.keys(attributes).join(', ')}`,
            properties: attributes,
          },
        },
      },
    },
  };
}
