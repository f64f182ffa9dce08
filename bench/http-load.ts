import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { quantile, round } from './support';

export interface LoadFigures {
  connections: number;
  p50_ms: number;
  p99_ms: number;
  rps: number;
}

/**
 * `connections` keep-alive connections, each sending the next GET as soon as the last answer ended,
 * for `durationMs`; every latency timed with `performance.now()` (autocannon reports whole
 * milliseconds, too coarse for a warm request under 1 ms). Rejects on a non-2xx answer or an error.
 */
export async function loadAt(
  url: string,
  headers: Record<string, string>,
  connections: number,
  durationMs: number,
): Promise<LoadFigures> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  const once = () =>
    new Promise<void>((done, fail) => {
      const start = performance.now();
      const req = request(url, { agent, headers }, (res) => {
        res.on('data', () => undefined);
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 300) fail(new Error(`answered ${res.statusCode}`));
          else {
            latencies.push(performance.now() - start);
            done();
          }
        });
      });
      req.on('error', fail);
      req.end();
    });
  const connection = async () => {
    while (performance.now() < deadline) await once();
  };
  try {
    await Promise.all(Array.from({ length: connections }, connection));
  } finally {
    agent.destroy();
  }
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return {
    connections,
    p50_ms: round(quantile(latencies, 0.5), 3),
    p99_ms: round(quantile(latencies, 0.99), 3),
    rps: round((latencies.length / elapsed) * 1000, 0),
  };
}
