import { handler as createCurrency } from '../../functions/create-currency/handler';
import { handler as deleteCurrency } from '../../functions/delete-currency/handler';
import { handler as getCurrency } from '../../functions/get-currency/handler';
import { handler as listCurrencies } from '../../functions/list-currencies/handler';
import { handler as updateCurrency } from '../../functions/update-currency/handler';
import { getDocumentClient } from '../../lib/store/client';
import {
  currencyKeys,
  currencyRepository,
  MAX_CURRENCIES_PER_STORE,
} from '../../lib/store/currency-repository';
import { GetCommand } from '../../lib/store/dynamodb';
import { tableName } from '../../lib/store/schema';
import { expectErrorBody } from '../support/error-body';
import { type ConflictEmulator, emulateConflicts } from '../support/faults';
import {
  bearer,
  createTestStore,
  type InvokeResult,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  tokenFor,
} from '../support/fixtures';
import { currencyFields } from '../support/pcm-fixtures';

/**
 * The currencies API (docs/currencies.md) on DynamoDB Local: the platform's legacy flat format, at most 10
 * currencies a store, codes unique without regard to case, exactly one default (the first, until another is
 * made the default), which is enabled and never deleted; every rule under concurrent requests too.
 */

const ORIGIN = 'https://api.example.test';
const HEADERS = {
  host: 'api.example.test',
  'x-forwarded-proto': 'https',
  'content-type': 'application/json',
};

interface Client {
  storeId: string;
  create: (fields: Record<string, unknown>) => Promise<InvokeResult>;
  list: (query?: string) => Promise<InvokeResult>;
  get: (id: string) => Promise<InvokeResult>;
  update: (id: string, data: Record<string, unknown>) => Promise<InvokeResult>;
  remove: (id: string) => Promise<InvokeResult>;
  raw: (body: string) => Promise<InvokeResult>;
}

async function newClient(): Promise<Client> {
  const store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  const token = await tokenFor(store);
  const headers = bearer(token, HEADERS);
  const byId = (id: string) => ({
    path: `/v2/currencies/${id}`,
    pathParameters: { currency_id: id },
    headers,
  });
  return {
    storeId: store.store.id,
    create: (fields) =>
      invoke(createCurrency, {
        method: 'POST',
        path: '/v2/currencies',
        headers,
        body: JSON.stringify({ data: { type: 'currency', ...fields } }),
      }),
    raw: (body) => invoke(createCurrency, { method: 'POST', path: '/v2/currencies', headers, body }),
    list: (query = '') => invoke(listCurrencies, { method: 'GET', path: `/v2/currencies${query}`, headers }),
    get: (id) => invoke(getCurrency, { method: 'GET', ...byId(id) }),
    update: (id, data) =>
      invoke(updateCurrency, { method: 'PUT', ...byId(id), body: JSON.stringify({ data }) }),
    remove: (id) => invoke(deleteCurrency, { method: 'DELETE', ...byId(id) }),
  };
}

/** Every field of a currency of `code`. */
const fields = (code: string, extra: Record<string, unknown> = {}) => ({ ...currencyFields(code), ...extra });

const expectError = expectErrorBody;

/** The codes of the store's currencies, oldest first, and which one is the default. */
async function stored(storeId: string) {
  const currencies = await currencyRepository.list(storeId);
  return {
    codes: currencies.map((currency) => currency.code),
    defaults: currencies.filter((currency) => currency.default).map((currency) => currency.code),
  };
}

