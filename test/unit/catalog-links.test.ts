import {
  acceptLanguage,
  childListJson,
  childListLinks,
  displayCurrency,
  parseInclude,
  shopperHeaders,
} from '../../lib/catalog/child-list-response';
import { BadRequestError } from '../../lib/http/errors';

const ID = '0190a0c0-0a00-7000-8000-000000000001';
const BASE = `/catalog/products/${ID}/relationships/children`;

describe('childListLinks', () => {
  it('is relative and nulls last, prev and next on a single page', () => {
    expect(childListLinks(ID, {}, { limit: 25, offset: 0 }, 7)).toEqual({
      self: `${BASE}?page[offset]=0&page[limit]=25`,
      first: `${BASE}?page[offset]=0&page[limit]=25`,
      last: null,
      prev: null,
      next: null,
    });
  });

  it('keeps the filter, URL-encoded, before the page parameters', () => {
    const links = childListLinks(
      ID,
      { filter: 'eq(name,"Blue & Red"):in(tags,a,b)' },
      { limit: 10, offset: 10 },
      35,
    );
    const filter = 'filter=eq(name%2C%22Blue%20%26%20Red%22)%3Ain(tags%2Ca%2Cb)';
    expect(links).toEqual({
      self: `${BASE}?${filter}&page[offset]=10&page[limit]=10`,
      first: `${BASE}?${filter}&page[offset]=0&page[limit]=10`,
      last: `${BASE}?${filter}&page[offset]=30&page[limit]=10`,
      prev: `${BASE}?${filter}&page[offset]=0&page[limit]=10`,
      next: `${BASE}?${filter}&page[offset]=20&page[limit]=10`,
    });
  });

  it('handles an exact multiple of the limit and an offset past the end', () => {
    expect(childListLinks(ID, {}, { limit: 10, offset: 10 }, 20)).toMatchObject({
      last: `${BASE}?page[offset]=10&page[limit]=10`,
      next: null,
      prev: `${BASE}?page[offset]=0&page[limit]=10`,
    });
    expect(childListLinks(ID, {}, { limit: 10, offset: 40 }, 20)).toMatchObject({
      last: `${BASE}?page[offset]=10&page[limit]=10`,
      next: null,
      prev: `${BASE}?page[offset]=30&page[limit]=10`,
    });
  });
});

describe('childListJson', () => {
  it('puts included between data and meta, only when there is one, and links keep include', () => {
    const text = childListJson(
      ID,
      { filter: 'eq(tags,red)', include: 'main_image,files' },
      { limit: 2, offset: 0 },
      { data: [], total: 3, included: '{"main_images":[],"files":[]}' },
    );
    const body = JSON.parse(text);
    expect(Object.keys(body)).toEqual(['data', 'included', 'meta', 'links']);
    expect(body.included).toEqual({ main_images: [], files: [] });
    expect(body.links.next).toBe(
      `${BASE}?filter=eq(tags%2Cred)&include=main_image%2Cfiles&page[offset]=2&page[limit]=2`,
    );
  });

  it('carries data, meta.results.total, meta.page and links, in that order', () => {
    const text = childListJson(ID, {}, { limit: 2, offset: 2 }, { data: [], total: 5 });
    const body = JSON.parse(text);
    expect(Object.keys(body)).toEqual(['data', 'meta', 'links']);
    expect(body.meta).toEqual({ results: { total: 5 }, page: { limit: 2, offset: 2, current: 2, total: 3 } });
    expect(body.data).toEqual([]);
    expect(body.links.next).toBe(`${BASE}?page[offset]=4&page[limit]=2`);
  });

  it('embeds the pre-serialized products as they are', () => {
    const products = ['{"id":"a","type":"product"}', '{"id":"b","type":"product"}'];
    const body = JSON.parse(
      childListJson(ID, { filter: 'eq(tags,red)' }, { limit: 2, offset: 0 }, { data: products, total: 2 }),
    );
    expect(body.data).toEqual([
      { id: 'a', type: 'product' },
      { id: 'b', type: 'product' },
    ]);
    expect(body.links.self).toBe(`${BASE}?filter=eq(tags%2Cred)&page[offset]=0&page[limit]=2`);
  });
});

