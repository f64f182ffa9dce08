import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:tls';

/**
 * A TLS front for a plain-HTTP endpoint on this machine (DynamoDB Local), so fresh processes reach it over
 * TLS as a Lambda reaches DynamoDB: `https://127.0.0.1:PORT`, with a self-signed certificate for
 * 127.0.0.1 that the processes trust through `NODE_EXTRA_CA_CERTS` (`env`: the one certificate). Made with
 * the `openssl` CLI. With that variable set, node builds its store of root certificates (parsing the 140-odd
 * it bundles, and the file's) as it starts, where a Lambda builds it at its first TLS connection: the cost
 * lands in another phase, in the wall time all the same. The `node -e 0` beside such a process is started
 * without `env`, so the wall time over it counts that store, as a Lambda's first request does.
 */
export interface TlsFront {
  endpoint: string;
  /** What a process needs to trust the front. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** Runs the `openssl` CLI in `dir`; throws with what it printed when it fails (or is missing). */
export function openssl(dir: string, args: string[]): void {
  const made = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl ${args[0]}: ${made.error?.message ?? made.stderr}`);
}

/** `openssl req` options for a new P-256 key, unencrypted, written to `<name>.key`. */
export function newKeyOptions(name: string): string[] {
  return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`];
}

/**
 * A self-signed certificate for `subject` (`/O=…/CN=…`), valid for a day, with a new key: `<name>.key` and
 * `<name>.pem` in `dir`; `options` go to `openssl req` as they are (`-addext`, `-extensions`, `-utf8`).
 * Returns the certificate's PEM.
 */
export function selfSignedCertificate(
  dir: string,
  name: string,
  subject: string,
  options: string[] = [],
): string {
  openssl(dir, [
    'req',
    '-x509',
    ...newKeyOptions(name),
    ...options,
    '-subj',
    subject,
    '-days',
    '1',
    '-out',
    `${name}.pem`,
  ]);
  return readFileSync(join(dir, `${name}.pem`), 'utf8');
}

export async function startTlsFront(target: string): Promise<TlsFront> {
  const directory = mkdtempSync(join(tmpdir(), 'tls-front-'));
  const key = join(directory, 'front.key');
  const cert = join(directory, 'front.pem');
  try {
    selfSignedCertificate(directory, 'front', '/CN=127.0.0.1', ['-addext', 'subjectAltName=IP:127.0.0.1']);
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`the TLS front needs the openssl CLI: ${(error as Error).message}`);
  }
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (client) => {
    const up = connect(Number(upstream.port), upstream.hostname);
    for (const socket of [client, up]) {
      // Without it the handshake's small writes wait on delayed acknowledgements (40 ms each here).
      socket.setNoDelay(true);
      socket.on('error', () => undefined);
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(up);
    up.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `https://127.0.0.1:${port}`,
    env: { NODE_EXTRA_CA_CERTS: cert },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
