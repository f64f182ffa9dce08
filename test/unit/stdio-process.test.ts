import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

/**
 * A fresh process, as a new Lambda container is: the logger's and the metrics' lines reach descriptors 1
 * and 2 (here a file and a pipe) in order, and node never makes `process.stdout` or `process.stderr` for
 * them (making one loads `internal/fs/sync_write_stream` for a file, `net` or `tty` for a pipe or terminal).
 */

const ROOT = resolve(__dirname, '../..');
let dir: string;
let bundle: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'stdio-process-'));
  const entry = join(dir, 'entry.ts');
  writeFileSync(
    entry,
    `import { logger } from ${JSON.stringify(join(ROOT, 'lib/http/log'))};
import { countMetric, flushMetrics } from ${JSON.stringify(join(ROOT, 'lib/metrics/index'))};
import { METRIC } from ${JSON.stringify(join(ROOT, 'lib/metrics/names'))};
logger.info('first', { n: 1 });
logger.error('second', { n: 2 });
logger.info('third ✓', { n: 3 });
countMetric(METRIC.rateLimitedRequests);
await flushMetrics();
const loaded = process.moduleLoadList.filter((name) => /sync_write_stream|NativeModule (net|tty)$/.test(name));
process.getBuiltinModule('node:fs').writeSync(3, JSON.stringify(loaded));
`,
  );
  bundle = join(dir, 'entry.mjs');
  buildSync({
    entryPoints: [entry],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('writes the functions’ lines to the descriptors without making the streams', async () => {
  const outFile = join(dir, 'stdout.txt');
  const out = openSync(outFile, 'w');
  const { LOG_LEVEL: _silent, POWERTOOLS_METRICS_DISABLED: _disabled, ...env } = process.env;
  const child = spawn(process.execPath, [bundle], {
    env: { ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', out, 'pipe', 'pipe'],
  });
  closeSync(out);
  let stderr = '';
  let report = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdio[3]?.on('data', (chunk: Buffer) => {
    report += chunk.toString('utf8');
  });
  const code = await new Promise<number | null>((done) => child.on('close', done));
  expect({ code, stderr: stderr.includes('"level":"ERROR"') ? '' : stderr }).toEqual({ code: 0, stderr: '' });

  const stdoutLines = readFileSync(outFile, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(stdoutLines.slice(0, 2).map((line) => [line.level, line.message, line.n])).toEqual([
    ['INFO', 'first', 1],
    ['INFO', 'third ✓', 3],
  ]);
  // The metrics' line (EMF) after the log lines.
  expect(stdoutLines[2]?._aws?.CloudWatchMetrics).toBeDefined();
  const stderrLines = stderr
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(stderrLines.map((line) => [line.level, line.message, line.n])).toEqual([['ERROR', 'second', 2]]);
  expect(JSON.parse(report)).toEqual([]);
});
