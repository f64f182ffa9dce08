import { MAX_MULTIPART_PARTS, multipartBoundary, multipartFields } from '../../lib/http/multipart';
import { refusal } from '../support/refusal';

/** The minimal multipart/form-data reader of POST /v2/files (lib/http/multipart.ts). */

const field = (name: string, value: string) =>
  `Content-Disposition: form-data; name="${name}"\r\n\r\n${value}`;
const body = (boundary: string, parts: string[], preamble = '') =>
  Buffer.from(
    `${preamble}${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('')}--${boundary}--\r\n`,
  );

describe('multipartBoundary', () => {
  it('reads a plain or quoted boundary, whatever the parameter order', () => {
    expect(multipartBoundary('multipart/form-data; boundary=abc-123')).toBe('abc-123');
    expect(multipartBoundary('multipart/form-data; charset=utf-8; BOUNDARY="a b:c"')).toBe('a b:c');
  });

  it.each([
    ['none', 'multipart/form-data'],
    ['an empty one', 'multipart/form-data; boundary='],
    ['one over 70 characters', `multipart/form-data; boundary=${'a'.repeat(71)}`],
    ['one ending in a space', 'multipart/form-data; boundary="ab "'],
  ])('refuses %s', (_what, header) => {
    expect(refusal(() => multipartBoundary(header))).toEqual({
      detail:
        'a multipart/form-data body needs a boundary parameter of 1 to 70 characters in its Content-Type',
      source: 'body',
    });
  });
});

describe('multipartFields', () => {
  const type = (boundary: string) => `multipart/form-data; boundary=${boundary}`;

  it('reads text fields after a preamble, values kept byte for byte (UTF-8, CRLF inside)', () => {
    const bytes = body(
      'xyz',
      [field('file_location', 'https://a.example/é.png'), field('note', 'a\r\nb')],
      'ignored\r\n',
    );
    expect(multipartFields(bytes, type('xyz'))).toEqual({
      file_location: 'https://a.example/é.png',
      note: 'a\r\nb',
    });
  });

  it('keeps a field named __proto__ as an own property', () => {
    const fields = multipartFields(body('b', [field('__proto__', 'x')]), type('b'));
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(Object.keys(fields)).toEqual(['__proto__']);
  });

  it.each([
    [
      'no delimiter',
      Buffer.from('file_location=https://a.example/a.png'),
      'request body is not a valid multipart form: no part starts with the boundary "--b"',
      'body',
    ],
    [
      'no closing boundary',
      Buffer.from(`--b\r\n${field('a', '1')}`),
      'request body is not a valid multipart form: the body does not end with the closing boundary',
      'body',
    ],
    [
      'a part without Content-Disposition',
      body('b', ['Content-Type: text/plain\r\n\r\nx']),
      'request body is not a valid multipart form: each part needs a Content-Disposition: form-data header',
      'body',
    ],
    [
      'a part without a name',
      body('b', ['Content-Disposition: form-data\r\n\r\nx']),
      'request body is not a valid multipart form: each part needs a name',
      'body',
    ],
    [
      'a part without a blank line',
      body('b', ['Content-Disposition: form-data; name="a"']),
      'request body is not a valid multipart form: part a has no blank line after its headers',
      'body',
    ],
    ['a repeated field', body('b', [field('a', '1'), field('a', '2')]), 'field a is repeated', 'a'],
    [
      'a file part',
      body('b', [
        'Content-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\u0089PNG',
      ]),
      'part file carries a file: uploading file content is not supported; send file_location, the https URL where the file is hosted',
      'file',
    ],
    [
      `more than ${MAX_MULTIPART_PARTS} parts`,
      body(
        'b',
        Array.from({ length: MAX_MULTIPART_PARTS + 1 }, (_, i) => field(`f${i}`, 'x')),
      ),
      `request body is not a valid multipart form: at most ${MAX_MULTIPART_PARTS} parts are allowed`,
      'body',
    ],
  ])('refuses %s', (_what, bytes, detail, source) => {
    expect(refusal(() => multipartFields(bytes, type('b')))).toEqual({ detail, source });
  });

  it('refuses a file part before reading the parts after it', () => {
    const bytes = Buffer.concat([
      Buffer.from('--b\r\nContent-Disposition: form-data; name="upload"; filename="x.bin"\r\n\r\n'),
      Buffer.from([0xff, 0xfe, 0x00]),
      Buffer.from(`\r\n--b\r\n${field('file_location', 'https://a.example/a.png')}\r\n--b--\r\n`),
    ]);
    expect(refusal(() => multipartFields(bytes, type('b'))).source).toBe('upload');
  });
});
