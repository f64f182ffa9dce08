/**
 * Imported first by fuzz/run.ts: the functions' logger takes its level when lib/http/log.ts is first
 * imported (and restores it on every invocation), so the level must be in the environment before that.
 * `FUZZ_LOG_LEVEL=error` shows the functions' error logs; the default keeps 100,000 access lines away,
 * and the metric lines are off.
 */
process.env.LOG_LEVEL = process.env.FUZZ_LOG_LEVEL || 'silent';
// The functions' metric lines (one per failed authentication, per refusal...) would fill stderr with
// megabytes of JSON: the fuzzer reads responses, not metrics.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
