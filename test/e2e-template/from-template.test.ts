import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DELIVERY_WORKER } from '../../functions/integrations';
import { JOB_WORKER } from '../../functions/jobs';
import { FUNCTIONS, ROUTES } from '../../functions/routes';
import { WORKFLOW_STEPS } from '../../functions/workflow';
import { TABLE_ENV } from '../../infra/api-function';
import { getConfig } from '../../lib/config/index';
import { freePort } from '../../local/dynamodb-local';
import { CDK_OUT, localTables } from '../../local/from-template';
import { readTemplateApi } from '../../local/template/template';
import { runCli } from '../support/cli';
import { createTestStore } from '../support/fixtures';
import { killProcessGroup } from '../support/processes';

const ROOT = join(__dirname, '../..');

describe('the synthesized template', () => {
  const api = readTemplateApi(CDK_OUT, localTables(getConfig()));

  it('routes exactly the route table, each route to its function', () => {
    const fromTemplate = api.routes.map((r) => `${r.method} ${r.path} -> ${r.function}`).sort();
    expect(fromTemplate).toEqual(ROUTES.map((r) => `${r.method} ${r.path} -> ${r.function}`).sort());
  });

  it('gives each function the table variables of its grants, resolved to the local tables, and its bundle', () => {
    const config = getConfig();
    const local = {
      keys: config.keysTable,
      mappings: config.mappingsTable,
      products: config.productsTable,
      limits: config.limitsTable,
    };
    // The API's functions, the publishing workflow's steps, the jobs queue's worker and the deliveries'.
    const all = [
      ...Object.entries(FUNCTIONS),
      ...Object.entries(WORKFLOW_STEPS),
      [JOB_WORKER.name, JOB_WORKER],
      [DELIVERY_WORKER.name, DELIVERY_WORKER],
    ] as const;
    expect([...api.functions.keys()].sort()).toEqual(all.map(([name]) => name).sort());
    for (const [name, definition] of all) {
      const fn = api.functions.get(name);
      const expected: Record<string, string> = {};
      for (const role of Object.keys(definition.tables) as (keyof typeof local)[])
        expected[TABLE_ENV[role]] = local[role];
      expect(fn?.environment).toMatchObject(expected);
      expect(fn?.handler).toBe('index.handler');
      expect(fn?.codeDir.startsWith(CDK_OUT)).toBe(true);
    }
  });
});

describe('npm run invoke -- --from-template', () => {
  it('runs the bundled function with the template’s environment, logs on stderr and the result on stdout', async () => {
    const store = await createTestStore();
    const made = runCli(
      'event',
      'POST',
      '/oauth/access_token',
      '--body',
      JSON.stringify({ grant_type: 'implicit', client_id: store.clientId }),
    );
    const file = join(mkdtempSync(join(tmpdir(), 'invoke-template-')), 'event.json');
    writeFileSync(file, made.stdout);
    const run = runCli('invoke', 'create-access-token', '--from-template', '--event', file);
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ token_type: 'Bearer', identifier: 'implicit' });
    expect(run.stderr).toContain('"message":"request completed"');
  }, 60_000);
});

describe('npm start -- --from-template', () => {
  let child: ChildProcess | undefined;
  afterAll(() => killProcessGroup(child));

  it('serves the demo from the bundles in cdk.out and stops on SIGTERM', async () => {
    const [apiPort, dbPort] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(apiPort), DYNAMODB_PORT: String(dbPort) };
    for (const name of ['DYNAMODB_ENDPOINT', 'KEYS_TABLE', 'MAPPINGS_TABLE', 'PRODUCTS_TABLE'])
      delete env[name];
    const started = spawn(
      join(ROOT, 'node_modules/.bin/tsx'),
      ['local/start.ts', '--from-template', '--in-memory'],
      { cwd: ROOT, env, detached: true },
    );
    child = started;
    let output = '';
    started.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    started.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const deadline = Date.now() + 180_000;
    while (!output.includes('Press Ctrl-C to stop.')) {
      if (Date.now() > deadline || started.exitCode !== null) throw new Error(`did not come up:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(output).toMatch(
      new RegExp(
        `Serving: from the template .*CommerceApi\\.template\\.json: ${ROUTES.length} routes, ${Object.keys(FUNCTIONS).length + Object.keys(WORKFLOW_STEPS).length + [JOB_WORKER, DELIVERY_WORKER].length} bundled functions`,
      ),
    );
    const clientId = /CLIENT_ID=(\S+)/.exec(output)?.[1] ?? '';
    const response = await fetch(`http://127.0.0.1:${apiPort}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=implicit&client_id=${clientId}`,
    });
    expect(response.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${apiPort}/docs`)).status).toBe(404);
    const exited = new Promise<number | null>((done) => started.once('exit', (code) => done(code)));
    started.kill('SIGTERM');
    expect({ code: await exited, output: output.slice(-600) }).toEqual({
      code: 0,
      output: expect.any(String),
    });
  }, 240_000);
});
