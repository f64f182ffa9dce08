import { CsvError, type CsvRecord, readCsv } from '../../lib/csv/parse';

/** The CSV reader (lib/csv/parse.ts) on RFC 4180's cases, fed whole and byte by byte. */

async function* chunks(text: string | Buffer, size: number): AsyncGenerator<Uint8Array> {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function records(text: string | Buffer, size = 1 << 20): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const record of readCsv(chunks(text, size))) out.push(record);
  return out;
}

const both = async (text: string) => {
  const whole = await records(text);
  expect(await records(text, 1)).toEqual(whole);
  expect(await records(text, 3)).toEqual(whole);
  return whole;
};

describe('readCsv', () => {
  it('reads records separated by CRLF or LF, with the line each starts on', async () => {
    expect(await both('a,b\r\n1,2\n3,4')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
      { line: 3, fields: ['3', '4'] },
    ]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks; counts the lines they take', async () => {
    expect(await both('name,description\r\n"A, b","He said ""hi""\r\nthen left"\r\nnext,""\r\n')).toEqual([
      { line: 1, fields: ['name', 'description'] },
      { line: 2, fields: ['A, b', 'He said "hi"\r\nthen left'] },
      { line: 4, fields: ['next', ''] },
    ]);
  });

  it('keeps empty fields, drops blank lines and a byte order mark, and takes multi-byte characters split across chunks', async () => {
    expect(await both('\uFEFFa,,c\n\n\n,é漢,\n')).toEqual([
      { line: 1, fields: ['a', '', 'c'] },
      { line: 4, fields: ['', 'é漢', ''] },
    ]);
  });

  it.each([
    ['a,b"c\n', 'line 1: a quote inside an unquoted field'],
    ['a,"b"c\n', 'line 1: text after a closing quote'],
    ['x\na,"b\nc', 'line 2: a quoted field is not closed'],
  ])('refuses %j', async (text, message) => {
    await expect(records(text)).rejects.toThrow(message);
    await expect(records(text, 1)).rejects.toThrow(CsvError);
  });

  it('refuses bytes that are not UTF-8, naming the line', async () => {
    await expect(records(Buffer.from([0x61, 0x0a, 0x62, 0xff, 0x0a]))).rejects.toThrow(
      'line 2: the file is not valid UTF-8',
    );
  });

  it('refuses a field or a record over the limits', async () => {
    const long = `${'x'.repeat(20)}\n`;
    await expect(
      (async () => {
        for await (const _ of readCsv(chunks(long, 4), { maxFieldChars: 10 })) void _;
      })(),
    ).rejects.toThrow('line 1: a field is longer than 10 characters');
    await expect(
      (async () => {
        for await (const _ of readCsv(chunks('a,b,c,d\n', 2), { maxFields: 3 })) void _;
      })(),
    ).rejects.toThrow('line 1: a record has more than 3 fields');
  });
});
