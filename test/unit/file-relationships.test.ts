import {
  mainImageSource,
  parseFileRelationshipsBody,
  parseMainImageBody,
} from '../../lib/files/relationships';
import { refusal } from '../support/refusal';

/**
 * The bodies of a product's main_image and files relationships (lib/files/relationships.ts): the
 * platform's shapes, what the SDK sends where they differ, and a 400 naming the field for anything else.
 */

const A = '0193a0c0-0000-7000-8000-00000000000a';
const B = '0193a0c0-0000-7000-8000-00000000000b';

describe('main_image', () => {
  it('POST takes the object, as the specification and the SDK send it', () => {
    expect(parseMainImageBody('POST', { data: { type: 'file', id: A.toUpperCase() } })).toBe(A);
  });

  it('PUT takes the SDK object and the specification array of exactly one', () => {
    expect(parseMainImageBody('PUT', { data: { type: 'file', id: A } })).toBe(A);
    expect(parseMainImageBody('PUT', { data: [{ type: 'file', id: B }] })).toBe(B);
    expect(refusal(() => parseMainImageBody('PUT', { data: [] }))).toEqual({
      detail: 'data must be a list of exactly one file',
      source: 'data',
    });
    expect(
      refusal(() =>
        parseMainImageBody('PUT', {
          data: [
            { type: 'file', id: A },
            { type: 'file', id: B },
          ],
        }),
      ),
    ).toEqual({ detail: 'data must be a list of exactly one file', source: 'data' });
  });

  it('POST refuses the array (the specification gives it to PUT only)', () => {
    expect(refusal(() => parseMainImageBody('POST', { data: [{ type: 'file', id: A }] })).source).toBe(
      'data',
    );
  });

  it('DELETE takes no body, or the object the SDK sends', () => {
    expect(parseMainImageBody('DELETE', undefined)).toBeUndefined();
    expect(parseMainImageBody('DELETE', { data: { type: 'file', id: A } })).toBe(A);
  });

  it.each([
    ['no body', undefined, 'a body {"data": {"type": "file", "id": …}} is required', 'body'],
    ['another type', { data: { type: 'image', id: A } }, 'data.type must be file', 'data.type'],
    [
      'an id that is not a file id',
      { data: { type: 'file', id: 'abc' } },
      'data.id must be a file id (a UUID, as POST /v2/files answers)',
      'data.id',
    ],
    ['another field', { data: { type: 'file', id: A, meta: {} } }, 'data.meta is not allowed', 'data.meta'],
    ['no data', {}, 'data is required', 'data'],
  ])('POST refuses %s', (_what, body, detail, source) => {
    expect(refusal(() => parseMainImageBody('POST', body))).toEqual({ detail, source });
  });
});

describe('mainImageSource', () => {
  it("names data[0].id in the specification's array and data.id otherwise", () => {
    expect(mainImageSource({ data: [{ type: 'file', id: A }] })).toBe('data[0].id');
    expect(mainImageSource({ data: { type: 'file', id: A } })).toBe('data.id');
    expect(mainImageSource(undefined)).toBe('data.id');
  });
});

describe('files', () => {
  it('takes ids with and without tags, in order, ids in lower case', () => {
    expect(
      parseFileRelationshipsBody('POST', {
        data: [
          { type: 'file', id: B.toUpperCase(), meta: { tags: ['front', 'hero'] } },
          { type: 'file', id: A },
        ],
      }),
    ).toEqual([{ id: B, tags: ['front', 'hero'] }, { id: A }]);
  });

  it('takes the empty list the SDK sends for no ids (PUT: remove every file)', () => {
    expect(parseFileRelationshipsBody('PUT', { data: [] })).toEqual([]);
  });

  it('leaves how many files a product may list to the route: a DELETE may name more than a product lists', () => {
    const ids = Array.from(
      { length: 60 },
      (_, i) => `0193a0c0-0000-7000-8000-${String(i).padStart(12, '0')}`,
    );
    const parsed = parseFileRelationshipsBody('DELETE', { data: ids.map((id) => ({ type: 'file', id })) });
    expect(parsed.map((file) => file.id)).toEqual(ids);
  });

  it('refuses a file named twice, whatever its case', () => {
    expect(
      refusal(() =>
        parseFileRelationshipsBody('POST', {
          data: [
            { type: 'file', id: A },
            { type: 'file', id: A.toUpperCase() },
          ],
        }),
      ),
    ).toEqual({ detail: 'data[1].id names the file data[0] names already', source: 'data[1].id' });
  });

  it('refuses meta on a DELETE, where it would be ignored', () => {
    expect(
      refusal(() =>
        parseFileRelationshipsBody('DELETE', { data: [{ type: 'file', id: A, meta: { tags: [] } }] }),
      ),
    ).toEqual({
      detail: 'data[0].meta is not taken when removing files: send their type and id only',
      source: 'data[0].meta',
    });
  });

  it.each([
    ['no body', undefined, 'a body {"data": [{"type": "file", "id": …}]} is required', 'body'],
    [
      'the main_image object',
      { data: { type: 'file', id: A } },
      'data must be a list of files [{"type": "file", "id": …}]',
      'data',
    ],
    [
      'an empty tag',
      { data: [{ type: 'file', id: A, meta: { tags: [''] } }] },
      'data[0].meta.tags[0] must be a tag of 1 to 64 characters, without control characters',
      'data[0].meta.tags[0]',
    ],
    [
      'another meta field',
      { data: [{ type: 'file', id: A, meta: { position: 1 } }] },
      'data[0].meta.position is not allowed',
      'data[0].meta.position',
    ],
  ])('refuses %s', (_what, body, detail, source) => {
    expect(refusal(() => parseFileRelationshipsBody('PUT', body))).toEqual({ detail, source });
  });
});
