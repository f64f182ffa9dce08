import { randomUUID } from 'node:crypto';
import { handler as createCatalog } from '../../functions/pcm-create-catalog/handler';
import { handler as createPrice } from '../../functions/pcm-create-price/handler';
import { handler as createProduct } from '../../functions/pcm-create-product/handler';
import { handler as linkVariations } from '../../functions/pcm-create-product-variations/handler';
import { handler as createRelease } from '../../functions/pcm-create-release/handler';
import { handler as updatePrice } from '../../functions/pcm-update-price/handler';
import { handler as updateProduct } from '../../functions/pcm-update-product/handler';
import { handler as writeNodeProducts } from '../../functions/pcm-write-node-products/handler';
import { runChildProductsBuild } from '../../lib/builds/build';
import { readLines, readText } from '../../lib/catalog/pipeline/codec';
import { authoredDocument } from '../../lib/catalog/pipeline/export';
import {
  type ExportTrailer,
  indexWriter,
  LineChannel,
  readFamilies,
} from '../../lib/catalog/pipeline/export-index';
import { besideExport, exportObjects, writeExport } from '../../lib/catalog/pipeline/export-splice';
import { runWorkflowLocally } from '../../lib/catalog/pipeline/run-local';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import * as steps from '../../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../../lib/catalog/pipeline/workflow';
import { resetConfig } from '../../lib/config/index';
import { catalogChangeRepository } from '../../lib/store/catalog-change-repository';
import { getDocumentClient } from '../../lib/store/client';
import { PutCommand, TransactWriteCommand } from '../../lib/store/dynamodb';
import { objectStore } from '../../lib/store/object-store';
import { type PcmRelease, pcmRepository } from '../../lib/store/pcm-repository';
import { tableName } from '../../lib/store/schema';
import { adminOfNewStore } from '../support/catalog-fixtures';
import { invoke } from '../support/fixtures';
import { recordObjectOrder, recordOperationOrder } from '../support/operation-order';
import { newPcmHierarchy, newPcmNode, newPricebook, newVariationWithOptions } from '../support/pcm-fixtures';

/**
 * Exporting only what changed (docs/publishing.md): an authored release's Export takes the release before's
 * document and writes again only the families the store's change log names; the document it writes is,
 * byte for byte, the one a whole export writes at the same moment. Whatever the log cannot bound is a
 * whole export, and says why.
 */

jest.setTimeout(120_000);

// Each test writes and publishes at once: the change log is read from the release before's export on.
beforeAll(() => {
  process.env.EXPORT_CHANGE_MARGIN_SECONDS = '0';
  resetConfig();
});
afterAll(() => {
  delete process.env.EXPORT_CHANGE_MARGIN_SECONDS;
  resetConfig();
});

const runs: Promise<unknown>[] = [];
/** The file's workflow: run in this process, each run kept in `runs` for a publish to wait on. */
function runKept(input: ReleaseExecutionInput): Promise<unknown> {
  const run = runWorkflowLocally(input);
  runs.push(run);
  return run;
}
beforeAll(() => {
  registerLocalWorkflow(runKept);
});

type AnyHandler = Parameters<typeof invoke>[0];

