import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import {
  type DocumentPart,
  DocumentReadError,
  type ReadOptions,
  readReleaseDocument,
} from '../../lib/catalog/document-stream';
import { generateRelease } from '../../lib/catalog/generator';

/** The bytes of `text` as a source of chunks of `size` bytes (the last one shorter). */
async function* chunks(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}

async function read(
  text: string | Buffer,
  size = 1 << 16,
  options: ReadOptions = {},
): Promise<DocumentPart[]> {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const parts: DocumentPart[] = [];
  for await (const batch of readReleaseDocument(chunks(bytes, size), options)) parts.push(...batch);
  return parts;
}

/** The document the parts describe, rebuilt: what JSON.parse would have made of the whole text. */
function rebuild(parts: DocumentPart[]): Record<string, unknown> {
  // Own properties only, as JSON.parse makes them (a `__proto__` member included).
  const document: Record<string, unknown> = {};
  const set = (key: string, value: unknown) =>
    Object.defineProperty(document, key, { value, enumerable: true, writable: true, configurable: true });
  const arrays = new Map<string, unknown[]>();
  for (const part of parts) {
    if (part.kind === 'value') set(part.key, part.value);
    else if (part.kind === 'element') {
      const list = arrays.get(part.key) ?? [];
      expect(part.index).toBe(list.length);
      list.push(part.value);
      arrays.set(part.key, list);
    } else {
      expect(arrays.get(part.key)?.length ?? 0).toBe(part.count);
      set(part.key, arrays.get(part.key) ?? []);
    }
  }
  return document;
}

async function failure(
  text: string | Buffer,
  size = 1 << 16,
  options: ReadOptions = {},
): Promise<DocumentReadError> {
  const error = await read(text, size, options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DocumentReadError);
  return error as DocumentReadError;
}

const sample = generateRelease({ children: 12, drafts: 2, images: true, productBytes: 700, seed: 4 });

