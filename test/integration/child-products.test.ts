import { handler as buildRoute } from '../../functions/pcm-build-child-products/handler';
import { handler as createProduct } from '../../functions/pcm-create-product/handler';
import { handler as linkVariations } from '../../functions/pcm-create-product-variations/handler';
import { handler as deleteProduct } from '../../functions/pcm-delete-product/handler';
import { handler as unlinkVariations } from '../../functions/pcm-delete-product-variations/handler';
import { handler as deleteVariation } from '../../functions/pcm-delete-variation/handler';
import { handler as getChildren } from '../../functions/pcm-get-child-products/handler';
import { handler as getJobErrors } from '../../functions/pcm-get-job-errors/handler';
import { handler as getProduct } from '../../functions/pcm-get-product/handler';
import { handler as getLinks } from '../../functions/pcm-get-product-variations/handler';
import { handler as updateProduct } from '../../functions/pcm-update-product/handler';
import { handler as replaceLinks } from '../../functions/pcm-update-product-variations/handler';
import { runChildProductsBuild } from '../../lib/builds/build';
import { AMBIGUOUS_RULES } from '../../lib/builds/combinations';
import { uuidv7 } from '../../lib/ids';
import { type QueuedMessage, registerLocalJobQueue } from '../../lib/jobs/queue';
import { runJob } from '../../lib/jobs/worker';
import { childRepository, ParentChangedError } from '../../lib/store/child-repository';
import { jobRepository } from '../../lib/store/job-repository';
import { productRepository } from '../../lib/store/product-repository';
import { variationRepository } from '../../lib/store/variation-repository';
import type { ModifierAttributes } from '../../lib/validation/variation';
import {
  bearer,
  createTestStore,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';
import { recordOperationOrder } from '../support/operation-order';
import { newPcmProduct, newVariationWithOptions } from '../support/pcm-fixtures';

/**
 * Linking variations to products, building child products (lib/builds) and listing them, through the
 * handlers and the build on DynamoDB Local.
 */

const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
const DATE = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const MISSING = '0190f3b6-0000-7000-8000-000000000000';

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
) => {
  const segments = (path.split('?')[0] ?? '').split('/');
  const id = segments[3] as string;
  return invoke(handler, {
    method,
    path,
    pathParameters: segments[2] === 'variations' ? { variation_id: id } : { product_id: id },
    headers: bearer(token, {
      ...HEADERS,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
};
const links = (...ids: string[]) => ({ data: ids.map((id) => ({ type: 'product-variation', id })) });
const linksPath = (productId: string) => `/pcm/products/${productId}/relationships/variations`;

let skuCounter = 0;
/** A parent product through the API, with a sku unique to this run of the file. */
async function newParent(attributes: Record<string, unknown> = {}): Promise<{ id: string; sku: string }> {
  skuCounter += 1;
  const sku = `P${Date.now().toString(36)}${skuCounter}`;
  const response = await call(createProduct, 'POST', '/pcm/products', {
    data: { type: 'product', attributes: { name: 'Tee', sku, slug: sku.toLowerCase(), ...attributes } },
  });
  expect([response.status, response.body.errors]).toEqual([201, undefined]);
  return { id: response.body.data.id as string, sku: response.body.data.attributes.sku as string };
}
const link = async (productId: string, ...ids: string[]) => {
  const response = await call(linkVariations, 'POST', linksPath(productId), links(...ids));
  expect([response.status, response.body]).toEqual([204, undefined]);
};
const build = (productId: string) =>
  runChildProductsBuild({ storeId: store.store.id, productId, jobId: 'test' });
/** The parent's children, by their options' names joined (`RedS`). */
async function childrenByOptions(productId: string): Promise<Map<string, Record<string, any>>> {
  const response = await call(getChildren, 'GET', `/pcm/products/${productId}/children?page[limit]=100`);
  expect(response.status).toBe(200);
  const byName = new Map<string, Record<string, any>>();
  for (const child of response.body.data) {
    const names = child.meta.child_variations
      .map((v: { option: { name: string } }) => v.option.name)
      .join('');
    byName.set(names, child);
  }
  return byName;
}

describe('linking variations', () => {
  it('POST adds in order, GET lists them with created_at, PUT replaces, DELETE removes the listed', async () => {
    const parent = await newParent();
    const a = await newVariationWithOptions(store.store.id, 'A', ['a1']);
    const b = await newVariationWithOptions(store.store.id, 'B', ['b1']);
    const c = await newVariationWithOptions(store.store.id, 'C', ['c1']);
    await link(parent.id, a.variationId, b.variationId);
    await link(parent.id, b.variationId, c.variationId);
    const listed = await call(getLinks, 'GET', linksPath(parent.id));
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual(
      [a, b, c].map((v) => ({ type: 'product-variation', id: v.variationId, meta: { created_at: DATE } })),
    );
    const replaced = await call(
      replaceLinks,
      'PUT',
      linksPath(parent.id),
      links(c.variationId, a.variationId),
    );
    expect(replaced.status).toBe(204);
    const removed = await call(unlinkVariations, 'DELETE', linksPath(parent.id), links(c.variationId));
    expect(removed.status).toBe(204);
    const after = await call(getLinks, 'GET', linksPath(parent.id));
    expect(after.body.data.map((entry: { id: string }) => entry.id)).toEqual([a.variationId]);
    const product = await call(getProduct, 'GET', `/pcm/products/${parent.id}`);
    expect(product.body.data.meta.product_types).toEqual(['parent']);
    expect(product.body.data.relationships.variations.data).toEqual([
      { type: 'product-variation', id: a.variationId },
    ]);
    expect(product.body.data.meta.variations).toEqual([
      { id: a.variationId, name: 'A', options: [{ id: a.options.a1, name: 'a1', description: 'a1 option' }] },
    ]);
  });

  it("an unknown variation, another store's, or one not linked (DELETE) is 422 naming it; nothing changes", async () => {
    const parent = await newParent();
    const other = await createTestStore();
    const foreign = await newVariationWithOptions(other.store.id, 'Theirs', ['x']);
    const mine = await newVariationWithOptions(store.store.id, 'Mine', ['y']);
    for (const id of [MISSING, foreign.variationId]) {
      const response = await call(linkVariations, 'POST', linksPath(parent.id), links(mine.variationId, id));
      expect(response.status).toBe(422);
      expect(response.body.errors[0]).toMatchObject({
        detail: `data[1].id: variation ${id} not found`,
        source: 'data[1].id',
      });
    }
    const unlinked = await call(unlinkVariations, 'DELETE', linksPath(parent.id), links(mine.variationId));
    expect(unlinked.status).toBe(422);
    expect(unlinked.body.errors[0].detail).toBe(
      `data[0].id: variation ${mine.variationId} is not linked to the product`,
    );
    const twice = await call(
      linkVariations,
      'POST',
      linksPath(parent.id),
      links(mine.variationId, mine.variationId),
    );
    expect([twice.status, twice.body.errors[0].source]).toEqual([422, 'data[1].id']);
    const notUuid = await call(linkVariations, 'POST', linksPath(parent.id), links('nope'));
    expect([notUuid.status, notUuid.body.errors[0].detail]).toEqual([
      422,
      'data[0].id: variation nope not found',
    ]);
    const badType = await call(linkVariations, 'POST', linksPath(parent.id), {
      data: [{ type: 'variation', id: mine.variationId }],
    });
    expect([badType.status, badType.body.errors[0].source]).toEqual([400, 'data[0].type']);
    const tooMany = await call(
      linkVariations,
      'POST',
      linksPath(parent.id),
      links(...Array.from({ length: 21 }, () => MISSING)),
    );
    expect([tooMany.status, tooMany.body.errors[0].source]).toEqual([400, 'data']);
    expect((await call(getLinks, 'GET', linksPath(parent.id))).body.data).toEqual([]);
    const theirProduct = await newPcmProduct(other.store.id, 'Theirs', `T${Date.now()}`);
    const response = await call(linkVariations, 'POST', linksPath(theirProduct), links(mine.variationId));
    expect(response.status).toBe(404);
    expect((await productRepository.get(other.store.id, theirProduct))?.variations).toBeUndefined();
  });

  it('a product created with relationships.variations links them; an unknown one is 422 and creates nothing', async () => {
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S']);
    const created = await call(createProduct, 'POST', '/pcm/products', {
      data: {
        type: 'product',
        attributes: { name: 'Linked at birth' },
        relationships: { variations: { data: [{ type: 'product-variation', id: size.variationId }] } },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.relationships.variations.data).toEqual([
      { type: 'product-variation', id: size.variationId },
    ]);
    const refused = await call(createProduct, 'POST', '/pcm/products', {
      data: {
        type: 'product',
        attributes: { name: 'Linked to nothing', sku: `NOTHING-${Date.now()}` },
        relationships: { variations: { data: [{ type: 'product-variation', id: MISSING }] } },
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].source).toBe('data.relationships.variations.data[0].id');
    // The variation counts only the product that links it: unlinking that one frees it.
    await call(unlinkVariations, 'DELETE', linksPath(created.body.data.id), links(size.variationId));
    expect((await call(deleteVariation, 'DELETE', `/pcm/variations/${size.variationId}`)).status).toBe(204);
  });

  it('a linked variation cannot be deleted (422, "in use") until every product unlinks it or is deleted', async () => {
    const first = await newParent();
    const second = await newParent();
    const colour = await newVariationWithOptions(store.store.id, 'Colour', ['Red']);
    await link(first.id, colour.variationId);
    await link(second.id, colour.variationId);
    const refused = await call(deleteVariation, 'DELETE', `/pcm/variations/${colour.variationId}`);
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].detail).toMatch(
      /^One or more variations are currently in use: .*linked to 2 product/,
    );
    await call(unlinkVariations, 'DELETE', linksPath(first.id), links(colour.variationId));
    expect((await call(deleteVariation, 'DELETE', `/pcm/variations/${colour.variationId}`)).status).toBe(422);
    expect((await call(deleteProduct, 'DELETE', `/pcm/products/${second.id}`)).status).toBe(204);
    expect((await call(deleteVariation, 'DELETE', `/pcm/variations/${colour.variationId}`)).status).toBe(204);
  });

  it('concurrent links and a delete of the variation: the delete succeeds only if no link landed', async () => {
    const parents = await Promise.all([newParent(), newParent(), newParent()]);
    const colour = await newVariationWithOptions(store.store.id, 'Racy', ['Red']);
    const results = await Promise.all([
      ...parents.map((parent) =>
        call(linkVariations, 'POST', linksPath(parent.id), links(colour.variationId)),
      ),
      call(deleteVariation, 'DELETE', `/pcm/variations/${colour.variationId}`),
    ]);
    const linked = results.slice(0, 3).filter((r) => r.status === 204).length;
    const deleted = results[3]?.status === 204;
    expect(results.slice(0, 3).every((r) => r.status === 204 || r.status === 422)).toBe(true);
    expect(deleted ? linked === 0 : linked > 0).toBe(true);
    expect((await variationRepository.getVariation(store.store.id, colour.variationId)) === undefined).toBe(
      deleted,
    );
  });
});

describe('building child products', () => {
  it('builds one child per combination: inherited attributes, option names appended to sku and slug in link order', async () => {
    const parent = await newParent({ description: 'Cotton', status: 'live', tags: ['summer'] });
    const colour = await newVariationWithOptions(store.store.id, 'Colour', ['Red', 'Blue']);
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S', 'L']);
    await link(parent.id, colour.variationId, size.variationId);
    expect(await build(parent.id)).toEqual([]);
    const children = await childrenByOptions(parent.id);
    expect([...children.keys()].sort()).toEqual(['BlueL', 'BlueS', 'RedL', 'RedS']);
    const redL = children.get('RedL') as Record<string, any>;
    expect(redL.attributes).toEqual({
      name: 'Tee',
      sku: `${parent.sku}RedL`,
      slug: `${parent.sku.toLowerCase()}RedL`,
      description: 'Cotton',
      status: 'live',
      commodity_type: 'physical',
      tags: ['summer'],
    });
    expect(redL.meta.product_types).toEqual(['child']);
    expect(redL.relationships.base_product).toEqual({ data: { type: 'product', id: parent.id } });
    expect(redL.meta.child_variations).toEqual([
      {
        id: colour.variationId,
        name: 'Colour',
        options: null,
        option: { id: colour.options.Red, name: 'Red', description: 'Red option' },
      },
      {
        id: size.variationId,
        name: 'Size',
        options: null,
        option: { id: size.options.L, name: 'L', description: 'L option' },
      },
    ]);
    const read = await call(getProduct, 'GET', `/pcm/products/${parent.id}`);
    const matrix = read.body.data.meta.variation_matrix;
    expect(matrix[colour.options.Red as string][size.options.L as string]).toBe(redL.id);
    expect(Object.keys(matrix).sort()).toEqual([colour.options.Red, colour.options.Blue].sort());
    expect(read.body.data.meta.variations.map((v: { id: string }) => v.id)).toEqual([
      colour.variationId,
      size.variationId,
    ]);
  });

  it('the children list pages like the product list', async () => {
    const parent = await newParent();
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S', 'M', 'L']);
    await link(parent.id, size.variationId);
    expect(await build(parent.id)).toEqual([]);
    const { order, stop } = recordOperationOrder();
    let page: Awaited<ReturnType<typeof call>>;
    try {
      page = await call(
        getChildren,
        'GET',
        `/pcm/products/${parent.id}/children?page[limit]=2&page[offset]=1`,
      );
    } finally {
      stop();
    }
    expect(page.status).toBe(200);
    // The parent (its 404) is read beside the page of its children: the page's Query goes out before the
    // parent's GetItem is answered. (A token the container has not seen yet adds its own BatchGetItem first.)
    const parentRead = order.indexOf('GetItem sent');
    expect(order.indexOf('Query sent', parentRead)).toBeLessThan(
      order.indexOf('GetItem answered', parentRead),
    );
    expect(page.body.meta.results.total).toBe(3);
    expect(page.body.data.map((child: { attributes: { sku: string } }) => child.attributes.sku)).toEqual([
      `${parent.sku}M`,
      `${parent.sku}L`,
    ]);
    expect(page.body.links.first).toBe(
      `https://api.example.test/pcm/products/${parent.id}/children?page[offset]=0&page[limit]=2`,
    );
    const bad = await call(getChildren, 'GET', `/pcm/products/${parent.id}/children?page[limit]=0`);
    expect([bad.status, bad.body.errors[0].source]).toEqual([400, 'page[limit]']);
    const missing = await call(getChildren, 'GET', `/pcm/products/${MISSING}/children`);
    expect(missing.status).toBe(404);
    const standalone = await newParent();
    const none = await call(getChildren, 'GET', `/pcm/products/${standalone.id}/children`);
    expect([none.status, none.body.data, none.body.meta.results.total]).toEqual([200, [], 0]);
  });

  it('applies every modifier type, options in link order, modifiers in creation order', async () => {
    const stamp = Date.now();
    const parent = await newParent({ sku: `TEE-{size}-${stamp}`, slug: 'tee', description: 'Plain' });
    const modifiers: Record<string, ModifierAttributes[]> = {
      Large: [
        { type: 'name_prepend', value: 'Big ' },
        { type: 'name_append', value: ' (L)' },
        { type: 'description_append', value: ', large' },
        { type: 'description_prepend', value: 'Very ' },
        { type: 'sku_builder', seek: '{size}', set: 'L' },
        { type: 'slug_prepend', value: 'x-' },
        { type: 'slug_append', value: '-l' },
        { type: 'commodity_type', value: 'digital' },
        { type: 'status', value: 'live' },
        { type: 'upc_ean_equals', value: '0123' },
        { type: 'mpn_equals', value: 'MPN-L' },
        { type: 'external_ref_equals', value: `ref-${stamp}-L` },
        { type: 'custom_inputs_equals', value: { note: { name: 'Note', required: false } } },
        { type: 'build_rules_equals', value: { default: 'exclude' } },
        { type: 'locales_equals', value: { 'fr-FR': { name: 'Grand' } } },
        { type: 'price', reference_name: 'LargePrice' },
      ],
      Small: [
        { type: 'name_equals', value: 'Tiny tee' },
        { type: 'description_equals', value: 'Small' },
        { type: 'sku_prepend', value: 'S-' },
        { type: 'sku_append', value: '-END' },
        { type: 'slug_equals', value: 'small-{kind}' },
        { type: 'slug_builder', seek: '{kind}', set: 'tee' },
      ],
      Medium: [{ type: 'sku_equals', value: `MED-${stamp}` }],
    };
    const size = await newVariationWithOptions(
      store.store.id,
      'Size',
      ['Large', 'Small', 'Medium'],
      modifiers,
    );
    await link(parent.id, size.variationId);
    expect(await build(parent.id)).toEqual([]);
    const children = await childrenByOptions(parent.id);
    const large = children.get('Large') as Record<string, any>;
    expect(large.attributes).toEqual({
      name: 'Big Tee (L)',
      sku: parent.sku.replace('{size}', 'L'),
      slug: 'x-tee-l',
      description: 'Very Plain, large',
      status: 'live',
      commodity_type: 'digital',
      upc_ean: '0123',
      mpn: 'MPN-L',
      external_ref: `ref-${stamp}-L`,
      locales: { 'fr-FR': { name: 'Grand' } },
      custom_inputs: { note: { name: 'Note', required: false } },
      build_rules: { default: 'exclude' },
    });
    expect(large.meta.price_modifiers).toEqual(['LargePrice']);
    const small = children.get('Small') as Record<string, any>;
    expect(small.attributes).toMatchObject({
      name: 'Tiny tee',
      sku: `S-${parent.sku}-END`,
      slug: 'small-tee',
      description: 'Small',
      status: 'draft',
    });
    expect(small.meta.price_modifiers).toBeUndefined();
    expect((children.get('Medium') as Record<string, any>).attributes).toMatchObject({
      sku: `MED-${stamp}`,
      slug: 'teeMedium',
    });
  });

  it('build_rules: default exclude with includes, the most specific rule wins, ambiguous rules fail the build', async () => {
    const colour = await newVariationWithOptions(store.store.id, 'Colour', ['Red', 'Blue']);
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S', 'L']);
    const red = colour.options.Red as string;
    const large = size.options.L as string;
    const built = async (rules: unknown) => {
      const parent = await newParent({ build_rules: rules });
      await link(parent.id, colour.variationId, size.variationId);
      const errors = await build(parent.id);
      return { errors, names: [...(await childrenByOptions(parent.id)).keys()].sort() };
    };
    expect(await built({ default: 'exclude', include: [[red]] })).toEqual({
      errors: [],
      names: ['RedL', 'RedS'],
    });
    expect(await built({ default: 'include', exclude: [[red]], include: [[red, large]] })).toEqual({
      errors: [],
      names: ['BlueL', 'BlueS', 'RedL'],
    });
    expect(await built({ default: 'include', exclude: [[red, large]] })).toEqual({
      errors: [],
      names: ['BlueL', 'BlueS', 'RedS'],
    });
    // Red with L matches include [red] and exclude [L], equally specific: nothing is built.
    expect(await built({ default: 'include', include: [[red]], exclude: [[large]] })).toEqual({
      errors: [{ message: AMBIGUOUS_RULES }],
      names: [],
    });
    // A rule of two options of one variation matches no combination.
    expect(await built({ default: 'include', exclude: [[red, colour.options.Blue]] })).toEqual({
      errors: [],
      names: ['BlueL', 'BlueS', 'RedL', 'RedS'],
    });
  });

  it('rebuilds: an added or removed option keeps the other ids, a changed variation set replaces every child', async () => {
    const parent = await newParent();
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S', 'L']);
    await link(parent.id, size.variationId);
    await build(parent.id);
    const first = await childrenByOptions(parent.id);
    const at = new Date().toISOString();
    await variationRepository.createOption(store.store.id, {
      id: uuidv7(),
      variation_id: size.variationId,
      name: 'M',
      description: '',
      created_at: at,
      updated_at: at,
    });
    expect(await build(parent.id)).toEqual([]);
    const second = await childrenByOptions(parent.id);
    expect([...second.keys()].sort()).toEqual(['L', 'M', 'S']);
    expect(second.get('S')?.id).toBe(first.get('S')?.id);
    expect(second.get('L')?.id).toBe(first.get('L')?.id);
    await variationRepository.deleteOption(store.store.id, size.variationId, size.options.S as string);
    expect(await build(parent.id)).toEqual([]);
    const third = await childrenByOptions(parent.id);
    expect([...third.keys()].sort()).toEqual(['L', 'M']);
    expect(third.get('L')?.id).toBe(first.get('L')?.id);
    expect(await productRepository.get(store.store.id, first.get('S')?.id)).toBeUndefined();
    // The old S child's sku is free again.
    expect(await productRepository.idOfSku(store.store.id, `${parent.sku}S`)).toBeUndefined();
    const colour = await newVariationWithOptions(store.store.id, 'Colour', ['Red']);
    await link(parent.id, colour.variationId);
    expect(await build(parent.id)).toEqual([]);
    const fourth = await childrenByOptions(parent.id);
    expect([...fourth.keys()].sort()).toEqual(['LRed', 'MRed']);
    for (const old of third.values()) {
      expect(await productRepository.get(store.store.id, old.id)).toBeUndefined();
      expect([...fourth.values()].map((child) => child.id)).not.toContain(old.id);
    }
  });

  it('a child edited directly is detached: rebuilds neither rewrite nor delete it', async () => {
    const parent = await newParent();
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S', 'L'], {
      S: [{ type: 'name_append', value: ' small' }],
    });
    await link(parent.id, size.variationId);
    await build(parent.id);
    const small = (await childrenByOptions(parent.id)).get('S') as Record<string, any>;
    const edited = await call(updateProduct, 'PUT', `/pcm/products/${small.id}`, {
      data: { type: 'product', id: small.id, attributes: { description: 'Edited by hand' } },
    });
    expect(edited.status).toBe(200);
    await variationRepository.updateOption(
      store.store.id,
      size.variationId,
      size.options.S as string,
      { name: 'Small' },
      new Date().toISOString(),
    );
    expect(await build(parent.id)).toEqual([]);
    const kept = await productRepository.get(store.store.id, small.id);
    expect(kept?.attributes).toMatchObject({ description: 'Edited by hand', sku: `${parent.sku}S` });
    // The variation set changes: every other child is replaced, the detached one stays a child.
    const colour = await newVariationWithOptions(store.store.id, 'Colour', ['Red']);
    await link(parent.id, colour.variationId);
    expect(await build(parent.id)).toEqual([]);
    expect((await productRepository.get(store.store.id, small.id))?.attributes.description).toBe(
      'Edited by hand',
    );
    const ids = [...(await childrenByOptions(parent.id)).values()].map((child) => child.id);
    expect(ids).toContain(small.id);
    expect(ids).toHaveLength(3);
  });

  it('a child whose sku another product holds is an error for that child; the others are written', async () => {
    const parent = await newParent();
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S', 'L']);
    await newPcmProduct(store.store.id, 'Squatter', `${parent.sku}s`);
    await link(parent.id, size.variationId);
    expect(await build(parent.id)).toEqual([
      {
        message: `the child product of options S (sku ${parent.sku}S): data.attributes.sku: Must be unique amongst products.`,
      },
    ]);
    expect([...(await childrenByOptions(parent.id)).keys()]).toEqual(['L']);
  });

  it('two children of one build with the same sku: the second is an error naming the first', async () => {
    const parent = await newParent();
    const sku = `SAME-${Date.now()}`;
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S', 'L'], {
      S: [{ type: 'sku_equals', value: sku }],
      L: [{ type: 'sku_equals', value: sku }],
    });
    await link(parent.id, size.variationId);
    const errors = await build(parent.id);
    expect(errors).toEqual([
      {
        message: `the child product of options L: data.attributes.sku: Must be unique amongst products (the child product of options S has sku ${sku} too).`,
      },
    ]);
  });

  it('a child whose attributes break a product rule is an error naming the attribute', async () => {
    const parent = await newParent();
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S'], {
      S: [{ type: 'sku_append', value: 'x'.repeat(300) }],
    });
    await link(parent.id, size.variationId);
    const [error] = await build(parent.id);
    expect(error?.message).toMatch(/^the child product of options S: data\.attributes\.sku must be/);
  });

  it('a parent near the product size limit builds; a child its modifiers take past it is an error', async () => {
    // About 240 KB of attributes: 20 children of it would be 4.8 MB, more than one transaction takes.
    const fields = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, 'x'.repeat(4000)]));
    const parent = await newParent({ extensions: { big: fields } });
    const colour = await newVariationWithOptions(store.store.id, 'Colour', ['A', 'B', 'C', 'D'], {
      D: [
        {
          type: 'locales_equals',
          value: Object.fromEntries(
            ['fr-FR', 'de-DE', 'es-ES'].map((locale) => [
              locale,
              { name: 'x', description: 'y'.repeat(20_000) },
            ]),
          ),
        },
      ],
    });
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S', 'M', 'L', 'XL', 'XXL']);
    await link(parent.id, colour.variationId, size.variationId);
    const errors = await build(parent.id);
    expect(errors).toHaveLength(5);
    expect(errors[0]?.message).toMatch(
      /^the child product of options D, S: it would take \d+ bytes, at most 300000 are allowed/,
    );
    expect((await childrenByOptions(parent.id)).size).toBe(15);
  });

  it('more than 10,000 combinations fail the build and write nothing', async () => {
    const parent = await newParent();
    const names = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    const wide = await newVariationWithOptions(store.store.id, 'Wide', names(101, 'w'));
    const tall = await newVariationWithOptions(store.store.id, 'Tall', names(100, 't'));
    await link(parent.id, wide.variationId, tall.variationId);
    expect(await build(parent.id)).toEqual([
      {
        message:
          'the linked variations make more than 10000 combinations of options (the most a product may have): unlink a variation or delete options',
      },
    ]);
    expect(await childRepository.entries(store.store.id, parent.id)).toEqual([]);
  });

  it('a variation without options, or no such product, fails the build with a message', async () => {
    const parent = await newParent();
    const empty = await newVariationWithOptions(store.store.id, 'Empty', []);
    await link(parent.id, empty.variationId);
    expect(await build(parent.id)).toEqual([
      { message: `variation Empty (${empty.variationId}) has no options: add at least one` },
    ]);
    expect(await build(MISSING)).toEqual([{ message: `product ${MISSING} not found` }]);
  });

  it('a retried build converges: the same children, ids and claims as one clean run', async () => {
    const parent = await newParent();
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S', 'M', 'L']);
    await link(parent.id, size.variationId);
    await build(parent.id);
    const clean = await childRepository.entries(store.store.id, parent.id);
    // A crash after the first transaction: only part of the children exist.
    await childRepository.remove(store.store.id, parent.id, clean.slice(1));
    expect(await build(parent.id)).toEqual([]);
    expect(await build(parent.id)).toEqual([]);
    const again = await childRepository.entries(store.store.id, parent.id);
    expect(again).toEqual(clean);
    for (const entry of again) {
      expect(await productRepository.idOfSku(store.store.id, entry.sku as string)).toBe(entry.child_id);
    }
  });

  it('children are never written for variations unlinked since the build read them', async () => {
    const parent = await newParent();
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S']);
    await link(parent.id, size.variationId);
    const read = await productRepository.get(store.store.id, parent.id);
    await call(replaceLinks, 'PUT', linksPath(parent.id), links());
    const child = {
      id: uuidv7(),
      options: [size.options.S as string],
      generation: read?.variations_generation ?? 0,
      attributes: { name: 'Stale', status: 'draft' as const, commodity_type: 'physical' as const },
      child_variations: [],
      price_modifiers: [],
    };
    await expect(childRepository.write(store.store.id, parent.id, child.generation, [child])).rejects.toThrow(
      ParentChangedError,
    );
    expect(await productRepository.get(store.store.id, child.id)).toBeUndefined();
  });

  it('a parent with children cannot be deleted (409); a child can, and the next build makes it again', async () => {
    const parent = await newParent();
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S']);
    await link(parent.id, size.variationId);
    await build(parent.id);
    const [child] = [...(await childrenByOptions(parent.id)).values()];
    const refused = await call(deleteProduct, 'DELETE', `/pcm/products/${parent.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].detail).toMatch(/^the product has child products/);
    expect((await call(deleteProduct, 'DELETE', `/pcm/products/${child?.id}`)).status).toBe(204);
    expect((await childrenByOptions(parent.id)).size).toBe(0);
    expect(await build(parent.id)).toEqual([]);
    expect([...(await childrenByOptions(parent.id)).values()][0]?.id).toBe(child?.id);
    // Unlinking every variation and building removes the children: then the parent can go.
    await call(unlinkVariations, 'DELETE', linksPath(parent.id), links(size.variationId));
    expect(await build(parent.id)).toEqual([]);
    expect((await call(deleteProduct, 'DELETE', `/pcm/products/${parent.id}`)).status).toBe(204);
  });

  it('a child cannot link variations (422)', async () => {
    const parent = await newParent();
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S']);
    await link(parent.id, size.variationId);
    await build(parent.id);
    const [child] = [...(await childrenByOptions(parent.id)).values()];
    const response = await call(linkVariations, 'POST', linksPath(child?.id), links(size.variationId));
    expect(response.status).toBe(422);
    expect(response.body.errors[0].detail).toMatch(/is a child product: a child cannot have variations$/);
  });
});

it('a build reads the children built before beside the parent, not after it', async () => {
  const parent = await newParent();
  const size = await newVariationWithOptions(store.store.id, 'Size', ['S', 'L']);
  await link(parent.id, size.variationId);
  expect(await build(parent.id)).toEqual([]);
  const order: string[] = [];
  const get = productRepository.get.bind(productRepository);
  const entries = childRepository.entries.bind(childRepository);
  jest.spyOn(productRepository, 'get').mockImplementation(async (...args) => {
    order.push('parent asked');
    const found = await get(...args);
    order.push('parent answered');
    return found;
  });
  jest.spyOn(childRepository, 'entries').mockImplementation(async (...args) => {
    order.push('children asked');
    return entries(...args);
  });
  try {
    expect(await build(parent.id)).toEqual([]);
  } finally {
    jest.restoreAllMocks();
  }
  expect(order.slice(0, 3)).toEqual(['children asked', 'parent asked', 'parent answered']);
  expect([...(await childrenByOptions(parent.id)).keys()].sort()).toEqual(['L', 'S']);
});

describe('POST /pcm/products/{product_id}/build', () => {
  let sent: QueuedMessage[] = [];
  beforeEach(() => {
    sent = [];
    registerLocalJobQueue((message) => sent.push(message));
  });
  afterAll(() => registerLocalJobQueue(undefined));
  /** Runs the job of the last message as the jobs worker does, with the registered runners. */
  const runQueued = async () => {
    const message = sent.at(-1) as QueuedMessage;
    await runJob(JSON.parse(message.body), 1, { requestId: 'worker', remainingMs: () => 60_000 });
    return JSON.parse(message.body).job_id as string;
  };

  it('answers 201 with a pending child-products job; the worker builds the children', async () => {
    const parent = await newParent();
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S', 'L']);
    await link(parent.id, size.variationId);
    const response = await call(buildRoute, 'POST', `/pcm/products/${parent.id}/build`);
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      type: 'pim-job',
      attributes: { type: 'child-products', status: 'pending', started_at: null, completed_at: null },
    });
    // Nothing is built inside the request.
    expect((await childrenByOptions(parent.id)).size).toBe(0);
    expect(sent).toHaveLength(1);
    const jobId = await runQueued();
    expect(jobId).toBe(response.body.data.id);
    expect((await jobRepository.get(store.store.id, jobId))?.status).toBe('success');
    expect([...(await childrenByOptions(parent.id)).keys()].sort()).toEqual(['L', 'S']);
  });

  it('a build that cannot be done fails its job with the errors to read', async () => {
    const parent = await newParent();
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S', 'L']);
    await link(parent.id, size.variationId);
    await call(updateProduct, 'PUT', `/pcm/products/${parent.id}`, {
      data: {
        type: 'product',
        id: parent.id,
        attributes: {
          build_rules: { default: 'include', include: [[size.options.S]], exclude: [[size.options.S]] },
        },
      },
    });
    expect((await call(buildRoute, 'POST', `/pcm/products/${parent.id}/build`, {})).status).toBe(201);
    const jobId = await runQueued();
    expect((await jobRepository.get(store.store.id, jobId))?.status).toBe('failed');
    const errors = await invoke(getJobErrors, {
      method: 'GET',
      path: `/pcm/jobs/${jobId}/errors`,
      pathParameters: { job_id: jobId },
      headers: bearer(token, HEADERS),
    });
    expect(
      errors.body.data.map((error: { attributes: { message: string } }) => error.attributes.message),
    ).toEqual([AMBIGUOUS_RULES]);
  });

  it('404 for no such product, 422 for a child, 400 for a body other than {}; no job then', async () => {
    const parent = await newParent();
    const size = await newVariationWithOptions(store.store.id, 'Size', ['S']);
    await link(parent.id, size.variationId);
    await build(parent.id);
    const [child] = [...(await childrenByOptions(parent.id)).values()];
    expect((await call(buildRoute, 'POST', `/pcm/products/${MISSING}/build`)).status).toBe(404);
    const refused = await call(buildRoute, 'POST', `/pcm/products/${child?.id}/build`);
    expect([refused.status, refused.body.errors[0].detail]).toEqual([
      422,
      `product ${child?.id} is a child product: only a base product's children are built`,
    ]);
    const body = await call(buildRoute, 'POST', `/pcm/products/${parent.id}/build`, { data: {} });
    expect([body.status, body.body.errors[0].source]).toEqual([400, 'body']);
    expect(sent).toHaveLength(0);
  });
});