describe('shopperHeaders', () => {
  it('reads SVC-Channel and SVC-Context-Tag, trimmed', () => {
    expect(shopperHeaders({ 'svc-channel': ' web ', 'svc-context-tag': 'summer' })).toEqual({
      channel: 'web',
      tag: 'summer',
    });
  });

  it('accepts EP-Channel and EP-Context-Tag as aliases, SVC-* winning', () => {
    expect(shopperHeaders({ 'ep-channel': 'mobile', 'ep-context-tag': 'vip' })).toEqual({
      channel: 'mobile',
      tag: 'vip',
    });
    expect(shopperHeaders({ 'svc-channel': 'web', 'ep-channel': 'mobile' }).channel).toBe('web');
  });

  it('treats an empty tag as absent', () => {
    expect(shopperHeaders({ 'svc-channel': 'web', 'svc-context-tag': '  ' }).tag).toBeUndefined();
  });

  it.each([{}, { 'svc-channel': '' }, { 'svc-channel': '   ' }])('400s without a channel: %p', (headers) => {
    let caught: unknown;
    try {
      shopperHeaders(headers);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(BadRequestError);
    expect((caught as BadRequestError).source).toBe('SVC-Channel');
    expect((caught as BadRequestError).detail).toBe(
      'the SVC-Channel header is required (e.g. SVC-Channel: web)',
    );
  });

  it("lets a request without a channel through when the store's channel_required is false", () => {
    expect(shopperHeaders({}, { channel_required: false })).toEqual({ channel: undefined, tag: undefined });
    expect(
      shopperHeaders({ 'svc-channel': ' ', 'ep-context-tag': 'vip' }, { channel_required: false }),
    ).toEqual({
      channel: undefined,
      tag: 'vip',
    });
    expect(shopperHeaders({ 'ep-channel': 'web' }, { channel_required: false }).channel).toBe('web');
    expect(() => shopperHeaders({}, { channel_required: true })).toThrow(
      expect.objectContaining({ status: 400, source: 'SVC-Channel' }),
    );
    expect(() => shopperHeaders({ 'svc-channel': 'x'.repeat(256) }, { channel_required: false })).toThrow(
      expect.objectContaining({ status: 400, source: 'SVC-Channel' }),
    );
  });

  it('400s on overlong headers, naming them', () => {
    expect(() => shopperHeaders({ 'svc-channel': 'x'.repeat(256) })).toThrow(
      expect.objectContaining({ status: 400, source: 'SVC-Channel' }),
    );
    expect(() => shopperHeaders({ 'svc-channel': 'web', 'svc-context-tag': 'x'.repeat(256) })).toThrow(
      expect.objectContaining({ status: 400, source: 'SVC-Context-Tag' }),
    );
  });
});

describe('parseInclude', () => {
  it('reads a comma-separated set, repeats and spaces allowed', () => {
    expect(parseInclude(undefined)).toBeUndefined();
    expect([...(parseInclude('main_image, files,main_image') ?? [])]).toEqual(['main_image', 'files']);
    expect([...(parseInclude('component_products') ?? [])]).toEqual(['component_products']);
  });

  it.each(['', 'MAIN_IMAGE', 'main_image,,files', 'variations'])('refuses %p with source include', (text) => {
    expect(() => parseInclude(text)).toThrow(BadRequestError);
    try {
      parseInclude(text);
    } catch (error) {
      expect((error as BadRequestError).source).toBe('include');
    }
  });
});

describe('displayCurrency and acceptLanguage', () => {
  const currencies = { USD: {}, EUR: {} } as never;

  it('prefers EP-Currency over X-Moltin-Currency, upper-cased; none without either', () => {
    expect(displayCurrency({}, currencies)).toBeUndefined();
    expect(displayCurrency({ 'x-moltin-currency': 'eur' }, currencies)).toBe('EUR');
    expect(displayCurrency({ 'ep-currency': 'USD', 'x-moltin-currency': 'EUR' }, currencies)).toBe('USD');
  });

  it('names the header that carried an unknown code', () => {
    expect(() => displayCurrency({ 'ep-currency': 'GBP', 'x-moltin-currency': 'EUR' }, currencies)).toThrow(
      'EP-Currency must be one of the store\'s currencies (EUR, USD); got "GBP"',
    );
    expect(() => displayCurrency({ 'x-moltin-currency': 'constructor' }, currencies)).toThrow(
      BadRequestError,
    );
  });

  it('falls back to X-Moltin-Language', () => {
    expect(acceptLanguage({ 'x-moltin-language': 'fr' })).toBe('fr');
    expect(acceptLanguage({ 'accept-language': 'de', 'x-moltin-language': 'fr' })).toBe('de');
  });
});
