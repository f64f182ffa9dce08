import type { Agent } from 'node:http';

/** Node's HTTP client for one protocol, with a keep-alive agent of its own. */
export interface KeepAliveTransport {
  request: typeof import('node:http').request;
  agent: Agent;
}

/**
 * `node:https` (or `node:http`, for a plain-HTTP endpoint such as DynamoDB Local or the local object store)
 * with a keep-alive agent of its own, loaded when first asked for: the object store's client
 * (lib/store/s3-http.ts) sends over it; AWS's JSON APIs go over lib/store/http1.ts. Free sockets of the
 * agent never keep a process alive.
 */
export async function keepAliveTransport(protocol: string): Promise<KeepAliveTransport> {
  const mod = protocol === 'https:' ? await import('node:https') : await import('node:http');
  return {
    request: mod.request as KeepAliveTransport['request'],
    agent: new mod.Agent({ keepAlive: true, maxSockets: 64 }) as Agent,
  };
}
