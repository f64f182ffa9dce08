import { compileRoutes } from '../../local/gateway';

/** The local gateways (the route table's and the template's) match as API Gateway does: literals first. */
describe('compileRoutes', () => {
  it('prefers a literal segment to a parameter in the same place, whatever order the routes come in', () => {
    const match = compileRoutes([
      { method: 'GET', path: '/pcm/catalogs/{catalog_id}', target: 'catalog' },
      { method: 'GET', path: '/pcm/catalogs/{catalog_id}/releases', target: 'releases' },
      { method: 'GET', path: '/pcm/catalogs/rules/{catalog_rule_id}', target: 'rule' },
      { method: 'GET', path: '/pcm/catalogs/rules', target: 'rules' },
    ]);
    expect(match('GET', '/pcm/catalogs/rules')?.target).toBe('rules');
    expect(match('GET', '/pcm/catalogs/abc')).toMatchObject({
      target: 'catalog',
      routeKey: 'GET /pcm/catalogs/{catalog_id}',
      pathParameters: { catalog_id: 'abc' },
    });
    expect(match('GET', '/pcm/catalogs/rules/r1')?.pathParameters).toEqual({ catalog_rule_id: 'r1' });
    expect(match('GET', '/pcm/catalogs/abc/releases')?.target).toBe('releases');
    expect(match('POST', '/pcm/catalogs/rules')).toBeUndefined();
  });
});
