import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { startBenchDatabase } from '../../bench/support';
import { resetConfig } from '../../lib/config/index';
import { resetDocumentClient } from '../../lib/store/client';

/**
 * The bench's DynamoDB Local with `BENCH_DYNAMODB_DIR`: its tables in a file in a new folder there, removed
 * when it stops (a million products in memory outgrow the machine; docs/performance.md).
 */

const saved = { ...process.env };
let parent: string;

beforeAll(() => {
  parent = mkdtempSync(join(tmpdir(), 'bench-db-'));
});
afterAll(() => {
  // startBenchDatabase points this process's configuration at its database: put the suite's back.
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
  resetConfig();
  resetDocumentClient();
  rmSync(parent, { recursive: true, force: true });
});

it('keeps the tables in a file in a new folder of BENCH_DYNAMODB_DIR, and removes it when it stops', async () => {
  process.env.BENCH_DYNAMODB_DIR = parent;
  const database = await startBenchDatabase();
  const folders = readdirSync(parent);
  expect(folders).toHaveLength(1);
  const folder = join(parent, folders[0] ?? '');
  const client = new DynamoDBClient({
    endpoint: database.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const { TableNames } = await client.send(new ListTablesCommand({}));
    expect(TableNames).toEqual(expect.arrayContaining(['bench-keys', 'bench-products']));
    expect(readdirSync(folder).some((name) => name.endsWith('.db'))).toBe(true);
  } finally {
    client.destroy();
    await database.stop();
  }
  expect(existsSync(folder)).toBe(false);
}, 240_000);