async function authoredCatalog() {
  const { storeId, headers } = await adminOfNewStore();
  const call = async (
    handler: AnyHandler,
    method: 'POST' | 'PUT',
    path: string,
    pathParameters: Record<string, string>,
    body: unknown,
  ) => {
    const response = await invoke(handler, {
      method,
      path,
      pathParameters,
      headers,
      body: JSON.stringify(body),
    });
    expect([response.status, response.body?.errors]).toEqual([expect.any(Number), undefined]);
    return response.body?.data;
  };
  const hierarchyId = await newPcmHierarchy(storeId, 'Apparel');
  const shirts = await newPcmNode(storeId, hierarchyId, 'Shirts');
  const hats = await newPcmNode(storeId, hierarchyId, 'Hats');
  const book = await newPricebook(storeId, 'Retail');

  const product = async (name: string, sku: string, attributes: Record<string, unknown> = {}) =>
    (
      await call(
        createProduct,
        'POST',
        '/pcm/products',
        {},
        {
          data: {
            type: 'product',
            attributes: {
              name,
              sku,
              slug: sku.toLowerCase(),
              status: 'live',
              commodity_type: 'physical',
              ...attributes,
            },
          },
        },
      )
    ).id as string;
  const attach = (nodeId: string, ...ids: string[]) =>
    call(
      writeNodeProducts,
      'POST',
      `/pcm/hierarchies/${hierarchyId}/nodes/${nodeId}/relationships/products`,
      { hierarchy_id: hierarchyId, node_id: nodeId },
      { data: ids.map((id) => ({ type: 'product', id })) },
    );
  const price = async (sku: string, amount: number) =>
    (
      await call(
        createPrice,
        'POST',
        `/pcm/pricebooks/${book}/prices`,
        { pricebook_id: book },
        {
          data: {
            type: 'product-price',
            attributes: { sku, currencies: { USD: { amount, includes_tax: false } } },
          },
        },
      )
    ).id as string;

  const tee = await product('Tee', 'TEE');
  const cap = await product('Cap', 'CAP');
  const sock = await product('Sock', 'SOCK');
  const draft = await product('Draft', 'DRAFT', { status: 'draft' });
  const loose = await product('Loose', 'LOOSE');
  const bundle = await product('Kit', 'KIT', {
    components: { main: { name: 'Main', options: [{ id: loose, type: 'product', quantity: 1 }] } },
  });
  const colour = await newVariationWithOptions(storeId, 'Colour', ['Red', 'Blue']);
  await call(
    linkVariations,
    'POST',
    `/pcm/products/${tee}/relationships/variations`,
    { product_id: tee },
    { data: [{ type: 'product-variation', id: colour.variationId }] },
  );
  await runChildProductsBuild({ storeId, productId: tee, jobId: 'test' });
  await attach(shirts, tee, sock, draft, bundle);
  await attach(hats, cap);
  const prices = {
    tee: await price('TEE', 2000),
    cap: await price('CAP', 1500),
    sock: await price('SOCK', 500),
  };
  await price('LOOSE', 300);

  const catalog = await call(
    createCatalog,
    'POST',
    '/pcm/catalogs',
    {},
    {
      data: {
        type: 'catalog',
        attributes: { name: 'Authored', hierarchy_ids: [hierarchyId], pricebook_id: book },
      },
    },
  );
  const catalogId = catalog.id as string;

  const publish = async (body: unknown = {}): Promise<PcmRelease> => {
    runs.length = 0;
    const created = await invoke(createRelease, {
      method: 'POST',
      path: `/pcm/catalogs/${catalogId}/releases`,
      pathParameters: { catalog_id: catalogId },
      headers,
      body: JSON.stringify(body),
    });
    expect(created.status).toBe(201);
    await Promise.all(runs);
    const release = await pcmRepository.getRelease(storeId, catalogId, created.body.data.id);
    expect(release?.state).toBe('PUBLISHED');
    return release as PcmRelease;
  };
  /** The document the release kept, and the one a whole export writes for the same release now. */
  const documents = async (release: PcmRelease) => {
    const kept = await readText(
      objectStore.read(exportObjects.document(storeId, catalogId, release.release_id)),
    );
    let whole = '';
    const channel = new LineChannel();
    const index = indexWriter(channel);
    for await (const piece of authoredDocument(
      storeId,
      { id: catalogId, name: release.name, sources: release.authored as NonNullable<PcmRelease['authored']> },
      new Date(release.created_at),
      index,
    ))
      whole += piece;
    index.finish({ at: 0, started_at: 0, sources: { hierarchy_ids: [], pricebook_ids: [] } });
    let wholeIndex = '';
    for await (const piece of channel) wholeIndex += piece;
    const keptIndex = await readText(
      objectStore.read(exportObjects.index(storeId, catalogId, release.release_id)),
    );
    return { kept, whole, index: { kept: keptIndex, whole: wholeIndex } };
  };
  return {
    storeId,
    headers,
    catalogId,
    call,
    attach,
    price,
    publish,
    documents,
    book,
    hierarchyId,
    prices,
    shirts,
    ids: { tee, cap, sock, draft, loose, bundle },
  };
}

