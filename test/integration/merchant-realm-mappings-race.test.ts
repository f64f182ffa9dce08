import { randomUUID } from 'node:crypto';
import { handler as updateHandler } from '../../functions/update-merchant-realm-mapping/handler';
import { getDocumentClient } from '../../lib/store/client';
import { type MappingRecord, mappingRepository } from '../../lib/store/mapping-repository';
import { type ConflictEmulator, emulateConflicts } from '../support/faults';
import { bearer, createTestStore, type InvokeResult, invoke, tokenFor } from '../support/fixtures';

// DynamoDB's transaction conflicts, which DynamoDB Local never shows: concurrent writes must still end
// in a success or a clean 4xx.
let conflicts: ConflictEmulator;
beforeAll(() => {
  conflicts = emulateConflicts(getDocumentClient());
});
afterAll(() => conflicts.remove());

const STORES = 5;
const REQUESTS = 50;

interface Actor {
  storeId: string;
  mappingId: string;
  token: string;
}

async function newActors(count: number): Promise<Actor[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const test = await createTestStore();
      return { storeId: test.store.id, mappingId: test.store.mapping_id, token: await tokenFor(test) };
    }),
  );
}

function putPrefix(actor: Actor, prefix: string): Promise<InvokeResult> {
  return invoke(updateHandler, {
    method: 'PUT',
    path: `/v2/merchant-realm-mappings/${actor.mappingId}`,
    routeKey: 'PUT /v2/merchant-realm-mappings/{mapping_id}',
    pathParameters: { mapping_id: actor.mappingId },
    headers: bearer(actor.token, { 'content-type': 'application/json' }),
    body: JSON.stringify({ data: { type: 'merchant-realm-mappings', prefix } }),
  });
}

/** The same prefix in three spellings, so the race also exercises the case-insensitive comparison. */
function spelling(base: string, variant: number): string {
  if (variant === 0) return base;
  if (variant === 1) return base.toUpperCase();
  return `${base.charAt(0).toUpperCase()}${base.slice(1)}`;
}

async function storedMapping(actor: Actor): Promise<MappingRecord> {
  const mapping = await mappingRepository.get(actor.mappingId);
  if (!mapping) throw new Error(`mapping ${actor.mappingId} missing`);
  return mapping;
}

