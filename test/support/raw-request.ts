import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, unknown>;
  /** The response body as text (UTF-8). */
  text: string;
}

/**
 * A request to a local server on 127.0.0.1 as written, for what fetch will not send: a Host header of
 * the test's choosing, a body of bytes that are not UTF-8.
 */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}
