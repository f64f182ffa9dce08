import { randomUUID } from 'node:crypto';
import { handler as getHandler } from '../../functions/get-merchant-realm-mapping/handler';
import { handler as updateHandler } from '../../functions/update-merchant-realm-mapping/handler';
import { mappingRepository } from '../../lib/store/mapping-repository';
import { bearer, createTestStore, invoke, type TestStore, tokenFor } from '../support/fixtures';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PREFIX_IN_USE = {
  status: '409',
  title: 'Conflict',
  detail: 'the prefix is already in use',
  source: 'data.prefix',
};

interface Actor {
  test: TestStore;
  token: string;
  mappingId: string;
}

async function newActor(): Promise<Actor> {
  const test = await createTestStore();
  return { test, token: await tokenFor(test), mappingId: test.store.mapping_id };
}

/** A prefix no other test (or earlier run on a reused database) has used. */
function uniquePrefix(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

function put(
  actor: Actor,
  body: unknown,
  options: { mappingId?: string; headers?: Record<string, string> } = {},
) {
  const mappingId = options.mappingId ?? actor.mappingId;
  return invoke(updateHandler, {
    method: 'PUT',
    path: `/v2/merchant-realm-mappings/${mappingId}`,
    routeKey: 'PUT /v2/merchant-realm-mappings/{mapping_id}',
    pathParameters: { mapping_id: mappingId },
    headers: bearer(actor.token, { 'content-type': 'application/json', ...options.headers }),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function putPrefix(actor: Actor, prefix: string, mappingId?: string) {
  return put(actor, { data: { type: 'merchant-realm-mappings', prefix } }, mappingId ? { mappingId } : {});
}

function get(token: string, mappingId?: string) {
  return invoke(getHandler, {
    method: 'GET',
    path: mappingId ? `/v2/merchant-realm-mappings/${mappingId}` : '/v2/merchant-realm-mappings',
    routeKey: mappingId ? 'GET /v2/merchant-realm-mappings/{mapping_id}' : 'GET /v2/merchant-realm-mappings',
    ...(mappingId ? { pathParameters: { mapping_id: mappingId } } : {}),
    headers: bearer(token),
  });
}

async function stored(actor: Actor) {
  const mapping = await mappingRepository.get(actor.mappingId);
  if (!mapping) throw new Error('mapping missing');
  return mapping;
}

let alice: Actor;
let bob: Actor;

beforeAll(async () => {
  [alice, bob] = await Promise.all([newActor(), newActor()]);
});

describe('GET /v2/merchant-realm-mappings', () => {
  it("returns the token's store's single mapping as an object, prefix null before it is set", async () => {
    const fresh = await newActor();
    const mapping = await stored(fresh);
    const response = await get(fresh.token);
    expect(response.status).toBe(200);
    expect(response.headers['Content-Type']).toBe('application/json');
    expect(response.body).toEqual({
      data: {
        id: fresh.mappingId,
        type: 'merchant-realm-mappings',
        prefix: null,
        realm_id: mapping.realm_id,
        store_id: fresh.test.store.id,
      },
    });
    expect(mapping.realm_id).toMatch(UUID);
  });

  it('returns the same mapping by id', async () => {
    const collection = await get(alice.token);
    const byId = await get(alice.token, alice.mappingId);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(collection.body);
  });

  it.each([
    ['another store', () => bob.mappingId],
    ['an unknown uuid', () => randomUUID()],
    ['a non-uuid', () => 'not-a-mapping'],
  ])("answers 404 for %s's id", async (_label, id) => {
    const response = await get(alice.token, id());
    expect(response.status).toBe(404);
    expect(response.body.errors).toEqual([
      expect.objectContaining({
        status: '404',
        title: 'Not Found',
        detail: 'The requested resource could not be found',
      }),
    ]);
  });

  it('needs a valid admin token', async () => {
    expect((await get('x'.repeat(40))).status).toBe(401);
    const implicit = await tokenFor(alice.test, 'implicit');
    const forbidden = await get(implicit);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.errors[0]).toMatchObject({ status: '403', title: 'Forbidden' });
  });
});

describe('PUT /v2/merchant-realm-mappings/{mapping_id}', () => {
  it('sets the prefix, reserves it and shows it on GET', async () => {
    const actor = await newActor();
    const before = await stored(actor);
    const prefix = uniquePrefix('My-Shop');
    const response = await putPrefix(actor, prefix);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: {
        id: actor.mappingId,
        type: 'merchant-realm-mappings',
        prefix,
        realm_id: before.realm_id,
        store_id: actor.test.store.id,
      },
    });
    expect(await stored(actor)).toEqual({ ...before, prefix, version: 1 });
    expect(await mappingRepository.getReservation(prefix.toUpperCase())).toMatchObject({
      prefix,
      mapping_id: actor.mappingId,
      store_id: actor.test.store.id,
    });
    expect((await get(actor.token)).body).toEqual(response.body);
  });

  it('treats the exact same prefix again as a 200 that writes nothing', async () => {
    const actor = await newActor();
    const prefix = uniquePrefix('same');
    await putPrefix(actor, prefix);
    const reservation = await mappingRepository.getReservation(prefix);
    const again = await putPrefix(actor, prefix);
    expect(again.status).toBe(200);
    expect(again.body.data.prefix).toBe(prefix);
    expect((await stored(actor)).version).toBe(1);
    expect(await mappingRepository.getReservation(prefix)).toEqual(reservation);
  });

  it('changes only the case of its own prefix (same reservation key)', async () => {
    const actor = await newActor();
    const lower = uniquePrefix('shop');
    const upper = `Shop${lower.slice(4)}`;
    expect((await putPrefix(actor, upper)).status).toBe(200);
    const response = await putPrefix(actor, lower);
    expect(response.status).toBe(200);
    expect(response.body.data.prefix).toBe(lower);
    expect(await stored(actor)).toMatchObject({ prefix: lower, version: 2 });
    expect(await mappingRepository.getReservation(upper)).toMatchObject({
      prefix: lower,
      mapping_id: actor.mappingId,
    });
  });

  it('answers 409 when another mapping holds the prefix in any case, and changes nothing', async () => {
    const [holder, claimant] = await Promise.all([newActor(), newActor()]);
    const prefix = uniquePrefix('taken');
    const mine = uniquePrefix('mine');
    await putPrefix(holder, prefix);
    await putPrefix(claimant, mine);
    for (const attempt of [prefix, prefix.toUpperCase(), `T${prefix.slice(1)}`]) {
      const response = await putPrefix(claimant, attempt);
      expect(response.status).toBe(409);
      expect(response.body.errors).toEqual([{ ...PREFIX_IN_USE, request_id: expect.any(String) }]);
    }
    expect(await stored(holder)).toMatchObject({ prefix, version: 1 });
    expect(await stored(claimant)).toMatchObject({ prefix: mine, version: 1 });
    expect(await mappingRepository.getReservation(prefix)).toMatchObject({
      prefix,
      mapping_id: holder.mappingId,
    });
    expect(await mappingRepository.getReservation(mine)).toMatchObject({
      prefix: mine,
      mapping_id: claimant.mappingId,
    });
  });

  it('releases the old prefix in the same step, so another store can claim it right after', async () => {
    const [first, second] = await Promise.all([newActor(), newActor()]);
    const released = uniquePrefix('released');
    const next = uniquePrefix('next');
    await putPrefix(first, released);
    expect((await putPrefix(first, next)).status).toBe(200);
    expect(await mappingRepository.getReservation(released)).toBeUndefined();
    const claimed = await putPrefix(second, released.toUpperCase());
    expect(claimed.status).toBe(200);
    expect(claimed.body.data).toMatchObject({ id: second.mappingId, prefix: released.toUpperCase() });
    expect(await mappingRepository.getReservation(released)).toMatchObject({ mapping_id: second.mappingId });
    expect(await mappingRepository.getReservation(next)).toMatchObject({ mapping_id: first.mappingId });
  });

  it("answers 404 for another store's mapping id or an unknown one, and changes nothing", async () => {
    const before = await stored(bob);
    for (const id of [bob.mappingId, randomUUID(), 'nope']) {
      const response = await putPrefix(alice, uniquePrefix('elsewhere'), id);
      expect(response.status).toBe(404);
      expect(response.body.errors[0]).toMatchObject({ status: '404', title: 'Not Found' });
    }
    expect(await stored(bob)).toEqual(before);
  });

  it('ignores read-only fields in the body', async () => {
    const actor = await newActor();
    const before = await stored(actor);
    const prefix = uniquePrefix('readonly');
    const response = await put(actor, {
      data: {
        type: 'merchant-realm-mappings',
        prefix,
        id: bob.mappingId,
        realm_id: randomUUID(),
        store_id: bob.test.store.id,
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      id: actor.mappingId,
      type: 'merchant-realm-mappings',
      prefix,
      realm_id: before.realm_id,
      store_id: actor.test.store.id,
    });
  });

  it.each([
    ['an empty body', 'body', ''],
    ['a JSON array', 'body', '[]'],
    ['no data', 'data', '{"prefix":"shop"}'],
    ['data as a string', 'data', '{"data":"x"}'],
    ['a missing type', 'data.type', '{"data":{"prefix":"shop-x1"}}'],
    ['a wrong type', 'data.type', '{"data":{"type":"stores","prefix":"shop-x1"}}'],
    ['a missing prefix', 'data.prefix', '{"data":{"type":"merchant-realm-mappings"}}'],
    ['a numeric prefix', 'data.prefix', '{"data":{"type":"merchant-realm-mappings","prefix":42}}'],
    ['a null prefix', 'data.prefix', '{"data":{"type":"merchant-realm-mappings","prefix":null}}'],
    ['a one-character prefix', 'data.prefix', '{"data":{"type":"merchant-realm-mappings","prefix":"a"}}'],
    ['a prefix ending in -', 'data.prefix', '{"data":{"type":"merchant-realm-mappings","prefix":"shop-"}}'],
    [
      'a prefix with a space',
      'data.prefix',
      '{"data":{"type":"merchant-realm-mappings","prefix":"my shop"}}',
    ],
    [
      'a 64-character prefix',
      'data.prefix',
      `{"data":{"type":"merchant-realm-mappings","prefix":"${'a'.repeat(64)}"}}`,
    ],
    ['malformed JSON', 'body', '{"data":'],
  ])('answers 400 for %s, naming %s, and changes nothing', async (_label, source, body) => {
    const before = await stored(alice);
    const response = await put(alice, body);
    expect(response.status).toBe(400);
    expect(response.headers['Content-Type']).toBe('application/json');
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0]).toMatchObject({ status: '400', title: 'Bad Request', source });
    expect(await stored(alice)).toEqual(before);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const response = await put(alice, 'data[prefix]=shop', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
    expect(response.body.errors[0]).toMatchObject({
      status: '415',
      detail: 'Content-Type must be application/json',
      source: 'content-type',
    });
  });

  it('needs a valid admin token', async () => {
    const unauthorized = await invoke(updateHandler, {
      method: 'PUT',
      path: `/v2/merchant-realm-mappings/${alice.mappingId}`,
      pathParameters: { mapping_id: alice.mappingId },
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: { type: 'merchant-realm-mappings', prefix: 'no-token' } }),
    });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.body.errors[0]).toMatchObject({ detail: 'Unable to validate access token' });
    const implicit = { ...alice, token: await tokenFor(alice.test, 'implicit') };
    expect((await putPrefix(implicit, uniquePrefix('implicit'))).status).toBe(403);
  });
});

describe('mappingRepository.changePrefix', () => {
  it('reports a stale read instead of overwriting a newer version', async () => {
    const actor = await newActor();
    const read = await stored(actor);
    const first = uniquePrefix('first');
    expect(await mappingRepository.changePrefix(read, first)).toBe('changed');
    expect(await mappingRepository.changePrefix(read, uniquePrefix('second'))).toBe('stale');
    expect(await stored(actor)).toMatchObject({ prefix: first, version: 1 });
  });

  it('reports a prefix another mapping holds', async () => {
    const [holder, other] = await Promise.all([newActor(), newActor()]);
    const prefix = uniquePrefix('held');
    await putPrefix(holder, prefix);
    expect(await mappingRepository.changePrefix(await stored(other), prefix.toUpperCase())).toBe(
      'prefix-taken',
    );
    expect(await stored(other)).toMatchObject({ prefix: null, version: 0 });
  });
});
