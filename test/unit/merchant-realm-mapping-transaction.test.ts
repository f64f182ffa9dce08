import {
  type MappingRecord,
  prefixChangeItems,
  prefixChangeOutcome,
} from '../../lib/store/mapping-repository';

const NOW = new Date('2024-05-01T12:00:00.000Z');
const mapping = (prefix: string | null, version = 3): MappingRecord => ({
  id: 'm-1',
  store_id: 's-1',
  realm_id: 'r-1',
  prefix,
  version,
});

describe('prefixChangeItems', () => {
  it('updates the mapping on the version read, claims the new prefix and releases the old one', () => {
    expect(prefixChangeItems(mapping('Old-Shop'), 'New-Shop', NOW)).toEqual([
      {
        Update: {
          TableName: 'test-mappings',
          Key: { pk: 'MAPPING#m-1', sk: 'MAPPING' },
          UpdateExpression: 'SET prefix = :prefix, version = :next',
          ConditionExpression: 'version = :read',
          ExpressionAttributeValues: { ':prefix': 'New-Shop', ':read': 3, ':next': 4 },
        },
      },
      {
        Put: {
          TableName: 'test-mappings',
          Item: {
            pk: 'PREFIX#new-shop',
            sk: 'PREFIX',
            prefix: 'New-Shop',
            mapping_id: 'm-1',
            store_id: 's-1',
            claimed_at: '2024-05-01T12:00:00.000Z',
          },
          ConditionExpression: 'attribute_not_exists(pk) OR mapping_id = :mapping',
          ExpressionAttributeValues: { ':mapping': 'm-1' },
        },
      },
      {
        Delete: {
          TableName: 'test-mappings',
          Key: { pk: 'PREFIX#old-shop', sk: 'PREFIX' },
          ConditionExpression: 'attribute_not_exists(pk) OR mapping_id = :mapping',
          ExpressionAttributeValues: { ':mapping': 'm-1' },
        },
      },
    ]);
  });

  it('releases nothing the first time a prefix is set', () => {
    const items = prefixChangeItems(mapping(null, 0), 'shop', NOW);
    expect(items).toHaveLength(2);
    expect(items[0]?.Update?.ExpressionAttributeValues).toEqual({
      ':prefix': 'shop',
      ':read': 0,
      ':next': 1,
    });
    expect(items[1]?.Put?.Item?.pk).toBe('PREFIX#shop');
  });

  it('rewrites the same reservation on a case-only change instead of claiming and releasing one key', () => {
    const items = prefixChangeItems(mapping('Shop'), 'shop', NOW);
    expect(items.map((item) => Object.keys(item)[0])).toEqual(['Update', 'Put']);
    expect(items[1]?.Put?.Item).toMatchObject({ pk: 'PREFIX#shop', prefix: 'shop', mapping_id: 'm-1' });
  });
});

describe('prefixChangeOutcome', () => {
  it.each([
    [['ConditionalCheckFailed', 'None', 'None'], 'stale'],
    [['ConditionalCheckFailed', 'ConditionalCheckFailed', 'None'], 'stale'],
    [['None', 'ConditionalCheckFailed', 'None'], 'prefix-taken'],
    [['None', 'ConditionalCheckFailed'], 'prefix-taken'],
    [['None', 'None', 'ConditionalCheckFailed'], 'stale'],
    [['TransactionConflict', 'None', 'None'], 'contended'],
    [['None', 'TransactionConflict'], 'contended'],
    [['None', 'ThrottlingError', 'None'], 'throttled'],
    [['ProvisionedThroughputExceeded', 'None'], 'throttled'],
  ])('maps %p to %p', (codes, outcome) => {
    expect(prefixChangeOutcome(codes)).toBe(outcome);
  });

  it('does not claim to understand other reasons', () => {
    expect(prefixChangeOutcome(['ValidationError', 'None'])).toBeUndefined();
    expect(prefixChangeOutcome(['None', 'None'])).toBeUndefined();
  });
});