describe('currencies', () => {
  let c: Client;
  beforeEach(async () => {
    c = await newClient();
  });

  it('creates a currency in the flat format, the first being the default, and reads it back', async () => {
    const res = await c.create(fields('GBP', { format: '£{price}', exchange_rate: 0.79 }));
    expect(res.status).toBe(201);
    const { id, meta } = res.body.data;
    expect(res.headers.Location).toBe(`${ORIGIN}/v2/currencies/${id}`);
    expect(res.body.data).toEqual({
      id,
      type: 'currency',
      code: 'GBP',
      exchange_rate: 0.79,
      format: '£{price}',
      decimal_point: '.',
      thousand_separator: ',',
      decimal_places: 2,
      default: true,
      enabled: true,
      links: { self: `${ORIGIN}/v2/currencies/${id}` },
      meta: {
        owner: 'store',
        timestamps: { created_at: meta.timestamps.created_at, updated_at: meta.timestamps.created_at },
      },
    });
    expect((await c.get(id)).body).toEqual({ data: res.body.data });
    const list = await c.list();
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([res.body.data]);
    expect(list.body.meta).toEqual({
      page: { limit: 25, offset: 0, current: 1, total: 1 },
      results: { total: 1 },
    });
  });

  it('lists oldest first, in pages with links', async () => {
    for (const code of ['USD', 'EUR', 'JPY']) expect((await c.create(fields(code))).status).toBe(201);
    const page = await c.list('?page[limit]=2&page[offset]=1');
    expect(page.body.data.map((currency: { code: string }) => currency.code)).toEqual(['EUR', 'JPY']);
    expect(page.body.meta.results.total).toBe(3);
    expect(page.body.links.first).toBe(`${ORIGIN}/v2/currencies?page[offset]=0&page[limit]=2`);
    expect(page.body.links.prev).toBe(`${ORIGIN}/v2/currencies?page[offset]=0&page[limit]=2`);
    expect(page.body.links.next).toBeNull();
    expectError(await c.list('?page[limit]=0'), 400, /page\[limit\]/, 'page[limit]');
  });

  it('keeps codes unique without regard to case: 400 "Currency already exists"', async () => {
    expect((await c.create(fields('usd'))).status).toBe(201);
    const again = await c.create(fields('USD'));
    expectError(again, 400, /^Currency already exists/, 'data.code');
    expect(await stored(c.storeId)).toEqual({ codes: ['usd'], defaults: ['usd'] });
  });

  it('makes a later currency the default with default: true, unsetting the previous one', async () => {
    const usd = await c.create(fields('USD'));
    const eur = await c.create(fields('EUR', { default: true }));
    expect(eur.body.data.default).toBe(true);
    expect((await c.get(usd.body.data.id)).body.data.default).toBe(false);
    const gbp = await c.create(fields('GBP'));
    expect(gbp.body.data.default).toBe(false);
    const made = await c.update(gbp.body.data.id, { default: true });
    expect(made.status).toBe(200);
    expect(made.body.data.default).toBe(true);
    expect(await stored(c.storeId)).toEqual({ codes: ['USD', 'EUR', 'GBP'], defaults: ['GBP'] });
  });

  it('keeps the default enabled and set: 422 for each way of losing it, nothing changed', async () => {
    // The first currency is the default, so it cannot be disabled.
    expectError(
      await c.create(fields('USD', { enabled: false })),
      422,
      "the store's first currency is its default, and the default currency must be enabled",
      'data.enabled',
    );
    expectError(
      await c.create(fields('USD', { enabled: false, default: true })),
      422,
      'the default currency must be enabled',
      'data.enabled',
    );
    const usd = (await c.create(fields('USD'))).body.data;
    const eur = (await c.create(fields('EUR', { enabled: false }))).body.data;
    expect(eur).toMatchObject({ enabled: false, default: false });
    expectError(
      await c.update(usd.id, { enabled: false }),
      422,
      'the default currency must be enabled',
      'data.enabled',
    );
    expectError(
      await c.update(usd.id, { default: false }),
      422,
      /^a store has exactly one default/,
      'data.default',
    );
    expectError(
      await c.update(eur.id, { default: true }),
      422,
      'the default currency must be enabled',
      'data.enabled',
    );
    expectError(
      await c.remove(usd.id),
      422,
      'the default currency cannot be deleted: make another currency the default first',
      'currency_id',
    );
    // Enabled and made the default in one request: allowed, and USD may then go.
    expect((await c.update(eur.id, { enabled: true, default: true })).body.data).toMatchObject({
      enabled: true,
      default: true,
    });
    expect((await c.update(usd.id, { default: false })).status).toBe(200);
    expect((await c.remove(usd.id)).status).toBe(204);
    expect(await stored(c.storeId)).toEqual({ codes: ['EUR'], defaults: ['EUR'] });
  });

  it('holds at most 10 currencies: 422 "Currency limit reached", room again after a delete', async () => {
    const codes = ['AAA', 'BBB', 'CCC', 'DDD', 'EEE', 'FFF', 'GGG', 'HHH', 'III', 'JJJ'];
    const ids: string[] = [];
    for (const code of codes) ids.push((await c.create(fields(code))).body.data.id);
    expect(codes).toHaveLength(MAX_CURRENCIES_PER_STORE);
    expectError(await c.create(fields('KKK')), 422, /^Currency limit reached/);
    expect((await c.remove(ids[9] as string)).status).toBe(204);
    expect((await c.create(fields('KKK'))).status).toBe(201);
    const state = await getDocumentClient().send(
      new GetCommand({
        TableName: tableName('products'),
        Key: currencyKeys.state(c.storeId),
        ConsistentRead: true,
      }),
    );
    expect(state.Item?.currency_count).toBe(10);
  });

  it('updates only the fields sent, moves the code claim, and frees a deleted code', async () => {
    const usd = (await c.create(fields('USD'))).body.data;
    const eur = (await c.create(fields('EUR'))).body.data;
    const unchanged = await c.update(eur.id, {});
    expect(unchanged.body.data).toEqual(eur);
    const changed = await c.update(eur.id, {
      type: 'currency',
      id: eur.id.toUpperCase(),
      code: 'chf',
      decimal_places: 0,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      code: 'chf',
      decimal_places: 0,
      format: 'EUR {price}',
      default: false,
    });
    expect(Date.parse(changed.body.data.meta.timestamps.updated_at)).toBeGreaterThanOrEqual(
      Date.parse(eur.meta.timestamps.updated_at),
    );
    // EUR is free again, CHF is taken, and a case-only change keeps the claim.
    expect((await c.create(fields('EUR'))).status).toBe(201);
    expectError(await c.update(usd.id, { code: 'CHF' }), 400, /^Currency already exists/, 'data.code');
    expect((await c.update(eur.id, { code: 'CHF' })).body.data.code).toBe('CHF');
    expect((await c.remove(eur.id)).status).toBe(204);
    expect((await c.create(fields('chf'))).status).toBe(201);
    expectError(await c.get(eur.id), 404, 'currency not found');
    expectError(await c.remove(eur.id), 404, 'currency not found');
    expectError(await c.update(eur.id, { code: 'XXX' }), 404, 'currency not found');
    expectError(await c.update(usd.id, { id: eur.id }), 409, 'data.id must be the id of the path', 'data.id');
    expectError(await c.get('not-a-uuid'), 404, 'currency not found');
  });

  it.each([
    ['code of 2 letters', { code: 'US' }, 'data.code'],
    ['code with a digit', { code: 'US1' }, 'data.code'],
    ['negative exchange_rate', { exchange_rate: -1 }, 'data.exchange_rate'],
    ['exchange_rate over the bound', { exchange_rate: 1e10 }, 'data.exchange_rate'],
    ['exchange_rate below what DynamoDB stores', { exchange_rate: 5e-324 }, 'data.exchange_rate'],
    ['exchange_rate as a string', { exchange_rate: '1' }, 'data.exchange_rate'],
    ['format without {price}', { format: '$' }, 'data.format'],
    ['format over 64 characters', { format: `{price}${'x'.repeat(58)}` }, 'data.format'],
    ['decimal_point over 8 characters', { decimal_point: '.........' }, 'data.decimal_point'],
    ['a lone surrogate', { thousand_separator: '\ud800' }, 'data.thousand_separator'],
    ['decimal_places over 8', { decimal_places: 9 }, 'data.decimal_places'],
    ['fractional decimal_places', { decimal_places: 1.5 }, 'data.decimal_places'],
    ['default not a boolean', { default: 'true' }, 'data.default'],
    ['an unknown field', { name: 'US dollar' }, 'data.name'],
    ['another type', { type: 'currencies' }, 'data.type'],
  ])('refuses %s with 422 naming the field, creating nothing', async (_what, extra, source) => {
    expectError(
      await c.create(fields('USD', extra)),
      422,
      new RegExp(`^${source.replace('.', '\\.')} `),
      source,
    );
    expect((await c.list()).body.data).toEqual([]);
  });

  it('refuses a missing field with 422, and a body that is not {"data": {…}} with 400', async () => {
    const { enabled: _enabled, ...withoutEnabled } = fields('USD');
    expectError(await c.create(withoutEnabled), 422, 'data.enabled is required', 'data.enabled');
    expectError(await c.raw('{"currency":{}}'), 400, 'data is required', 'data');
    expectError(await c.raw('[]'), 400, /^body /, 'body');
    expectError(await c.raw('{'), 400, /JSON/, 'body');
    const usd = (await c.create(fields('USD'))).body.data;
    expectError(await c.update(usd.id, { decimal_places: -1 }), 422, /decimal_places/, 'data.decimal_places');
    expect((await c.get(usd.id)).body.data).toEqual(usd);
  });
});

