import { handler as createModifier } from '../../functions/pcm-create-option-modifier/handler';
import { handler as createVariation } from '../../functions/pcm-create-variation/handler';
import { handler as createOption } from '../../functions/pcm-create-variation-option/handler';
import { handler as deleteModifier } from '../../functions/pcm-delete-option-modifier/handler';
import { handler as deleteVariation } from '../../functions/pcm-delete-variation/handler';
import { handler as deleteOption } from '../../functions/pcm-delete-variation-option/handler';
import { handler as getModifier } from '../../functions/pcm-get-option-modifier/handler';
import { handler as getVariation } from '../../functions/pcm-get-variation/handler';
import { handler as getOption } from '../../functions/pcm-get-variation-option/handler';
import { handler as listModifiers } from '../../functions/pcm-list-option-modifiers/handler';
import { handler as listOptions } from '../../functions/pcm-list-variation-options/handler';
import { handler as listVariations } from '../../functions/pcm-list-variations/handler';
import { handler as updateModifier } from '../../functions/pcm-update-option-modifier/handler';
import { handler as updateVariation } from '../../functions/pcm-update-variation/handler';
import { handler as updateOption } from '../../functions/pcm-update-variation-option/handler';
import { queryAll } from '../../lib/store/items';
import { tableName } from '../../lib/store/schema';
import {
  bearer,
  createTestStore,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';
import { recordOperationOrder } from '../support/operation-order';

/** `/pcm/variations`, its options and their modifiers, through the handlers on DynamoDB Local. */

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
/** The path parameters API Gateway would give for `path`. */
function pathParameters(path: string): Record<string, string> {
  const [, , , variation_id, , option_id, , modifier_id] = (path.split('?')[0] ?? '').split('/');
  return Object.fromEntries(
    Object.entries({ variation_id, option_id, modifier_id }).filter(([, value]) => value !== undefined),
  ) as Record<string, string>;
}
const call = (
  handler: AnyHandler,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  as = token,
) =>
  invoke(handler, {
    method,
    path,
    pathParameters: pathParameters(path),
    headers: bearer(as, {
      ...HEADERS,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const newVariation = async (name: string, sortOrder?: number) => {
  const response = await call(createVariation, 'POST', '/pcm/variations', {
    data: {
      type: 'product-variation',
      attributes: { name, ...(sortOrder === undefined ? {} : { sort_order: sortOrder }) },
    },
  });
  expect([response.status, response.body.errors]).toEqual([201, undefined]);
  return response.body.data.id as string;
};
const newOption = async (variationId: string, name: string, description?: string) => {
  const response = await call(createOption, 'POST', `/pcm/variations/${variationId}/options`, {
    data: {
      type: 'product-variation-option',
      attributes: { name, ...(description === undefined ? {} : { description }) },
    },
  });
  expect([response.status, response.body.errors]).toEqual([201, undefined]);
  return response.body.data.id as string;
};
const modifierBody = (attributes: Record<string, unknown>) => ({
  data: { type: 'product-variation-modifier', attributes },
});

describe('variations', () => {
  it('POST creates a variation: 201 with its attributes, no options, owner store', async () => {
    const response = await call(createVariation, 'POST', '/pcm/variations', {
      data: { type: 'product-variation', attributes: { name: 'Size', sort_order: 3 } },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      data: {
        id: UUID,
        type: 'product-variation',
        attributes: { name: 'Size', sort_order: 3 },
        meta: { options: [], owner: 'store', created_at: DATE, updated_at: DATE },
      },
    });
  });

  it('GET lists the options in meta.options, oldest first', async () => {
    const variationId = await newVariation('Colour');
    const red = await newOption(variationId, 'Red', 'A red one');
    const blue = await newOption(variationId, 'Blue');
    const response = await call(getVariation, 'GET', `/pcm/variations/${variationId}`);
    expect(response.status).toBe(200);
    expect(response.body.data.meta.options).toEqual([
      { id: red, name: 'Red', description: 'A red one', created_at: DATE, updated_at: DATE },
      { id: blue, name: 'Blue', description: '', created_at: DATE, updated_at: DATE },
    ]);
    expect(response.body.data.attributes).toEqual({ name: 'Colour' });
  });

  it('PUT changes the name and sort_order: null removes the sort order', async () => {
    const variationId = await newVariation('Material', 5);
    const renamed = await call(updateVariation, 'PUT', `/pcm/variations/${variationId}`, {
      data: { type: 'product-variation', id: variationId, attributes: { name: 'Fabric' } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.attributes).toEqual({ name: 'Fabric', sort_order: 5 });
    const cleared = await call(updateVariation, 'PUT', `/pcm/variations/${variationId}`, {
      data: { type: 'product-variation', attributes: { sort_order: null } },
    });
    expect(cleared.body.data.attributes).toEqual({ name: 'Fabric' });
  });

  it('PUT with another id is 409, an unknown attribute 400, and neither changes anything', async () => {
    const variationId = await newVariation('Fit');
    const other = await call(updateVariation, 'PUT', `/pcm/variations/${variationId}`, {
      data: {
        type: 'product-variation',
        id: '0190f3b6-0000-7000-8000-000000000000',
        attributes: { name: 'X' },
      },
    });
    expect(other.status).toBe(409);
    const unknown = await call(updateVariation, 'PUT', `/pcm/variations/${variationId}`, {
      data: { type: 'product-variation', attributes: { name: 'X', colour: 'red' } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].source).toBe('data.attributes.colour');
    const after = await call(getVariation, 'GET', `/pcm/variations/${variationId}`);
    expect(after.body.data.attributes).toEqual({ name: 'Fit' });
  });

  it('POST without a name is 400 with the field named', async () => {
    const response = await call(createVariation, 'POST', '/pcm/variations', {
      data: { type: 'product-variation', attributes: {} },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].status).toBe('400');
  });

  it('GET /pcm/variations pages the store variations with their options', async () => {
    const other = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    const otherToken = await tokenFor(other);
    const first = await call(
      createVariation,
      'POST',
      '/pcm/variations',
      {
        data: { type: 'product-variation', attributes: { name: 'A' } },
      },
      otherToken,
    );
    const second = await call(
      createVariation,
      'POST',
      '/pcm/variations',
      {
        data: { type: 'product-variation', attributes: { name: 'B' } },
      },
      otherToken,
    );
    const response = await call(
      listVariations,
      'GET',
      '/pcm/variations?page[limit]=1&page[offset]=1',
      undefined,
      otherToken,
    );
    expect(response.status).toBe(200);
    expect(response.body.data.map((v: { id: string }) => v.id)).toEqual([second.body.data.id]);
    expect(response.body.meta.results).toEqual({ total: 2 });
    expect(first.body.data.id).not.toBe(second.body.data.id);
  });

  it('DELETE removes the variation, its options and their modifiers: nothing is left in the table', async () => {
    const variationId = await newVariation('Doomed');
    const optionId = await newOption(variationId, 'One');
    await call(
      createModifier,
      'POST',
      `/pcm/variations/${variationId}/options/${optionId}/modifiers`,
      modifierBody({ type: 'name_append', value: '-one' }),
    );
    const response = await call(deleteVariation, 'DELETE', `/pcm/variations/${variationId}`);
    expect(response.status).toBe(204);
    const left = await queryAll({
      TableName: tableName('products'),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': `STORE#${store.store.id}`, ':sk': `VARIATION#${variationId}` },
    });
    expect(left).toEqual([]);
    expect((await call(getVariation, 'GET', `/pcm/variations/${variationId}`)).status).toBe(404);
    expect((await call(deleteVariation, 'DELETE', `/pcm/variations/${variationId}`)).status).toBe(404);
  });

  it('an option added to a deleted variation is 404 and leaves no item', async () => {
    const variationId = await newVariation('Gone');
    await call(deleteVariation, 'DELETE', `/pcm/variations/${variationId}`);
    const response = await call(createOption, 'POST', `/pcm/variations/${variationId}/options`, {
      data: { type: 'product-variation-option', attributes: { name: 'Late' } },
    });
    expect(response.status).toBe(404);
    const left = await queryAll({
      TableName: tableName('products'),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': `STORE#${store.store.id}`, ':sk': `VARIATION#${variationId}` },
    });
    expect(left).toEqual([]);
  });

  it('twenty concurrent option creates all survive', async () => {
    const variationId = await newVariation('Busy');
    const ids = await Promise.all(Array.from({ length: 20 }, (_, n) => newOption(variationId, `O${n}`)));
    const response = await call(getVariation, 'GET', `/pcm/variations/${variationId}`);
    expect(response.body.data.meta.options.map((o: { id: string }) => o.id).sort()).toEqual([...ids].sort());
  });
});

describe('options', () => {
  let variationId: string;
  beforeAll(async () => {
    variationId = await newVariation('Options');
  });

  it('POST is 201 with the option, empty modifiers; GET, list, PUT and DELETE', async () => {
    const created = await call(createOption, 'POST', `/pcm/variations/${variationId}/options`, {
      data: {
        type: 'product-variation-option',
        attributes: { name: 'Small', description: 'S', sort_order: -1 },
      },
    });
    expect(created.status).toBe(201);
    const optionId = created.body.data.id;
    expect(created.body).toEqual({
      data: {
        id: optionId,
        type: 'product-variation-option',
        attributes: { name: 'Small', description: 'S', sort_order: -1 },
        meta: { owner: 'store', modifiers: [], created_at: DATE, updated_at: DATE },
      },
    });
    const path = `/pcm/variations/${variationId}/options/${optionId}`;
    expect((await call(getOption, 'GET', path)).body).toEqual(created.body);
    const listed = await call(listOptions, 'GET', `/pcm/variations/${variationId}/options`);
    expect(listed.body.data).toEqual([created.body.data]);
    expect(listed.body.meta.results).toEqual({ total: 1 });
    const updated = await call(updateOption, 'PUT', path, {
      data: {
        type: 'product-variation-option',
        id: optionId,
        attributes: { description: 'Smallest', sort_order: null },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toEqual({ name: 'Small', description: 'Smallest' });
    expect((await call(deleteOption, 'DELETE', path)).status).toBe(204);
    expect((await call(getOption, 'GET', path)).status).toBe(404);
  });

  it('reads an option and its modifiers in one round trip, after a PUT in one more', async () => {
    const optionId = await newOption(variationId, 'Quick');
    const path = `/pcm/variations/${variationId}/options/${optionId}`;
    const added = await call(
      createModifier,
      'POST',
      `${path}/modifiers`,
      modifierBody({ type: 'name_append', value: ' quick' }),
    );
    expect(added.status).toBe(201);
    /**
     * The reads (GetItem, Query) `respond` sent once the last of `after` was answered, before the first of
     * them was answered (the limiter's lease may go out beside them: it is left out).
     */
    const sentTogether = async (respond: () => Promise<{ status: number }>, after: string) => {
      const { order, stop } = recordOperationOrder();
      try {
        expect((await respond()).status).toBe(200);
      } finally {
        stop();
      }
      const reads = order
        .slice(order.lastIndexOf(after) + 1)
        .filter((step) => step.startsWith('GetItem') || step.startsWith('Query'));
      return reads
        .slice(
          0,
          reads.findIndex((step) => step.endsWith('answered')),
        )
        .sort();
    };
    // (A token the container has not seen yet adds its own BatchGetItem before these.)
    // The variation's item and the option's key range (the option and its modifiers).
    const reads = ['GetItem sent', 'Query sent'];
    expect(await sentTogether(() => call(getOption, 'GET', path), 'BatchGetItem answered')).toEqual(reads);
    const update = () =>
      call(updateOption, 'PUT', path, {
        data: { type: 'product-variation-option', id: optionId, attributes: { description: 'Fast' } },
      });
    expect(await sentTogether(update, 'TransactWriteItems answered')).toEqual(reads);
    const listed = await sentTogether(
      () => call(listModifiers, 'GET', `${path}/modifiers`),
      'BatchGetItem answered',
    );
    expect(listed).toEqual(reads);
    const updated = await call(getOption, 'GET', path);
    expect(updated.body.data.attributes.description).toBe('Fast');
    expect(updated.body.data.meta.modifiers).toHaveLength(1);
  });

  it('PUT without data.id is 400 (the platform needs it)', async () => {
    const optionId = await newOption(variationId, 'NoId');
    const response = await call(updateOption, 'PUT', `/pcm/variations/${variationId}/options/${optionId}`, {
      data: { type: 'product-variation-option', attributes: { name: 'Renamed' } },
    });
    expect(response.status).toBe(400);
  });

  it('an option name with a space is 400', async () => {
    const response = await call(createOption, 'POST', `/pcm/variations/${variationId}/options`, {
      data: { type: 'product-variation-option', attributes: { name: 'Extra large' } },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].source).toBe('data.attributes.name');
  });

  it('an option of another variation is 404 under this one', async () => {
    const other = await newVariation('Other');
    const optionId = await newOption(other, 'Theirs');
    expect((await call(getOption, 'GET', `/pcm/variations/${variationId}/options/${optionId}`)).status).toBe(
      404,
    );
  });
});

describe('modifiers', () => {
  let base: string;
  let variationId: string;
  let optionId: string;
  beforeAll(async () => {
    variationId = await newVariation('Modified');
    optionId = await newOption(variationId, 'Red');
    base = `/pcm/variations/${variationId}/options/${optionId}/modifiers`;
  });

  const accepted: [string, Record<string, unknown>, unknown][] = [
    ['name_append', { value: ' red' }, { name_append: ' red' }],
    ['name_prepend', { value: 'Red ' }, { name_prepend: 'Red ' }],
    ['name_equals', { value: 'Red shirt' }, { name_equals: 'Red shirt' }],
    ['sku_append', { value: '-RED' }, { sku_append: '-RED' }],
    ['sku_prepend', { value: 'RED-' }, { sku_prepend: 'RED-' }],
    ['sku_equals', { value: 'SHIRT-RED' }, { sku_equals: 'SHIRT-RED' }],
    ['sku_builder', { seek: '{color}', set: 'RED' }, { sku_builder: { seek: '{color}', set: 'RED' } }],
    ['slug_append', { value: '-red' }, { slug_append: '-red' }],
    ['slug_prepend', { value: 'red-' }, { slug_prepend: 'red-' }],
    ['slug_equals', { value: 'shirt-red' }, { slug_equals: 'shirt-red' }],
    ['slug_builder', { seek: '{color}', set: 'red' }, { slug_builder: { seek: '{color}', set: 'red' } }],
    ['description_append', { value: ' In red.' }, { description_append: ' In red.' }],
    ['description_prepend', { value: 'Red: ' }, { description_prepend: 'Red: ' }],
    ['description_equals', { value: 'A red shirt' }, { description_equals: 'A red shirt' }],
    ['commodity_type', { value: 'digital' }, { commodity_type: 'digital' }],
    ['status', { value: 'live' }, { status: 'live' }],
    ['price', { reference_name: 'PriceEqual' }, { price: 'PriceEqual' }],
    ['upc_ean_equals', { value: '0123456789012' }, { upc_ean_equals: '0123456789012' }],
    ['mpn_equals', { value: 'MPN-1' }, { mpn_equals: 'MPN-1' }],
    ['external_ref_equals', { value: 'ext-1' }, { external_ref_equals: 'ext-1' }],
    [
      'custom_inputs_equals',
      { value: { note: { name: 'Note', required: false } } },
      { custom_inputs_equals: { note: { name: 'Note', required: false } } },
    ],
    ['build_rules_equals', { value: { default: 'include' } }, { build_rules_equals: { default: 'include' } }],
    [
      'locales_equals',
      { value: { 'fr-FR': { name: 'Rouge' } } },
      { locales_equals: { 'fr-FR': { name: 'Rouge' } } },
    ],
  ];

  it.each(accepted)('%s is accepted with its value shape and read back', async (type, fields, entry) => {
    const created = await call(createModifier, 'POST', base, modifierBody({ type, ...fields }));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      data: {
        id: UUID,
        type: 'product-variation-modifier',
        attributes: { type, ...fields },
        meta: { owner: 'store' },
      },
    });
    const path = `${base}/${created.body.data.id}`;
    expect((await call(getModifier, 'GET', path)).body).toEqual(created.body);
    const option = await call(getOption, 'GET', `/pcm/variations/${variationId}/options/${optionId}`);
    expect(option.body.data.meta.modifiers).toContainEqual(entry);
    expect((await call(deleteModifier, 'DELETE', path)).status).toBe(204);
  });

  const refused: [string, Record<string, unknown>, string][] = [
    ['name_append', {}, 'data.attributes.value'],
    ['sku_equals', { value: { a: 1 } }, 'data.attributes.value'],
    ['sku_builder', { value: 'x' }, 'data.attributes.seek'],
    ['sku_builder', { seek: 'color', set: 'RED' }, 'data.attributes.seek'],
    ['slug_builder', { seek: '{c}', set: 'not a slug' }, 'data.attributes.set'],
    ['slug_equals', { value: 'has space' }, 'data.attributes.value'],
    ['status', { value: 'archived' }, 'data.attributes.value'],
    ['commodity_type', { value: 'service' }, 'data.attributes.value'],
    ['price', { value: '10' }, 'data.attributes.reference_name'],
    ['name_append', { value: 'x', seek: '{a}' }, 'data.attributes.seek'],
    ['locales_equals', { value: 'fr' }, 'data.attributes.value'],
  ];

  it.each(refused)('%s with %j is 422 naming %s, and nothing is created', async (type, fields, source) => {
    const response = await call(createModifier, 'POST', base, modifierBody({ type, ...fields }));
    expect(response.status).toBe(422);
    expect(response.body.errors[0]).toMatchObject({ status: '422', source });
    expect((await call(listModifiers, 'GET', base)).body.data).toEqual([]);
  });

  it('a value neither string nor object is 400 (the schema)', async () => {
    const response = await call(
      createModifier,
      'POST',
      base,
      modifierBody({ type: 'name_equals', value: 12 }),
    );
    expect(response.status).toBe(400);
    expect(response.body.errors[0].source).toBe('data.attributes.value');
  });

  it('an unknown type is 400', async () => {
    const response = await call(
      createModifier,
      'POST',
      base,
      modifierBody({ type: 'colour_equals', value: 'x' }),
    );
    expect(response.status).toBe(400);
    expect(response.body.errors[0].source).toBe('data.attributes.type');
  });

  it('PUT replaces the definition: the old value fields go', async () => {
    const created = await call(
      createModifier,
      'POST',
      base,
      modifierBody({ type: 'sku_builder', seek: '{c}', set: 'R' }),
    );
    const path = `${base}/${created.body.data.id}`;
    const updated = await call(updateModifier, 'PUT', path, {
      data: {
        type: 'product-variation-modifier',
        id: created.body.data.id,
        attributes: { type: 'sku_append', value: '-R' },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toEqual({ type: 'sku_append', value: '-R' });
    const listed = await call(listModifiers, 'GET', base);
    expect(listed.body.data).toEqual([updated.body.data]);
    await call(deleteModifier, 'DELETE', path);
  });

  it("the options list shows each option's own modifiers, in creation order", async () => {
    const variation = await newVariation('Listed');
    const [red, blue] = [await newOption(variation, 'Red'), await newOption(variation, 'Blue')];
    const under = (option: string) => `/pcm/variations/${variation}/options/${option}/modifiers`;
    for (const value of [' red', ' scarlet'])
      expect(
        (await call(createModifier, 'POST', under(red), modifierBody({ type: 'name_append', value }))).status,
      ).toBe(201);
    const listed = await call(listOptions, 'GET', `/pcm/variations/${variation}/options`);
    expect(
      listed.body.data.map((option: { id: string; meta: { modifiers: unknown[] } }) => [
        option.id,
        option.meta.modifiers,
      ]),
    ).toEqual([
      [red, [{ name_append: ' red' }, { name_append: ' scarlet' }]],
      [blue, []],
    ]);
    expect(
      (await call(listOptions, 'GET', '/pcm/variations/00000000-0000-7000-8000-000000000000/options')).status,
    ).toBe(404);
  });

  it('a modifier under a deleted option is 404 and a deleted option leaves no modifier', async () => {
    const doomed = await newOption(variationId, 'Doomed');
    const path = `/pcm/variations/${variationId}/options/${doomed}`;
    await call(createModifier, 'POST', `${path}/modifiers`, modifierBody({ type: 'status', value: 'draft' }));
    expect((await call(deleteOption, 'DELETE', path)).status).toBe(204);
    const late = await call(
      createModifier,
      'POST',
      `${path}/modifiers`,
      modifierBody({ type: 'status', value: 'live' }),
    );
    expect(late.status).toBe(404);
    const left = await queryAll({
      TableName: tableName('products'),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: {
        ':pk': `STORE#${store.store.id}`,
        ':sk': `VARIATION#${variationId}#OPTION#${doomed}`,
      },
    });
    expect(left).toEqual([]);
  });
});

describe('isolation', () => {
  it("another store's variation is 404 and an implicit token is 403", async () => {
    const variationId = await newVariation('Mine');
    const other = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    const otherToken = await tokenFor(other);
    expect(
      (await call(getVariation, 'GET', `/pcm/variations/${variationId}`, undefined, otherToken)).status,
    ).toBe(404);
    expect(
      (await call(deleteVariation, 'DELETE', `/pcm/variations/${variationId}`, undefined, otherToken)).status,
    ).toBe(404);
    const implicit = await tokenFor(store, 'implicit');
    expect(
      (await call(getVariation, 'GET', `/pcm/variations/${variationId}`, undefined, implicit)).status,
    ).toBe(403);
    expect((await call(getVariation, 'GET', `/pcm/variations/${variationId}`)).status).toBe(200);
  });
});
