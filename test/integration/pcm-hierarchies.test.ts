import { handler as createHierarchy } from '../../functions/pcm-create-hierarchy/handler';
import { handler as deleteHierarchy } from '../../functions/pcm-delete-hierarchy/handler';
import { handler as getHierarchy } from '../../functions/pcm-get-hierarchy/handler';
import { handler as listHierarchies } from '../../functions/pcm-list-hierarchies/handler';
import { handler as updateHierarchy } from '../../functions/pcm-update-hierarchy/handler';
import { hierarchyRepository } from '../../lib/store/hierarchy-repository';
import { HIERARCHY_MAX_BYTES } from '../../lib/validation/hierarchy';
import {
  bearer,
  createTestStore,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';

/** `/pcm/hierarchies` through the handlers on DynamoDB Local. */

const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
const DATE = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/);

let store: TestStore;
let token: string;

beforeAll(async () => {
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
});

type AnyHandler = Parameters<typeof invoke>[0];
const call = (
  handler: AnyHandler,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  as = token,
) => {
  const hierarchyId = (path.split('?')[0] ?? '').split('/')[3];
  return invoke(handler, {
    method,
    path,
    pathParameters: hierarchyId === undefined ? {} : { hierarchy_id: hierarchyId },
    headers: bearer(as, {
      ...HEADERS,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
};

const hierarchyBody = (attributes: Record<string, unknown>, id?: string) => ({
  data: { type: 'hierarchy', ...(id === undefined ? {} : { id }), attributes },
});
const create = (attributes: Record<string, unknown>, as = token) =>
  call(createHierarchy, 'POST', '/pcm/hierarchies', hierarchyBody(attributes), as);
const update = (id: string, attributes: Record<string, unknown>) =>
  call(updateHierarchy, 'PUT', `/pcm/hierarchies/${id}`, hierarchyBody(attributes, id));
const newHierarchy = async (attributes: Record<string, unknown>) => {
  const response = await create(attributes);
  expect([response.status, response.body.errors]).toEqual([201, undefined]);
  return response.body.data.id as string;
};
const unique = (text: string) => `${text}-${Math.random().toString(36).slice(2, 10)}`;

describe('hierarchies', () => {
  it('POST creates a hierarchy: 201 in the platform shape, description empty when not sent', async () => {
    const slug = unique('apparel');
    const response = await create({
      name: 'Apparel',
      slug,
      locales: { 'fr-FR': { name: 'Vêtements', description: 'Tout' } },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      data: {
        id: UUID,
        type: 'hierarchy',
        attributes: {
          name: 'Apparel',
          description: '',
          slug,
          locales: { 'fr-FR': { name: 'Vêtements', description: 'Tout' } },
        },
        relationships: {
          children: { links: { related: `/hierarchies/${response.body.data.id}/children` } },
        },
        meta: { created_at: DATE, updated_at: DATE, owner: 'store' },
      },
    });
    const read = await call(getHierarchy, 'GET', `/pcm/hierarchies/${response.body.data.id}`);
    expect(read.body).toEqual(response.body);
  });

  it('POST without a slug or locales leaves them out', async () => {
    const response = await create({ name: 'Plain', description: 'No slug' });
    expect(response.status).toBe(201);
    expect(response.body.data.attributes).toEqual({ name: 'Plain', description: 'No slug' });
  });

  it.each([
    ['no name', { description: 'x' }, 'data.attributes.name'],
    ['an empty name', { name: '' }, 'data.attributes.name'],
    ['a name of spaces', { name: '   ' }, 'data.attributes.name'],
    ['a name too long', { name: 'n'.repeat(1001) }, 'data.attributes.name'],
    ['a slug with a space', { name: 'A', slug: 'a b' }, 'data.attributes.slug'],
    ['an unknown attribute', { name: 'A', colour: 'red' }, 'data.attributes.colour'],
    ['a locale without a name', { name: 'A', locales: { fr: {} } }, 'data.attributes.locales.fr.name'],
  ])('POST with %s is 400 naming the field', async (_what, attributes, source) => {
    const response = await create(attributes);
    expect(response.status).toBe(400);
    expect(response.body.errors[0].source).toBe(source);
  });

  it('POST with another type, or no data, is 400', async () => {
    const wrongType = await call(createHierarchy, 'POST', '/pcm/hierarchies', {
      data: { type: 'node', attributes: { name: 'A' } },
    });
    expect([wrongType.status, wrongType.body.errors[0].source]).toEqual([400, 'data.type']);
    const noData = await call(createHierarchy, 'POST', '/pcm/hierarchies', { name: 'A' });
    expect(noData.status).toBe(400);
  });

  it('POST with a locale key that is no locale, or over the size bound, is 422', async () => {
    const badLocale = await create({ name: 'A', locales: { 'not a locale': { name: 'x' } } });
    expect([badLocale.status, badLocale.body.errors[0].detail]).toEqual([
      422,
      'data.attributes.locales.not a locale: the key must be a locale such as en-US',
    ]);
    const locales = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [
        `l${String.fromCharCode(97 + i)}`,
        { name: 'x', description: 'd'.repeat(4000) },
      ]),
    );
    const tooBig = await create({ name: 'A', locales });
    expect([tooBig.status, tooBig.body.errors[0].detail]).toEqual([
      422,
      `data.attributes: a hierarchy may take at most ${HIERARCHY_MAX_BYTES} bytes of JSON`,
    ]);
  });

  it('slugs are unique per store without regard to case; another store may use the same', async () => {
    const slug = unique('Shoes');
    await newHierarchy({ name: 'Shoes', slug });
    const again = await create({ name: 'Other', slug: slug.toUpperCase() });
    expect([again.status, again.body.errors[0].source]).toEqual([409, 'data.attributes.slug']);
    const other = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    const elsewhere = await create({ name: 'Shoes', slug }, await tokenFor(other));
    expect(elsewhere.status).toBe(201);
  });

  it('ten racing creates of one slug: exactly one 201, nine 409, one claim', async () => {
    const slug = unique('race');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create({ name: `Racer ${i}`, slug })),
    );
    const statuses = results.map((result) => result.status).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(409)]);
    const winner = results.find((result) => result.status === 201)?.body.data.id;
    expect(await hierarchyRepository.idOfSlug(store.store.id, slug)).toBe(winner);
  });

  it('GET of an unknown, malformed or other store’s id is 404', async () => {
    const other = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    const theirs = await create({ name: 'Theirs' }, await tokenFor(other));
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', theirs.body.data.id]) {
      const response = await call(getHierarchy, 'GET', `/pcm/hierarchies/${id}`);
      expect([response.status, response.body.errors[0].detail]).toEqual([404, 'hierarchy not found']);
    }
  });

  it('GET lists the store’s hierarchies oldest first, paged with totals and links', async () => {
    const own = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    const ownToken = await tokenFor(own);
    const ids: string[] = [];
    for (const name of ['One', 'Two', 'Three']) ids.push((await create({ name }, ownToken)).body.data.id);
    const first = await call(listHierarchies, 'GET', '/pcm/hierarchies?page[limit]=2', undefined, ownToken);
    expect(first.status).toBe(200);
    expect(first.body.data.map((h: { id: string }) => h.id)).toEqual(ids.slice(0, 2));
    expect(first.body.meta).toEqual({
      page: { limit: 2, offset: 0, current: 1, total: 2 },
      results: { total: 3 },
    });
    expect(first.body.links.next).toBe(
      'https://api.example.test/pcm/hierarchies?page[offset]=2&page[limit]=2',
    );
    const second = await call(
      listHierarchies,
      'GET',
      '/pcm/hierarchies?page[limit]=2&page[offset]=2',
      undefined,
      ownToken,
    );
    expect(second.body.data.map((h: { id: string }) => h.id)).toEqual(ids.slice(2));
    expect(second.body.links.next).toBeNull();
    const bad = await call(listHierarchies, 'GET', '/pcm/hierarchies?page[limit]=101', undefined, ownToken);
    expect([bad.status, bad.body.errors[0].source]).toEqual([400, 'page[limit]']);
  });

  it('PUT changes only the attributes sent', async () => {
    const slug = unique('kept');
    const id = await newHierarchy({ name: 'Before', description: 'Kept', slug });
    const response = await update(id, { name: 'After' });
    expect(response.status).toBe(200);
    expect(response.body.data.attributes).toEqual({ name: 'After', description: 'Kept', slug });
    expect(response.body.data.meta.updated_at >= response.body.data.meta.created_at).toBe(true);
    expect((await call(getHierarchy, 'GET', `/pcm/hierarchies/${id}`)).body).toEqual(response.body);
  });

  it('PUT needs data.id, the id of the path (400 without, 409 another)', async () => {
    const id = await newHierarchy({ name: 'Id check' });
    const without = await call(
      updateHierarchy,
      'PUT',
      `/pcm/hierarchies/${id}`,
      hierarchyBody({ name: 'x' }),
    );
    expect([without.status, without.body.errors[0].source]).toEqual([400, 'data.id']);
    const other = await call(
      updateHierarchy,
      'PUT',
      `/pcm/hierarchies/${id}`,
      hierarchyBody({ name: 'x' }, '00000000-0000-4000-8000-000000000000'),
    );
    expect([other.status, other.body.errors[0].source]).toEqual([409, 'data.id']);
    const missing = await update('00000000-0000-4000-8000-000000000000', { name: 'x' });
    expect(missing.status).toBe(404);
  });

  it('PUT moves the slug claim: the old slug is free, a taken one is 409, a change of case keeps it', async () => {
    const [oldSlug, newSlug, taken] = [unique('old'), unique('new'), unique('taken')];
    const id = await newHierarchy({ name: 'Mover', slug: oldSlug });
    await newHierarchy({ name: 'Holder', slug: taken });
    const clash = await update(id, { slug: taken.toUpperCase() });
    expect([clash.status, clash.body.errors[0].source]).toEqual([409, 'data.attributes.slug']);
    expect((await update(id, { slug: newSlug })).status).toBe(200);
    expect(await hierarchyRepository.idOfSlug(store.store.id, oldSlug)).toBeUndefined();
    await newHierarchy({ name: 'Taker', slug: oldSlug });
    const recased = await update(id, { slug: newSlug.toUpperCase() });
    expect([recased.status, recased.body.data.attributes.slug]).toEqual([200, newSlug.toUpperCase()]);
    expect(await hierarchyRepository.idOfSlug(store.store.id, newSlug)).toBe(id);
  });

  it('PUT that would exceed the size bound is 422 and changes nothing', async () => {
    const big = { name: 'x', description: 'd'.repeat(9000) };
    const id = await newHierarchy({ name: 'Growing', description: 'd'.repeat(9000) });
    const locales = Object.fromEntries(['fr', 'de', 'es'].map((key) => [key, big]));
    const response = await update(id, { locales });
    expect(response.status).toBe(422);
    expect((await hierarchyRepository.get(store.store.id, id))?.locales).toBeUndefined();
  });

  it('racing PUTs of different attributes all survive', async () => {
    const id = await newHierarchy({ name: 'Racy' });
    const results = await Promise.all([
      update(id, { name: 'Renamed' }),
      update(id, { description: 'Described' }),
      update(id, { slug: unique('racy') }),
      update(id, { locales: { fr: { name: 'Rapide' } } }),
    ]);
    expect(results.map((result) => result.status)).toEqual([200, 200, 200, 200]);
    const stored = await hierarchyRepository.get(store.store.id, id);
    expect(stored).toMatchObject({
      name: 'Renamed',
      description: 'Described',
      locales: { fr: { name: 'Rapide' } },
    });
    expect(stored?.slug).toEqual(expect.stringMatching(/^racy-/));
  });

  it('DELETE is 204, frees the slug, and the hierarchy is gone (404 after)', async () => {
    const slug = unique('gone');
    const id = await newHierarchy({ name: 'Doomed', slug });
    const response = await call(deleteHierarchy, 'DELETE', `/pcm/hierarchies/${id}`);
    expect([response.status, response.raw]).toEqual([204, '']);
    expect((await call(getHierarchy, 'GET', `/pcm/hierarchies/${id}`)).status).toBe(404);
    expect((await call(deleteHierarchy, 'DELETE', `/pcm/hierarchies/${id}`)).status).toBe(404);
    expect(await hierarchyRepository.idOfSlug(store.store.id, slug)).toBeUndefined();
  });

  it('a DELETE racing slug changes leaves no claim behind', async () => {
    for (let round = 0; round < 3; round += 1) {
      const slugs = [unique('a'), unique('b'), unique('c')];
      const id = await newHierarchy({ name: 'Contested', slug: slugs[0] });
      const [removed] = await Promise.all([
        call(deleteHierarchy, 'DELETE', `/pcm/hierarchies/${id}`),
        update(id, { slug: slugs[1] }),
        update(id, { slug: slugs[2] }),
      ]);
      expect(removed.status).toBe(204);
      for (const slug of slugs)
        expect(await hierarchyRepository.idOfSlug(store.store.id, slug)).toBeUndefined();
    }
  });

  it('an implicit (storefront) token is 403', async () => {
    const implicit = await tokenFor(store, 'implicit');
    expect((await create({ name: 'Nope' }, implicit)).status).toBe(403);
  });
});
