import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a webhook endpoint received. */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/** How the listener answers its next request: a status (with a body), or no answer at all. */
export type Answer = { status: number; body?: string } | 'hang';

/**
 * A webhook endpoint on 127.0.0.1 for tests: records every request, answers each with the next of `answers`
 * (then 200). `close` ends it, hanging requests included.
 */
export async function startWebhookListener(answers: Answer[] = []): Promise<{
  url: string;
  port: number;
  received: ReceivedWebhook[];
  answers: Answer[];
  close(): Promise<void>;
}> {
  const received: ReceivedWebhook[] = [];
  const queue = [...answers];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        body: text === '' ? undefined : JSON.parse(text),
      });
      const answer = queue.shift() ?? { status: 200, body: '{"ok":true}' };
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    answers: queue,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits until `done()` holds, polling every 20 ms; throws after `timeoutMs`. */
export async function waitUntil(
  done: () => boolean,
  timeoutMs = 15_000,
  what = 'the condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
