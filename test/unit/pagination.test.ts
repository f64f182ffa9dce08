import { BadRequestError } from '../../lib/http/errors';
import { pageLinks, pageMeta, pageUrl, parsePageRequest } from '../../lib/pagination/index';

describe('parsePageRequest', () => {
  it('uses the default limit and offset 0 when the parameters are absent', () => {
    expect(parsePageRequest(undefined, { defaultLimit: 25 })).toEqual({ limit: 25, offset: 0 });
    expect(parsePageRequest({}, { defaultLimit: 7 })).toEqual({ limit: 7, offset: 0 });
  });

  it('accepts the bounds themselves', () => {
    expect(parsePageRequest({ 'page[limit]': '1', 'page[offset]': '0' }, { defaultLimit: 25 })).toEqual({
      limit: 1,
      offset: 0,
    });
    expect(parsePageRequest({ 'page[limit]': '100', 'page[offset]': '10000' }, { defaultLimit: 25 })).toEqual(
      {
        limit: 100,
        offset: 10000,
      },
    );
  });

  it.each(['0', '101', '-1', '1.5', 'abc', '', ' 5', '5 ', '1e2', '0x10', '+5', '99999999999'])(
    'rejects page[limit]=%p with a 400 naming the parameter',
    (raw) => {
      let caught: unknown;
      try {
        parsePageRequest({ 'page[limit]': raw }, { defaultLimit: 25 });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(BadRequestError);
      expect((caught as BadRequestError).source).toBe('page[limit]');
      expect((caught as BadRequestError).detail).toBe('page[limit] must be an integer from 1 to 100');
    },
  );

  it.each(['-1', '10001', '2.0', 'x', ''])(
    'rejects page[offset]=%p with a 400 naming the parameter',
    (raw) => {
      expect(() => parsePageRequest({ 'page[offset]': raw }, { defaultLimit: 25 })).toThrow(
        expect.objectContaining({ status: 400, source: 'page[offset]' }),
      );
    },
  );

  it('honours custom bounds', () => {
    expect(() => parsePageRequest({ 'page[limit]': '11' }, { defaultLimit: 5, maxLimit: 10 })).toThrow(
      'page[limit] must be an integer from 1 to 10',
    );
  });
});

describe('pageMeta', () => {
  it('numbers pages from 1 and counts at least one page', () => {
    expect(pageMeta({ limit: 25, offset: 0 }, 0)).toEqual({ limit: 25, offset: 0, current: 1, total: 1 });
    expect(pageMeta({ limit: 25, offset: 975 }, 1000)).toEqual({
      limit: 25,
      offset: 975,
      current: 40,
      total: 40,
    });
    expect(pageMeta({ limit: 10, offset: 15 }, 21)).toEqual({ limit: 10, offset: 15, current: 2, total: 3 });
  });
});

describe('pageLinks', () => {
  const url = (offset: number, limit: number) => pageUrl('/items', offset, limit);

  it('has no prev on the first page and no next on the last', () => {
    expect(pageLinks({ limit: 10, offset: 0 }, 25, url)).toEqual({
      self: '/items?page[offset]=0&page[limit]=10',
      first: '/items?page[offset]=0&page[limit]=10',
      last: '/items?page[offset]=20&page[limit]=10',
      prev: null,
      next: '/items?page[offset]=10&page[limit]=10',
    });
    expect(pageLinks({ limit: 10, offset: 20 }, 25, url)).toMatchObject({
      prev: '/items?page[offset]=10&page[limit]=10',
      next: null,
    });
  });

  it('handles an exact multiple of the limit', () => {
    const links = pageLinks({ limit: 10, offset: 10 }, 20, url);
    expect(links.last).toBe('/items?page[offset]=10&page[limit]=10');
    expect(links.next).toBeNull();
  });

  it('clamps prev to 0 for offsets that are not a multiple of the limit', () => {
    expect(pageLinks({ limit: 10, offset: 5 }, 30, url).prev).toBe('/items?page[offset]=0&page[limit]=10');
  });

  it('points back into the results from an offset past the end', () => {
    const links = pageLinks({ limit: 10, offset: 50 }, 25, url);
    expect(links.next).toBeNull();
    expect(links.prev).toBe('/items?page[offset]=40&page[limit]=10');
    expect(links.last).toBe('/items?page[offset]=20&page[limit]=10');
  });

  it('nulls last on a single page when asked to, and keeps it otherwise', () => {
    expect(pageLinks({ limit: 10, offset: 0 }, 3, url, { nullLastWhenSinglePage: true }).last).toBeNull();
    expect(pageLinks({ limit: 10, offset: 0 }, 3, url).last).toBe('/items?page[offset]=0&page[limit]=10');
    expect(pageLinks({ limit: 10, offset: 0 }, 0, url, { nullLastWhenSinglePage: true })).toMatchObject({
      last: null,
      prev: null,
      next: null,
    });
  });
});

describe('pageUrl', () => {
  it('URL-encodes extra parameters and keeps them before the page parameters', () => {
    expect(pageUrl('https://api.test/v2/keys', 0, 25)).toBe(
      'https://api.test/v2/keys?page[offset]=0&page[limit]=25',
    );
    expect(pageUrl('/c', 5, 5, { filter: 'eq(name,"a b")' })).toBe(
      '/c?filter=eq(name%2C%22a%20b%22)&page[offset]=5&page[limit]=5',
    );
  });
});
