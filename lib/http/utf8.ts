import { BadRequestError } from './errors';

/**
 * Request bodies are UTF-8 or refused: a byte that is not UTF-8 (Latin-1 `é` sent as 0xe9, say) is a 400
 * naming it, never a U+FFFD stored in its place. API Gateway passes such a body base64-encoded, so its
 * bytes reach the function as sent.
 */

const strict = new TextDecoder('utf-8', { fatal: true });

/** The offset of the first byte that does not start a well-formed UTF-8 sequence, if any. */
export function invalidUtf8Offset(bytes: Uint8Array): number | undefined {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    // The Unicode standard's table of well-formed sequences: no overlong forms, no surrogates, nothing past U+10FFFF.
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k < length; k += 1) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return undefined;
}

const hex = (byte: number) => `0x${byte.toString(16).padStart(2, '0')}`;

/**
 * The body's text, decoded strictly; 400 `source: body` naming the first byte that is not UTF-8 (its offset
 * in the body: `offset` is where `bytes` start in it, for a part of a body).
 */
export function bodyText(bytes: Uint8Array, offset = 0): string {
  try {
    return strict.decode(bytes);
  } catch {
    const at = invalidUtf8Offset(bytes) ?? 0;
    throw new BadRequestError(
      `request body is not valid UTF-8 (byte ${hex(bytes[at] ?? 0)} at offset ${offset + at}): send it encoded in UTF-8`,
      'body',
    );
  }
}

/** A run of percent-escapes (`%C3%A9`): the bytes of one or more characters of a form value. */
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * 400 when the percent-escapes of a form body decode to bytes that are not UTF-8 (`client_id=caf%E9`):
 * a form parser would put U+FFFD in their place. `text` is the body, already valid UTF-8 itself.
 */
export function checkFormEscapes(text: string): void {
  for (const run of text.matchAll(ESCAPES)) {
    const bytes = Buffer.from(run[0].replace(/%/g, ''), 'hex');
    const at = invalidUtf8Offset(bytes);
    if (at === undefined) continue;
    const sequence = run[0].slice(at * 3, at * 3 + 3).toUpperCase();
    throw new BadRequestError(
      `request body is not valid UTF-8 once decoded (${sequence} at offset ${Buffer.byteLength(text.slice(0, run.index)) + at * 3}): send it encoded in UTF-8`,
      'body',
    );
  }
}
