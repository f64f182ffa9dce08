/**
 * Milliseconds on a monotonic clock (since the process started), for durations in log lines. Not the
 * `performance` global: its first access loads node's `perf_hooks` (eleven internal modules), which nothing
 * else a function runs needs, at a cold start's first request; `process.uptime()` reads the same kind of
 * clock (libuv's high-resolution time) from the process object, loaded already (docs/performance.md).
 */
export function monotonicMs(): number {
  return process.uptime() * 1000;
}
