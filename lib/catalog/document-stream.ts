/**
 * Reads a release document as a stream of bytes, one part at a time, so no process ever holds the whole
 * document: a million-product document (a gigabyte and more) is more than V8 can hold as one string, and
 * many times more as objects. Publishing over the API reads documents from object storage this way.
 *
 * The document is a JSON object. Each top-level array (`products`, `nodes`, `files`, `rules`) is read
 * element by element; any other top-level value (`catalog`, `currencies`, `price_modifiers`, `$schema`)
 * whole. Every part comes with its byte offset and length in the source, so a later step can read a run
 * of elements again by byte range (an S3 ranged GET) instead of copying them.
 *
 * Each value is parsed by `JSON.parse` on its own bytes, and only the grammar between values (the
 * object's keys, `:` and `,`, the arrays' brackets) is scanned here, byte by byte. That is exact JSON,
 * and about three times as fast as a token-by-token streaming parser (docs/publishing.md, "Reading a
 * document as a stream"). No value may be larger than `maxValueBytes`, so a hostile document cannot make
 * the reader buffer without bound; a top-level key given twice is refused (JSON.parse would silently keep
 * the last one).
 */

import { jsonParseFailure } from '../json-error';

/** A top-level value read whole. */
export interface DocumentValue {
  kind: 'value';
  key: string;
  value: unknown;
  /** Byte offset and length of the value in the source. */
  offset: number;
  length: number;
}

/** One element of a top-level array. */
export interface DocumentElement {
  kind: 'element';
  key: string;
  index: number;
  value: unknown;
  offset: number;
  length: number;
}

/** A top-level array, once all its elements have been read. */
export interface DocumentArray {
  kind: 'array';
  key: string;
  count: number;
  /** Byte offset and length of the whole array, brackets included. */
  offset: number;
  length: number;
}

export type DocumentPart = DocumentValue | DocumentElement | DocumentArray;

export type DocumentReadRule = 'syntax' | 'encoding' | 'value_size' | 'duplicate_key';

/** Why the source is not a document that can be read: where (1-based line, column in bytes) and why. */
export class DocumentReadError extends Error {
  override name = 'DocumentReadError';
  constructor(
    readonly rule: DocumentReadRule,
    readonly reason: string,
    /** Byte offset in the source. */
    readonly offset: number,
    readonly line: number,
    readonly column: number,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
  }
}

export interface ReadOptions {
  /** The most bytes one value (an element, or a top-level value that is not an array) may take. */
  maxValueBytes?: number;
}

/**
 * The most bytes one value may take by default: 4 MiB. A product is stored as one DynamoDB item (at most
 * 400 KB) and its page must fit one Lambda response, so no valid value comes near it.
 */
export const MAX_VALUE_BYTES = 4 * 1024 * 1024;

enum State {
  Start,
  FirstKey,
  Key,
  Colon,
  Value,
  FirstElement,
  Element,
  AfterElement,
  AfterValue,
  Done,
}

const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const LF = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isSpace = (byte: number) => byte === SPACE || byte === LF || byte === CR || byte === TAB;

/** Where a scalar (number, `true`, `false`, `null`) ends: at a space or the next structural byte. */
const endsScalar = (byte: number) =>
  isSpace(byte) || byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET;

function describeByte(byte: number): string {
  return byte >= 0x21 && byte < 0x7f ? `'${String.fromCharCode(byte)}'` : `byte 0x${byte.toString(16)}`;
}

/** What a captured run of bytes is: a property name, a top-level value, or an array's element. */
enum Purpose {
  Key,
  Value,
  Element,
}

/**
 * The parts of a release document read from `source` (a file stream, an S3 object's body), in document
 * order, in batches (one per chunk of the source). Throws DocumentReadError at the first byte that is not
 * a JSON object's, or a value over `maxValueBytes`.
 */
