import { handler as getCatalog } from '../../functions/get-catalog/handler';
import { handler as createRule } from '../../functions/pcm-create-catalog-rule/handler';
import { handler as deleteCatalog } from '../../functions/pcm-delete-catalog/handler';
import { handler as deleteRule } from '../../functions/pcm-delete-catalog-rule/handler';
import { handler as getRule } from '../../functions/pcm-get-catalog-rule/handler';
import { handler as listRules } from '../../functions/pcm-list-catalog-rules/handler';
import { handler as updateRule } from '../../functions/pcm-update-catalog-rule/handler';
import { clearCatalogCaches } from '../../lib/catalog/cache';
import { MAX_RULES_PER_STORE } from '../../lib/catalog/registry-size';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { adminOfNewStore, childrenRelease, readRegistryEveryRequest } from '../support/catalog-fixtures';
import { expectErrorBody } from '../support/error-body';
import type { InvokeResult } from '../support/fixtures';
import { invoke } from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';
import { newPcmCatalog } from '../support/pcm-fixtures';

/**
 * The catalog rules API (docs/catalog-rules.md) on DynamoDB Local: CRUD, bad input refused with nothing
 * written, rules taking effect for shoppers without a republish, and a catalog a rule names kept from
 * deletion.
 */

// Readers here must see a switch or rule write at once: no registry caching in this file.
readRegistryEveryRequest();

const PUBLISH_TIMEOUT_MS = 60_000;

async function newClient() {
  const { storeId, headers } = await adminOfNewStore();
  const byId = (id: string) => ({
    path: `/pcm/catalogs/rules/${id}`,
    pathParameters: { catalog_rule_id: id },
    headers,
  });
  return {
    storeId,
    create: (attributes: unknown) =>
      invoke(createRule, {
        method: 'POST',
        path: '/pcm/catalogs/rules',
        headers,
        body: JSON.stringify({ data: { type: 'catalog_rule', attributes } }),
      }),
    list: (query = '') => invoke(listRules, { method: 'GET', path: `/pcm/catalogs/rules${query}`, headers }),
    get: (id: string) => invoke(getRule, { method: 'GET', ...byId(id) }),
    update: (id: string, data: unknown) =>
      invoke(updateRule, { method: 'PUT', ...byId(id), body: JSON.stringify({ data }) }),
    remove: (id: string) => invoke(deleteRule, { method: 'DELETE', ...byId(id) }),
    deleteCatalog: (id: string) =>
      invoke(deleteCatalog, {
        method: 'DELETE',
        path: `/pcm/catalogs/${id}`,
        pathParameters: { catalog_id: id },
        headers,
      }),
    /** The id of the release `GET /catalog` gives a shopper with these headers (undefined: 404). */
    shopperCatalog: async (shopper: Record<string, string> = { 'ep-channel': 'kiosk' }) => {
      clearCatalogCaches();
      const result = await invoke(getCatalog, {
        method: 'GET',
        path: '/catalog',
        headers: { ...headers, ...shopper },
      });
      if (result.status === 404) return undefined;
      if (result.status !== 200) throw new Error(result.raw);
      return result.body.data.attributes.catalog_id as string;
    },
  };
}

/** One error of `status`, naming `source` when given (any detail). */
const expectRefused = (res: InvokeResult, status: number, source?: string) =>
  expectErrorBody(res, status, /./, source);

