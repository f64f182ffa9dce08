import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../local/dynamodb-local';

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

  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('starts DynamoDB Local, seeds the demo, answers as printed, and stops both processes on SIGTERM', async () => {
    const [apiPort, dbPort] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(apiPort), DYNAMODB_PORT: String(dbPort) };
    delete env.DYNAMODB_ENDPOINT;
    delete env.KEYS_TABLE;
    delete env.MAPPINGS_TABLE;
    delete env.PRODUCTS_TABLE;
    delete env.LIMITS_TABLE;
    child = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['local/start.ts', '--in-memory'], { cwd: ROOT, env });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const deadline = Date.now() + 60_000;
    while (!output.includes('Press Ctrl-C to stop.')) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`npm start did not come up:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(dynamoDbLocalOn(dbPort)).toHaveLength(1);

    // The printed token request works as printed (same fields, same URL).
    const clientId = /client_id: +(\S+)/.exec(output)?.[1] ?? '';
    const clientSecret = /client_secret: +(\S+)/.exec(output)?.[1] ?? '';
    const tokenResponse = await fetch(`http://127.0.0.1:${apiPort}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${clientId}&client_secret=${clientSecret}`,
    });
    expect(tokenResponse.status).toBe(200);
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };

    // The demo catalog is published: the printed catalog line's product has live children.
    const path = /curl -sg "http:\/\/127\.0\.0\.1:\d+(\/catalog\/products\/[^"]+)"/.exec(output)?.[1] ?? '';
    const children = await fetch(`http://127.0.0.1:${apiPort}${path}`, {
      headers: { authorization: `Bearer ${token}`, 'svc-channel': 'web' },
    });
    expect(children.status).toBe(200);
    const body = (await children.json()) as { data: unknown[]; meta: { results: { total: number } } };
    expect(body.meta.results.total).toBeGreaterThan(0);
    expect(body.data.length).toBeGreaterThan(0);

    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(dynamoDbLocalOn(dbPort)).toEqual([]);
  }, 90_000);
});
