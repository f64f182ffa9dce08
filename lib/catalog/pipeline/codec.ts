/**
 * The workflow's files: items as JSON Lines (binary attributes, the deflated indexes, as `{"$b": base64}`),
 * read back line by line from a stream, never as one string.
 */

const BYTES = '$b';

/** One item as one line of JSON. */
export function encodeItem(item: Record<string, unknown>): string {
  return JSON.stringify(item, (_key, value: unknown) =>
    value instanceof Uint8Array ? { [BYTES]: Buffer.from(value).toString('base64') } : value,
  );
}

/** An item from its line. */
export function decodeItem(line: string): Record<string, unknown> {
  return JSON.parse(line, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const encoded = (value as Record<string, unknown>)[BYTES];
      if (typeof encoded === 'string' && Object.keys(value).length === 1) {
        return new Uint8Array(Buffer.from(encoded, 'base64'));
      }
    }
    return value;
  }) as Record<string, unknown>;
}

/** The non-empty lines of a UTF-8 stream, one at a time. */
export async function* readLines(source: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let rest = '';
  for await (const chunk of source) {
    rest += decoder.decode(chunk, { stream: true });
    let newline = rest.indexOf('\n');
    while (newline !== -1) {
      const line = rest.slice(0, newline);
      if (line.trim() !== '') yield line;
      rest = rest.slice(newline + 1);
      newline = rest.indexOf('\n');
    }
  }
  rest += decoder.decode();
  if (rest.trim() !== '') yield rest;
}

/** A whole stream (bounded by the caller) as one buffer. */
export async function readBytes(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of source) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** A whole (small, bounded by the caller) UTF-8 stream as one string. */
export async function readText(source: AsyncIterable<Uint8Array>): Promise<string> {
  return new TextDecoder('utf-8', { fatal: true }).decode(await readBytes(source));
}

/** A buffer as a stream of itself. */
export async function* streamOf(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}
