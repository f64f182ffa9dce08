import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { startTlsFront, type TlsFront } from '../../bench/tls-front';

/** The cold-start bench's TLS front: a plain-HTTP endpoint reached over TLS with a certificate the env trusts. */

let upstream: Server;
let front: TlsFront;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end(`${req.method} ${req.url}`));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  front = await startTlsFront(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
});
afterAll(async () => {
  await front.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

it('passes a request over TLS, with a certificate for 127.0.0.1 that the file in its env holds', async () => {
  const url = new URL(front.endpoint);
  expect(url.protocol).toBe('https:');
  const ca = readFileSync(front.env.NODE_EXTRA_CA_CERTS ?? '', 'utf8');
  const answer = await new Promise<string>((resolve, reject) => {
    const sent = request({ host: url.hostname, port: url.port, path: '/x', method: 'POST', ca }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on('end', () => resolve(text));
    });
    sent.on('error', reject);
    sent.end('{}');
  });
  expect(answer).toBe('POST /x');
});

it("hands on its own certificate alone, whatever this process was given: measured processes carry no machine's bundle", async () => {
  const before = process.env.NODE_EXTRA_CA_CERTS;
  // The first front's file stands for a bundle the machine names in NODE_EXTRA_CA_CERTS.
  process.env.NODE_EXTRA_CA_CERTS = front.env.NODE_EXTRA_CA_CERTS ?? '';
  const second = await startTlsFront(front.endpoint);
  try {
    const handed = readFileSync(second.env.NODE_EXTRA_CA_CERTS ?? '', 'utf8');
    expect(handed.match(/BEGIN CERTIFICATE/g)?.length).toBe(1);
    expect(handed).not.toBe(readFileSync(front.env.NODE_EXTRA_CA_CERTS ?? '', 'utf8'));
  } finally {
    await second.close();
    if (before === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = before;
  }
});