export async function* readReleaseDocument(
  source: AsyncIterable<Uint8Array>,
  options: ReadOptions = {},
): AsyncGenerator<DocumentPart[]> {
  const maxValueBytes = options.maxValueBytes ?? MAX_VALUE_BYTES;
  const decoder = new TextDecoder('utf-8', { fatal: true });

  let state = State.Start;
  let offset = 0; // absolute offset of the current chunk's first byte
  let line = 1;
  let lineStart = 0; // absolute offset of the current line's first byte
  const seen = new Set<string>();
  let key = '';
  let arrayStart = 0;
  let index = 0;

  // The run of bytes being captured (a key or a value): its bytes so far, where it starts, how it ends.
  let capturing = false;
  let purpose = Purpose.Value;
  let captureStart = 0;
  let captureLine = 1;
  let captureLineStart = 0;
  let captureParts: Uint8Array[] = [];
  let captureBytes = 0;
  let opening = false; // the capture's first byte is still to be scanned
  let depth = 0; // brackets open in the value; 0 for a string or scalar
  let scalar = false;
  let inString = false;
  let escaped = false;

  const fail = (
    rule: DocumentReadRule,
    reason: string,
    at: number,
    atLine = line,
    atLineStart = lineStart,
  ) => {
    throw new DocumentReadError(rule, reason, at, atLine, at - atLineStart + 1);
  };
  const what = () =>
    purpose === Purpose.Key
      ? 'a property name'
      : purpose === Purpose.Value
        ? `the value of "${key}"`
        : `${key}[${index}]`;

  /** Fails at a character of a captured value's text, as a line and column of the source. */
  const failInCapture = (text: string, reason: string, position: number) => {
    const before = text.slice(0, position);
    const at = captureStart + Buffer.byteLength(before);
    const newline = before.lastIndexOf('\n');
    if (newline < 0) fail('syntax', reason, at, captureLine, captureLineStart);
    let lines = 0;
    for (let i = 0; i <= newline; i += 1) if (before.charCodeAt(i) === LF) lines += 1;
    fail(
      'syntax',
      reason,
      at,
      captureLine + lines,
      captureStart + Buffer.byteLength(before.slice(0, newline + 1)),
    );
  };

  const startCapture = (byte: number, at: number, as: Purpose): void => {
    capturing = true;
    purpose = as;
    opening = true;
    captureStart = at;
    captureLine = line;
    captureLineStart = lineStart;
    captureParts = [];
    captureBytes = 0;
    scalar = !(byte === OPEN_BRACE || byte === OPEN_BRACKET || byte === QUOTE);
    depth = 0;
    inString = false;
    escaped = false;
  };

  const finishCapture = (parts: DocumentPart[]): void => {
    capturing = false;
    const bytes =
      captureParts.length === 1 ? (captureParts[0] as Uint8Array) : Buffer.concat(captureParts, captureBytes);
    captureParts = [];
    let text = '';
    try {
      text = decoder.decode(bytes);
    } catch {
      fail('encoding', `${what()} is not valid UTF-8`, captureStart, captureLine, captureLineStart);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const { reason, position } = jsonParseFailure(error as Error);
      failInCapture(text, `${what()}: ${reason}`, position ?? 0);
    }
    if (purpose === Purpose.Key) {
      key = value as string;
      if (seen.has(key)) {
        fail('duplicate_key', `"${key}" is given twice`, captureStart, captureLine, captureLineStart);
      }
      seen.add(key);
      state = State.Colon;
    } else if (purpose === Purpose.Value) {
      parts.push({ kind: 'value', key, value, offset: captureStart, length: captureBytes });
      state = State.AfterValue;
    } else {
      parts.push({ kind: 'element', key, index, value, offset: captureStart, length: captureBytes });
      index += 1;
      state = State.AfterElement;
    }
  };

  /**
   * Scans the captured run from `i` to its end or the chunk's; returns where the scan stopped and whether
   * the run is complete there. A scalar ends before the byte that ends it (read again as structure).
   */
  const scanCapture = (chunk: Uint8Array, from: number): { stop: number; complete: boolean } => {
    const length = chunk.length;
    let i = from;
    if (scalar) {
      while (i < length && !endsScalar(chunk[i] as number)) i += 1;
      return { stop: i, complete: i < length };
    }
    while (i < length) {
      const byte = chunk[i] as number;
      i += 1;
      if (opening) {
        opening = false;
        if (byte === QUOTE) inString = true;
        else depth = 1;
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) {
          inString = false;
          if (depth === 0) return { stop: i, complete: true };
        } else {
          // Most of a document's bytes are inside strings: pass the run up to the next quote or backslash
          // in a loop that looks for nothing else.
          while (i < length) {
            const next = chunk[i] as number;
            if (next === QUOTE || next === BACKSLASH) break;
            i += 1;
          }
        }
      } else if (byte === QUOTE) inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth += 1;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth -= 1;
        if (depth === 0) return { stop: i, complete: true };
      } else if (byte === LF) {
        line += 1;
        lineStart = offset + i;
      }
    }
    return { stop: i, complete: false };
  };

  for await (const chunk of source) {
    const parts: DocumentPart[] = [];
    const length = chunk.length;
    let i = 0;
    while (i < length) {
      if (capturing) {
        const { stop, complete } = scanCapture(chunk, i);
        captureParts.push(chunk.subarray(i, stop));
        captureBytes += stop - i;
        i = stop;
        if (captureBytes > maxValueBytes) {
          fail(
            'value_size',
            `${what()} takes more than ${maxValueBytes} bytes`,
            captureStart,
            captureLine,
            captureLineStart,
          );
        }
        if (complete) finishCapture(parts);
        continue;
      }
      const byte = chunk[i] as number;
      const at = offset + i;
      if (isSpace(byte)) {
        i += 1;
        if (byte === LF) {
          line += 1;
          lineStart = at + 1;
        }
        continue;
      }
      switch (state as State) {
        case State.Start:
          if (byte !== OPEN_BRACE)
            fail('syntax', `a release document is a JSON object, not ${describeByte(byte)}`, at);
          state = State.FirstKey;
          i += 1;
          break;
        case State.FirstKey:
        case State.Key:
          if (byte === CLOSE_BRACE && state === State.FirstKey) {
            state = State.Done;
            i += 1;
          } else if (byte === QUOTE) startCapture(byte, at, Purpose.Key);
          else fail('syntax', `expected a double-quoted property name, not ${describeByte(byte)}`, at);
          break;
        case State.Colon:
          if (byte !== COLON) fail('syntax', `expected ':' after "${key}", not ${describeByte(byte)}`, at);
          state = State.Value;
          i += 1;
          break;
        case State.Value:
          if (byte === OPEN_BRACKET) {
            state = State.FirstElement;
            arrayStart = at;
            index = 0;
            i += 1;
          } else startCapture(byte, at, Purpose.Value);
          break;
        case State.FirstElement:
        case State.Element:
          if (byte === CLOSE_BRACKET && state === State.FirstElement) {
            parts.push({ kind: 'array', key, count: 0, offset: arrayStart, length: at + 1 - arrayStart });
            state = State.AfterValue;
            i += 1;
          } else if (byte === CLOSE_BRACKET || byte === COMMA) {
            fail('syntax', `expected a value in "${key}", not ${describeByte(byte)}`, at);
          } else startCapture(byte, at, Purpose.Element);
          break;
        case State.AfterElement:
          if (byte === COMMA) state = State.Element;
          else if (byte === CLOSE_BRACKET) {
            parts.push({ kind: 'array', key, count: index, offset: arrayStart, length: at + 1 - arrayStart });
            state = State.AfterValue;
          } else
            fail('syntax', `expected ',' or ']' after ${key}[${index - 1}], not ${describeByte(byte)}`, at);
          i += 1;
          break;
        case State.AfterValue:
          if (byte === COMMA) state = State.Key;
          else if (byte === CLOSE_BRACE) state = State.Done;
          else fail('syntax', `expected ',' or '}' after "${key}", not ${describeByte(byte)}`, at);
          i += 1;
          break;
        case State.Done:
          fail('syntax', `unexpected ${describeByte(byte)} after the end of the document`, at);
      }
    }
    offset += length;
    if (parts.length > 0) yield parts;
  }
  if (capturing && scalar && captureBytes > 0) {
    // A scalar that ends the input ends there; nothing valid can follow it at the top level though.
    finishCapture([]);
  }
  if (capturing)
    fail('syntax', `the document ends inside ${what()}`, captureStart, captureLine, captureLineStart);
  if (state !== State.Done) fail('syntax', 'the document ends before its closing }', offset);
}
