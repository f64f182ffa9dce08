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

export async function startTlsFront(target: string): Promise<TlsFront> {
  const directory = mkdtempSync(join(tmpdir(), 'tls-front-'));
  const key = join(directory, 'key.pem');
  const cert = join(directory, 'cert.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) {
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`the TLS front needs the openssl CLI: ${made.error?.message ?? made.stderr}`);
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
