import { invalidUtf8Offset } from '../http/utf8';

/**
 * A streaming reader of CSV as RFC 4180 defines it (the platform's import files): fields separated by
 * commas, records by CRLF or LF; a field in double quotes may hold commas, line breaks and quotes (doubled:
 * `""`). Reads bytes as they arrive (an S3 object's body) and yields one record at a time, so a file of any
 * length is read in the memory of its longest record. Strict where a lenient reader would guess: a quote
 * inside an unquoted field, text after a closing quote, a quoted field left open at the end, bytes that are
 * not UTF-8, and a field or record over the limits are errors naming the line. A leading byte order mark is
 * dropped; a blank line is no record.
 *
 * No CSV library is a dependency of the project, and the grammar is small: this reader keeps the functions'
 * bundles free of one, and its tests hold it to the RFC's cases (test/unit/csv.test.ts).
 */

export interface CsvRecord {
  /** The line the record starts on (1 is the first line of the file). */
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  override name = 'CsvError';
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
  }
}

export interface CsvLimits {
  /** Characters a field may hold (default 65,536). */
  maxFieldChars?: number;
  /** Fields a record may have (default 256). */
  maxFields?: number;
}

const COMMA = 44;
const QUOTE = 34;
const CR = 13;
const LF = 10;

/** The records of a CSV byte stream, in order. */
export async function* readCsv(
  source: AsyncIterable<Uint8Array>,
  limits: CsvLimits = {},
): AsyncGenerator<CsvRecord> {
  const maxFieldChars = limits.maxFieldChars ?? 65_536;
  const maxFields = limits.maxFields ?? 256;
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let fields: string[] = [];
  let field = '';
  /** A record has begun (a character other than a line break was read since the last record). */
  let started = false;
  let quoted = false;
  /** Inside a quoted field's quotes. */
  let inQuotes = false;
  /** A quote was read inside quotes: the next character says whether it closes them or is doubled. */
  let quoteSeen = false;
  /** The previous chunk ended with CR: an LF opening this one belongs to it. */
  let pendingCr = false;
  let line = 1;
  let recordLine = 1;

  const addToField = (text: string) => {
    field += text;
    if (field.length > maxFieldChars) {
      throw new CsvError(`a field is longer than ${maxFieldChars} characters`, line);
    }
  };
  const endField = () => {
    fields.push(field);
    if (fields.length > maxFields)
      throw new CsvError(`a record has more than ${maxFields} fields`, recordLine);
    field = '';
    quoted = false;
  };

  function* scan(text: string): Generator<CsvRecord> {
    let i = 0;
    const length = text.length;
    if (pendingCr && length > 0) {
      pendingCr = false;
      if (text.charCodeAt(0) === LF) i = 1;
    }
    while (i < length) {
      if (inQuotes) {
        if (quoteSeen) {
          quoteSeen = false;
          if (text.charCodeAt(i) === QUOTE) {
            addToField('"');
            i += 1;
            continue;
          }
          inQuotes = false;
          continue;
        }
        const close = text.indexOf('"', i);
        const end = close === -1 ? length : close;
        const run = text.slice(i, end);
        for (let at = run.indexOf('\n'); at !== -1; at = run.indexOf('\n', at + 1)) line += 1;
        addToField(run);
        i = end;
        if (close !== -1) {
          quoteSeen = true;
          i += 1;
        }
        continue;
      }
      const code = text.charCodeAt(i);
      if (code === COMMA) {
        started = true;
        endField();
        i += 1;
      } else if (code === CR || code === LF) {
        if (started) {
          endField();
          yield { line: recordLine, fields };
          fields = [];
          started = false;
        }
        line += 1;
        recordLine = line;
        i += 1;
        if (code === CR) {
          if (i === length) pendingCr = true;
          else if (text.charCodeAt(i) === LF) i += 1;
        }
      } else if (code === QUOTE) {
        if (quoted || field.length > 0) {
          throw new CsvError(
            quoted
              ? 'text after a closing quote: a field in quotes ends at its closing quote (write a quote inside it as "")'
              : 'a quote inside an unquoted field: put the whole field in quotes and double the quote ("")',
            line,
          );
        }
        started = true;
        quoted = true;
        inQuotes = true;
        i += 1;
      } else {
        if (quoted) {
          throw new CsvError(
            'text after a closing quote: a field in quotes ends at its closing quote (write a quote inside it as "")',
            line,
          );
        }
        started = true;
        let end = i + 1;
        while (end < length) {
          const next = text.charCodeAt(end);
          if (next === COMMA || next === CR || next === LF || next === QUOTE) break;
          end += 1;
        }
        addToField(text.slice(i, end));
        i = end;
      }
    }
  }

  const notUtf8 = () => new CsvError('the file is not valid UTF-8: save it as UTF-8', line);
  for await (const chunk of source) {
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      // The lines before the first byte that is not UTF-8 are read, so the error names its line.
      const bad = invalidUtf8Offset(chunk) ?? 0;
      yield* scan(new TextDecoder('utf-8', { fatal: false }).decode(chunk.subarray(0, bad)));
      throw notUtf8();
    }
    yield* scan(text);
  }
  let rest: string;
  try {
    rest = decoder.decode();
  } catch {
    throw notUtf8();
  }
  yield* scan(rest);
  if (inQuotes && !quoteSeen)
    throw new CsvError('a quoted field is not closed before the end of the file', recordLine);
  if (started) {
    endField();
    yield { line: recordLine, fields };
  }
}
