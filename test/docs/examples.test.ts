import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchWriteItemCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { resetConfig } from '../../lib/config/index';
import { resetDocumentClient } from '../../lib/store/client';
import { TABLE_KEY, TABLE_ROLES, tableName } from '../../lib/store/schema';
import { freePort } from '../../local/dynamodb-local';
import { seedDemo } from '../../local/seed';
import {
  type DocBlock,
  extractBlocks,
  failedCheck,
  parseExportLine,
  type Segment,
  type SegmentResult,
  segmentResults,
  shellScript,
  silentJsPart,
  splitSegments,
} from '../support/doc-examples';

/**
 * Every sh and js block of README.md and docs/*.md, run as written against `npm start`'s demo with the
 * variables of the export line it prints. The pages run one after the other against the same database,
 * as a reader goes through them (README, every page, then README again), with no reset between them
 * but their own: each page's first example is `npm run -s admin -- reset-demo`. The convention (check
 * lines, the not-run mark) is in docs/writing-docs.md.
 */

const ROOT = join(__dirname, '../..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const PAGE_TIMEOUT_MS = 240_000;
/** `DOCS_PAGES=docs/a.md,README.md npx jest --selectProjects docs` runs only those pages. */
const ONLY = process.env.DOCS_PAGES?.split(',').filter(Boolean);

/** What a reader's terminal has: no test configuration, no npm-provided PATH entries. */
function readerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const dropped =
    /^(npm_|DYNAMODB_|KEYS_TABLE$|MAPPINGS_TABLE$|PRODUCTS_TABLE$|LOG_LEVEL$|POWERTOOLS_|PORT$|RELEASE_CACHE|AUTH_CACHE|TOKEN_TTL|JEST_|E2E_)/;
  for (const [name, value] of Object.entries(process.env)) if (!dropped.test(name)) env[name] = value;
  env.PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((entry) => !entry.includes('node_modules/.bin'))
    .join(':');
  return env;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program with the input on stdin, killing its process group after the timeout. */
function run(command: string, args: string[], input: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${PAGE_TIMEOUT_MS / 1000} s)`;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, PAGE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

let server: ChildProcess;
let serverOutput = '';
let exportLine = '';
let databaseEndpoint = '';

/** Empties the tables of `npm start`'s database and seeds the demo again (before the first page). */
async function freshDemo(): Promise<void> {
  const client = new DynamoDBClient({
    endpoint: databaseEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    for (const role of TABLE_ROLES) {
      const table = tableName(role);
      let start: Record<string, never> | undefined;
      do {
        const page = await client.send(
          new ScanCommand({
            TableName: table,
            ProjectionExpression: '#pk, #sk',
            ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey, '#sk': TABLE_KEY.sortKey },
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        const keys = page.Items ?? [];
        for (let i = 0; i < keys.length; i += 25) {
          await client.send(
            new BatchWriteItemCommand({
              RequestItems: { [table]: keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } })) },
            }),
          );
        }
        start = page.LastEvaluatedKey as typeof start;
      } while (start);
    }
  } finally {
    client.destroy();
  }
  await seedDemo();
}

beforeAll(async () => {
  const [apiPort, dbPort] = [await freePort(), await freePort()];
  // As a reader runs it, on ports of its own; the release cache is off so that each page's fresh demo
  // catalog is served at once (it would otherwise be picked up within RELEASE_CACHE_SECONDS).
  const env = {
    ...readerEnv(),
    PORT: String(apiPort),
    DYNAMODB_PORT: String(dbPort),
    RELEASE_CACHE_SECONDS: '0',
  };
  server = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['local/start.ts', '--in-memory'], { cwd: ROOT, env });
  server.stdout?.on('data', (chunk: Buffer) => {
    serverOutput += chunk.toString();
  });
  server.stderr?.on('data', (chunk: Buffer) => {
    serverOutput += chunk.toString();
  });
  const deadline = Date.now() + 150_000;
  while (!serverOutput.includes('Press Ctrl-C to stop.')) {
    if (Date.now() > deadline || server.exitCode !== null)
      throw new Error(`npm start did not come up:\n${serverOutput}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  exportLine = serverOutput.split('\n').find((line) => line.startsWith('export BASE=')) ?? '';
  databaseEndpoint = `http://127.0.0.1:${dbPort}`;
  // This process reseeds the same tables between pages (the library's defaults, as npm start uses).
  Object.assign(process.env, { DYNAMODB_ENDPOINT: databaseEndpoint });
  for (const name of ['KEYS_TABLE', 'MAPPINGS_TABLE', 'PRODUCTS_TABLE']) delete process.env[name];
  resetConfig();
  resetDocumentClient();
  await freshDemo();
}, 180_000);

