/**
 * Imported first by bench scripts: the functions' logger takes its level when lib/http/log.ts is first
 * imported (and restores it on every invocation), so `silent` must be in the environment before that,
 * or in-process handlers would time their access lines too.
 */
process.env.LOG_LEVEL = 'silent';
