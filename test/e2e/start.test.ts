import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../local/dynamodb-local';
import { killProcessGroup } from '../support/processes';

const ROOT = join(__dirname, '../..');

/** Java processes running DynamoDB Local on the given port. */
function dynamoDbLocalOn(port: number): string[] {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar.*-port ${port}( |$)`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

describe('npm start', () => {
  let child: ChildProcess;
  let output = '';

  afterAll(() => killProcessGroup(child));

  it('starts DynamoDB Local, seeds the demo, answers as printed, and stops both processes on SIGTERM', async () => {
    const [apiPort, dbPort] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(apiPort), DYNAMODB_PORT: String(dbPort) };
    delete env.DYNAMODB_ENDPOINT;
    delete env.KEYS_TABLE;
    delete env.MAPPINGS_TABLE;
    delete env.PRODUCTS_TABLE;
    delete env.LIMITS_TABLE;
    child = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['local/start.ts', '--in-memory'], {
      cwd: ROOT,
      env,
      detached: true,
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    // A deadline to come up, not a measurement: a JVM start and the seed take over a minute at a load average of 20.
    const deadline = Date.now() + 180_000;
    while (!output.includes('Press Ctrl-C to stop.')) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`npm start did not come up:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(dynamoDbLocalOn(dbPort)).toHaveLength(1);

    // The printed export line holds every variable the docs use, and the printed catalog line works as
    // printed in a shell that ran it (BASE on this run's port).
    const exportLine = output.split('\n').find((line) => line.startsWith('export BASE=')) ?? '';
    const values = Object.fromEntries(
      exportLine
        .slice('export '.length)
        .split(' ')
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    );
    expect(values).toMatchObject({
      BASE: `http://127.0.0.1:${apiPort}`,
      STORE_ID: expect.any(String),
      CLIENT_ID: expect.any(String),
      CLIENT_SECRET: expect.any(String),
      MAPPING_ID: expect.any(String),
      PRODUCT_ID: expect.any(String),
      PORT: String(apiPort),
      DYNAMODB_PORT: String(dbPort),
    });
    const tokenResponse = await fetch(`${values.BASE}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${values.CLIENT_ID}&client_secret=${values.CLIENT_SECRET}`,
    });
    expect(tokenResponse.status).toBe(200);
    const catalogLine =
      output.split('\n').find((line) => line.trim().startsWith('curl -sg "$BASE/catalog')) ?? '';
    const printed = execFileSync('bash', ['-c', `${exportLine}\n${catalogLine}`], { encoding: 'utf8' });
    const body = JSON.parse(printed) as { data: unknown[]; meta: { results: { total: number } } };
    expect(body.meta.results.total).toBeGreaterThan(0);
    expect(body.data.length).toBeGreaterThan(0);

    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(dynamoDbLocalOn(dbPort)).toEqual([]);
  }, 240_000);

  it('with DYNAMODB_ENDPOINT set, uses that DynamoDB and puts DYNAMODB_ENDPOINT in the export line', async () => {
    const apiPort = await freePort();
    const endpoint = process.env.DYNAMODB_ENDPOINT as string;
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(apiPort), DYNAMODB_ENDPOINT: endpoint };
    delete env.DYNAMODB_PORT;
    let printed = '';
    const started = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['local/start.ts'], {
      cwd: ROOT,
      env,
      detached: true,
    });
    started.stdout?.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
    });
    started.stderr?.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
    });
    try {
      const deadline = Date.now() + 120_000;
      while (!printed.includes('Press Ctrl-C to stop.')) {
        if (Date.now() > deadline || started.exitCode !== null)
          throw new Error(`npm start did not come up:\n${printed}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const exportLine = printed.split('\n').find((line) => line.startsWith('export BASE=')) ?? '';
      expect(exportLine).toContain(` PORT=${apiPort}`);
      expect(exportLine.endsWith(` DYNAMODB_ENDPOINT=${endpoint}`)).toBe(true);
      expect(exportLine).not.toContain('DYNAMODB_PORT=');
      expect(printed).not.toContain('starting DynamoDB Local');
      const exited = new Promise<number | null>((done) => started.once('exit', (code) => done(code)));
      started.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      killProcessGroup(started);
    }
  }, 180_000);
});
