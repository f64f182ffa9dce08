import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FUNCTIONS, type FunctionName, writesTables } from '../../functions/routes';
import { callerChecks, isCallerKey, withCallerChecks } from '../../lib/store/caller-check';

const CALLER = { storeId: 's-1', keyId: 'k-1', tokenHash: 'abc123' };
const NOW_MS = Date.parse('2024-05-01T12:00:00.500Z');
const TOKEN_CHECK = {
  ConditionCheck: {
    TableName: 'test-keys',
    Key: { pk: 'TOKEN#abc123', sk: 'TOKEN' },
    ConditionExpression: 'store_id = :store AND key_id = :key AND expires_at > :now',
    ExpressionAttributeValues: { ':store': 's-1', ':key': 'k-1', ':now': 1714564800 },
  },
};
const KEY_CHECK = {
  ConditionCheck: {
    TableName: 'test-keys',
    Key: { pk: 'STORE#s-1', sk: 'KEY#k-1' },
    ConditionExpression: 'attribute_exists(pk)',
  },
};

describe('callerChecks', () => {
  it("checks the caller's unexpired token (naming its store and key) and the caller's key item", () => {
    expect(callerChecks(CALLER, false, NOW_MS)).toEqual([TOKEN_CHECK, KEY_CHECK]);
  });

  it('leaves the key check out when the transaction writes the caller key itself', () => {
    expect(callerChecks(CALLER, true, NOW_MS)).toEqual([TOKEN_CHECK]);
  });
});

describe('withCallerChecks', () => {
  const write = { Put: { TableName: 'test-keys', Item: { pk: 'X', sk: 'Y' } } };

  it('appends the checks after the write, so the write keeps its index in the cancellation reasons', () => {
    const { items, revoked } = withCallerChecks([write], CALLER);
    expect(items).toHaveLength(3);
    expect(items[0]).toBe(write);
    expect(items.slice(1).map((item) => Object.keys(item))).toEqual([['ConditionCheck'], ['ConditionCheck']]);
    expect(revoked(['None', 'ConditionalCheckFailed', 'None'])).toBe(true);
    expect(revoked(['None', 'None', 'ConditionalCheckFailed'])).toBe(true);
    // The write's own condition failing is not the caller's revocation.
    expect(revoked(['ConditionalCheckFailed', 'None', 'None'])).toBe(false);
    expect(revoked(['None', 'TransactionConflict', 'None'])).toBe(false);
  });

  it('changes nothing without a caller (tools writing directly)', () => {
    const { items, revoked } = withCallerChecks([write], undefined);
    expect(items).toEqual([write]);
    expect(revoked(['ConditionalCheckFailed'])).toBe(false);
  });
});

describe('isCallerKey', () => {
  it('is true only for the same store and key', () => {
    expect(isCallerKey(CALLER, 's-1', 'k-1')).toBe(true);
    expect(isCallerKey(CALLER, 's-2', 'k-1')).toBe(false);
    expect(isCallerKey(CALLER, 's-1', 'k-2')).toBe(false);
    expect(isCallerKey(undefined, 's-1', 'k-1')).toBe(false);
  });
});

describe('write routes', () => {
  it('run every write as the caller, so a deleted key cannot write through a cached token', () => {
    const names = Object.keys(FUNCTIONS) as FunctionName[];
    const writers = names.filter((name) => writesTables(FUNCTIONS[name]));
    expect(writers.sort()).toEqual([
      'create-access-token',
      'create-application-key',
      'create-currency',
      'create-file',
      'create-integration',
      'delete-application-key',
      'delete-currency',
      'delete-file',
      'delete-integration',
      'pcm-build-child-products',
      'pcm-cancel-job',
      'pcm-create-catalog',
      'pcm-create-catalog-rule',
      'pcm-create-document-upload',
      'pcm-create-hierarchy',
      'pcm-create-node',
      'pcm-create-node-children',
      'pcm-create-option-modifier',
      'pcm-create-price',
      'pcm-create-price-modifier',
      'pcm-create-pricebook',
      'pcm-create-product',
      'pcm-create-product-variations',
      'pcm-create-release',
      'pcm-create-variation',
      'pcm-create-variation-option',
      'pcm-delete-catalog',
      'pcm-delete-catalog-rule',
      'pcm-delete-hierarchy',
      'pcm-delete-node',
      'pcm-delete-node-parent',
      'pcm-delete-option-modifier',
      'pcm-delete-price',
      'pcm-delete-price-modifier',
      'pcm-delete-pricebook',
      'pcm-delete-product',
      'pcm-delete-product-variations',
      'pcm-delete-release',
      'pcm-delete-releases',
      'pcm-delete-variation',
      'pcm-delete-variation-option',
      'pcm-import-prices',
      'pcm-import-products',
      'pcm-put-catalog-document',
      'pcm-update-catalog',
      'pcm-update-catalog-rule',
      'pcm-update-hierarchy',
      'pcm-update-node',
      'pcm-update-option-modifier',
      'pcm-update-price',
      'pcm-update-price-modifier',
      'pcm-update-pricebook',
      'pcm-update-product',
      'pcm-update-product-variations',
      'pcm-update-variation',
      'pcm-update-variation-option',
      'pcm-write-node-parent',
      'pcm-write-node-products',
      'pcm-write-product-files',
      'pcm-write-product-main-image',
      'update-application-key',
      'update-currency',
      'update-integration',
      'update-merchant-realm-mapping',
    ]);
    for (const name of writers) {
      const source = readFileSync(join(__dirname, '../../functions', name, 'handler.ts'), 'utf8');
      // The token endpoint has no caller (no bearer token): its handler checks the client's credentials.
      if (FUNCTIONS[name].auth === 'none') continue;
      expect([name, source.includes('asWriteCaller(event,')]).toEqual([name, true]);
    }
  });
});
