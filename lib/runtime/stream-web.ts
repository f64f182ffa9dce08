/**
 * Stands in for `node:stream/web` in the Lambda bundles only (an esbuild alias in infra/bundling.ts).
 * `@middy/core` imports `ReadableStream` from it for one check, in the streamed-response mode, which no
 * function uses; importing the module loads node's web streams (seven internal modules) at every cold
 * start: 1.4-1.6 ms of a function's import (docs/performance.md). This class defers that load to its first
 * use: `instanceof` and `new` reach the real `ReadableStream` (a global, loaded on first access).
 */
export class ReadableStream {
  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof globalThis.ReadableStream;
  }

  constructor(...args: ConstructorParameters<typeof globalThis.ReadableStream>) {
    // biome-ignore lint/correctness/noConstructorReturn: the real stream is what the caller gets
    return new globalThis.ReadableStream(...args);
  }
}