describe('currencies under concurrent requests', () => {
  // DynamoDB's transaction conflicts, which DynamoDB Local never shows: every creation and deletion moves
  // the store's one state item, so concurrent ones conflict and are retried.
  let conflicts: ConflictEmulator;
  beforeAll(() => {
    conflicts = emulateConflicts(getDocumentClient());
  });
  afterAll(() => conflicts.remove());

  it('ten creates of one code (in any case): exactly one 201, nine "Currency already exists"', async () => {
    const c = await newClient();
    const results = await Promise.all(
      ['EUR', 'eur', 'Eur', 'EUR', 'eUr', 'euR', 'EUR', 'eur', 'EUr', 'EUR'].map((code) =>
        c.create(fields(code)),
      ),
    );
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([201, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    for (const res of results.filter((r) => r.status === 400))
      expect(res.body.errors[0].detail).toMatch(/^Currency already exists/);
    const { codes, defaults } = await stored(c.storeId);
    expect(codes).toHaveLength(1);
    expect(defaults).toEqual(codes);
  });

  it('fifteen creates of different codes: exactly 10 succeed, the rest "Currency limit reached", one default', async () => {
    const c = await newClient();
    const codes = Array.from({ length: 15 }, (_, n) => `C${String.fromCharCode(65 + n)}X`);
    const results = await Promise.all(codes.map((code) => c.create(fields(code))));
    const created = results.filter((res) => res.status === 201);
    expect(created).toHaveLength(MAX_CURRENCIES_PER_STORE);
    for (const res of results.filter((r) => r.status !== 201)) {
      expectError(res, 422, /^Currency limit reached/);
    }
    const after = await stored(c.storeId);
    expect(after.codes).toHaveLength(MAX_CURRENCIES_PER_STORE);
    expect(after.defaults).toHaveLength(1);
    expect(conflicts.conflicts.transactions).toBeGreaterThan(0);
  });

  it('racing "make me the default" updates and deletes leave exactly one default, never deleted', async () => {
    const c = await newClient();
    const ids: string[] = [];
    for (const code of ['AAA', 'BBB', 'CCC', 'DDD', 'EEE'])
      ids.push((await c.create(fields(code))).body.data.id);
    const results = await Promise.all([
      ...ids.map((id) => c.update(id, { default: true })),
      ...ids.map((id) => c.remove(id)),
    ]);
    const updates = results.slice(0, ids.length);
    const deletes = results.slice(ids.length);
    for (const res of [...updates, ...deletes]) expect([200, 204, 404, 422]).toContain(res.status);
    const left = await currencyRepository.list(c.storeId);
    expect(left.filter((currency) => currency.default)).toHaveLength(1);
    // Every currency a delete answered 204 for is gone; the others are there.
    const deleted = ids.filter((_, n) => deletes[n]?.status === 204);
    expect(left.map((currency) => currency.id).sort()).toEqual(
      ids.filter((id) => !deleted.includes(id)).sort(),
    );
  });

  it('a currency disabled while another request makes it the default ends enabled-and-default or disabled-and-not', async () => {
    const c = await newClient();
    await c.create(fields('AAA'));
    const b = (await c.create(fields('BBB'))).body.data.id as string;
    const [made, disabled] = await Promise.all([
      c.update(b, { default: true }),
      c.update(b, { enabled: false }),
    ]);
    const after = (await c.get(b)).body.data;
    expect(after.enabled || !after.default).toBe(true);
    expect(after.default).toBe(made.status === 200);
    expect(after.enabled).toBe(disabled.status !== 200);
  });
});