describe('catalog rules', () => {
  let c: Awaited<ReturnType<typeof newClient>>;
  let catalogId: string;
  beforeEach(async () => {
    c = await newClient();
    catalogId = await newPcmCatalog(c.storeId, 'Main');
  });

  it('creates a rule, reads it back, lists and filters it, updates only what is sent and deletes it', async () => {
    const created = await c.create({
      name: 'summer-web',
      description: 'Summer',
      catalog_id: catalogId,
      account_ids: ['acc-1'],
      channels: ['web'],
      tags: ['summer'],
      schedules: [{ valid_from: '2026-06-01T00:00:00+02:00', valid_to: null }, {}],
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(created.headers.Location).toBe(`https://api.example.test/pcm/catalogs/rules/${id}`);
    expect(created.body.data).toEqual({
      id,
      type: 'catalog_rule',
      attributes: {
        name: 'summer-web',
        description: 'Summer',
        catalog_id: catalogId,
        account_ids: ['acc-1'],
        customer_ids: [],
        channels: ['web'],
        tags: ['summer'],
        schedules: [
          { valid_from: '2026-05-31T22:00:00.000Z', valid_to: null },
          { valid_from: null, valid_to: null },
        ],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
      links: { self: `https://api.example.test/pcm/catalogs/rules/${id}` },
      meta: { owner: 'store' },
    });
    expect((await c.get(id)).body.data).toEqual(created.body.data);

    const second = (await c.create({ name: 'other', catalog_id: catalogId })).body.data.id;
    const all = await c.list();
    expect(all.body.data.map((rule: { id: string }) => rule.id)).toEqual([id, second]);
    expect(all.body.meta.results.total).toBe(2);
    const paged = await c.list('?page[limit]=1&page[offset]=1');
    expect(paged.body.data.map((rule: { id: string }) => rule.id)).toEqual([second]);
    const filtered = await c.list(`?filter=in(id,${second},00000000-0000-4000-8000-000000000000)`);
    expect(filtered.body.data.map((rule: { id: string }) => rule.id)).toEqual([second]);
    expect((await c.list('?filter=eq(name,x)')).status).toBe(400);

    const updated = await c.update(id, { id, type: 'catalog_rule', attributes: { tags: [] } });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({ name: 'summer-web', channels: ['web'], tags: [] });
    expectRefused(await c.update(id, { type: 'catalog_rule', attributes: {} }), 422, 'data.id');
    expectRefused(await c.update(id, { id: second, type: 'catalog_rule', attributes: {} }), 409, 'data.id');

    expect((await c.remove(id)).status).toBe(204);
    expect((await c.get(id)).status).toBe(404);
    expect((await c.remove(id)).status).toBe(404);
    expect((await c.list()).body.data.map((rule: { id: string }) => rule.id)).toEqual([second]);
  });

  it('refuses bad input with 422 naming the field, and writes nothing', async () => {
    const version = async () => (await catalogRepository.getRegistry(c.storeId))?.version;
    const before = await version();
    const cases: [unknown, string][] = [
      [{ name: 'has space', catalog_id: catalogId }, 'data.attributes.name'],
      [{ catalog_id: catalogId }, 'data.attributes.name'],
      [{ name: 'x' }, 'data.attributes.catalog_id'],
      [{ name: 'x', catalog_id: '00000000-0000-4000-8000-000000000000' }, 'data.attributes.catalog_id'],
      [{ name: 'x', catalog_id: catalogId, channels: Array(11).fill('c') }, 'data.attributes.channels'],
      [{ name: 'x', catalog_id: catalogId, tags: ['é'] }, 'data.attributes.tags[0]'],
      [{ name: 'x', catalog_id: catalogId, unknown: 1 }, 'data.attributes.unknown'],
      [
        { name: 'x', catalog_id: catalogId, schedules: [{ valid_from: '2026-01-01' }] },
        'data.attributes.schedules[0].valid_from',
      ],
      [
        { name: 'x', catalog_id: catalogId, schedules: [{ valid_from: '2026-02-30T00:00:00Z' }] },
        'data.attributes.schedules[0].valid_from',
      ],
      [
        {
          name: 'x',
          catalog_id: catalogId,
          schedules: [{ valid_from: '2026-02-01T00:00:00Z', valid_to: '2026-01-01T00:00:00Z' }],
        },
        'data.attributes.schedules[0].valid_to',
      ],
    ];
    for (const [attributes, source] of cases) expectRefused(await c.create(attributes), 422, source);
    expect(await version()).toBe(before);
    expect((await c.list()).body.data).toEqual([]);
  });

  it(`holds at most ${MAX_RULES_PER_STORE} rules a store`, async () => {
    for (let i = 0; i < MAX_RULES_PER_STORE; i += 1) {
      expect((await c.create({ name: `r${i}`, catalog_id: catalogId })).status).toBe(201);
    }
    expectRefused(await c.create({ name: 'one-more', catalog_id: catalogId }), 409);
    expect((await c.list('?page[limit]=100')).body.data).toHaveLength(MAX_RULES_PER_STORE);
  }, 60_000);

  it('keeps a catalog a rule names from deletion until the rule is changed', async () => {
    const other = await newPcmCatalog(c.storeId, 'Other');
    const rule = (await c.create({ name: 'to-main', catalog_id: catalogId })).body.data.id;
    const refused = await c.deleteCatalog(catalogId);
    expectRefused(refused, 409);
    expect(refused.body.errors[0].detail).toContain(rule);
    await c.update(rule, { id: rule, type: 'catalog_rule', attributes: { catalog_id: other } });
    expect((await c.deleteCatalog(catalogId)).status).toBe(204);
    // A rule cannot name the deleted catalog now.
    expectRefused(
      await c.update(rule, { id: rule, type: 'catalog_rule', attributes: { catalog_id: catalogId } }),
      422,
      'data.attributes.catalog_id',
    );
  });

  it(
    'selects catalogs for shoppers by the API rules at once, with the rules of release documents, no republish',
    async () => {
      const sale = await newPcmCatalog(c.storeId, 'Sale');
      await publishRelease(c.storeId, childrenRelease({ catalogId, catalogName: 'Main' }));
      await publishRelease(c.storeId, childrenRelease({ catalogId: sale, catalogName: 'Sale' }));
      // No rules at all: the oldest published catalog.
      expect(await c.shopperCatalog()).toBe(catalogId);

      const web = (await c.create({ name: 'web', catalog_id: sale, channels: ['web'] })).body.data.id;
      expect(await c.shopperCatalog({ 'ep-channel': 'web' })).toBe(sale);
      expect(await c.shopperCatalog({ 'svc-channel': 'WEB' })).toBe(sale);
      // Rules exist and none applies: no catalog.
      expect(await c.shopperCatalog()).toBeUndefined();

      const fallback = (await c.create({ name: 'all', catalog_id: catalogId })).body.data.id;
      expect(await c.shopperCatalog()).toBe(catalogId);
      expect(await c.shopperCatalog({ 'ep-channel': 'web' })).toBe(sale);
      // Most specific wins: channel and tag over channel alone.
      await c.create({ name: 'web-vip', catalog_id: catalogId, channels: ['web'], tags: ['vip'] });
      expect(await c.shopperCatalog({ 'ep-channel': 'web', 'ep-context-tag': 'vip' })).toBe(catalogId);
      expect(await c.shopperCatalog({ 'svc-channel': 'web', 'svc-context-tag': 'VIP' })).toBe(catalogId);
      // A schedule that ended never applies; one open now does.
      await c.update(web, {
        id: web,
        type: 'catalog_rule',
        attributes: { schedules: [{ valid_to: '2020-01-01T00:00:00Z' }] },
      });
      expect(await c.shopperCatalog({ 'ep-channel': 'web' })).toBe(catalogId);
      await c.update(web, {
        id: web,
        type: 'catalog_rule',
        attributes: { schedules: [{ valid_from: '2020-01-01T00:00:00Z' }] },
      });
      expect(await c.shopperCatalog({ 'ep-channel': 'web' })).toBe(sale);
      // A rule for accounts or customers needs a shopper login: it never applies to these routes.
      await c.update(web, { id: web, type: 'catalog_rule', attributes: { customer_ids: ['cust-1'] } });
      expect(await c.shopperCatalog({ 'ep-channel': 'web' })).toBe(catalogId);

      // A release document's rules count with the API's: a tag rule of Sale's document.
      await publishRelease(
        c.storeId,
        childrenRelease({
          catalogId: sale,
          catalogName: 'Sale',
          rules: [{ name: 'doc-tag', tags: ['doc'] }],
        }),
      );
      expect(await c.shopperCatalog({ 'ep-channel': 'kiosk', 'ep-context-tag': 'doc' })).toBe(sale);
      // The publish kept the API's rules.
      expect((await c.list()).body.data).toHaveLength(3);

      await c.remove(fallback);
      expect(await c.shopperCatalog()).toBeUndefined();
    },
    PUBLISH_TIMEOUT_MS,
  );
});
