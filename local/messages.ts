/** Wording shared by the local tools' messages. */

import { jsonParseFailure } from '../lib/json-error';

/** `1 parent`, `2 parents`, `0 parents` (`plural` when adding an s is wrong: `1 child`, `2 children`). */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/**
 * `JSON.parse(text)`; a syntax error is rethrown as a SyntaxError saying where, by line and column
 * (1-based), instead of V8's character offset: `line 3, column 5: Expected double-quoted property name`.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(describeJsonError(text, error as Error));
  }
}

function describeJsonError(text: string, error: Error): string {
  const failure = jsonParseFailure(error);
  const position = failure.position ?? (failure.endOfInput ? text.length : undefined);
  const reason = failure.reason;
  if (position === undefined) return reason;
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `line ${line}, column ${column}: ${reason}`;
}

/** The network error under a failed `fetch` (undici's `TypeError: fetch failed` hides it in `cause`). */
function networkCode(error: unknown): string | undefined {
  let current = error as { code?: string; cause?: unknown; errors?: unknown[] } | undefined;
  for (let depth = 0; current && depth < 5; depth += 1) {
    if (typeof current.code === 'string' && current.code !== 'UND_ERR_SOCKET') return current.code;
    current = (current.cause ?? current.errors?.[0]) as typeof current;
  }
  return undefined;
}

/** What a failed HTTP call to `url` means for the person running the tool, or undefined if it is not a network error. */
export function unreachableMessage(url: string, error: unknown): string | undefined {
  switch (networkCode(error)) {
    case 'ECONNREFUSED':
      return `connection refused at ${url}: is the API running?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve the host of ${url}: check the URL`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `no answer from ${url} (connection timed out): is the URL right and the API reachable?`;
    case 'ECONNRESET':
      return `the connection to ${url} was reset: is it the API?`;
    default:
      return undefined;
  }
}

/**
 * What a DynamoDB error means for a local tool: the tables cannot be reached (nothing listening, or no
 * tables there), or undefined for any other error.
 */
export function databaseUnreachableMessage(error: unknown, endpoint: string | undefined): string | undefined {
  const e = error as { name?: string };
  if (networkCode(error) === 'ECONNREFUSED' || e.name === 'ResourceNotFoundException')
    return `cannot reach the tables at ${endpoint ?? 'AWS'}: is \`npm start\` running? (${networkCode(error) ?? e.name})`;
  return undefined;
}
