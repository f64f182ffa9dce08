import { STATUS_CODES } from 'node:http';

const ERROR_FIELDS = new Set(['status', 'title', 'detail', 'source', 'request_id']);

const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * True when a response is the JSON error body (docs/errors.md): `Content-Type: application/json`
 * (parameters allowed) and `{"errors": [...]}` with nothing else at the top level, at least one error,
 * each an object with `status` (the HTTP status as a string), `title` (the status's reason phrase),
 * `detail` and `request_id` (non-empty strings), an optional string `source`, and no other fields.
 * The fuzzers' one definition of a valid error body: point it at the OpenAPI error schema to tighten it.
 */
export function isValidErrorBody(
  status: number,
  headers: Record<string, string | number | boolean> | undefined,
  body: string | undefined,
): boolean {
  const contentType = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type');
  const mediaType = String(contentType?.[1] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase();
  if (mediaType !== 'application/json' || body === undefined) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
  const keys = Object.keys(parsed);
  const errors = (parsed as { errors?: unknown }).errors;
  if (keys.length !== 1 || !Array.isArray(errors) || errors.length === 0) return false;
  return errors.every((error: unknown) => {
    if (typeof error !== 'object' || error === null || Array.isArray(error)) return false;
    const entry = error as Record<string, unknown>;
    return (
      Object.keys(entry).every((key) => ERROR_FIELDS.has(key)) &&
      entry.status === String(status) &&
      entry.title === STATUS_CODES[status] &&
      nonEmptyString(entry.detail) &&
      nonEmptyString(entry.request_id) &&
      (entry.source === undefined || typeof entry.source === 'string')
    );
  });
}
