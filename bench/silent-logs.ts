/**
 * Imported first by bench scripts: the functions' logger takes its level when lib/http/log.ts is first
 * imported (and restores it on every invocation), so `silent` must be in the environment before that,
 * or in-process handlers would time their access lines too.
 */
// Metrics too: an in-process bench would print embedded-metric lines among its figures.
process.env.LOG_LEVEL = 'silent';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
