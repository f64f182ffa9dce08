import { changeItems } from '../../lib/store/catalog-changes';
import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '../../lib/store/dynamodb';

/**
 * The catalog change log's classification (lib/store/catalog-changes.ts): what each write of the products
 * table tells an authored export about what changed.
 */

describe('the change log names what a write touched', () => {
  const table = 'products-table';
  it('products, built children, skus by their claim hash, hierarchies by id; everything else of a store as structure', () => {
    const kinds = (command: Parameters<typeof changeItems>[0]) =>
      changeItems(command, table, Date.UTC(2026, 0, 1)).map((item) => [item.kind, item.id]);
    expect(kinds(new PutCommand({ TableName: table, Item: { pk: 'STORE#s1', sk: 'PRODUCT#p1' } }))).toEqual([
      ['product', 'p1'],
    ]);
    expect(
      kinds(
        new UpdateCommand({
          TableName: table,
          Key: { pk: 'STORE#s1', sk: 'PCHILD#p2#o1+o2' },
          UpdateExpression: 'x',
        }),
      ),
    ).toEqual([['product', 'p2']]);
    expect(
      kinds(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table, Item: { pk: 'PRICES#s1#b1', sk: 'PRICE#x', sku: 'AbC' } } },
            { Delete: { TableName: table, Key: { pk: 'PRICES#s1#b1', sk: 'PRICE_SKU#h1' } } },
            { Put: { TableName: table, Item: { pk: 'PSKU#s1#h2', sk: 'CLAIM' } } },
            { Put: { TableName: 'other', Item: { pk: 'STORE#s1', sk: 'NODE#h#n' } } },
          ],
        }),
      ),
    ).toEqual([
      ['sku', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
      ['sku', 'h1'],
    ]);
    // A hierarchy's own writes name the hierarchy: only catalogs publishing it export whole.
    for (const sk of ['HIERARCHY#h1', 'NODE#h1#n', 'NODEPROD#h1#n#seq', 'PRODNODE#p1#h1#n'])
      expect(kinds(new PutCommand({ TableName: table, Item: { pk: 'STORE#s1', sk } }))).toEqual([
        ['hierarchy', 'h1'],
      ]);
    expect(kinds(new PutCommand({ TableName: table, Item: { pk: 'STORE#s1', sk: 'VARIATION#v1' } }))).toEqual(
      [['structure', '']],
    );
    expect(kinds(new PutCommand({ TableName: table, Item: { pk: 'NEWKIND#s1#x', sk: 'A' } }))).toEqual([
      ['structure', ''],
    ]);
    for (const ignored of [
      { pk: 'REL#r1#3', sk: 'P#p1' },
      { pk: 'STORE#s1', sk: 'PCM#c1' },
      { pk: 'STORE#s1', sk: 'JOB#j1' },
      { pk: 'STORE#s1', sk: 'FILE_COUNT' },
      { pk: 'INTEGRATION_LOGS#s1#i1', sk: 'LOG#1' },
      { pk: 'PCHANGE#s1#2026-01-01T00#0', sk: 'x' },
    ])
      expect(kinds(new PutCommand({ TableName: table, Item: ignored }))).toEqual([]);
    // A price deleted by key alone names its sku only through its claim: without one, structure.
    expect(
      kinds(
        new TransactWriteCommand({
          TransactItems: [{ Delete: { TableName: table, Key: { pk: 'PRICES#s1#b1', sk: 'PRICE#x' } } }],
        }),
      ),
    ).toEqual([['structure', '']]);
  });
});

describe('the log items of a write', () => {
  it('one per store and thing touched, in the hour partition of the write, expiring two days on', () => {
    const now = Date.UTC(2026, 10, 27, 18, 5, 0);
    const items = changeItems(
      new BatchWriteCommand({
        RequestItems: {
          products: [
            { PutRequest: { Item: { pk: 'STORE#s1', sk: 'PRODUCT#p1' } } },
            { DeleteRequest: { Key: { pk: 'STORE#s1', sk: 'PRODUCT#p1' } } },
            { PutRequest: { Item: { pk: 'STORE#s2', sk: 'PRODUCT#p1' } } },
          ],
        },
      }),
      'products',
      now,
    );
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({
      pk: expect.stringMatching(/^PCHANGE#s1#2026-11-27T18#[0-3]$/),
      sk: expect.stringMatching(/^2026-11-27T18:05:00\.000Z#[0-9a-f-]{36}$/),
      kind: 'product',
      id: 'p1',
      ttl: now / 1000 + 2 * 24 * 3600,
    });
    expect(items[1]?.pk).toMatch(/^PCHANGE#s2#/);
    // Reads write nothing.
    expect(
      changeItems(
        new GetCommand({ TableName: 'products', Key: { pk: 'STORE#s1', sk: 'PRODUCT#p1' } }),
        'products',
      ),
    ).toEqual([]);
  });
});