describe('a whole export', () => {
  it("sends the hierarchy's nodes and the first page of its attached products with its first reads", async () => {
    const c = await authoredCatalog();
    const { order, stop } = recordOperationOrder();
    let document = '';
    try {
      for await (const piece of authoredDocument(
        c.storeId,
        {
          id: randomUUID(),
          name: 'Whole',
          sources: { hierarchy_ids: [c.hierarchyId], pricebook_ids: [c.book] },
        },
        new Date(),
      ))
        document += piece;
    } finally {
      stop();
    }
    // Before any read answered: the book's and the hierarchy's GetItems, and four Queries (the currencies,
    // the book's modifiers, the hierarchy's nodes, its attached products).
    const firstAnswer = order.findIndex((step) => step.endsWith('answered'));
    const sent = order.slice(0, firstAnswer);
    expect(sent.filter((step) => step === 'Query sent')).toHaveLength(4);
    expect(sent.filter((step) => step === 'GetItem sent')).toHaveLength(2);
    const parsed = JSON.parse(document) as { nodes: unknown[]; products: { id: string }[] };
    expect(parsed.nodes).toHaveLength(3);
    expect(parsed.products.map((product) => product.id)).toEqual(
      expect.arrayContaining([c.ids.tee, c.ids.cap]),
    );
  });
});