describe('readReleaseDocument', () => {
  it.each([1, 2, 7, 64, 4096, 1 << 20])(
    'reads what JSON.parse reads, in chunks of %i bytes',
    async (size) => {
      const text = JSON.stringify(sample);
      const parts = await read(text, size);
      expect(rebuild(parts)).toEqual(JSON.parse(text));
      expect(parts.filter((part) => part.kind === 'element' && part.key === 'products')).toHaveLength(
        (sample.products as unknown[]).length,
      );
    },
  );

  it('gives each part its byte range in the source, which parses to the same value', async () => {
    // Non-ASCII text and escapes, so bytes and characters differ.
    const document = {
      ...sample,
      catalog: { name: 'Été "quoted" \\ ünïcödé 🧵' },
      products: (sample.products as Record<string, unknown>[]).map((product, n) => ({
        ...product,
        note: `né ${n} "é"`,
      })),
    };
    const bytes = Buffer.from(JSON.stringify(document, null, 2).replaceAll('\n', '\r\n'));
    for (const size of [3, 5000]) {
      const parts = await read(bytes, size);
      expect(rebuild(parts)).toEqual(document);
      for (const part of parts) {
        const slice = bytes.subarray(part.offset, part.offset + part.length).toString('utf8');
        if (part.kind === 'array')
          expect(JSON.parse(slice)).toEqual(document[part.key as keyof typeof document]);
        else expect(JSON.parse(slice)).toEqual(part.value);
      }
    }
  });

  it('reads empty arrays, scalars at the top level and an empty object', async () => {
    expect(rebuild(await read('{}'))).toEqual({});
    const text = ' {"rules" : [ ] ,"n":-1.5e3,"t":true,"z":null,"s":"x","products":[1,"a",[2],{"b":[]}]}\n';
    for (const size of [1, 4, 100]) expect(rebuild(await read(text, size))).toEqual(JSON.parse(text));
  });

  it.each([
    ['[]', 1, 1, 'a release document is a JSON object'],
    ['{"products":[{"id":1},]}', 1, 23, 'expected a value in "products"'],
    ['{"products":[{"id":1} {"id":2}]}', 1, 23, "expected ',' or ']' after products[0]"],
    ['{"catalog":{} "products":[]}', 1, 15, `expected ',' or '}' after "catalog"`],
    ['{"catalog" {}}', 1, 12, `expected ':' after "catalog"`],
    ['{catalog:{}}', 1, 2, 'expected a double-quoted property name'],
    ['{"products":[]}}', 1, 16, 'after the end of the document'],
    ['{"products":[]', 1, 15, 'the document ends before its closing }'],
    ['{"products":[{"id":1},\n{"id":2', 2, 1, 'the document ends inside products[1]'],
    ['{"products":[\n  {"id": 1},\n  {"id": tru}\n]}', 3, 3, "products[1]: Unexpected token '}'"],
    ['{"catalog":{"name":\n"a\nb"}}', 2, 3, 'the value of "catalog": Bad control character'],
  ])('refuses %j at line %i, column %i: %s', async (text, line, column, reason) => {
    for (const size of [1, 1 << 16]) {
      const error = await failure(text, size);
      expect(error.rule).toBe('syntax');
      expect(error.message).toContain(reason);
      expect({ line: error.line, column: error.column }).toEqual({ line, column });
    }
  });

  it('refuses a top-level key given twice (JSON.parse would keep only the last)', async () => {
    const error = await failure('{"products":[],"catalog":{},\n"products":[{"id":1}]}');
    expect(error.rule).toBe('duplicate_key');
    expect(error.message).toBe('line 2, column 1: "products" is given twice');
  });

  it('refuses a value past the size bound before reading all of it', async () => {
    const text = `{"products":[{"id":1},{"id":"${'x'.repeat(5000)}"}]}`;
    const error = await failure(text, 100, { maxValueBytes: 1000 });
    expect(error.rule).toBe('value_size');
    expect(error.message).toBe('line 1, column 23: products[1] takes more than 1000 bytes');
    expect(rebuild(await read(text, 100, { maxValueBytes: 6000 }))).toEqual(JSON.parse(text));
  });

  it('refuses bytes that are not UTF-8', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"catalog":{"name":"a'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}}'),
    ]);
    const error = await failure(bytes, 4);
    expect(error.rule).toBe('encoding');
    expect(error.message).toBe('line 1, column 12: the value of "catalog" is not valid UTF-8');
  });

  it('reads any JSON object as JSON.parse does, however it is spaced and chunked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.constantFrom(undefined, 1, '\t', ' \r\n'),
        fc.integer({ min: 1, max: 64 }),
        async (object, space, size) => {
          const text = JSON.stringify(object, null, space as string | number | undefined);
          expect(rebuild(await read(text, size))).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never accepts what JSON.parse refuses, and never fails otherwise than with a DocumentReadError', async () => {
    // Near-valid documents: a valid one with a few characters inserted, deleted or replaced.
    const base = JSON.stringify({
      catalog: { name: 'a"b\\c', n: [1, -2.5e3, true, null] },
      products: [{ id: 1 }, 'x', []],
    });
    const alphabet = fc.constantFrom(...'{}[]":,\\ \n0-1.eE+tfnulrsa\u00e9'.split(''));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat({ max: base.length }), fc.nat({ max: 2 }), alphabet), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 1, max: 16 }),
        async (edits, size) => {
          let text = base;
          for (const [at, kind, character] of edits) {
            const where = Math.min(at, text.length);
            text =
              kind === 0
                ? text.slice(0, where) + character + text.slice(where)
                : kind === 1
                  ? text.slice(0, where) + text.slice(where + 1)
                  : text.slice(0, where) + character + text.slice(where + 1);
          }
          let expected: unknown;
          try {
            expected = JSON.parse(text);
          } catch {
            expected = undefined;
          }
          const outcome = await read(text, size).then(
            (parts) => ({ parts }),
            (error: unknown) => ({ error }),
          );
          if ('error' in outcome) {
            expect(outcome.error).toBeInstanceOf(DocumentReadError);
            // JSON.parse may accept it: not an object, or a member given twice.
            if (
              expected !== undefined &&
              typeof expected === 'object' &&
              expected !== null &&
              !Array.isArray(expected)
            )
              expect((outcome.error as DocumentReadError).rule).toBe('duplicate_key');
          } else expect(rebuild(outcome.parts)).toEqual(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('reads a document far larger than its heap, one element at a time', () => {
    // 60,000 products of 1 KB (about 62 MB) streamed from the generator into the reader, in a process
    // allowed a 48 MB heap: holding the document as one string or one object would run out of memory.
    const script = `
      import { generateReleaseText } from './lib/catalog/generator.ts';
      import { readReleaseDocument } from './lib/catalog/document-stream.ts';
      async function* source() {
        for (const piece of generateReleaseText({ children: 60000, productBytes: 1024 })) yield Buffer.from(piece);
      }
      let products = 0, bytes = 0;
      for await (const parts of readReleaseDocument(source()))
        for (const part of parts) if (part.kind === 'element' && part.key === 'products') { products += 1; bytes += part.length; }
      console.log(JSON.stringify({ products, bytes }));
    `;
    const run = spawnSync(
      process.execPath,
      ['--max-old-space-size=48', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as { products: number; bytes: number };
    expect(result.products).toBe(60_002);
    expect(result.bytes).toBeGreaterThan(60_000 * 1024);
  });
});