afterAll(async () => {
  resetDocumentClient();
  if (server.exitCode !== null) return;
  const exited = new Promise((done) => server.once('exit', done));
  server.kill('SIGTERM');
  await exited;
});

const pages = PAGES.map((file) => ({ file, ...extractBlocks(file, readFileSync(join(ROOT, file), 'utf8')) }));
/** The first example of every page that has examples: where the page starts from. */
const RESET = 'npm run -s admin -- reset-demo';

describe('documentation examples', () => {
  it('npm start prints one export line with every variable the examples use', () => {
    const values = parseExportLine(exportLine);
    expect(Object.keys(values)).toEqual(
      expect.arrayContaining([
        'BASE',
        'STORE_ID',
        'CLIENT_ID',
        'CLIENT_SECRET',
        'STOREFRONT_CLIENT_ID',
        'MAPPING_ID',
        'PRODUCT_ID',
      ]),
    );
  });

  it('every sh and js block follows the convention: runs, or says why not; says what it prints', () => {
    expect(pages.flatMap((page) => page.problems)).toEqual([]);
    expect(pages.flatMap((page) => page.blocks).filter((block) => !block.skip).length).toBeGreaterThanOrEqual(
      15,
    );
  });

  it('every page with examples starts them from the demo as npm start seeds it (reset-demo first)', () => {
    const withExamples = pages.filter((page) => page.blocks.some((block) => !block.skip));
    expect(withExamples.map((page) => page.file)).toContain('README.md');
    const firstLines = withExamples.map((page) => [
      page.file,
      page.blocks.find((block) => !block.skip)?.source.split('\n')[0],
    ]);
    expect(firstLines).toEqual(withExamples.map((page) => [page.file, RESET]));
  });

  // In order, against one database: README, every page, then README again (a reader who comes back).
  const readme = pages.find((page) => page.file === 'README.md');
  it.each(
    [...pages, ...(readme ? [{ ...readme, file: 'README.md (again)' }] : [])]
      .filter(
        (page) =>
          (!ONLY || ONLY.includes(page.file.replace(' (again)', ''))) &&
          page.blocks.some((block) => !block.skip),
      )
      .map((page) => [page.file, page.blocks]),
  )(
    '%s: every example runs and prints what the page says',
    async (_file, blocks) => {
      const env = readerEnv();
      const variables = parseExportLine(exportLine);
      const segments = (blocks as DocBlock[]).flatMap((block, index) =>
        block.skip ? [] : splitSegments(block, index),
      );
      const session = await run('bash', [], shellScript(exportLine, segments), env);
      const results = segmentResults(session.stdout, session.stderr);
      const failures: string[] = [];
      let stopped = false;
      for (const segment of segments) {
        const where = `${segment.block.file}:${segment.line}`;
        const result = results.get(segment.id);
        if (!result) {
          // The session stopped (a command failed, or the page timed out): say where, once.
          if (!stopped)
            failures.push(
              `${where}: the run stopped before this line (exit ${session.code}); stderr:\n${tail(session.stderr)}`,
            );
          stopped = true;
          continue;
        }
        failures.push(...check(segment, result, { ...env, ...variables }));
      }
      expect(failures).toEqual([]);
    },
    PAGE_TIMEOUT_MS + 30_000,
  );
});

/** The failures of one segment, naming the page line and showing what the segment printed. */
function check(segment: Segment, result: SegmentResult, env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  if (result.exit !== 0 && !segment.checks.some((each) => each.kind === 'exit')) {
    problems.push(`exit ${result.exit}`);
  }
  for (const each of segment.checks) {
    const failure = failedCheck(each, result, segment.block.lang, env);
    if (failure) problems.push(`${each.raw}: ${failure}`);
  }
  const silent = silentJsPart(segment.block.lang, result);
  if (silent) problems.push(silent);
  // The SDK's own log when it has no token yet: an example shows the clean way (Authenticate() first).
  if (`${result.stdout}${result.stderr}`.includes('Token status:'))
    problems.push('the SDK logged "Token status:"');
  if (problems.length === 0) return [];
  return [
    `${segment.block.file}:${segment.line}: ${problems.join('; ')}\n--- stdout:\n${tail(result.stdout)}\n--- stderr:\n${tail(result.stderr)}`,
  ];
}

function tail(text: string): string {
  return text.length > 1500 ? `...${text.slice(-1500)}` : text;
}
