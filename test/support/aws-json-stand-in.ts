import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for an AWS JSON-protocol endpoint (SQS, Step Functions) on loopback: it records each request
 * and answers with the next of `answers` (200 and `ok` when none is left).
 */
export interface Seen {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface StandIn {
  base: string;
  seen: Seen[];
  answers: { status: number; body: string }[];
  close: () => Promise<void>;
}

export async function startStandIn(ok: string): Promise<StandIn> {
  const standIn: StandIn = { base: '', seen: [], answers: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      standIn.seen.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      const answer = standIn.answers.shift() ?? { status: 200, body: ok };
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return standIn;
}

/** The credentials the tests sign with (a session token included, as Lambda's are). */
export const STAND_IN_CREDENTIALS = async () => ({
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'secret',
  sessionToken: 'token',
});

/** A request of the JSON protocol for `target`, signed with STAND_IN_CREDENTIALS for `service` in `region`. */
export function expectSignedJson(
  request: Seen | undefined,
  target: string,
  service: string,
  region: string,
): void {
  expect(request?.headers['x-amz-target']).toBe(target);
  expect(request?.headers['content-type']).toBe('application/x-amz-json-1.0');
  expect(request?.headers['x-amz-security-token']).toBe('token');
  expect(request?.headers.authorization).toMatch(
    new RegExp(
      `^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/\\d{8}/${region}/${service}/aws4_request, SignedHeaders=.*x-amz-target.*, Signature=[0-9a-f]{64}$`,
    ),
  );
}