describe('PUT /v2/merchant-realm-mappings/{mapping_id} under concurrency', () => {
  it.each([1, 2, 3])(
    'round %i: 50 concurrent PUTs from 5 stores over 3 prefixes leave every prefix with at most one holder and no orphans',
    async () => {
      const actors = await newActors(STORES);
      const tag = randomUUID().slice(0, 8);
      const bases = [`race-${tag}-a`, `race-${tag}-b`, `race-${tag}-c`];
      const requests = Array.from({ length: REQUESTS }, (_, i) => {
        const actor = actors[i % STORES] as Actor;
        const prefix = spelling(bases[(i * 7 + Math.floor(i / STORES)) % bases.length] as string, i % 3);
        return { actor, prefix };
      });

      const responses = await Promise.all(requests.map(({ actor, prefix }) => putPrefix(actor, prefix)));

      const mappings = await Promise.all(actors.map(storedMapping));
      const reservations = await Promise.all(bases.map((base) => mappingRepository.getReservation(base)));

      // Every response is a 200 or a 409 with one of the two documented reasons.
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status !== 200 && status !== 409)).toEqual([]);
      for (const response of responses.filter((r) => r.status === 409)) {
        expect(['the prefix is already in use', 'write conflict, please retry']).toContain(
          response.body.errors[0].detail,
        );
      }
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);

      // Every prefix has at most one holder, compared case-insensitively.
      for (const base of bases) {
        const holders = mappings.filter((mapping) => mapping.prefix?.toLowerCase() === base);
        expect(holders.length).toBeLessThanOrEqual(1);
      }

      // Every held prefix is reserved for its holder, in the holder's spelling ...
      for (const mapping of mappings.filter((m) => m.prefix !== null)) {
        const reservation = reservations[bases.indexOf(mapping.prefix?.toLowerCase() as string)];
        expect(reservation).toEqual({
          prefix: mapping.prefix,
          mapping_id: mapping.id,
          store_id: mapping.store_id,
          claimed_at: expect.any(String),
        });
      }
      // ... and every reservation belongs to a mapping that holds it (no orphans).
      reservations.forEach((reservation, index) => {
        if (!reservation) return;
        const holder = mappings.find((mapping) => mapping.id === reservation.mapping_id);
        expect(holder?.prefix?.toLowerCase()).toBe(bases[index]);
      });

      // Every 200 shows the store's own mapping with the prefix it asked for, and each store ends on
      // one of the prefixes it was told it got (or untouched when it got none).
      actors.forEach((actor, index) => {
        const mapping = mappings[index] as MappingRecord;
        const granted = responses
          .map((response, i) => ({ response, request: requests[i] }))
          .filter(({ response, request }) => response.status === 200 && request?.actor === actor);
        for (const { response, request } of granted) {
          expect(response.body).toEqual({
            data: {
              id: actor.mappingId,
              type: 'merchant-realm-mappings',
              prefix: request?.prefix,
              realm_id: mapping.realm_id,
              store_id: actor.storeId,
            },
          });
        }
        if (granted.length === 0) {
          expect(mapping).toMatchObject({ prefix: null, version: 0 });
        } else {
          expect(granted.map(({ request }) => request?.prefix)).toContain(mapping.prefix);
          expect(mapping.version).toBeGreaterThanOrEqual(1);
          expect(mapping.version).toBeLessThanOrEqual(granted.length);
        }
      });
    },
    60_000,
  );

  it('leaves no orphaned reservation when one store races itself over prefixes it never returns to', async () => {
    const [actor] = (await newActors(1)) as [Actor];
    const tag = randomUUID().slice(0, 8);
    const prefixes = Array.from({ length: 12 }, (_, i) => `solo-${tag}-${i}`);

    const responses = await Promise.all(prefixes.map((prefix) => putPrefix(actor, prefix)));

    const mapping = await storedMapping(actor);
    const reservations = await Promise.all(
      prefixes.map((prefix) => mappingRepository.getReservation(prefix)),
    );
    const granted = prefixes.filter((_, i) => responses[i]?.status === 200);
    expect(responses.map((r) => r.status).filter((status) => status !== 200 && status !== 409)).toEqual([]);
    expect(granted).toContain(mapping.prefix);
    // A lost update would leave the prefix of an overwritten change reserved for nobody's use.
    expect(reservations.filter((reservation) => reservation !== undefined)).toEqual([
      {
        prefix: mapping.prefix,
        mapping_id: actor.mappingId,
        store_id: actor.storeId,
        claimed_at: expect.any(String),
      },
    ]);
    expect(mapping.version).toBe(granted.length);
  });

  it('lets another store claim a prefix the moment its holder moves off it, even when both race', async () => {
    const [holder, claimant] = (await newActors(2)) as [Actor, Actor];
    const tag = randomUUID().slice(0, 8);
    const contested = `moved-${tag}`;
    expect((await putPrefix(holder, contested)).status).toBe(200);
    expect((await putPrefix(claimant, contested)).status).toBe(409);

    expect((await putPrefix(holder, `elsewhere-${tag}`)).status).toBe(200);
    const claimed = await putPrefix(claimant, contested.toUpperCase());
    expect(claimed.status).toBe(200);
    expect(claimed.body.data).toMatchObject({ id: claimant.mappingId, prefix: contested.toUpperCase() });

    // The old holder now races to take it back while the new holder moves away: whoever wins, the
    // prefix ends with exactly the mapping the reservation names.
    const [back, away] = await Promise.all([
      putPrefix(holder, contested),
      putPrefix(claimant, `away-${tag}`),
    ]);
    expect(away.status).toBe(200);
    expect([200, 409]).toContain(back.status);
    const reservation = await mappingRepository.getReservation(contested);
    const [holderNow, claimantNow] = await Promise.all([storedMapping(holder), storedMapping(claimant)]);
    expect(claimantNow.prefix).toBe(`away-${tag}`);
    if (back.status === 200) {
      expect(holderNow.prefix).toBe(contested);
      expect(reservation).toMatchObject({ prefix: contested, mapping_id: holder.mappingId });
    } else {
      expect(holderNow.prefix).toBe(`elsewhere-${tag}`);
      expect(reservation).toBeUndefined();
    }
  });
});
