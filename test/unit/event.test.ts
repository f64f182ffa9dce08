import { createHttpEvent, parseQueryString } from '../../local/http-event';

describe('createHttpEvent', () => {
  it('builds a payload 2.0 event with raw and decoded query strings', () => {
    const event = createHttpEvent({
      method: 'get',
      path: '/v2/application-keys?page%5Blimit%5D=5&page[offset]=10',
      headers: { Host: 'api.test', Authorization: 'Bearer abc' },
    });
    expect(event.version).toBe('2.0');
    expect(event.rawPath).toBe('/v2/application-keys');
    expect(event.rawQueryString).toBe('page%5Blimit%5D=5&page[offset]=10');
    expect(event.queryStringParameters).toEqual({ 'page[limit]': '5', 'page[offset]': '10' });
    expect(event.headers).toEqual({ host: 'api.test', authorization: 'Bearer abc' });
    expect(event.requestContext.http.method).toBe('GET');
    expect(event.requestContext.domainName).toBe('api.test');
    expect(event.body).toBeUndefined();
    expect(event.isBase64Encoded).toBe(false);
  });

  it('omits queryStringParameters when there is no query, like API Gateway', () => {
    expect(createHttpEvent({ method: 'GET', path: '/x' })).not.toHaveProperty('queryStringParameters');
  });

  it('moves cookies out of the headers', () => {
    const event = createHttpEvent({ method: 'GET', path: '/x', headers: { cookie: 'a=1; b=2' } });
    expect(event.cookies).toEqual(['a=1', 'b=2']);
    expect(event.headers.cookie).toBeUndefined();
  });
});

describe('parseQueryString', () => {
  it('joins repeated parameters with commas and decodes plus as space', () => {
    expect(parseQueryString('a=1&a=2&b=x+y&c')).toEqual({ a: '1,2', b: 'x y', c: '' });
  });

  it('keeps malformed percent-escapes as they are instead of throwing', () => {
    expect(parseQueryString('filter=%E0%A4%A')).toEqual({ filter: '%E0%A4%A' });
  });
});