describe("what the release records of its export goes beside the export's trailer", () => {
  it('starts it before the trailer has answered, and answers once both have settled', async () => {
    const c = await authoredCatalog();
    const documentKey = `test/${randomUUID()}/authored.json`;
    const { trailer } = besideExport(documentKey);
    const events: string[] = [];
    const put = objectStore.put.bind(objectStore);
    const spy = jest.spyOn(objectStore, 'put').mockImplementation(async (key, body, options) => {
      await put(key, body, options);
      if (key === trailer) events.push('trailer answered');
    });
    const source = {
      storeId: c.storeId,
      catalog: {
        id: randomUUID(),
        name: 'Beside',
        sources: { hierarchy_ids: [c.hierarchyId], pricebook_ids: [c.book] },
      },
      at: new Date(),
      startedAt: Date.now(),
    };
    try {
      const written = await writeExport(documentKey, source, { whole: 'asked for' }, async (what) => {
        events.push(`beside ${what.why}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        events.push('beside settled');
      });
      expect(written).toEqual({ spliced: false, why: 'asked for' });
      expect(events).toEqual(['beside asked for', 'trailer answered', 'beside settled']);
      // A failure beside it fails the export, once the trailer is written.
      await expect(
        writeExport(documentKey, source, { whole: 'again' }, async () => {
          throw new Error('the record was refused');
        }),
      ).rejects.toThrow('the record was refused');
    } finally {
      spy.mockRestore();
      await objectStore.deletePrefix(`test/${documentKey.split('/')[1]}/`);
    }
  });
});

describe('an authored release exports only what changed since the release before', () => {
  it('splices the changed families in place and writes what a whole export writes', async () => {
    const c = await authoredCatalog();
    const first = await c.publish();
    expect(first.export).toEqual({ spliced: false, why: 'the catalog has no release before this one' });
    expect(first.total_products).toBe(7);
    expect([first.validation, first.planning]).toEqual([undefined, undefined]);

    // Nothing changed: the release before's document, spliced with nothing, checked and planned as it was.
    const same = await c.publish();
    expect(same.export).toEqual({ spliced: true, changed_products: 0, families: 0 });
    expect(same.validation).toEqual({ spliced: true, families: 0 });
    expect(same.planning).toEqual({ spliced: true, ranges_read: 0 });
    const unchanged = await c.documents(same);
    expect(unchanged.kept).toBe(unchanged.whole);
    // The index too: composed from the release before's, it is the one a whole export writes.
    expect(unchanged.index.kept).toBe(unchanged.index.whole);

    // One price: one family (the cap's) written again.
    await c.call(
      updatePrice,
      'PUT',
      `/pcm/pricebooks/${c.book}/prices/${c.prices.cap}`,
      { pricebook_id: c.book, price_id: c.prices.cap },
      {
        data: {
          type: 'product-price',
          id: c.prices.cap,
          attributes: { currencies: { USD: { amount: 1700, includes_tax: false } } },
        },
      },
    );
    const priced = await c.publish();
    expect(priced.export).toEqual({ spliced: true, changed_products: 1, families: 1 });
    // Validated by the family written again, planned from the release before's plan.
    expect(priced.validation).toEqual({ spliced: true, families: 1 });
    expect(priced.planning).toEqual({ spliced: true, ranges_read: 1 });
    const afterPrice = await c.documents(priced);
    expect(afterPrice.kept).toBe(afterPrice.whole);
    expect(afterPrice.kept).toContain('"amount":1700');

    // A child's name and the bundle component's description (a product outside the hierarchies).
    const teeChild = JSON.parse(afterPrice.kept).products.find(
      (p: { attributes: { base_product_id?: string } }) => p.attributes.base_product_id === c.ids.tee,
    ).id as string;
    await c.call(
      updateProduct,
      'PUT',
      `/pcm/products/${teeChild}`,
      { product_id: teeChild },
      {
        data: { type: 'product', id: teeChild, attributes: { name: 'Tee, renamed child' } },
      },
    );
    await c.call(
      updateProduct,
      'PUT',
      `/pcm/products/${c.ids.loose}`,
      { product_id: c.ids.loose },
      {
        data: {
          type: 'product',
          id: c.ids.loose,
          attributes: { description: 'Now described, and longer than before' },
        },
      },
    );
    const edited = await c.publish();
    expect(edited.export).toEqual({ spliced: true, changed_products: 2, families: 2 });
    // A rename keeps the child's slug (its own): what other products are checked against is the same.
    expect([edited.validation, edited.planning]).toEqual([
      { spliced: true, families: 2 },
      { spliced: true, ranges_read: 1 },
    ]);
    const afterEdit = await c.documents(edited);
    expect(afterEdit.kept).toBe(afterEdit.whole);
    expect(afterEdit.index.kept).toBe(afterEdit.index.whole);
    expect(afterEdit.kept).toContain('Tee, renamed child');
  });

  it('exports the whole catalog when a node changes, an attached product stops being live, or it is asked', async () => {
    const c = await authoredCatalog();
    await c.publish();
    // Another hierarchy's nodes are not the catalog's: still spliced.
    const other = await newPcmHierarchy(c.storeId, 'Elsewhere');
    await newPcmNode(c.storeId, other, 'Not published here');
    const elsewhere = await c.publish();
    expect(elsewhere.export).toMatchObject({ spliced: true });
    await c.attach(c.shirts, c.ids.cap);
    const attached = await c.publish();
    expect(attached.export).toEqual({
      spliced: false,
      why: "a node of the catalog's hierarchies, or what is attached to one, changed",
    });
    const afterAttach = await c.documents(attached);
    expect(afterAttach.kept).toBe(afterAttach.whole);

    await c.call(
      updateProduct,
      'PUT',
      `/pcm/products/${c.ids.sock}`,
      { product_id: c.ids.sock },
      {
        data: { type: 'product', id: c.ids.sock, attributes: { status: 'draft' } },
      },
    );
    const drafted = await c.publish();
    expect(drafted.export).toEqual({
      spliced: false,
      why: 'a product attached to the catalog went live or stopped being live',
    });
    expect(drafted.total_products).toBe(6);

    const asked = await c.publish({ export_full_delta: true });
    expect(asked.export).toMatchObject({ spliced: false, why: expect.stringContaining('asked') });
  });

  it('a sale that starts between two releases makes the later one a whole export', async () => {
    const c = await authoredCatalog();
    // Far enough ahead that the first release is created before it, whatever the machine's speed.
    const startsAt = Date.now() + 5000;
    const sale = {
      schedule: { valid_from: new Date(startsAt).toISOString(), valid_to: '2099-01-01T00:00:00Z' },
      currencies: { USD: { amount: 250, includes_tax: false } },
    };
    await c.call(
      updatePrice,
      'PUT',
      `/pcm/pricebooks/${c.book}/prices/${c.prices.sock}`,
      { pricebook_id: c.book, price_id: c.prices.sock },
      { data: { type: 'product-price', id: c.prices.sock, attributes: { sales: { later: sale } } } },
    );
    const before = await c.publish();
    expect(Date.parse(before.created_at)).toBeLessThan(startsAt);
    const sockOf = (document: string) =>
      JSON.parse(document).products.find((p: { id: string }) => p.id === c.ids.sock);
    expect(sockOf((await c.documents(before)).kept).sale).toBeUndefined();
    // The release keeps when its first sale boundary comes: the next export compares its own time with it.
    const trailer = JSON.parse(
      await readText(
        objectStore.read(exportObjects.trailer(c.storeId, before.catalog_id, before.release_id)),
      ),
    );
    expect(trailer.next_boundary).toBe(startsAt);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, startsAt - Date.now() + 50)));
    const started = await c.publish();
    expect(started.export).toEqual({
      spliced: false,
      why: 'a sale started or ended since the release before',
    });
    const { kept, whole } = await c.documents(started);
    expect(kept).toBe(whole);
    expect(JSON.parse(kept).products.find((p: { id: string }) => p.id === c.ids.sock).sale).toMatchObject({
      id: 'later',
    });
  });

  it('exports whole when the release before kept no export, or its export goes while it is read', async () => {
    const c = await authoredCatalog();
    const first = await c.publish();
    const kept = (key: typeof exportObjects.index) => key(c.storeId, first.catalog_id, first.release_id);
    // The index gone (as when the release before is deleted and its objects swept mid-read): whole.
    await objectStore.deletePrefix(kept(exportObjects.index));
    const second = await c.publish();
    expect(second.export).toEqual({
      spliced: false,
      why: "the release before's export was deleted while it was read",
    });
    const afterIndex = await c.documents(second);
    expect(afterIndex.kept).toBe(afterIndex.whole);
    // The trailer gone: nothing to build on.
    await objectStore.deletePrefix(exportObjects.trailer(c.storeId, second.catalog_id, second.release_id));
    const third = await c.publish();
    expect(third.export).toEqual({ spliced: false, why: 'the release before kept no export' });
  });

  it('builds on an index of offsets, as releases exported before indexes gave lengths kept it', async () => {
    const c = await authoredCatalog();
    const first = await c.publish();
    const keys = {
      index: exportObjects.index(c.storeId, first.catalog_id, first.release_id),
      trailer: exportObjects.trailer(c.storeId, first.catalog_id, first.release_id),
    };
    // The first release's index and trailer as an export before wrote them: offsets, no format.
    const {
      index_format: _format,
      products: _products,
      ...trailer
    } = JSON.parse(await readText(objectStore.read(keys.trailer))) as ExportTrailer;
    const current = JSON.parse(await readText(objectStore.read(keys.trailer))) as ExportTrailer;
    const lines: string[] = [];
    for await (const family of readFamilies(readLines(objectStore.read(keys.index)), current))
      lines.push(`${family.offset} ${family.length} ${family.extra ? 'e' : 'a'} ${family.ids.join(' ')}\n`);
    expect(lines.length).toBeGreaterThan(3);
    await objectStore.put(keys.index, lines.join(''));
    await objectStore.put(keys.trailer, JSON.stringify(trailer));

    await c.call(
      updatePrice,
      'PUT',
      `/pcm/pricebooks/${c.book}/prices/${c.prices.sock}`,
      { pricebook_id: c.book, price_id: c.prices.sock },
      {
        data: {
          type: 'product-price',
          id: c.prices.sock,
          attributes: { currencies: { USD: { amount: 650, includes_tax: false } } },
        },
      },
    );
    const priced = await c.publish();
    expect(priced.export).toEqual({ spliced: true, changed_products: 1, families: 1 });
    const after = await c.documents(priced);
    expect(after.kept).toBe(after.whole);
    // Written with lengths, as a whole export writes it; and the next release builds on that.
    expect(after.index.kept).toBe(after.index.whole);
    const again = await c.publish();
    expect(again.export).toMatchObject({ spliced: true });
    expect((await c.documents(again)).index.kept).toBe(after.index.whole);
  });

  it('a draft product attached to the hierarchies that goes live makes a whole export', async () => {
    const c = await authoredCatalog();
    await c.publish();
    await c.call(
      updateProduct,
      'PUT',
      `/pcm/products/${c.ids.draft}`,
      { product_id: c.ids.draft },
      {
        data: { type: 'product', id: c.ids.draft, attributes: { status: 'live' } },
      },
    );
    const live = await c.publish();
    expect(live.export).toEqual({
      spliced: false,
      why: "a product attached to the catalog's hierarchies went live",
    });
    expect(live.total_products).toBe(8);
  });
});

describe('the client writes the change log with each write', () => {
  it('in the same transaction (a cancelled one logs nothing), and before a single write', async () => {
    const store = `log-${randomUUID()}`;
    const since = () => catalogChangeRepository.since(store, tableName('products'), Date.now() - 60_000);
    await expect(
      getDocumentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName('products'), Item: { pk: `STORE#${store}`, sk: 'PRODUCT#p2' } } },
            {
              ConditionCheck: {
                TableName: tableName('products'),
                Key: { pk: `STORE#${store}`, sk: 'PRODUCT#missing' },
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
          ],
        }),
      ),
    ).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(await since()).toEqual({
      products: new Set(),
      skus: new Set(),
      hierarchies: new Set(),
      structure: false,
    });

    await getDocumentClient().send(
      new PutCommand({ TableName: tableName('products'), Item: { pk: `STORE#${store}`, sk: 'PRODUCT#p1' } }),
    );
    await getDocumentClient().send(
      new PutCommand({ TableName: tableName('products'), Item: { pk: `STORE#${store}`, sk: 'NODE#h#n' } }),
    );
    expect(await since()).toEqual({
      products: new Set(['p1']),
      skus: new Set(),
      hierarchies: new Set(['h']),
      structure: false,
    });
    await getDocumentClient().send(
      new PutCommand({ TableName: tableName('products'), Item: { pk: `STORE#${store}`, sk: 'VARIATION#v' } }),
    );
    expect((await since()).structure).toBe(true);
  });
});

describe("Validate and Plan take Export's word on what it wrote", () => {
  /** Runs `work` with the store's DynamoDB requests and the bucket's reads and writes in one order. */
  async function ordered<T>(work: () => Promise<T>, names: Record<string, string>) {
    const { order, stop } = recordOperationOrder();
    const objects = recordObjectOrder(order, names);
    try {
      return { result: await work(), order };
    } finally {
      stop();
      objects();
    }
  }
  const precedes = (order: string[], first: string, second: string) => {
    expect([first, order.indexOf(first)]).not.toEqual([first, -1]);
    expect([first, second, order.indexOf(first) < order.indexOf(second)]).toEqual([first, second, true]);
  };

  /** The catalog's next release as its execution starts it, its workflow not run. */
  async function nextRelease(c: Awaited<ReturnType<typeof authoredCatalog>>) {
    const { catalogId } = c;
    let captured: ReleaseExecutionInput | undefined;
    registerLocalWorkflow(async (input) => {
      captured = input;
    });
    try {
      const created = await invoke(createRelease, {
        method: 'POST',
        path: `/pcm/catalogs/${catalogId}/releases`,
        pathParameters: { catalog_id: catalogId },
        headers: c.headers,
        body: '{}',
      });
      expect(created.status).toBe(201);
    } finally {
      registerLocalWorkflow(runKept);
    }
    return captured as ReleaseExecutionInput;
  }

  it('a whole export: the document is read beside the first reads, with no facts looked for', async () => {
    const c = await authoredCatalog();
    const input = await nextRelease(c);
    const exported = await steps.exportStep(input);
    expect(exported).toEqual({ ...input, valid: true, splice_base: null });
    const names = {
      [input.document_key]: 'document',
      [steps.workKeys.splice(input)]: 'facts',
      [steps.workKeys.plan(input)]: 'plan',
    };

    const validate = await ordered(() => steps.validateStep(exported), names);
    expect(validate.result.valid).toBe(true);
    precedes(validate.order, 'read document', 'UpdateItem answered');
    expect(validate.order).not.toContain('read facts');

    const plan = await ordered(() => steps.planStep(validate.result), names);
    precedes(plan.order, 'read document', 'GetItem answered');
    expect(plan.order).not.toContain('read facts');
    // The release's progress goes beside the plan's objects, not after them.
    precedes(plan.order, 'UpdateItem sent', 'put answered plan');
  });

  it('a spliced export: the kept plan of the release it names is read beside the facts', async () => {
    const c = await authoredCatalog();
    const first = await c.publish();
    const input = await nextRelease(c);
    const exported = await steps.exportStep(input);
    expect(exported).toEqual({ ...input, valid: true, splice_base: first.release_id });
    const base = { ...input, release_id: first.release_id };
    const names = {
      [input.document_key]: 'document',
      [steps.workKeys.splice(input)]: 'facts',
      [steps.workKeys.planMeta(base)]: 'kept meta',
      [steps.workKeys.plan(base)]: 'kept plan',
    };

    const validate = await ordered(() => steps.validateStep(exported), names);
    expect(validate.result.valid).toBe(true);
    precedes(validate.order, 'read facts', 'UpdateItem answered');
    precedes(validate.order, 'read kept meta', 'UpdateItem answered');
    const plan = await ordered(() => steps.planStep(validate.result), names);
    precedes(plan.order, 'read kept plan', 'GetItem answered');
    const release = await pcmRepository.getRelease(c.storeId, c.catalogId, input.release_id);
    expect([release?.validation, release?.planning]).toEqual([
      { spliced: true, families: 0 },
      { spliced: true, ranges_read: 0 },
    ]);

    // A word that names another release than the facts do, or none (an execution whose Export did not
    // say): the facts decide, read first, and the release is still checked and planned by them.
    const other = await ordered(() => steps.validateStep({ ...exported, splice_base: randomUUID() }), names);
    expect(other.result.valid).toBe(true);
    precedes(other.order, 'read facts', 'read kept meta');
    const unsaid = await ordered(() => steps.planStep({ ...input }), names);
    precedes(unsaid.order, 'read facts', 'read kept plan');
    const again = await pcmRepository.getRelease(c.storeId, c.catalogId, input.release_id);
    expect([again?.validation, again?.planning]).toEqual([
      { spliced: true, families: 0 },
      { spliced: true, ranges_read: 0 },
    ]);
  });
});
